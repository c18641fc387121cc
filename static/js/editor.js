// The YAML editor: CodeMirror 6 with YAML highlighting, a lint gutter and the server's
// located errors as diagnostics, the errors listed in words, and two ways to use the text:
// Apply is `kubectl apply` to the running session (the clock and history go on, the answer
// is kubectl's lines), "Start over from this YAML" runs the text anew from second 0.
import { h, emit, fill, setText } from "./dom.js";
import { t, lang } from "./i18n.js";

const DRAFT_KEY = "pod-playground.draft"; // sessionStorage: one draft per tab
// Until the editor is first used, its text is in a plain <textarea> (`plain`); the first
// focus, press or key (or an error to underline, a line to go to) loads CodeMirror
// (editor-view.js, the page's largest module) and `view` takes the textarea's place with
// its text and caret. A visit that only watches never downloads it (issue 23).
let plain = null;
let view = null;
let frame = null;
let shadow = null;
let upgrading = null; // the promise of the view while it loads
let loaded = { session: null, yaml: null };
let applied = null; // {session, yaml}: the text last kubectl-applied to that session
let result = null; // {mode: "apply"|"restart", lines, simulationKept, now}: the last answer
let loading = false; // text put in by the page (a snapshot, a restored draft), not typed
let offer = null; // the draft found at load time, offered back with the first snapshot
let offerBox;
let errors = [];
let serverMessage = null;
let shownLang = null;
let list;
let summary;
let resultBox;

export function text() {
  if (view) return view.text();
  return plain ? plain.value : "";
}

export function mount(root) {
  // CodeMirror injects its theme with style-mod: a <style> element in a document (which our
  // CSP, style-src 'self', blocks) but a constructable stylesheet in a shadow root (allowed).
  const host = h("div", { class: "cm-host", id: "yaml-editor" });
  shadow = host.attachShadow({ mode: "open" });
  frame = h("div", { class: "cm-frame" });
  // The page names the sheet's content-hashed URL (webapp/asset_files.py).
  const sheet = document.body.dataset.editorCss || "/static/css/editor-shadow.css";
  plain = h("textarea", { class: "cm-plain", spellcheck: "false", autocomplete: "off", autocapitalize: "off",
    wrap: "off", "aria-label": t("editor.label"),
    on: {
      input: () => changed(),
      focus: () => upgrade(),
      pointerdown: () => upgrade(),
      keydown: (event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          applyNow();
        }
      },
    } });
  frame.append(plain);
  shadow.append(h("link", { rel: "stylesheet", href: sheet }), frame);
  const apply = h("button", { type: "button", class: "button button-primary", id: "apply", "data-i18n": "editor.apply",
    on: { click: () => applyNow() } });
  const startOver = h("button", { type: "button", class: "button", id: "start-over", "data-i18n": "editor.startOver",
    "data-i18n-title": "editor.startOver.title",
    on: { click: () => startOverNow() } });
  const hint = h("span", { class: "hint", "data-i18n": "editor.apply.hint", "data-i18n-title": "editor.apply.hint" });
  summary = h("p", { class: "editor-summary", id: "editor-summary", role: "status", "aria-live": "polite" });
  list = h("ol", { class: "error-list", id: "error-list" });
  resultBox = h("div", { class: "apply-result", id: "apply-result", role: "status", "aria-live": "polite", hidden: true });
  offerBox = h("div", { class: "draft-offer", id: "draft-offer", role: "alert", hidden: true },
    h("span", { "data-i18n": "editor.draft.found" }),
    h("button", { type: "button", class: "button button-primary", id: "draft-restore", "data-i18n": "editor.draft.restore",
      on: { click: () => restoreDraft() } }),
    h("button", { type: "button", class: "button", id: "draft-discard", "data-i18n": "editor.draft.discard",
      on: { click: () => discardDraft() } }));
  root.append(offerBox, host, h("div", { class: "editor-bar" }, apply, startOver, hint), summary, resultBox, list);
  // The editor grows while focus is in its panel (css/layout.css, :focus-within). A press on
  // Apply or an error from outside the panel would move focus in, grow the editor and move
  // the button from under the pointer before the release: the click was lost. So a press on
  // a button of the panel does not take focus from outside it (the click still comes).
  const panel = root.closest(".panel-editor") || root;
  panel.addEventListener("mousedown", (event) => {
    if (event.target.closest?.("button") && !panel.matches(":focus-within")) event.preventDefault();
  });
  offer = readDraft();
  return {
    update() {
      if (lang() === shownLang) return;
      shownLang = lang();
      if (view) view.relabel(t("editor.label"));
      else plain.setAttribute("aria-label", t("editor.label"));
      renderErrors();
      renderResult();
    },
  };
}

