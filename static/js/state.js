// Server messages -> view state. PURE: no DOM, no sockets, no clocks of its own, so every
// rule here runs in Node's test runner (tests/js/state.test.mjs). The browser never
// re-derives Kubernetes semantics: phase, STATUS, READY come from the server; this module
// only arranges them for the parts of the page.

/** Times in API objects are EPOCH + virtual seconds (docs/internals.md). */
export const EPOCH_MS = Date.UTC(2026, 0, 1);

export function toVirtual(timestamp) {
  if (!timestamp) return null;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? null : (ms - EPOCH_MS) / 1000;
}

export function initialState() {
  return {
    session: null,
    seq: -1,
    now: 0,
    clock: { playing: false, speed: 1, end: null },
    pod: null,
    lastPod: null,
    events: [],
    transitions: [],
    endpointSlices: [],
    nodes: [],
    cluster: null,
    views: { columns: null, watch: "", describe: "", events: "", yaml: "" },
    stage: null,
    scenario: null,
    actions: [],
    eventTimes: {},
    seeking: null, // {target, reached} while a far seek is computed in slices
  };
}

/**
 * Every moment an event happened that this tab has seen. An Event object aggregates its
 * repeats (count, firstTimestamp, lastTimestamp), so the times in between are only known
 * from the ticks that brought each new lastTimestamp. After a snapshot of the same session
 * (a seek back) the times up to `now` still hold: the run replays the same past.
 */
export function mergeEventTimes(known, events, { upTo = null } = {}) {
  const times = {};
  for (const e of events || []) {
    const name = e.metadata?.name;
    if (!name) continue;
    const first = toVirtual(e.firstTimestamp || e.eventTime || e.metadata?.creationTimestamp);
    const last = toVirtual(e.lastTimestamp || e.eventTime || e.firstTimestamp);
    let seen = (known?.[name] || []).filter((t) => upTo === null || t <= upTo);
    seen = [...new Set([...seen, first, last].filter((t) => t !== null))].sort((a, b) => a - b);
    // More moments than the event counts: another history used this name; keep what it says.
    if (seen.length > (e.count ?? 1)) seen = [...new Set([first, last].filter((t) => t !== null))];
    times[name] = seen;
  }
  return times;
}

/**
 * The transitions a snapshot or tick carries: its `transitions` list, or its
 * `transitionTable` `{columns, optional, rows}` (the form this page asks for at `join`,
 * a third smaller) expanded into the same records; an optional column's null is absent.
 */
export function transitionsOf(msg) {
  const table = msg.transitionTable;
  if (!table) return Array.isArray(msg.transitions) ? msg.transitions : [];
  const columns = table.columns || [];
  const optional = new Set(table.optional || []);
  return (table.rows || []).map((row) => {
    const tr = {};
    columns.forEach((column, i) => {
      if (row[i] !== null || !optional.has(column)) tr[column] = row[i];
    });
    return tr;
  });
}

/** A full snapshot replaces everything (after join, seek, apply). */
export function applySnapshot(prev, msg) {
  const sameSession = prev.session && prev.session === msg.session;
  const transitions = transitionsOf(msg);
  const pod = msg.pod ?? null;
  return {
    ...initialState(),
    session: msg.session ?? prev.session,
    seq: msg.seq ?? 0,
    now: msg.now ?? 0,
    clock: { ...initialState().clock, ...(msg.clock || {}) },
    pod,
    lastPod: pod ?? (sameSession ? prev.lastPod : null),
    events: msg.events || [],
    transitions,
    endpointSlices: msg.endpointSlices || [],
    nodes: msg.nodes || [],
    cluster: msg.cluster ?? null,
    views: { ...initialState().views, ...(msg.views || {}) },
    stage: msg.stage ?? lastStage(transitions),
    scenario: msg.scenario ?? (sameSession ? prev.scenario : null),
    actions: msg.actions || [],
    eventTimes: mergeEventTimes(sameSession ? prev.eventTimes : {}, msg.events, { upTo: msg.now ?? 0 }),
    seeking: msg.seeking ?? null,
    tasks: msg.tasks ?? null,
  };
}

/**
 * A tick carries what changed. Returns {state, resync}: resync is true when a sequence
 * number was skipped (or no snapshot was seen yet); the caller then re-joins and the
 * state is left as it was.
 */
export function applyTick(prev, tick) {
  if (prev.seq < 0 || tick.seq !== prev.seq + 1) return { state: prev, resync: true };
  const delta = tick.actionsDelta;
  // The action log changed: the first `keep` actions stay, `add` follows (a tick never
  // carries the whole log again). A page that lacks what it should keep re-joins.
  if (delta && !(delta.keep <= prev.actions.length)) return { state: prev, resync: true };
  const lastSeq = prev.transitions.length ? prev.transitions.at(-1).seq : -1;
  const fresh = transitionsOf(tick).filter((tr) => tr.seq === undefined || tr.seq > lastSeq);
  const transitions = extendRuns(fresh.length ? prev.transitions.concat(fresh) : prev.transitions, tick.runs);
  const has = (key) => Object.hasOwn(tick, key);
  const pod = has("pod") ? tick.pod : prev.pod;
  return {
    resync: false,
    state: {
      ...prev,
      seq: tick.seq,
      now: tick.now ?? prev.now,
      clock: has("clock") ? { ...prev.clock, ...tick.clock } : prev.clock,
      pod,
      lastPod: pod ?? prev.lastPod,
      events: has("events") ? tick.events : prev.events,
      eventTimes: has("events") ? mergeEventTimes(prev.eventTimes, tick.events) : prev.eventTimes,
      transitions,
      endpointSlices: has("endpointSlices") ? tick.endpointSlices : prev.endpointSlices,
      nodes: has("nodes") ? tick.nodes : prev.nodes,
      cluster: has("cluster") ? tick.cluster : prev.cluster,
      views: has("views") ? { ...prev.views, ...tick.views } : prev.views,
      stage: has("stage") ? tick.stage : fresh.length ? lastStage(transitions) : prev.stage,
      actions: delta ? prev.actions.slice(0, delta.keep).concat(delta.add) : has("actions") ? tick.actions : prev.actions,
      seeking: has("seeking") ? tick.seeking : prev.seeking,
      tasks: has("tasks") ? tick.tasks : prev.tasks,
    },
  };
}

