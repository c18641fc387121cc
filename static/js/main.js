// Entry point: mounts every part of the page, keeps the one view state, and talks to the
// server over Socket.IO. Parts never touch the socket: they dispatch `pg:*` events.
import { io } from "/static/vendor/socket.io.esm.min.js";
import * as i18n from "./i18n.js";
import { applySnapshot, applyTick, initialState, diagramModel, localNow, settleNow } from "./state.js";
import { on, emit, setText } from "./dom.js";
import * as topbar from "./topbar.js";
import * as editor from "./editor.js";
import * as lesson from "./lesson.js";
import * as controls from "./controls.js";
import * as diagram from "./diagram.js";
import * as timeline from "./timeline.js";
import * as status from "./status.js";
import * as views from "./views.js";
import * as derived from "./derived.js";
import * as layout from "./layout.js";
import * as cluster from "./cluster.js";
import * as seeking from "./seeking.js";
import { tabIdentity, CHANNEL_NAME } from "./tabs.js";
import * as classroom from "./classroom.js";

const SESSION_KEY = "pod-playground.session";
const body = document.body;
const connection = document.getElementById("connection");
let state = initialState();
let connected = false;
let connectionKey = "conn.connecting";

function showConnection(key) {
  connectionKey = key;
  setText(connection, i18n.t(key));
}

// ------------------------------------------------------------------ language
function showLanguage(code) {
  document.documentElement.lang = code === "zh" ? "zh-CN" : "en";
  document.title = i18n.t("app.title");
  i18n.translateTree(document);
  setText(connection, i18n.t(connectionKey));
}
i18n.setLanguage(
  i18n.pickLanguage({ stored: i18n.storedLanguage(), hint: body.dataset.lang, browser: navigator.languages || [] }),
  { remember: false },
);

// ------------------------------------------------------------------ parts
const parts = [
  topbar.mount(document.getElementById("topbar"), {
    editorText: () => editor.text(), shareId: body.dataset.share || "", shareLang: body.dataset.shareLang || "",
  }),
  editor.mount(document.getElementById("editor")),
  derived.mount(document.getElementById("editor")),
  lesson.mount(document.getElementById("lesson")),
  controls.mount(document.getElementById("clock"), document.getElementById("actions")),
  cluster.mount(document.getElementById("cluster")),
  seeking.mount(document.getElementById("clock")),
  diagram.mount(document.getElementById("diagram")),
  timeline.mount(document.getElementById("timeline")),
  status.mount(document.getElementById("status")),
  views.mount(document.getElementById("views")),
  layout.mount(document.getElementById("app")),
];

showLanguage(i18n.lang());

function render() {
  for (const part of parts) part.update(state);
  inClass.update(state);
  const d = diagramModel(state);
  Object.assign(body.dataset, {
    session: state.session ?? "",
    status: state.pod ? state.views.columns?.STATUS ?? "" : state.lastPod ? "Gone" : "",
    phase: state.pod?.status?.phase ?? "",
    stage: d.current?.stage ?? "",
    step: d.current?.step ?? "",
    now: String(state.now),
    playing: String(Boolean(state.clock.playing)),
    seeking: state.seeking ? "true" : "false",
    outcome: d.outcome ?? "",
  });
}

// ------------------------------------------------------------------ this tab
// A duplicated tab inherits this tab's sessionStorage (the session id): it must start its
// own session, with the original's scenario, instead of driving the same run.
let duplicateOf = null;
const tab = tabIdentity({
  storage: safeSessionStorage(),
  channel: "BroadcastChannel" in window ? new BroadcastChannel(CHANNEL_NAME) : null,
  describe: () => ({ yaml: state.scenario?.yaml ?? null }),
});
// The page does not wait for the answer (a reload joins at once); a duplicate that learns
// what it is moves to a session of its own.
tab.checked.then(({ duplicate, original }) => {
  if (!duplicate) return;
  body.dataset.duplicate = "true";
  sessionStorage.removeItem(SESSION_KEY);
  editor.forgetDraft();
  duplicateOf = original;
  if (connected) join();
});

function safeSessionStorage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ connection
const socket = io({ transports: ["websocket"] });
let joiningWithSession = false;
let joiningLinked = false;
let awaitingApply = false;

// A class page (/c/<code>, /c/<code>/teach) joins its class, never a stored session.
const inClass = classroom.mount({
  socket,
  body,
  scenarioText: () => state.scenario?.yaml ?? editor.text(),
  currentNow: () => state.now,
  notice: (text) => controls.showMessage(text),
});

// `/#session=<id>` (the `page` of POST /api/kubeconfig: docs/kubectl.md) opens that session,
// the one a kubeconfig drives; the fragment is read once and removed.
const linkedSession = (() => {
  const id = new URLSearchParams(location.hash.slice(1)).get("session");
  if (id) history.replaceState(null, "", location.pathname + location.search);
  return id;
})();

function initialSource() {
  if (body.dataset.share) return { share: body.dataset.share };
  if (body.dataset.scenario) return { scenario: body.dataset.scenario };
  return { scenario: "plain-pod" };
}

// A link or a typed address that names a scenario or a share opens it, even in a tab that
// has a session; a reload (or back / forward) resumes the tab's session. A class link
// always opens its class (a reload rejoins it, as the same student or teacher), and the
// tab says so.
const navigationType = performance.getEntriesByType?.("navigation")?.[0]?.type ?? "navigate";
let urlFirst = navigationType === "navigate" && Boolean(body.dataset.share || body.dataset.scenario);

