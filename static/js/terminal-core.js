// The page terminal's logic without the DOM: history (↑/↓), Tab completion, the shell's own
// commands (clear, history, help) and text made safe to show. Node's test runner drives it
// (tests/js/terminal.test.mjs); static/js/terminal.js is the panel around it.

export const PROMPT = "$ ";
export const MAX_HISTORY = 500;
export const LOCAL_COMMANDS = ["clear", "help", "history"];

// What webapp/terminal/kubectl.py runs (COMMANDS there), in kubectl's own order of help.
export const SUBCOMMANDS = ["get", "describe", "logs", "events", "exec", "delete", "scale", "rollout", "set", "label",
  "patch", "cordon", "uncordon", "drain", "version", "api-resources", "api-versions"];
export const ROLLOUT = ["history", "pause", "restart", "resume", "status", "undo"];

// The kinds `get`/`describe`/`delete` take, as kubectl names them in `api-resources`.
export const KINDS = ["pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs",
  "services", "endpointslices", "events", "nodes", "namespaces", "configmaps", "secrets",
  "persistentvolumeclaims", "persistentvolumes", "poddisruptionbudgets", "storageclasses", "all"];

// Which kind of the page's state each kind's names come from.
const ALIASES = {
  pods: "pods", pod: "pods", po: "pods",
  deployments: "deployments", deployment: "deployments", deploy: "deployments",
  replicasets: "replicasets", replicaset: "replicasets", rs: "replicasets",
  statefulsets: "statefulsets", statefulset: "statefulsets", sts: "statefulsets",
  jobs: "jobs", job: "jobs",
  nodes: "nodes", node: "nodes", no: "nodes",
};

const COMMON = ["--namespace", "-n", "--help"];
export const FLAGS = {
  get: ["--output", "-o", "--selector", "-l", "--field-selector", "--all-namespaces", "-A", "--watch", "-w",
    "--show-labels", "--no-headers"],
  describe: ["--selector", "-l", "--all-namespaces", "-A"],
  logs: ["--container", "-c", "--follow", "-f", "--previous", "-p", "--timestamps", "--tail"],
  events: ["--for", "--types", "--all-namespaces", "-A", "--no-headers"],
  exec: ["--container", "-c"],
  delete: ["--grace-period", "--now", "--force", "--selector", "-l"],
  scale: ["--replicas"],
  rollout: ["--to-revision", "--revision", "--watch"],
  set: [],
  label: ["--overwrite"],
  patch: ["--patch", "-p", "--type"],
  cordon: [],
  uncordon: [],
  drain: ["--ignore-daemonsets", "--delete-emptydir-data", "--force", "--grace-period", "--timeout",
    "--pod-selector", "--disable-eviction"],
  version: ["--output", "-o", "--client"],
  "api-resources": ["--output", "-o", "--namespaced", "--api-group"],
  "api-versions": [],
};
const OUTPUTS = { get: ["wide", "name", "yaml", "json", "jsonpath="], version: ["json", "yaml"], "api-resources": ["wide", "name"] };
const TAKES_VALUE = new Set(["-o", "--output", "-l", "--selector", "--field-selector", "-c", "--container",
  "-n", "--namespace", "--tail", "--grace-period", "--replicas", "--api-group", "--timeout", "--pod-selector",
  "--to-revision", "--revision", "--patch", "-p", "--type", "--for", "--types"]);

/** The history of typed lines, with bash's ↑/↓ walk (the line being typed is kept). */
export class History {
  constructor(lines = [], max = MAX_HISTORY) {
    this.max = max;
    this.lines = lines.slice(-max);
    this.at = this.lines.length; // lines.length: the line being typed
    this.draft = "";
  }

  add(line) {
    const text = line.trim();
    this.at = this.lines.length;
    this.draft = "";
    if (!text || this.lines[this.lines.length - 1] === line) return;
    this.lines.push(line);
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
    this.at = this.lines.length;
  }

  /** ↑ from `current` (what the input holds): the older line, or null at the oldest. */
  up(current) {
    if (this.at === 0) return null;
    if (this.at === this.lines.length) this.draft = current;
    this.at -= 1;
    return this.lines[this.at];
  }

  /** ↓: the newer line, the draft after the newest, null when already there. */
  down() {
    if (this.at >= this.lines.length) return null;
    this.at += 1;
    return this.at === this.lines.length ? this.draft : this.lines[this.at];
  }

  /** What bash's `history` prints: "%5d  %s" per line. */
  listing() {
    return this.lines.map((line, i) => `${String(i + 1).padStart(5)}  ${line}`).join("\n") + (this.lines.length ? "\n" : "");
  }
}

/** The words of `text` (up to the caret) and where the last one starts; quotes are kept
 * out of completion (a word inside quotes is completed as typed). */
function wordsOf(text) {
  const words = [];
  let start = 0;
  let current = "";
  let quote = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === " " || c === "\t") {
      if (current) words.push(current);
      current = "";
      start = i + 1;
    } else {
      current += c;
    }
  }
  return { words, last: current, start };
}