function changed() {
  if (loading) return;
  saveDraft();
  renderErrors();
}

/** CodeMirror in the textarea's place, with its text, caret and focus (once; a promise). */
export function upgrade() {
  if (!upgrading) {
    upgrading = import("./editor-view.js").then((module) => {
      const focused = shadow.activeElement === plain;
      view = module.createView({
        parent: frame, root: shadow, doc: plain.value, anchor: plain.selectionStart, label: t("editor.label"),
        onChange: () => changed(), onApply: () => applyNow(),
      });
      plain.remove();
      showDiagnostics();
      if (focused) view.focus();
      document.body.dataset.editor = "codemirror";
      return view;
    }).catch((error) => {
      upgrading = null; // the textarea still edits; the next focus tries again
      throw error;
    });
  }
  return upgrading;
}

let sent = null; // the text of the last Apply or Start over, until its answer

function applyNow() {
  sent = text();
  emit("pg:apply", { yaml: sent });
}

function startOverNow() {
  sent = text();
  emit("pg:apply", { yaml: sent, restart: true });
}

/** The server's `applied`: which of the two happened, and kubectl's lines for an apply. */
export function appliedArrived(answer, state) {
  const mode = answer?.mode === "restart" ? "restart" : "apply";
  result = {
    mode,
    lines: Array.isArray(answer?.lines) ? answer.lines.map(String) : [],
    simulationKept: Boolean(answer?.simulationKept),
    now: state.now,
  };
  if (mode === "apply") {
    applied = { session: state.session, yaml: sent ?? text() };
    saveDraft();
  } else {
    applied = null;
  }
  errors = [];
  serverMessage = null;
  showDiagnostics();
  renderErrors();
  renderResult();
}

function renderResult() {
  if (!resultBox) return;
  if (!result) {
    resultBox.hidden = true;
    fill(resultBox);
    return;
  }
  resultBox.hidden = false;
  resultBox.dataset.mode = result.mode;
  const said = result.mode === "restart"
    ? t("editor.result.restart")
    : t("editor.result.apply", { now: formatSeconds(result.now) });
  fill(resultBox,
    h("p", { class: "apply-mode", id: "apply-mode" }, said),
    result.lines.length ? h("pre", { class: "apply-lines", id: "apply-lines" }, result.lines.join("\n")) : null,
    result.simulationKept ? h("p", { class: "apply-note" }, t("editor.result.simulationKept")) : null);
}