/**
 * The page runs the virtual clock itself between messages: while playing, `now` moves at
 * `speed` virtual seconds per wall second from the last `now` the server sent (`base`),
 * never past the run's end. The server sends a message when something changes and resyncs
 * the clock at most once a second (webapp/sessions/session.py), so the clock and the grace
 * countdown move smoothly with no message between.
 */
export function localNow(base, elapsedMs) {
  const clock = base.clock || {};
  if (!clock.playing || !(elapsedMs > 0)) return base.now;
  const t = base.now + (elapsedMs / 1000) * (clock.speed ?? 1);
  return clock.end === null || clock.end === undefined ? t : Math.min(t, clock.end);
}

/**
 * The `now` to show when a message arrives while the page's own clock ran: the server's,
 * unless the page is ahead of it by less than `slack` virtual seconds with the same clock
 * (the message spent that long on the wire), so the clock never steps back by a jitter.
 */
export function settleNow(shown, server, sameClock, slack) {
  if (sameClock && shown > server && shown - server < slack) return shown;
  return server;
}

/**
 * A probe run the tab already has grew: the tick names it by seq with its new `repeat`
 * ({every, count, until}: `count` identical probe runs, `every` seconds apart, the last at
 * `until`; docs/internals.md). Returns a new array only when something changed.
 */
export function extendRuns(transitions, runs) {
  if (!Array.isArray(runs) || !runs.length) return transitions;
  let out = transitions;
  for (const run of runs) {
    const index = out[run.seq]?.seq === run.seq ? run.seq : out.findIndex((tr) => tr.seq === run.seq);
    if (index < 0 || !run.repeat) continue;
    if (out === transitions) out = transitions.slice();
    out[index] = { ...out[index], repeat: run.repeat };
  }
  return out;
}

function lastStage(transitions) {
  const last = transitions.at(-1);
  return last ? { stage: last.stage, step: last.step, container: last.container ?? null } : null;
}

// ---------------------------------------------------------------- containers

/** Containers in start order: init (and sidecars, which are init containers that keep running), then app. */
export function containersOf(pod) {
  const spec = pod?.spec || {};
  const inits = (spec.initContainers || []).map((c) => ({
    name: c.name,
    kind: c.restartPolicy === "Always" ? "sidecar" : "init",
    spec: c,
  }));
  const apps = (spec.containers || []).map((c) => ({ name: c.name, kind: "app", spec: c }));
  return inits.concat(apps);
}

/** The containers of the Pod, or (once it is gone and no spec was seen) of the transitions. */
export function containersFrom(state) {
  const pod = state.pod || state.lastPod;
  if (pod) return containersOf(pod);
  const found = new Map();
  for (const tr of state.transitions) {
    if (!tr.container || found.has(tr.container)) continue;
    found.set(tr.container, { name: tr.container, kind: tr.stage === 2 ? "init" : "app", spec: null });
  }
  const all = [...found.values()];
  return [...all.filter((c) => c.kind !== "app"), ...all.filter((c) => c.kind === "app")];
}

export const PROBES = ["liveness", "readiness", "startup"];

export function probesOf(containerSpec) {
  return PROBES.filter((p) => containerSpec?.[`${p}Probe`]);
}

export function containerStatusView(status) {
  const [stateName, detail] = Object.entries(status?.state || {})[0] || [null, {}];
  const [lastName, lastDetail] = Object.entries(status?.lastState || {})[0] || [null, {}];
  return {
    state: stateName,
    reason: detail?.reason ?? null,
    message: detail?.message ?? null,
    exitCode: detail?.exitCode ?? null,
    restarts: status?.restartCount ?? 0,
    ready: Boolean(status?.ready),
    started: status?.started ?? null,
    last: lastName
      ? { state: lastName, reason: lastDetail?.reason ?? null, exitCode: lastDetail?.exitCode ?? null }
      : null,
  };
}

function statusesByName(pod) {
  const all = [...(pod?.status?.initContainerStatuses || []), ...(pod?.status?.containerStatuses || [])];
  return new Map(all.map((s) => [s.name, s]));
}

// ---------------------------------------------------------------- the status panel

const CONDITION_ORDER = ["PodScheduled", "PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready"];

export function statusModel(state) {
  const pod = state.pod;
  const columns = state.views?.columns || null;
  if (!pod) return { present: false, surprises: [], reasons: [], containers: [], conditions: [] };
  const phase = pod.status?.phase ?? null;
  const kubectlStatus = columns?.STATUS ?? null;
  const byName = statusesByName(pod);
  const containers = containersOf(pod).map((c) => ({
    name: c.name,
    kind: c.kind,
    probes: probesOf(c.spec),
    ...containerStatusView(byName.get(c.name)),
  }));
  const conditions = [...(pod.status?.conditions || [])]
    .sort((a, b) => rank(CONDITION_ORDER, a.type) - rank(CONDITION_ORDER, b.type))
    .map((c) => ({
      type: c.type,
      status: c.status,
      since: toVirtual(c.lastTransitionTime),
      reason: c.reason ?? null,
      message: c.message ?? null,
    }));
  const reasons = unique([
    kubectlStatus,
    ...containers.flatMap((c) => [c.reason, c.last?.reason]),
    ...conditions.map((c) => c.reason),
    pod.metadata?.deletionTimestamp ? "Terminating" : null,
    phase,
  ]);
  return {
    present: true,
    name: pod.metadata?.name ?? "",
    phase,
    kubectlStatus,
    ready: columns?.READY ?? null,
    restarts: columns?.RESTARTS ?? null,
    node: pod.spec?.nodeName ?? null,
    conditions,
    containers,
    reasons,
    surprises: surprises(state, phase, kubectlStatus, containers),
  };
}