/** Names known to the page, by kind: {pods: [...], deployments: [...], containers: {pod: [...]}}. */
export function namesFrom(state) {
  const names = { pods: [], deployments: [], replicasets: [], statefulsets: [], jobs: [], nodes: [], containers: {} };
  const addPod = (pod) => {
    const name = pod?.metadata?.name;
    if (!name) return;
    if (!names.pods.includes(name)) names.pods.push(name);
    const spec = pod.spec || {};
    names.containers[name] = [...(spec.initContainers || []), ...(spec.containers || [])].map((c) => c.name);
  };
  const cluster = state?.cluster;
  if (cluster) {
    for (const pod of cluster.pods || []) if (!names.pods.includes(pod.name)) names.pods.push(pod.name);
    for (const [kind, key] of [["deployments", "deployments"], ["replicasets", "replicaSets"],
      ["statefulsets", "statefulSets"], ["jobs", "jobs"]]) {
      names[kind] = (cluster[key] || []).map((o) => o?.metadata?.name).filter(Boolean);
    }
  }
  addPod(state?.pod);
  names.nodes = (state?.nodes || []).map((n) => n?.metadata?.name ?? n?.name).filter(Boolean);
  return names;
}

function commonPrefix(options) {
  if (!options.length) return "";
  let prefix = options[0];
  for (const option of options.slice(1)) {
    while (!option.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

/** What may come at the word being typed. */
function candidates(words, last, names) {
  if (!words.length) return ["kubectl", ...LOCAL_COMMANDS];
  if (words[0] !== "kubectl") return [];
  const rest = words.slice(1);
  const previous = rest[rest.length - 1];
  const positional = [];
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i];
    if (word === "--") break;
    if (word.startsWith("-")) {
      if (TAKES_VALUE.has(word) && !word.includes("=")) i += 1;
      continue;
    }
    positional.push(word);
  }
  if (rest.includes("--")) return [];
  const sub = positional[0];
  if (!sub) return last.startsWith("-") ? COMMON : SUBCOMMANDS;
  if (!SUBCOMMANDS.includes(sub)) return [];
  if (previous === "-o" || previous === "--output") return OUTPUTS[sub] || [];
  if (previous === "-n" || previous === "--namespace") return ["default", "kube-system"];
  if (previous === "-c" || previous === "--container") {
    const pod = positional[1];
    return names.containers[pod] || [...new Set(Object.values(names.containers).flat())];
  }
  if (TAKES_VALUE.has(previous)) return [];
  if (last.startsWith("-")) return [...(FLAGS[sub] || []), ...COMMON];
  let args = positional.slice(1);
  if (sub === "rollout") {
    if (!args.length) return ROLLOUT;
    args = args.slice(1);
  }
  if (sub === "set") {
    if (!args.length) return ["image"];
    args = args.slice(1);
  }
  if (sub === "logs" || sub === "exec") return args.length ? [] : names.pods;
  if (["cordon", "uncordon", "drain"].includes(sub)) return args.length ? [] : names.nodes;
  if (!["get", "describe", "delete", "scale", "rollout", "set", "label", "patch"].includes(sub)) return [];
  if (last.includes("/")) {
    const [kind] = last.split("/");
    const key = ALIASES[kind];
    return key ? (names[key] || []).map((n) => `${kind}/${n}`) : [];
  }
  if (!args.length) {
    if (sub === "scale") return ["deployments", "replicasets", "statefulsets"];
    return sub === "rollout" ? ["deployments", "statefulsets", "daemonsets"] : KINDS;
  }
  if (args[0].includes("/") || args[0].includes(",")) return [];
  const key = ALIASES[args[0]];
  return key ? names[key] || [] : [];
}

/**
 * Tab at `caret` in `line`: {line, caret, options}. One match completes the word (and a
 * space after it); several extend it to what they share, and list them (`options`) when
 * that adds nothing, as bash's second Tab does.
 */
export function complete(line, caret, names) {
  const before = line.slice(0, caret);
  const after = line.slice(caret);
  const { words, last, start } = wordsOf(before);
  const matches = [...new Set(candidates(words, last, names))].filter((c) => c.startsWith(last)).sort();
  if (!matches.length) return { line, caret, options: [] };
  if (matches.length === 1) {
    const word = matches[0];
    const tail = word.endsWith("/") || word.endsWith("=") ? "" : " ";
    const text = before.slice(0, start) + word + (after.startsWith(" ") ? "" : tail);
    return { line: text + after, caret: text.length, options: [] };
  }
  const prefix = commonPrefix(matches);
  if (prefix.length > last.length) {
    const text = before.slice(0, start) + prefix;
    return { line: text + after, caret: text.length, options: [] };
  }
  return { line, caret, options: matches };
}

/**
 * Text from the server made safe to show: what it prints is shown, never obeyed. Control
 * characters (an ANSI escape in a log line or an object's name) are shown as `cat -v`
 * shows them (ESC as ^[, DEL as ^?), so a log can neither colour nor move the terminal.
 * A carriage return before a newline is dropped.
 */
export function visible(text) {
  return String(text ?? "")
    .replace(/\r\n/g, "\n")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => (c === "\u007f" ? "^?" : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`))
    .replace(/[\u0080-\u009f]/g, (c) => `M-^${String.fromCharCode(c.charCodeAt(0) - 128 + 64)}`);
}

/** What a typed line is: {kind: "empty" | "clear" | "history" | "help" | "remote"}. */
export function classify(line) {
  const words = line.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return "empty";
  if (words.length === 1 && LOCAL_COMMANDS.includes(words[0])) return words[0];
  if (words[0] === "history" && words.length === 2 && words[1] === "-c") return "history-clear";
  return "remote";
}

/**
 * The kubectl line the Delete button stands for (shown beside it): the same delete typed
 * into the terminal does the same thing. `grace`: the field's text ("" = the Pod's own).
 */
export function deleteCommand({ name, grace = "", force = false }) {
  if (!name) return "";
  const words = ["kubectl", "delete", "pod", name];
  if (String(grace).trim() !== "") words.push(`--grace-period=${Number(grace)}`);
  if (force) words.push("--force");
  return words.join(" ");
}