function join(source = null) {
  if (inClass.inClass() && !source) {
    if (urlFirst || sessionStorage.getItem(SESSION_KEY)) inClass.note(i18n.t("tab.class", { code: inClass.code }));
    urlFirst = false;
    inClass.join();
    return;
  }
  const stored = urlFirst ? null : sessionStorage.getItem(SESSION_KEY);
  urlFirst = false;
  let payload;
  if (source) payload = source;
  else if (linkedSession && !joiningLinked) {
    joiningLinked = true;
    payload = { session: linkedSession };
  }
  else if (stored) payload = { session: stored };
  else if (duplicateOf?.yaml && !body.dataset.share) payload = { yaml: duplicateOf.yaml };
  else payload = initialSource();
  duplicateOf = null;
  joiningWithSession = Boolean(payload.session);
  socket.emit("join", { ...payload, lang: i18n.lang(), transitions: "table" });
}

socket.on("connect", () => {
  connected = true;
  body.dataset.connected = "true";
  body.dataset.transport = socket.io.engine.transport.name;
  showConnection("conn.connected");
  join();
});
socket.on("disconnect", () => {
  connected = false;
  body.dataset.connected = "false";
  showConnection("conn.disconnected");
  emit("pg:terminal-lost", {});
});
// ------------------------------------------------------------------ the page's own clock
// Between messages the page moves `now` itself from the last one the server sent (state.js
// localNow); every message sets a new base. Ten frames a second, as ticks used to come.
let clockBase = null; // {state, at}: the state as the last message left it, and when
function rebase() {
  clockBase = { state, at: performance.now() };
}
setInterval(() => {
  const base = clockBase?.state;
  if (!base || !base.clock?.playing || base.seq !== state.seq || base.session !== state.session) return;
  const now = localNow(base, performance.now() - clockBase.at);
  if (now !== state.now) {
    state = { ...state, now };
    render();
  }
}, 100);

socket.on("snapshot", (msg) => {
  joiningWithSession = false;
  awaitingApply = false;
  state = applySnapshot(state, msg);
  rebase();
  inClass.snapshotArrived();
  if (msg.session) sessionStorage.setItem(SESSION_KEY, msg.session);
  editor.snapshotArrived(state);
  render();
});
socket.on("tick", (msg) => {
  const result = applyTick(state, msg);
  if (result.resync) {
    if (state.session) socket.emit("join", { session: state.session, lang: i18n.lang(), transitions: "table" });
    return;
  }
  const shown = state.now;
  const before = state.clock;
  state = result.state;
  // The tick left the server a moment ago: the page's clock, just ahead, does not step back.
  const sameClock = Boolean(before?.playing && state.clock?.playing && before.speed === state.clock.speed);
  state = { ...state, now: settleNow(shown, state.now, sameClock, 0.5 * (state.clock?.speed ?? 1)) };
  rebase();
  render();
});
// The Terminal tab (terminal.js): its lines go out, their output and refusals come back.
socket.on("terminal:output", (msg) => emit("pg:terminal-output", msg || {}));
// A class's teacher types for the class: their terminal, shown in every follower's.
socket.on("terminal:mirror", (msg) => emit("pg:terminal-mirror", msg || {}));
on("pg:terminal", (detail) => socket.emit("terminal", detail));
socket.on("applied", (answer) => {
  awaitingApply = false;
  editor.appliedArrived(answer || {}, state);
});
socket.on("error", (err) => {
  if (joiningWithSession && err?.code === "session_elsewhere") {
    // Another worker still serves it and is letting it go (docs/workers.md): ask again.
    setTimeout(() => join(), 1000);
    return;
  }
  if (err?.event === "terminal") {
    emit("pg:terminal-error", err);
    return;
  }
  if (inClass.handleError(err || {})) return;
  if (joiningWithSession) {
    // The stored session is gone (expired, server restarted): start from the page's source.
    joiningWithSession = false;
    sessionStorage.removeItem(SESSION_KEY);
    join(initialSource());
    return;
  }
  const error = err || {};
  if (Array.isArray(error.errors) || awaitingApply) editor.showError(error);
  else controls.showMessage(i18n.t("err.generic", { message: error.message || error.code || "" }));
  awaitingApply = false;
});

// ------------------------------------------------------------------ what the parts ask for
on("pg:join", (source) => {
  if (inClass.inClass()) {
    // In a class the teacher's pick restarts the class's run; a student's page has no picker.
    if (inClass.role === "teacher" && source.scenario) socket.emit("class:scenario", { scenario: source.scenario });
    return;
  }
  sessionStorage.removeItem(SESSION_KEY);
  if (source.scenario) history.replaceState(null, "", `/?scenario=${encodeURIComponent(source.scenario)}`);
  join(source);
});
// Apply is `kubectl apply` to the running session (the server answers `applied` with
// kubectl's lines); Start over (`restart`) runs the text anew from second 0. Without a
// session yet, the text starts one.
on("pg:apply", ({ yaml, restart }) => {
  awaitingApply = true;
  if (state.session) socket.emit("apply", restart ? { yaml, restart: true } : { yaml });
  else join({ yaml });
});
// Restart: the same scenario text as a new history from second 0, paused (the server's
// `apply` with `restart` restarts the session's run; every tab of the session follows).
on("pg:reset", () => {
  if (!state.session || typeof state.scenario?.yaml !== "string") {
    join(initialSource());
    return;
  }
  socket.emit("clock", { op: "pause" });
  socket.emit("apply", { yaml: state.scenario.yaml, restart: true });
});
on("pg:clock", (detail) => socket.emit("clock", detail));
on("pg:act", (action) => {
  // The action joins the log when the server's tick says it was accepted (with the
  // second the engine ran it at), so a refused action is never shared.
  socket.emit("act", action);
});
on("pg:lang", ({ lang }) => i18n.setLanguage(lang));
i18n.onLanguageChange((code) => {
  showLanguage(code);
  if (connected) socket.emit("lang", { lang: code });
  render();
});

render();