function surprises(state, phase, kubectlStatus, containers) {
  const found = [];
  const crashLooping =
    (kubectlStatus || "").includes("CrashLoopBackOff") ||
    containers.some((c) => c.reason === "CrashLoopBackOff");
  if (phase === "Running" && crashLooping) found.push({ key: "surprise.crashloop" });
  const nodeName = state.pod?.spec?.nodeName;
  const node = (state.nodes || []).find((n) => n.metadata?.name === nodeName);
  const nodeReady = node?.status?.conditions?.find((c) => c.type === "Ready")?.status;
  if (node && nodeReady && nodeReady !== "True" && phase !== "Unknown") {
    found.push({ key: "surprise.nodeLost" });
  }
  if (state.pod?.metadata?.deletionTimestamp) found.push({ key: "surprise.terminating", params: { phase } });
  if (!found.length && kubectlStatus && phase && kubectlStatus !== phase) {
    found.push({ key: "surprise.statusNotPhase", params: { status: kubectlStatus, phase } });
  }
  return found;
}

// ---------------------------------------------------------------- the five-stage diagram

export const STAGE_STEPS = {
  1: ["submitted", "scheduled", "kubelet", "volumes", "pull"],
  3: ["start", "postStart", "startupProbe"],
  4: ["running", "liveness", "readiness"],
  5: ["endpoints", "preStop", "sigterm", "grace", "sigkill", "removed"],
};
// Steps of the vocabulary that have no box of their own light up the box they belong to.
const STEP_BOX = { scheduling: "scheduled", exit: "running", backoff: "running", sidecar: "init" };

const BAD_REASONS = new Set([
  "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName", "CrashLoopBackOff",
  "CreateContainerConfigError", "CreateContainerError", "RunContainerError", "StartError",
  "PostStartHookError", "OOMKilled", "Error", "ContainerCannotRun", "ContainerStatusUnknown",
  "Unschedulable", "FailedScheduling",
]);

export function isFailure(tr) {
  const after = tr.after;
  if (tr.step === "backoff") return true;
  if ((tr.field === "started" || tr.field === "ready") && tr.container && after === false) return true;
  if (typeof tr.field === "string" && tr.field.startsWith("health.")) return false; // a scripted input, not a result
  if (tr.field === "conditions.PodScheduled" && after === "False") return true; // FailedScheduling
  if (typeof after === "string") return after === "failure" || after === "failed" || after === "Failed" || BAD_REASONS.has(after);
  if (after && typeof after === "object") {
    if (BAD_REASONS.has(after.reason)) return true;
    if (after.state === "terminated" && after.exitCode) return true;
    if (after.result === "failure" || after.fails === true || after.failed === true) return true;
  }
  return false;
}

/** Which box of the diagram a transition (or the server's `stage`) lights up. */
export function boxKey(stage, step, container) {
  const box = STEP_BOX[step] || step;
  if (stage === 2) return `2:init:${container ?? ""}`;
  if (stage === 3 || stage === 4) return `${stage}:${box}:${container ?? ""}`;
  if (step === "outcome") return "outcome";
  return `${stage}:${box}`;
}

function defined(step, spec) {
  switch (step) {
    case "postStart":
      return Boolean(spec?.lifecycle?.postStart);
    case "preStop":
      return Boolean(spec?.lifecycle?.preStop);
    case "startupProbe":
      return Boolean(spec?.startupProbe);
    case "liveness":
      return Boolean(spec?.livenessProbe);
    case "readiness":
      return Boolean(spec?.readinessProbe);
    default:
      return true;
  }
}

// What moves the diagram's "now" marker. A transition that only restates what another one
// already said never does on its own: the Pod conditions, phase and IP the kubelet computes
// from its containers and sandbox, a container's ready / started / restartCount flags, the
// EndpointSlice entry that follows readiness, and objects other than the Pod and its node
// (a ConfigMap applied). PodScheduled is the scheduler's own verdict, so it moves the marker.
const ECHO_POD_FIELDS = new Set([
  "conditions.PodReadyToStartContainers", "conditions.Initialized", "conditions.ContainersReady",
  "conditions.Ready", "phase", "podIP",
]);
const ECHO_CONTAINER_FIELDS = new Set(["ready", "started", "restartCount"]);
// Transitions that start something which runs on until another transition of the same
// field says how it ended: the box shows it under way, never done, meanwhile.
const UNDER_WAY = { image: "pulling", sandbox: "creating", "hook.postStart": "running", "hook.preStop": "running" };

function kindOf(tr) {
  const object = String(tr.object ?? "");
  return object.slice(0, Math.max(0, object.indexOf("/")));
}

export function movesMarker(tr) {
  if (tr.step === "outcome" || tr.step === "removed") return true;
  switch (kindOf(tr)) {
    case "Pod":
      return tr.step === "submitted" || !ECHO_POD_FIELDS.has(tr.field);
    case "Container":
      return !ECHO_CONTAINER_FIELDS.has(tr.field);
    case "EndpointSlice":
      return tr.stage === 5;
    case "Node":
      return true;
    default:
      return false;
  }
}

/** The words a box or the caption adds to a step: a container's reason and exit code, the scheduler's reason. */
function detailOf(tr, pod) {
  const after = tr?.after;
  if (!tr) return null;
  if (tr.field === "conditions.PodScheduled" && after === "False") {
    return (pod?.status?.conditions || []).find((c) => c.type === "PodScheduled")?.reason || "Unschedulable";
  }
  if (after && typeof after === "object" && after.reason) {
    return `${after.reason}${after.exitCode !== null && after.exitCode !== undefined ? ` (${after.exitCode})` : ""}`;
  }
  return null;
}

