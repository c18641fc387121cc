// The Terminal tab: a line-by-line shell in which `kubectl` runs against this session
// (webapp/terminal on the server; the wire: `terminal {line}` -> `terminal:output`).
// views.js imports this module the first time the tab is opened, so a visit that never
// types pays nothing for it. Text from the server only ever becomes text nodes, with its
// control characters shown (terminal-core.js `visible`): a log line cannot drive the page.
import { h, emit, on, setText } from "./dom.js";
import { t, onLanguageChange, translateTree } from "./i18n.js";
import { History, PROMPT, classify, complete, namesFrom, visible } from "./terminal-core.js";

const HISTORY_KEY = "pod-playground.terminal.history";
const MAX_BLOCKS = 400; // the oldest commands and their output leave the screen after these
const MAX_CHARS = 2_000_000;
const MAX_PASTED_LINES = 100;

/**
 * mount(panel, {state}) -> {focus(), update(state)}: the terminal inside `panel` (the tab's
 * panel); `state()` is the page's latest state (for completing names).
 */
// A line ending in a here-document redirect (`<<EOF`, `<<'EOF'`, `<<-EOF`).
const HEREDOC = /<<(-?)\s*(['"]?)([A-Za-z_][A-Za-z0-9_.-]*)\2\s*$/;
const MAX_HEREDOC_CHARS = 64 * 1024; // the server's text limit by default (SHARE_MAX_TEXT_BYTES)

export function mount(panel, { state }) {
  const history = new History(loadHistory());
  const out = h("div", { class: "term-out", id: "terminal-output", role: "log", "aria-live": "polite",
    "data-i18n-aria": "term.output", "aria-label": t("term.output") });
  const input = h("input", { class: "term-input", id: "terminal-input", type: "text", autocomplete: "off",
    autocapitalize: "off", autocorrect: "off", spellcheck: "false", enterkeyhint: "send",
    "data-i18n-aria": "term.input", "aria-label": t("term.input"), "aria-describedby": "terminal-hint" });
  const hint = h("p", { class: "term-hint", id: "terminal-hint" });
  const promptEl = h("span", { class: "term-prompt", id: "terminal-prompt", "aria-hidden": "true" }, PROMPT.trim());
  const form = h("form", { class: "term-line", on: { submit: (e) => { e.preventDefault(); submit(input.value); } } },
    promptEl, input);
  const root = h("div", { class: "term", id: "terminal" }, out, form, hint);
  panel.append(root);

  let pending = []; // blocks sent and not finished, in the order the server answers them
  let streaming = null; // the block whose command goes on (`-w`) until ^C
  let shell = null; // `kubectl exec -it`: {owner: its block, prompt} while the shell is open
  // `kubectl apply -f - <<EOF`: {el, line, delimiter, body} while its lines are typed (bash's
  // here-document: "> " prompts until the delimiter; the lines are the command's stdin).
  let heredoc = null;
  let chars = 0;

  function showHint() {
    setText(hint, t(shell ? "term.hint.shell" : streaming ? "term.hint.running" : "term.hint"));
  }
  function setPrompt(text) {
    setText(promptEl, text.trimEnd());
    root.classList.toggle("is-shell", Boolean(shell));
  }
  showHint();
  onLanguageChange(() => {
    translateTree(root);
    showHint();
  });

  function block(line, prompt = PROMPT) {
    const el = h("div", { class: "term-block", dataset: { line } },
      h("div", { class: "term-command" }, h("span", { class: "term-prompt", "aria-hidden": "true" }, visible(prompt)), visible(line)));
    out.append(el);
    trim();
    return el;
  }
  function write(el, text, stream) {
    if (!text) return;
    const shown = visible(text);
    chars += shown.length;
    const last = el.lastChild;
    if (last?.dataset?.stream === stream) last.append(shown);
    else el.append(h("span", { class: stream === "stderr" ? "term-stderr" : "term-stdout", dataset: { stream } }, shown));
    trim();
  }
  function trim() {
    while (out.childElementCount > MAX_BLOCKS || (chars > MAX_CHARS && out.childElementCount > 1)) {
      const first = out.firstElementChild;
      chars -= first.textContent.length;
      first.remove();
    }
  }
  function finish(el, code) {
    el.dataset.exitCode = String(code);
    el.classList.add("is-done");
    if (code !== 0) el.classList.add("is-failed");
    if (streaming === el) streaming = null;
    pending = pending.filter((b) => b !== el);
    showHint();
  }
  function scroll() {
    out.scrollTop = out.scrollHeight;
  }
  function atBottom() {
    return out.scrollTop + out.clientHeight >= out.scrollHeight - 8;
  }

  function submit(text) {
    const line = text.replace(/\r/g, "");
    input.value = "";
    history.add(line);
    saveHistory(history.lines);
    if (shell) {
      // The shell reads every line (its own `clear`, `history` ...); an empty one only
      // prints a new prompt, as a shell does.
      const el = block(line, shell.prompt);
      el.classList.add("is-shell-line");
      if (!line.trim()) finish(el, 0);
      else {
        pending.push(el);
        emit("pg:terminal", { line });
      }
      scroll();
      return;
    }
    if (heredoc) {
      const doc = heredoc;
      const ends = (doc.strip ? line.replace(/^\t+/, "") : line) === doc.delimiter;
      doc.el.querySelector(".term-command").append(`\n> ${visible(line)}`);
      if (ends) {
        heredoc = null;
        setPrompt(PROMPT);
        pending.push(doc.el);
        emit("pg:terminal", { line: doc.line, stdin: doc.body.map((l) => `${l}\n`).join("") });
      } else {
        doc.body.push(doc.strip ? line.replace(/^\t+/, "") : line);
        doc.size += line.length + 1;
        if (doc.size > MAX_HEREDOC_CHARS) { // bounded as the server's text limit: said, dropped
          heredoc = null;
          setPrompt(PROMPT);
          write(doc.el, `${t("term.heredocTooLong", { limit: MAX_HEREDOC_CHARS / 1024 })}\n`, "stderr");
          finish(doc.el, 1);
        }
      }
      scroll();
      return;
    }
    const here = line.match(HEREDOC);
    if (here) {
      const el = block(line);
      heredoc = { el, line, delimiter: here[3], strip: here[1] === "-", body: [], size: 0 };
      setPrompt("> ");
      scroll();
      return;
    }
    const kind = classify(line);
    const el = block(line);
    if (kind === "empty") finish(el, 0);
    else if (kind === "clear") {
      out.replaceChildren();
      chars = 0;
      if (streaming) pending = pending.filter((b) => b === streaming);
    } else if (kind === "history") {
      write(el, history.listing(), "stdout");
      finish(el, 0);
    } else if (kind === "history-clear") {
      history.lines.length = 0;
      history.at = 0;
      saveHistory([]);
      finish(el, 0);
    } else if (kind === "help") {
      write(el, `${t("term.help")}\n`, "stdout");
      finish(el, 0);
    } else {
      // A new line stops what runs first (the server says 130 for it before this line's answer).
      pending.push(el);
      emit("pg:terminal", { line });
    }
    scroll();
  }

  on("pg:terminal-output", (msg) => {
    const follow = atBottom();
    const el = pending[0] || shell?.owner;
    if (!el) return; // an answer for a screen that was cleared
    write(el, msg.stdout, "stdout");
    write(el, msg.stderr, "stderr");
    if (typeof msg.prompt === "string") {
      // A shell is open (exec -it): this block is done, the next line is the shell's.
      if (!shell) {
        shell = { owner: el, prompt: msg.prompt };
        el.classList.add("is-running");
      } else {
        el.classList.add("is-done");
      }
      pending = pending.filter((b) => b !== el);
      shell.prompt = msg.prompt;
      setPrompt(msg.prompt);
      showHint();
    } else if (shell && msg.exitCode !== null && msg.exitCode !== undefined) {
      // The shell ended (exit, Ctrl+D, its container stopped): kubectl's prompt again.
      const owner = shell.owner;
      shell = null;
      if (el !== owner) finish(el, msg.exitCode);
      owner.classList.remove("is-running");
      finish(owner, msg.exitCode);
      setPrompt(PROMPT);
    } else if (msg.exitCode === null || msg.exitCode === undefined) {
      streaming = el;
      el.classList.add("is-running");
      showHint();
    } else {
      el.classList.remove("is-running");
      finish(el, msg.exitCode);
    }
    if (follow) scroll();
  });
  on("pg:terminal-error", (err) => {
    const el = pending.find((b) => b !== streaming) || pending[0];
    if (!el) return;
    write(el, `${err.message || err.code}\n`, "stderr");
    el.classList.add("is-refused");
    finish(el, 1);
    scroll();
  });
  on("pg:terminal-lost", () => {
    for (const el of [...pending]) {
      write(el, `${t("term.lost")}\n`, "stderr");
      finish(el, 1);
    }
    if (shell) finish(shell.owner, 1);
    streaming = null;
    shell = null;
    setPrompt(PROMPT);
    showHint();
  });

  function interrupt() {
    if (heredoc) { // ^C in a here-document: the command is dropped (bash: 130)
      const doc = heredoc;
      heredoc = null;
      setPrompt(PROMPT);
      doc.el.querySelector(".term-command").append(`\n> ${visible(input.value)}^C`);
      input.value = "";
      finish(doc.el, 130);
      scroll();
      return;
    }
    if (shell) { // ^C at the shell's prompt: the line is dropped, a new prompt
      const el = block(input.value + "^C", shell.prompt);
      el.classList.add("is-shell-line", "is-done");
      input.value = "";
      scroll();
      return;
    }
    if (streaming) {
      emit("pg:terminal", { signal: "SIGINT" });
      write(streaming, "^C", "stdout");
      return;
    }
    const el = block(input.value + "^C");
    finish(el, 130);
    input.value = "";
    scroll();
  }

  input.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    const ctrl = event.ctrlKey && !event.altKey && !event.metaKey;
    if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      const line = event.key === "ArrowUp" ? history.up(input.value) : history.down();
      event.preventDefault();
      if (line !== null) {
        input.value = line;
        input.setSelectionRange(line.length, line.length);
      }
    } else if (event.key === "Tab" && !event.shiftKey && input.value.trim()) {
      // An empty line lets Tab leave the terminal, so the keyboard is never trapped here.
      event.preventDefault();
      if (shell) return; // the container's shell: nothing of kubectl's to complete
      const caret = input.selectionStart ?? input.value.length;
      const done = complete(input.value, caret, namesFrom(state()));
      input.value = done.line;
      input.setSelectionRange(done.caret, done.caret);
      if (done.options.length) {
        const el = block(input.value);
        write(el, `${done.options.join("  ")}\n`, "stdout");
        finish(el, 0);
        el.classList.add("is-options");
        scroll();
      }
    } else if (ctrl && event.key.toLowerCase() === "c") {
      if (input.selectionStart !== input.selectionEnd || String(window.getSelection?.() ?? "")) return; // copy
      event.preventDefault();
      interrupt();
    } else if (ctrl && event.key.toLowerCase() === "d" && shell && !input.value) {
      // Ctrl+D on an empty line: end of input, the shell exits.
      event.preventDefault();
      const el = block("", shell.prompt);
      el.classList.add("is-shell-line");
      pending.push(el);
      emit("pg:terminal", { signal: "EOF" });
    } else if (ctrl && event.key.toLowerCase() === "l") {
      event.preventDefault();
      out.replaceChildren();
      chars = 0;
    }
  });
  // Several lines pasted run one after another, as in a shell (at most MAX_PASTED_LINES).
  input.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (!/[\r\n]/.test(text)) return;
    event.preventDefault();
    const lines = (input.value + text).split(/\r?\n/);
    const last = lines.pop();
    for (const line of lines.slice(0, MAX_PASTED_LINES)) submit(line);
    if (lines.length > MAX_PASTED_LINES) {
      const el = block("");
      write(el, `${t("term.pasted", { count: lines.length - MAX_PASTED_LINES })}\n`, "stderr");
      finish(el, 1);
    }
    input.value = last;
  });
  // A click on the output (not a selection being made) puts the caret back in the line.
  out.addEventListener("mouseup", () => {
    if (!String(window.getSelection?.() ?? "")) input.focus({ preventScroll: true });
  });

  // The teacher's lines (terminal:mirror): blocks of their own, marked, in the order typed.
  let mirrored = null;
  function mirror(msg) {
    const follow = atBottom();
    if (!mirrored || mirrored.dataset.exitCode !== undefined || mirrored.dataset.line !== msg.line) {
      mirrored = block(msg.line ?? "");
      mirrored.classList.add("is-mirror");
      mirrored.firstChild.prepend(h("span", { class: "term-by", "data-i18n": "term.teacher" }, t("term.teacher")));
    }
    write(mirrored, msg.stdout, "stdout");
    write(mirrored, msg.stderr, "stderr");
    if (msg.exitCode !== null && msg.exitCode !== undefined) {
      mirrored.dataset.exitCode = String(msg.exitCode);
      mirrored.classList.add("is-done");
    }
    if (follow) scroll();
  }

  return {
    focus() {
      input.focus({ preventScroll: true });
    },
    mirror,
  };
}

function loadHistory() {
  try {
    const value = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || "[]");
    return Array.isArray(value) ? value.filter((line) => typeof line === "string") : [];
  } catch {
    return [];
  }
}

function saveHistory(lines) {
  try {
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(lines.slice(-200)));
  } catch {
    // Storage off or full: the history lives as long as the page.
  }
}