function formatSeconds(value) {
  const n = Number(value) || 0;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** A snapshot may carry a new scenario text (a new session, a shared link): load it unless the learner is editing it. */
export function snapshotArrived(state) {
  const incoming = state.scenario?.yaml;
  if (typeof incoming !== "string") return;
  const newSession = state.session !== loaded.session;
  if (newSession) {
    result = null; // another run: the last apply's answer was about the old one
    renderResult();
  } else if (loaded.yaml !== null && incoming !== loaded.yaml) {
    applied = null; // started over from another text (maybe by another tab of the session)
  }
  const untouched = text() === (loaded.yaml ?? "") || text() === appliedText(state.session);
  // The first snapshot after a reload: the text last kubectl-applied to this session
  // (kept with the draft) is what the editor showed; it comes back, as applied.
  if (offer && offer.applied && offer.session === state.session && offer.base === incoming) {
    applied = { session: state.session, yaml: offer.text };
    offer = null;
  }
  if (newSession || untouched || text() === incoming) {
    const wanted = appliedText(state.session) ?? incoming;
    if (text() !== wanted) replaceText(wanted);
    loaded = { session: state.session, yaml: incoming };
    // A scenario chosen on purpose replaces what was typed for the old one.
    if (!offer) saveDraft();
  }
  // The first snapshot after a reload: offer back what was typed and not applied.
  if (offer) {
    if (offer.text !== incoming && offer.text.trim()) offerBox.hidden = false;
    else offer = null;
  }
  // A snapshot after Apply means the text was accepted.
  errors = [];
  serverMessage = null;
  showDiagnostics();
  renderErrors();
}

/** This tab turned out to be a duplicate: the draft it inherited is the original tab's. */
export function forgetDraft() {
  offer = null;
  if (offerBox) offerBox.hidden = true;
  try {
    sessionStorage.removeItem(DRAFT_KEY);
  } catch {
    // nothing stored
  }
}

function replaceText(value) {
  loading = true;
  try {
    if (view) view.replace(value);
    else plain.value = value;
  } finally {
    loading = false;
  }
}

function readDraft() {
  try {
    const draft = JSON.parse(sessionStorage.getItem(DRAFT_KEY) || "null");
    return draft && typeof draft.text === "string" ? draft : null;
  } catch {
    return null;
  }
}

function appliedText(session) {
  return applied && applied.session === session ? applied.yaml : null;
}

/** The editor's text, kept for this tab while it differs from what the run was started
 * with (``applied``: it is the text last kubectl-applied to the session, not a draft). */
function saveDraft() {
  try {
    const isApplied = text() === appliedText(loaded.session);
    if (text() === (loaded.yaml ?? "")) sessionStorage.removeItem(DRAFT_KEY);
    else sessionStorage.setItem(DRAFT_KEY, JSON.stringify({ text: text(), base: loaded.yaml, session: loaded.session,
      applied: isApplied }));
  } catch {
    // Storage full or disabled: the draft lasts as long as the page.
  }
}

function restoreDraft() {
  const draft = offer;
  offer = null;
  offerBox.hidden = true;
  if (!draft) return;
  replaceText(draft.text);
  saveDraft();
  upgrade().then((v) => v.focus());
}

function discardDraft() {
  offer = null;
  offerBox.hidden = true;
  saveDraft();
}

/** The server's `error`: located errors become diagnostics at their line and column. */
export function showError(err) {
  errors = Array.isArray(err.errors) ? err.errors : [];
  serverMessage = errors.length ? null : err.message || err.code || "";
  // Underlining the errors where they are needs the editor itself.
  if (errors.length) upgrade();
  showDiagnostics();
  renderErrors();
}

/** The current errors as the view's lint diagnostics (nothing to do before it loads: it
 * shows them when it does). */
function showDiagnostics() {
  if (!view) return;
  view.diagnose(errors.map((e) => ({ line: e.line, column: e.column,
    message: e.path ? `${e.path}: ${e.message}` : e.message })));
}

function renderErrors() {
  if (!list) return;
  if (serverMessage) {
    setText(summary, t("editor.server", { message: serverMessage }));
    summary.className = "editor-summary is-error";
  } else if (errors.length) {
    setText(summary, t(errors.length === 1 ? "editor.errors.one" : "editor.errors", { count: errors.length }));
    summary.className = "editor-summary is-error";
  } else {
    // The run is the text last applied: edits not applied yet are not what is running.
    const edited = loaded.session && text() !== (appliedText(loaded.session) ?? loaded.yaml ?? "");
    setText(summary, !loaded.session ? "" : edited ? t("editor.unapplied") : t("editor.ok"));
    summary.className = edited ? "editor-summary is-unapplied" : "editor-summary";
  }
  fill(list, errors.map((e) => {
    const where = { doc: (e.doc ?? 0) + 1, line: e.line, column: e.column };
    return h("li", { class: "error-item" },
      h("button", { type: "button", class: "error-goto", "aria-label": t("editor.error.goto", where),
        on: { click: () => goTo(e.line, e.column) } }, t("editor.error.where", where)),
      e.path ? h("code", { class: "error-path" }, e.path) : null,
      h("span", { class: "error-message" }, e.message ?? ""));
  }));
}

/** Put the cursor on a 1-based line (the derived-behaviour warnings use it). */
export function goToLine(line) {
  goTo(line, 1);
}

function goTo(line, column) {
  upgrade().then((v) => v.goTo(line, column));
}