/** The Pod's node as the Node transitions tell it: null when nothing ever happened to it. */
function nodeOf(state) {
  const name = (state.pod || state.lastPod)?.spec?.nodeName ??
    state.transitions.findLast((tr) => tr.field === "spec.nodeName")?.after ?? null;
  if (!name) return null;
  const own = state.transitions.filter((tr) => tr.object === `Node/${name}`);
  if (!own.length) return null;
  let down = false;
  let since = null;
  let ready = "True";
  let readySince = null;
  for (const tr of own) {
    if (tr.field === "kubelet") {
      down = tr.after === "stopped";
      since = down ? tr.t : null;
    }
    if (tr.field === "conditions.Ready") {
      ready = String(tr.after);
      readySince = tr.t;
    }
  }
  return { name, down: down || ready !== "True", since, ready, readySince };
}

/**
 * What the kubelet is doing with each container, as the engine's transitions report it:
 * the newest instance (how many were started and how many exited, so a container the
 * runtime started and lost within one sync counts right), its exit code, the reason the
 * kubelet gives while it waits, and the kill under way for that instance (the preStop
 * hook, the stop signal sent, SIGKILL). A new instance starts with no kill.
 */
export function kubeletContainers(transitions) {
  const found = new Map();
  const get = (name) => {
    if (!found.has(name)) {
      found.set(name, { name, starts: 0, exits: 0, running: false, exitCode: null, waiting: null,
        preStop: null, signal: null, signalAt: null, sigkill: false, exitedAt: null, startedAt: null,
        runtimeSeen: false, apiStarts: 0, apiState: null, postStart: null, probed: new Map() });
    }
    return found.get(name);
  };
  for (const tr of transitions) {
    if (!tr.container || !String(tr.object ?? "").startsWith("Container/")) continue;
    const c = get(tr.container);
    if (tr.field === "runtime" && tr.after === "started") {
      c.starts += 1;
      c.startedAt = tr.t;
      if (c.starts > c.exits) Object.assign(c, { probed: new Map(), postStart: null, preStop: null, signal: null, signalAt: null, sigkill: false, exitCode: null, waiting: null });
    } else if (tr.field === "runtime" && tr.after === "exited") {
      c.exits += 1;
      c.exitedAt = tr.t;
      const code = /code (\d+)/.exec(tr.cause ?? "");
      if (code) c.exitCode = Number(code[1]);
    } else if (tr.field === "state" && tr.after && typeof tr.after === "object") {
      if (tr.after.state === "terminated" && tr.after.exitCode !== null && tr.after.exitCode !== undefined) c.exitCode = tr.after.exitCode;
      c.waiting = tr.after.state === "waiting" ? tr.after.reason ?? null : null;
      c.apiState = tr.after.state;
      if (tr.after.state === "running") c.apiStarts += 1;
    } else if (tr.field === "hook.preStop") {
      c.preStop = tr.after;
    } else if (tr.field === "hook.postStart") {
      c.postStart = tr.after;
    } else if (typeof tr.field === "string" && tr.field.startsWith("probe.")) {
      c.probed.set(tr.field.slice(6), tr.after);
    } else if (tr.field === "signal") {
      if (tr.after === "SIGKILL") {
        c.sigkill = true;
        if (c.signal === null) c.signalAt = tr.t; // SIGKILL at once: no stop signal came first
      } else if (tr.after !== "failed") {
        c.signal = tr.after;
        c.signalAt = tr.t;
      }
    }
    if (tr.field === "runtime") c.runtimeSeen = true;
  }
  for (const c of found.values()) {
    // Without the runtime's own reports (a recording of the API status only), the
    // container statuses tell the same, one sync later.
    if (!c.runtimeSeen) {
      c.starts = c.apiStarts;
      c.exits = c.apiState === "running" ? c.apiStarts - 1 : c.apiStarts;
      if (c.apiState === "terminated" && !c.apiStarts) c.exits = 1;
    }
    c.running = c.starts > c.exits;
  }
  return found;
}

const WAIT_FAILURES = new Set(["CrashLoopBackOff", "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull",
  "InvalidImageName", "CreateContainerConfigError", "CreateContainerError", "RunContainerError", "PostStartHookError"]);

/**
 * The state of each diagram step that follows a container's life, from what the kubelet is
 * doing (`kubeletContainers`): an init container not yet started is "pending", a running
 * one "active" (or "current" when the marker is on it), one that exited 0 "done", one that
 * failed "failed"; stage 4's Running shows the newest instance; the kill sequence of stage 5
 * shows the stop signal sent, the grace period running until the process exits or SIGKILL
 * comes, and SIGKILL. `deleting`: the Pod is being deleted (stage 5 is the Pod's own
 * termination); otherwise stage 5 shows a container kill under way (a failed liveness or
 * startup probe), and nothing once a new instance runs. Returns box key -> state (only for
 * the boxes it decides) and the stage-5 details (the signal's name).
 */
export function kubeletStepStates(transitions, containers, { deleting = false } = {}) {
  const kubelet = kubeletContainers(transitions);
  const states = new Map();
  const details = new Map();
  const blank = { starts: 0, exits: 0, running: false, exitCode: null, waiting: null, signal: null, sigkill: false, preStop: null };
  for (const { name, kind } of containers) {
    const c = kubelet.get(name) ?? blank;
    const failedNow = WAIT_FAILURES.has(c.waiting) || (!c.running && c.exits > 0 && c.exitCode !== 0 && c.exitCode !== null);
    if (kind === "init" || kind === "sidecar") {
      let word = "pending";
      if (failedNow) word = "failed";
      else if (c.running) word = kind === "sidecar" ? "done" : "active";
      else if (c.exits > 0 && c.exitCode === 0) word = "done";
      states.set(boxKey(2, "init", name), word);
      continue;
    }
    let running = "pending";
    // startContainer ends with postStart: until it returns, the container is not Running.
    if (c.running) running = c.postStart === "running" ? "pending" : "done";
    // A container stopped because its Pod is deleted ran to that end: its box is done, unless
    // its exit itself failed (137 after SIGKILL, 143 from a process that does not catch
    // SIGTERM); one the kubelet killed for a failed probe failed.
    else if (c.exits > 0) running = failedNow || (!deleting && (c.sigkill || c.signal)) ? "failed" : "done";
    else if (failedNow) running = "failed";
    states.set(boxKey(4, "running", name), running);
    // A probe's box shows the newest instance's last result; before its first run on a
    // new instance, the old instance's results are not its own.
    if (c.running) {
      for (const [probe, key] of [["liveness", boxKey(4, "liveness", name)], ["readiness", boxKey(4, "readiness", name)], ["startup", boxKey(3, "startupProbe", name)]]) {
        const result = c.probed.get(probe);
        if (result === "failure") states.set(key, "failed");
        else if (result === "success") states.set(key, "done");
        else if (c.starts > 1 && result === undefined) states.set(key, "pending");
      }
    }
  }
  if (!deleting) {
    // A container kill the kubelet is doing (or did to the instance still there).
    const apps = containers.filter((c) => c.kind === "app").map((c) => kubelet.get(c.name)).filter(Boolean);
    const killed = apps.filter((c) => c.signal !== null || c.sigkill || c.preStop !== null);
    for (const step of ["preStop", "sigterm", "grace", "sigkill"]) states.set(`5:${step}`, "pending");
    if (killed.length) {
      const hooks = killed.map((c) => c.preStop).filter((h) => h !== null);
      if (hooks.includes("running")) states.set("5:preStop", "active");
      else if (hooks.some((h) => h === "failed" || h === "timedOut" || h === "interrupted")) states.set("5:preStop", "failed");
      else if (hooks.length) states.set("5:preStop", "done");
      const signalled = killed.filter((c) => c.signal !== null);
      if (signalled.length) {
        states.set("5:sigterm", "done");
        details.set("5:sigterm", [...new Set(signalled.map((c) => c.signal))].join(", "));
        states.set("5:grace", signalled.some((c) => c.running && !c.sigkill) ? "active" : "done");
      } else if (killed.some((c) => c.sigkill)) {
        states.set("5:sigterm", "skipped"); // SIGKILL at once: no stop signal, no grace
        states.set("5:grace", "skipped");
      }
      if (killed.some((c) => c.sigkill)) states.set("5:sigkill", "done");
      else if (signalled.length && signalled.every((c) => !c.running)) states.set("5:sigkill", "skipped");
    }
  }
  return { states, details, kubelet };
}

export function diagramModel(state) {
  const containers = containersFrom(state);
  const kinds = new Map(containers.map((c) => [c.name, c.kind]));
  const laneNames = containers.filter((c) => c.kind === "app").map((c) => c.name);
  for (const tr of state.transitions) {
    // (a Pod condition in stage 4 may name a sidecar: sidecars keep their box in stage 2)
    const app = (kinds.get(tr.container) ?? "app") === "app";
    if ((tr.stage === 3 || tr.stage === 4) && tr.container && app && !laneNames.includes(tr.container)) {
      laneNames.push(tr.container);
    }
  }
  const specOf = new Map(containers.map((c) => [c.name, c.spec]));
  // With no spec left (the Pod is gone, no snapshot had it) a step is defined if it happened.
  const isDefinedFor = (step, name) => {
    if (!name) return true;
    const spec = specOf.get(name);
    if (spec) return defined(step, spec);
    return step === "start" || step === "running" ||
      state.transitions.some((tr) => tr.container === name && (tr.step === step || tr.field === `probe.${step}`));
  };
  const hasService = (state.endpointSlices || []).length > 0;
  const anySpec = (step) => containers.some((c) => c.kind !== "init" && defined(step, c.spec));
  const layout = [1, 2, 3, 4, 5].map((stage) => {
    if (stage === 2) return [containers.filter((c) => c.kind !== "app").map((c) => ({ stage, step: "init", container: c.name, kind: c.kind, isDefined: true }))];
    if (stage === 3 || stage === 4) {
      return (laneNames.length ? laneNames : [null]).map((name) =>
        STAGE_STEPS[stage].map((step) => ({ stage, step, container: name, isDefined: isDefinedFor(step, name) })));
    }
    // Stage 5 in two rows, as the article draws it: endpoints, preStop, SIGTERM, then
    // (grace period over) SIGKILL; stage 1 in one.
    const rows = stage === 5 ? [STAGE_STEPS[5].slice(0, 3), STAGE_STEPS[5].slice(3)] : [STAGE_STEPS[stage]];
    return rows.map((row) => row.map((step) => {
      if (step === "preStop") return { stage, step, container: null, isDefined: anySpec("preStop") };
      // Only a Service's EndpointSlice can drop the Pod: with no Service there is nothing to leave.
      if (step === "endpoints" && !hasService) return { stage, step, container: null, isDefined: false, why: "noService" };
      return { stage, step, container: null, isDefined: true };
    }));
  });
  const defs = new Map(layout.flat(2).map((b) => [boxKey(b.stage, b.step, b.container), b.isDefined]));
  // The engine names the container behind a transition (a Pod condition too); one it leaves
  // unnamed lights a box of stages 2-4 only when that stage has a single container.
  const onlyContainer = layout.map((lanes) => {
    const names = new Set(lanes.flat().map((b) => b.container));
    return names.size === 1 ? [...names][0] : null;
  });
  /** The box a transition belongs to; a step the container does not define (a readiness
   * change of a container with no readiness probe) belongs to its lane's first box. */
  const keyOf = (tr, container) => {
    const key = boxKey(tr.stage, tr.step, container);
    if ((tr.stage === 3 || tr.stage === 4) && defs.get(key) === false) return boxKey(tr.stage, tr.stage === 4 ? "running" : "start", container);
    return key;
  };

  const seen = new Map(); // box key -> {failed, tr, open: Set of activities under way}
  const stagesSeen = new Set();
  const loops = { pull: { count: 0, seconds: null, failed: null }, init: { count: 0, seconds: null, container: null }, restart: new Map() };
  let outcome = null;
  let current = null; // {stage, step, container, key, failed, detail, node?}
  let finishedAt = -1; // index of the transition that gave the Pod its final phase
  let removedAt = -1; // index of the transition that took the Pod out of the API
  let lastMoving = null; // the last transition that moves the "now" marker
  state.transitions.forEach((tr, index) => {
    // The engine files what follows a final phase (the sandbox torn down) under "outcome".
    if (tr.step === "outcome" && /succeeded|failed/i.test(outcomeOf(tr.after) ?? "")) finishedAt = index;
    if (tr.step === "outcome" && outcomeOf(tr.after) === "removed") removedAt = index;
    const moves = movesMarker(tr);
    if (moves) {
      lastMoving = tr;
      stagesSeen.add(tr.stage);
    }
    if (tr.field === "conditions.Initialized" && tr.after === "True") stagesSeen.add(2);
    const container = tr.container ?? (tr.stage >= 2 && tr.stage <= 4 ? onlyContainer[tr.stage - 1] : null);
    const key = keyOf(tr, container);
    const failed = isFailure(tr) && !(tr.stage === 5 && tr.field === "state");
    if (defs.has(key) || tr.step === "outcome") {
      // A container killed during termination is the expected end of stage 5, not a failure.
      // A Pod condition or endpoint named after a container echoes that container's own
      // transition: it leaves the box's done / failed alone.
      const own = tr.container && String(tr.object).startsWith("Container/");
      if (own || ((tr.stage === 1 || tr.stage === 5) && moves)) {
        const open = new Set(seen.get(key)?.open);
        const activity = `${tr.field}:${tr.container ?? ""}`;
        if (UNDER_WAY[tr.field] !== undefined) {
          if (tr.after === UNDER_WAY[tr.field]) open.add(activity);
          else open.delete(activity);
        }
        seen.set(key, { failed, tr, open });
      }
    }
    if (moves && kindOf(tr) === "Node") {
      // The node's news: the Pod's containers stay where they were, the caption says it.
      current = { ...(current || { stage: tr.stage, key: null, container: null }), step: "node", node: tr.object.slice(5), failed: false, detail: null };
    } else if (moves && defs.has(key)) {
      const scheduling = tr.field === "conditions.PodScheduled" && tr.after === "False";
      current = {
        stage: tr.stage, step: scheduling ? "scheduling" : tr.step, box: STEP_BOX[tr.step] || tr.step,
        container: tr.stage >= 2 && tr.stage <= 4 ? container ?? null : tr.container ?? null,
        key, failed: failed || Boolean(seen.get(key)?.failed && seen.get(key).tr === tr), detail: detailOf(tr, state.pod || state.lastPod),
      };
    } else if (moves && tr.step === "outcome") {
      current = { stage: tr.stage, step: "outcome", container: null, key: null, failed: false, detail: null };
    }
    // (A step with no box in its stage, such as a readiness probe that keeps running while
    // the Pod terminates, leaves the marker where it is.)
    if (tr.step === "pull" && tr.field === "image") {
      // A failed pull starts the image back-off; the next pull ends it (a loop).
      if (tr.after === "failed") loops.pull.failed = { seconds: tr.seconds ?? null };
      if (tr.after === "pulling" && loops.pull.failed) {
        loops.pull.count += 1;
        loops.pull.seconds = loops.pull.failed.seconds;
        loops.pull.failed = null;
      }
    }
    if (tr.step === "pull" && tr.after?.reason === "ImagePullBackOff" && !loops.pull.count) loops.pull.count = 1;
    const kind = kinds.get(tr.container);
    const restartLoop = kind === "init" ? loops.init : tr.container ? loops.restart.get(tr.container) || { count: 0, seconds: null } : null;
    if (restartLoop && tr.field === "restartCount" && typeof tr.after === "number") restartLoop.count = tr.after;
    if (restartLoop && tr.after?.reason === "CrashLoopBackOff") restartLoop.seconds = tr.seconds ?? restartLoop.seconds;
    if (kind === "init" && restartLoop.count) loops.init.container = tr.container;
    else if (restartLoop && kind !== "init" && (restartLoop.count || restartLoop.seconds !== null)) loops.restart.set(tr.container, restartLoop);
    if (tr.step === "outcome") outcome = outcomeOf(tr.after) ?? outcome;
  });
  // A finished Pod (its last moving transition is the outcome) and a Pod removed from the
  // API (whatever the kubelet still does on the node afterwards) are not "in" any stage.
  const finished = (lastMoving?.step === "outcome" && finishedAt >= 0) || removedAt >= 0;
  if (finished) current = { stage: null, step: "outcome", container: null, key: null, failed: false, detail: null };
  const currentStage = current?.stage ?? null;
  const currentKey = currentStage ? current.key ?? null : null;
  const node = nodeOf(state);
  const countdown = graceCountdown(state.pod, state.now);
  const boxState = (key, isDefined, stage) => {
    const hit = seen.get(key);
    if (key === currentKey && stage === currentStage) return hit?.failed ? "current failed" : "current";
    if (!isDefined) return "undefined";
    if (hit) return hit.failed ? "failed" : hit.open.size ? "active" : "done";
    if (currentStage && stage < currentStage && stage !== 2) return "skipped";
    return "pending";
  };
  // A Pod that finished by itself (Succeeded / Failed, never deleted while running) has no
  // process left to stop: preStop, SIGTERM, the grace period and SIGKILL cannot happen.
  const stoppedItself = finishedAt >= 0 &&
    !state.transitions.slice(0, finishedAt).some((tr) => tr.stage === 5 && tr.step !== "outcome");
  const NO_PROCESS = new Set(["preStop", "sigterm", "grace", "sigkill"]);
  const gone = outcome === "removed" || (!state.pod && Boolean(state.lastPod));
  const deleting = gone || Boolean(state.pod?.metadata?.deletionTimestamp) ||
    state.transitions.some((tr) => tr.field === "deletionTimestamp" && String(tr.object ?? "").startsWith("Pod/"));
  const kube = kubeletStepStates(state.transitions, containers, { deleting });
  const pod = state.pod || state.lastPod;
  const stages = layout.map((lanes, i) => {
    const stage = i + 1;
    return {
      stage,
      lanes: lanes.map((lane) => lane.map((b) => {
        const key = boxKey(b.stage, b.step, b.container);
        if (stoppedItself && NO_PROCESS.has(b.step) && !seen.has(key) && key !== currentKey) {
          return { key, stage: b.stage, step: b.step, container: null, kind: b.kind, why: "finished", state: "undefined", tr: null, detail: null };
        }
        let boxWord = boxState(key, b.isDefined, stage);
        // Steps that follow a container's life say what the kubelet is doing with it now.
        const decided = b.isDefined ? kube.states.get(key) : undefined;
        if (decided !== undefined && !(decided === "pending" && boxWord === "skipped")) {
          if (key === currentKey && stage === currentStage) boxWord = decided === "failed" ? "current failed" : "current";
          else boxWord = decided;
        }
        // A Pod of a cluster run that was behind a Service left its endpoints when deleted
        // (the EndpointSlice controller's change is the cluster's, not in the Pod's history).
        if (b.step === "endpoints" && deleting && state.cluster?.focusWasEndpoint && ["pending", "skipped"].includes(boxWord)) boxWord = "done";
        // Removed from the API: a stage-5 step that did not happen never will (no SIGKILL needed).
        if (gone && stage === 5 && boxWord === "pending") boxWord = "skipped";
        // The grace period runs while its countdown does.
        if (b.step === "grace" && boxWord === "done" && countdown?.remaining > 0 && state.pod) boxWord = "active";
        const tr = seen.get(key)?.tr ?? null;
        let detail = kube.details.get(key) ?? detailOf(tr, pod);
        let why = b.why ?? null;
        // The kubelet that took the Pod over is gone with its node.
        if (key === "1:kubelet" && node?.down && !gone) {
          boxWord = "failed";
          why = "nodeDown";
          detail = null;
        }
        return { key, stage: b.stage, step: b.step, container: b.container, kind: b.kind, why, state: boxWord, tr, detail };
      })),
      state: stage === currentStage ? "current" : stagesSeen.has(stage) ? "visited" : "pending",
    };
  });
  if (!outcome) {
    const phase = state.pod?.status?.phase;
    if (!state.pod && state.lastPod) outcome = "removed";
    else if (phase === "Succeeded" || phase === "Failed") outcome = phase;
  }
  return {
    current,
    currentKey,
    currentBox: currentKey ? { stage: current.stage, step: current.box, container: current.container } : null,
    stages,
    lanes: laneNames,
    loops: {
      pull: loops.pull.count ? { count: loops.pull.count, seconds: loops.pull.seconds } : null,
      init: loops.init.count ? { count: loops.init.count, seconds: loops.init.seconds, container: loops.init.container } : null,
      // The back-off is shown only while the kubelet is backing off (CrashLoopBackOff now),
      // with the restart it waits for; otherwise the restarts so far.
      restart: [...loops.restart].map(([container, loop]) => {
        const k = kube.kubelet.get(container);
        const backingOff = Boolean(k && !k.running && k.waiting === "CrashLoopBackOff");
        return { container, count: loop.count, seconds: backingOff ? loop.seconds : null, next: backingOff ? loop.count + 1 : null };
      }),
    },
    countdown,
    node,
    outcome,
  };
}

function outcomeOf(after) {
  const text = typeof after === "string" ? after : after?.outcome ?? after?.phase ?? null;
  if (!text) return null;
  if (/succeeded/i.test(text)) return "Succeeded";
  if (/failed/i.test(text)) return "Failed";
  if (/removed|deleted/i.test(text)) return "removed";
  return null;
}

/** Seconds left of the grace period: deletionTimestamp is the deadline (deletion time + grace). */
export function graceCountdown(pod, now) {
  const deadline = toVirtual(pod?.metadata?.deletionTimestamp);
  if (deadline === null) return null;
  const grace = pod.metadata.deletionGracePeriodSeconds ?? null;
  const remaining = Math.max(0, deadline - now);
  return { deadline, grace, remaining, started: grace === null ? null : deadline - grace };
}

// ---------------------------------------------------------------- the timeline

export function timelineModel(state) {
  const containers = containersFrom(state);
  const removedAt = state.pod ? null : state.transitions.findLast((tr) => tr.step === "removed")?.t ?? null;
  const stop = removedAt ?? state.now;
  const lanes = containers.map((c) => {
    const segments = [];
    for (const tr of state.transitions) {
      if (tr.container !== c.name || tr.field !== "state" || !tr.after) continue;
      const last = segments.at(-1);
      if (last) last.to = tr.t;
      segments.push({ from: tr.t, to: stop, state: tr.after.state, reason: tr.after.reason ?? null, exitCode: tr.after.exitCode ?? null });
    }
    return { container: c.name, kind: c.kind, segments: segments.filter((s) => s.to > s.from || s.to === stop) };
  });
  // A run of identical results is one mark from its first run to its last (`until`).
  const probes = state.transitions
    .filter((tr) => typeof tr.field === "string" && tr.field.startsWith("probe."))
    .map((tr) => ({ t: tr.t, until: tr.repeat?.until ?? tr.t, count: tr.repeat?.count ?? 1,
      container: tr.container, probe: tr.field.slice(6), result: tr.after }));
  const events = (state.events || [])
    .map((e) => {
      const t = toVirtual(e.lastTimestamp || e.eventTime || e.firstTimestamp) ?? toVirtual(e.metadata?.creationTimestamp);
      const first = toVirtual(e.firstTimestamp) ?? t;
      // A marker at every moment known (see mergeEventTimes), at least the first and the last.
      const times = state.eventTimes?.[e.metadata?.name] ?? [...new Set([first, t].filter((x) => x !== null))];
      return { t, first, times, type: e.type, reason: e.reason, message: e.message, count: e.count ?? 1 };
    })
    .filter((e) => e.t !== null)
    .sort((a, b) => a.t - b.t);
  let lastT = state.now;
  for (const tr of state.transitions) lastT = Math.max(lastT, tr.repeat?.until ?? tr.t);
  for (const e of events) lastT = Math.max(lastT, e.t);
  return { start: 0, end: niceEnd(lastT * 1.05), now: state.now, lanes, probes, events };
}

/** A round end for the time axis that changes rarely while the clock runs. */
export function niceEnd(seconds) {
  for (const end of [30, 60, 90, 120, 180, 240, 300, 450, 600, 900, 1200, 1800, 2700, 3600]) if (seconds <= end) return end;
  return Math.ceil(seconds / 3600) * 3600;
}

/** The virtual second under a click at fraction x (0..1) of the timeline's width. */
export function seekTarget(model, fraction, end = null) {
  const t = model.start + Math.min(1, Math.max(0, fraction)) * (model.end - model.start);
  const limit = end ?? model.now;
  return Math.round(Math.min(t, Math.max(limit, model.now)) * 10) / 10;
}

// ---------------------------------------------------------------- events, endpoints, lesson

export function eventRows(events) {
  return (events || [])
    .map((e) => ({
      t: toVirtual(e.lastTimestamp || e.eventTime || e.firstTimestamp),
      type: e.type ?? "",
      reason: e.reason ?? "",
      object: [e.involvedObject?.kind, e.involvedObject?.name].filter(Boolean).join("/") +
        (e.involvedObject?.fieldPath ? ` ${e.involvedObject.fieldPath}` : ""),
      message: e.message ?? "",
      count: e.count ?? 1,
    }))
    .sort((a, b) => (a.t ?? 0) - (b.t ?? 0));
}

export function endpointsModel(slices) {
  return (slices || []).map((slice) => ({
    service: slice.metadata?.labels?.["kubernetes.io/service-name"] ?? slice.metadata?.name ?? "",
    endpoints: (slice.endpoints || []).map((e) => ({
      address: (e.addresses || []).join(", "),
      target: e.targetRef?.name ?? "",
      ready: e.conditions?.ready ?? null,
      serving: e.conditions?.serving ?? null,
      terminating: e.conditions?.terminating ?? null,
    })),
  }));
}

/** Words that have appeared: steps, reasons, phases, kubectl STATUS values (from the watch view). */
export function seenWords(state) {
  const words = new Set();
  for (const tr of state.transitions) {
    words.add(tr.step);
    if (typeof tr.after === "string") words.add(tr.after);
    if (tr.after?.reason) words.add(tr.after.reason);
    if (tr.after?.state) words.add(tr.after.state);
  }
  for (const line of (state.views?.watch || "").split("\n").slice(1)) {
    for (const word of line.trim().split(/\s+/)) words.add(word);
  }
  const status = state.views?.columns?.STATUS;
  if (status) words.add(status);
  if (state.pod?.status?.phase) words.add(state.pod.status.phase);
  if (state.pod?.metadata?.deletionTimestamp) words.add("Terminating");
  for (const e of state.events || []) words.add(e.reason);
  words.delete(undefined);
  words.delete(null);
  return words;
}

/**
 * The lesson's steps and which are reached. A task (issue 19) is reached once every step
 * before it is (so it comes in the lesson's order), and is `done` when the server says so
 * (its check is computed from the session: webapp/sessions/tasks.py); a step after a task
 * is reached only once that task is done.
 */
export function lessonModel(state) {
  const steps = state.scenario?.lesson || [];
  const words = seenWords(state);
  const done = new Set(state.tasks?.done || []);
  let open = true; // every task before this step is done
  let allBefore = true; // every step before this one is reached
  return steps.map((step, index) => {
    const task = Boolean(step.task);
    const own = task
      ? allBefore
      : (step.at !== null && step.at !== undefined && state.now >= step.at) || (step.when ? words.has(step.when) : false);
    const reached = own && open;
    const model = {
      index,
      at: step.at ?? null,
      when: step.when ?? null,
      task,
      done: task && done.has(index),
      hints: step.hints || [],
      text: step.text || {},
      reached,
    };
    allBefore = allBefore && reached;
    if (task && !done.has(index)) open = false;
    return model;
  });
}

/** What the probe switch of (container, probe) shows: the user's last choice, else what the probe last saw. */
export function probeSwitchValue(state, container, probe) {
  const chosen = state.actions.findLast(
    (a) => a.action === "set-probe" && a.container === container && a.probe === probe,
  );
  if (chosen) return chosen.healthy ? "healthy" : "failing";
  const seen = state.transitions.findLast((tr) => tr.container === container && tr.field === `probe.${probe}`);
  return seen?.after === "failure" ? "failing" : "healthy";
}

function rank(order, value) {
  const i = order.indexOf(value);
  return i < 0 ? order.length : i;
}

function unique(values) {
  return [...new Set(values.filter(Boolean))];
}
