// The classroom on the page (issue 9): "Start a class" and "Join a class" on the start page,
// the teacher's view (code, join address and its QR code, roster, questions, hand-out),
// the student's view (name, follow / "Try it myself" / "Follow again", questions), and
// presenter mode. Talks to the server over the page's socket with the class:* events;
// the ordinary snapshot / tick messages keep feeding the rest of the page.
import { h, fill, setText, emit } from "./dom.js";
import * as i18n from "./i18n.js";
import { TEXTS } from "./classroom-texts.js";
import { seenWords } from "./state.js";
import { registerMenu } from "./menus.js";

for (const lang of i18n.LANGS) Object.assign(i18n.CATALOGUE[lang], TEXTS[lang]);

const STORE = "pod-playground.class.";
const CODE_ALPHABET = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6,8}$/;

function stored(code) {
  try {
    return JSON.parse(localStorage.getItem(STORE + code) || "{}");
  } catch {
    return {};
  }
}
function store(code, value) {
  try {
    localStorage.setItem(STORE + code, JSON.stringify({ ...stored(code), ...value }));
  } catch {
    // private mode: the class is rejoined by typing the name again
  }
}

export function normalizeCode(text) {
  const code = String(text || "").replace(/[\s-]/g, "").toUpperCase();
  return CODE_ALPHABET.test(code) ? code : null;
}

function text(value) {
  if (value && typeof value === "object") return value[i18n.lang()] ?? value.en ?? "";
  return value ?? "";
}

export function mount({ socket, body, scenarioText, currentNow, notice }) {
  const code = body.dataset.class || "";
  const role = body.dataset.classRole || "";
  let classState = null;
  let roster = null;
  let pending = false;
  const questions = new Map(); // id -> question as asked
  const results = new Map(); // id -> results after a reveal
  const answered = new Map(); // id -> my choice (a why question's: my text)
  const whyDrafts = new Map(); // id -> what I am writing (kept over re-renders)


  // ------------------------------------------------------------------ presenter mode
  const presentToggle = h("button", { type: "button", class: "button", id: "present-toggle",
    "aria-pressed": "false", on: { click: () => setPresent(body.dataset.present !== "true") } });
  function setPresent(on) {
    body.dataset.present = on ? "true" : "false";
    document.documentElement.classList.toggle("present", on);
    presentToggle.setAttribute("aria-pressed", String(on));
    setText(presentToggle, i18n.t(on ? "class.present.off" : "class.present"));
    window.dispatchEvent(new Event("resize")); // the diagram and views refit
  }
  setPresent(new URLSearchParams(location.search).get("present") === "1");
  document.addEventListener("keydown", (event) => {
    if (body.dataset.present !== "true" || role === "student") return;
    if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
    if (event.key === " ") {
      event.preventDefault();
      emit("pg:clock", { op: body.dataset.playing === "true" ? "pause" : "play" });
    } else if (event.key === "ArrowRight") {
      event.preventDefault();
      emit("pg:clock", { op: "step" });
    } else if (event.key === "ArrowLeft") {
      event.preventDefault();
      emit("pg:clock", { op: "seek", value: Math.max(0, Math.floor(currentNow() - 5)) });
    } else if (/^[0-9]$/.test(event.key)) {
      const speeds = { 1: 0.5, 2: 1, 3: 2, 4: 5, 5: 10, 6: 100 };
      if (speeds[event.key]) emit("pg:clock", { op: "speed", value: speeds[event.key] });
    }
  });

  // ------------------------------------------------------------------ the start page
  const topbar = document.getElementById("topbar");
  const connection = document.getElementById("connection");
  const startButton = h("button", { type: "button", class: "button", id: "class-start", on: { click: startClass } });
  const codeInput = h("input", { id: "class-code", class: "class-code-input", maxlength: "12", autocomplete: "off",
    spellcheck: "false", autocapitalize: "characters" });
  const codeLabel = h("label", { for: "class-code", class: "topbar-label" });
  const codeGo = h("button", { type: "button", class: "button", id: "class-code-go", on: { click: joinByCode } });
  codeInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") joinByCode();
  });
  // One small menu in the top bar ("Class ▾"), so that the bar stays one line at 1280 px.
  const entrySummary = h("summary", { class: "button", id: "class-menu" });
  // A lesson plan to follow (issue 21): the built-ins of /api/plans, or none (the editor's
  // scenario).
  const planPick = h("select", { id: "class-plan-pick", class: "class-plan-pick" });
  const planPickLabel = h("label", { for: "class-plan-pick", class: "topbar-label", "data-i18n": "class.plan.pick" });
  const plansLoaded = new Set();
  async function loadPlans(select = planPick, none = "class.plan.none") {
    if (plansLoaded.has(select)) return;
    plansLoaded.add(select);
    try {
      const list = await (await fetch("/api/plans")).json();
      fill(select, h("option", { value: "", "data-i18n": none }),
        list.map((p) => h("option", { value: p.name }, i18n.t("class.plan.option", { title: text(p.title), minutes: p.minutes }))));
      i18n.translateTree(select);
      if (classState?.plan) select.value = classState.plan.name;
    } catch {
      plansLoaded.delete(select);
    }
  }
  const startGroup = h("details", { class: "class-entry", on: { toggle: () => loadPlans() } }, entrySummary,
    h("div", { class: "menu class-menu" }, h("div", { class: "class-join-row" }, planPickLabel, planPick), startButton,
      h("div", { class: "class-join-row" }, codeLabel, codeInput, codeGo)));
  if (code) topbar.insertBefore(h("div", { class: "topbar-group" }, presentToggle), connection);
  else document.querySelector(".topbar .download")?.after(startGroup);
  registerMenu(startGroup);
  function renderEntry() {
    setText(entrySummary, i18n.t("class.menu"));
    setText(startButton, i18n.t("class.start"));
    i18n.translateTree(planPickLabel.parentNode);
    setText(codeLabel, i18n.t("class.joinCode"));
    setText(codeGo, i18n.t("class.joinCode.go"));
    codeInput.placeholder = "ABC234";
  }

  async function startClass() {
    startButton.disabled = true;
    try {
      const response = await fetch("/api/classes", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept-Language": i18n.lang() },
        body: JSON.stringify(planPick.value ? { plan: planPick.value, lang: i18n.lang() } : { yaml: scenarioText(), lang: i18n.lang() }),
      });
      const answer = await response.json();
      if (response.status !== 201) throw new Error(answer.message || String(response.status));
      // The key and PIN stay in this browser; the teacher page shows them once (the link to
      // open on another computer, its QR code for the teacher's phone, the PIN).
      store(answer.code, { key: answer.teacherKey, pin: answer.teacherPin, fresh: true });
      location.assign(`/c/${answer.code}/teach`);
    } catch (error) {
      notice(i18n.t("class.start.failed", { message: error.message }));
      startButton.disabled = false;
    }
  }
  function joinByCode() {
    const wanted = normalizeCode(codeInput.value);
    if (!wanted) {
      notice(i18n.t("class.joinCode.bad"));
      codeInput.focus();
      return;
    }
    location.assign(`/c/${wanted}`);
  }

  // ------------------------------------------------------------------ the class bar
  const panel = h("section", { class: "class-panel", id: "class-panel", "aria-labelledby": "class-heading", hidden: !code });
  document.getElementById("app").before(panel);
  const heading = h("h2", { id: "class-heading", class: "class-heading" });
  const codeBig = h("strong", { class: "class-code", id: "class-code-big" });
  const message = h("p", { class: "class-message", id: "class-message", role: "status", "aria-live": "polite" });
  const note = h("p", { class: "class-note hint", id: "class-note", role: "status" });

  // Teacher
  if (role === "teacher" && location.hash.startsWith("#key=")) {
    // The key (and PIN) arrived in the fragment (never sent to the server): keep them in
    // storage and take them out of the address bar, which a projector shows.
    const fragment = new URLSearchParams(location.hash.slice(1));
    store(code, { key: fragment.get("key") || undefined, pin: fragment.get("pin") || undefined });
    history.replaceState(null, "", location.pathname + location.search);
  }
  // The teacher's access: the teacher link (key and PIN in its fragment), a copy button, its
  // QR code (drawn by the server over the socket, class:link) and the teacher PIN for a
  // projector PC. Shown once after "Start a class", and again from the Class menu.
  const teacherLink = () => {
    const { key, pin } = stored(code);
    return key ? `${location.origin}/c/${code}/teach#key=${encodeURIComponent(key)}&pin=${encodeURIComponent(pin || "")}` : "";
  };
  const accessLink = h("input", { class: "class-teacher-link", id: "class-teacher-link", readonly: "", spellcheck: "false" });
  const accessCopy = h("button", { type: "button", class: "button", id: "class-teacher-copy", on: { click: async () => {
    accessLink.select();
    try {
      await navigator.clipboard.writeText(accessLink.value);
      setText(accessCopied, i18n.t("class.access.copied"));
    } catch {
      setText(accessCopied, i18n.t("class.access.select"));
    }
  } } });
  const accessCopied = h("span", { class: "hint", id: "class-teacher-copied", role: "status" });
  const accessQr = h("img", { class: "class-qr", id: "class-teacher-qr", width: "160", height: "160", hidden: true });
  const accessPin = h("strong", { class: "class-pin", id: "class-teacher-pin" });
  const accessNoLink = h("p", { class: "hint", id: "class-teacher-nolink", hidden: true });
  const accessClose = h("button", { type: "button", class: "button", id: "class-access-close", on: { click: () => {
    access.hidden = true;
  } } });
  const access = h("div", { class: "class-access", id: "class-access", role: "dialog", "aria-labelledby": "class-access-heading", hidden: true },
    h("h3", { id: "class-access-heading", "data-i18n": "class.access.heading" }),
    h("p", { class: "hint", "data-i18n": "class.access.why" }),
    h("div", { class: "control-row class-access-link" }, accessLink, accessCopy, accessCopied),
    accessNoLink, accessQr,
    h("p", {}, h("span", { "data-i18n": "class.access.pin" }), " ", accessPin),
    h("p", { class: "hint", "data-i18n": "class.access.pinHow" }),
    accessClose);
  function showAccess() {
    const { key, pin } = stored(code);
    accessLink.value = teacherLink();
    accessLink.hidden = accessCopy.hidden = !key;
    accessNoLink.hidden = Boolean(key);
    setText(accessPin, pin || "—");
    setText(accessCopied, "");
    access.hidden = false;
    if (key && classState) socket.emit("class:link", { key, pin: pin || "" });
  }
  socket.on("class:link", ({ qr: svg }) => {
    accessQr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    accessQr.hidden = false;
  });
  // The teacher page's Class menu: the teacher link and PIN again.
  const accessMenuButton = h("button", { type: "button", class: "button", id: "class-show-access", on: { click: () => {
    teacherMenu.open = false;
    showAccess();
  } } });
  const teacherMenuSummary = h("summary", { class: "button", id: "class-menu" });
  // ... and the lesson plan the class follows (class:plan): from its first step, or none.
  const planChoose = h("select", { id: "class-plan-choose", class: "class-plan-pick" });
  const planChooseGo = h("button", { type: "button", class: "button", id: "class-plan-set", "data-i18n": "class.plan.set", on: { click: () => {
    teacherMenu.open = false;
    socket.emit("class:plan", { plan: planChoose.value || null });
  } } });
  const teacherMenu = h("details", { class: "class-entry", on: { toggle: () => loadPlans(planChoose, "class.plan.noneNow") } }, teacherMenuSummary,
    h("div", { class: "menu class-menu" }, accessMenuButton,
      h("div", { class: "class-join-row" }, h("label", { for: "class-plan-choose", class: "topbar-label", "data-i18n": "class.plan.pick" }),
        planChoose, planChooseGo)));
  if (code && role === "teacher") {
    topbar.insertBefore(h("div", { class: "topbar-group" }, teacherMenu), connection);
    registerMenu(teacherMenu);
  }
  // A teacher page without the key asks for the teacher PIN (a projector PC).
  const pinInput = h("input", { id: "class-pin", class: "class-pin-input", inputmode: "numeric", maxlength: "12",
    autocomplete: "off", spellcheck: "false" });
  const pinLabel = h("label", { for: "class-pin", id: "class-pin-label" });
  const pinGo = h("button", { type: "button", class: "button button-primary", id: "class-pin-go", on: { click: () => {
    const pin = pinInput.value.replace(/\s/g, "");
    if (pin) teachWith({ pin });
  } } });
  pinInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") pinGo.click();
  });
  const pinForm = h("div", { class: "class-name-form", id: "class-pin-form", hidden: true }, pinLabel, pinInput, pinGo);
  let triedPin = null;
  function teachWith(secret) {
    pending = true;
    pinForm.hidden = true;
    triedPin = secret.pin ?? null;
    socket.emit("lang", { lang: i18n.lang() });
    socket.emit("class:teach", { code, ...secret });
  }
  const joinUrl = h("a", { class: "class-join-url", id: "class-join-url", href: `/c/${code}` }, `${location.origin}/c/${code}`);
  const qr = h("img", { class: "class-qr", id: "class-qr", src: code ? `/c/${code}/qr.svg` : "", width: "160", height: "160" });
  const modeButton = h("button", { type: "button", class: "button", id: "class-mode", on: { click: () => {
    socket.emit("class:mode", { mode: classState?.mode === "follow" ? "free" : "follow" });
  } } });
  const lockButton = h("button", { type: "button", class: "button", id: "class-lock", on: { click: () => {
    socket.emit("class:lock", { editor: !classState?.locked });
  } } });
  const handoutAt = h("input", { type: "number", class: "number", id: "class-handout-at", min: "0", step: "1", value: "0" });
  const handoutButton = h("button", { type: "button", class: "button", id: "class-handout", on: { click: () => {
    socket.emit("class:handout", { yaml: scenarioText(), at: Number(handoutAt.value || 0) });
  } } });
  const askSeconds = h("input", { type: "number", class: "number", id: "class-ask-seconds", min: "1", max: "600", step: "1", value: "10" });
  // The kinds of question (issue 21): each computed from the run, like STATUS in N seconds,
  // or a free-text "why" question whose answers the teacher reads without names.
  const QUESTION_KINDS = ["status", "event", "restarts", "endpoints", "stage", "gone", "why"];
  const askKind = h("select", { id: "class-ask-kind", class: "class-ask-kind", on: { change: () => renderAskKind() } },
    QUESTION_KINDS.map((kind) => h("option", { value: kind, "data-i18n": `class.ask.kind.${kind}` })));
  const askText = h("input", { id: "class-ask-text", class: "class-ask-text", maxlength: "200", hidden: true,
    spellcheck: "true", autocomplete: "off" });
  const askSecondsLabel = h("span", { class: "control-label", "data-i18n": "class.ask.seconds" });
  const askInLabel = h("label", { for: "class-ask-seconds", class: "control-label", "data-i18n": "class.ask.in" });
  function renderAskKind() {
    const kind = askKind.value;
    const why = kind === "why";
    askText.hidden = !why;
    askSeconds.hidden = askSecondsLabel.hidden = askInLabel.hidden = why;
    askText.placeholder = i18n.t("class.ask.whyPlaceholder");
    askInLabel.dataset.i18n = kind === "event" || kind === "gone" ? "class.ask.within" : "class.ask.in";
    setText(askInLabel, i18n.t(askInLabel.dataset.i18n));
  }
  const askButton = h("button", { type: "button", class: "button button-primary", id: "class-ask", on: { click: () => {
    const kind = askKind.value;
    if (kind === "why") {
      const question = askText.value.trim();
      if (question) socket.emit("class:ask", { question: { kind, text: question } });
      return;
    }
    socket.emit("class:ask", { question: { kind, seconds: Number(askSeconds.value || 10) } });
  } } });
  const exportButton = h("button", { type: "button", class: "button", id: "class-export", on: { click: () => socket.emit("class:export", {}) } });
  const endButton = h("button", { type: "button", class: "button button-danger", id: "class-end", on: { click: () => {
    if (window.confirm(i18n.t("class.end.confirm"))) socket.emit("class:end", {});
  } } });
  const rosterHeading = h("h3", { class: "class-roster-heading", id: "class-roster-heading" });
  // Who answered what stays hidden until the teacher asks for it (the chart has no names).
  let showAnswers = false;
  const showAnswersButton = h("button", { type: "button", class: "button", id: "class-show-answers",
    "aria-pressed": "false", on: { click: () => {
      showAnswers = !showAnswers;
      showAnswersButton.setAttribute("aria-pressed", String(showAnswers));
      renderRoster();
    } } });
  const rosterBody = h("tbody", { id: "class-roster-body" });
  const rosterHead = h("thead", {}, h("tr"));
  const rosterTable = h("table", { class: "class-roster", id: "class-roster" }, rosterHead, rosterBody);
  const chart = h("div", { class: "class-chart", id: "class-chart" });
  // Presenter mode (issue 21): the class strip is one line (the code and how many answered
  // the last question); the question's chart opens over the page and closes.
  const stripAnswered = h("span", { class: "class-strip-answered", id: "class-strip-answered" });
  const chartOpen = h("button", { type: "button", class: "button", id: "class-chart-open", hidden: true, on: { click: () => {
    body.dataset.chartOpen = "true";
  } } });
  const chartClose = h("button", { type: "button", class: "button class-chart-close", id: "class-chart-close", on: { click: () => {
    body.dataset.chartOpen = "false";
  } } });
  const watchOut = h("div", { class: "class-watch", id: "class-watch", hidden: true });
  // The lesson plan's bar (issue 21): the current step, the exploration timer and, for the
  // teacher, "Next step". In the class strip, so that presenter mode shows it on one line.
  const planStep = h("span", { class: "class-plan-step", id: "class-plan-step" });
  const planTimer = h("span", { class: "class-plan-timer", id: "class-plan-timer", role: "timer", hidden: true });
  const planNext = h("button", { type: "button", class: "button button-primary", id: "class-next", on: { click: () => socket.emit("class:next", {}) } });
  // A step that cannot be done now (a question too costly to compute, say) is passed by.
  const planSkip = h("button", { type: "button", class: "button class-plan-skip", id: "class-skip",
    on: { click: () => socket.emit("class:next", { skip: true }) } });
  const planBar = h("div", { class: "class-plan", id: "class-plan", hidden: true }, planStep, planTimer,
    role === "teacher" ? planNext : null, role === "teacher" ? planSkip : null);
  let timerEnds = null;
  setInterval(renderTimer, 1000);
  function renderTimer() {
    if (timerEnds === null) {
      planTimer.hidden = true;
      return;
    }
    const left = Math.max(0, Math.round((timerEnds - Date.now()) / 1000));
    planTimer.hidden = false;
    setText(planTimer, i18n.t("class.plan.timer", { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` }));
  }
  function stepText(step) {
    if (!step) return "";
    if (step.say) return text(step.say);
    const q = step.question;
    return i18n.t(`class.plan.step.${step.kind}`, { scenario: step.scenario ?? "", to: step.to ?? "", minutes: step.minutes ?? "",
      question: q ? (q.kind === "why" ? text(q.text) : i18n.t(`class.ask.kind.${q.kind}`)) : "" });
  }
  function renderPlan() {
    const plan = classState?.plan;
    planBar.hidden = !plan;
    if (!plan) {
      timerEnds = null;
      renderTimer();
      return;
    }
    const head = i18n.t("class.plan.at", { n: plan.step + 1, total: plan.total });
    const upcoming = role === "teacher" && plan.steps && plan.step + 1 < plan.total ? plan.steps[plan.step + 1] : null;
    setText(planStep, plan.current ? `${head}: ${stepText(plan.current)}` : i18n.t("class.plan.ready", { title: text(plan.title) }));
    planStep.title = [text(plan.title), upcoming ? i18n.t("class.plan.upcoming", { step: stepText(upcoming) }) : ""].filter(Boolean).join("\n");
    setText(planNext, i18n.t(plan.step + 1 >= plan.total ? "class.plan.done" : "class.plan.next"));
    planNext.disabled = planSkip.disabled = plan.step + 1 >= plan.total;
    setText(planSkip, i18n.t("class.plan.skip"));
    planSkip.title = upcoming ? i18n.t("class.plan.upcoming", { step: stepText(upcoming) }) : "";
    timerEnds = plan.timer ? Date.now() + plan.timer.remaining * 1000 : null;
    renderTimer();
  }

  // Student
  const nameInput = h("input", { id: "class-name", class: "class-name-input", maxlength: "40", autocomplete: "nickname" });
  const nameLabel = h("label", { for: "class-name", id: "class-name-label" });
  const nameGo = h("button", { type: "button", class: "button button-primary", id: "class-name-go", on: { click: () => {
    const name = nameInput.value.trim();
    if (name) joinAs(name, null);
  } } });
  nameInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") nameGo.click();
  });
  const nameForm = h("div", { class: "class-name-form", id: "class-name-form", hidden: true }, nameLabel, nameInput, nameGo);
  const you = h("span", { class: "class-you", id: "class-you" });
  const followState = h("span", { class: "class-follow-state", id: "class-follow-state" });
  const tryButton = h("button", { type: "button", class: "button button-primary", id: "class-try", on: { click: () => socket.emit("class:fork", {}) } });
  const followButton = h("button", { type: "button", class: "button", id: "class-follow", on: { click: () => socket.emit("class:follow", {}) } });
  const questionBox = h("div", { class: "class-question", id: "class-question", hidden: true });
  // "Raise hand": shown in the teacher's roster until the teacher or the student lowers it.
  const handButton = h("button", { type: "button", class: "button", id: "class-hand", "aria-pressed": "false",
    on: { click: () => socket.emit("class:hand", { up: !classState?.handUp }) } });

  if (role === "teacher") {
    fill(panel,
      h("div", { class: "class-identity" }, heading, h("div", { class: "class-strip" }, codeBig, stripAnswered, chartOpen, planBar),
        h("p", { class: "class-join" }, h("span", { class: "class-join-label", "data-i18n": "class.joinAt" }), " ", joinUrl), message, note,
        pinForm),
      qr, access,
      h("div", { class: "class-tools" },
        h("div", { class: "control-row" }, modeButton, lockButton, exportButton, endButton),
        h("div", { class: "control-row" }, handoutButton,
          h("label", { for: "class-handout-at", class: "control-label", "data-i18n": "class.handoutAt" }), handoutAt),
        h("div", { class: "control-row" },
          h("label", { for: "class-ask-kind", class: "control-label", "data-i18n": "class.ask" }), askKind,
          askInLabel, askSeconds, askSecondsLabel, askText, askButton),
        chart),
      h("div", { class: "class-roster-wrap" }, h("div", { class: "control-row" }, rosterHeading, showAnswersButton),
        rosterTable, watchOut));
  } else if (role === "student") {
    fill(panel,
      h("div", { class: "class-identity" }, heading, you, followState, planBar, message, note),
      nameForm,
      h("div", { class: "control-row class-student-tools" }, tryButton, followButton, handButton),
      questionBox);
  }

  // ------------------------------------------------------------------ joining
  function joinAs(name, token) {
    pending = true;
    nameForm.hidden = true;
    // The server answers a class's tab in the page's language (class:join carries none).
    socket.emit("lang", { lang: i18n.lang() });
    socket.emit("class:join", { code, name, ...(token ? { token } : {}) });
  }
  function join() {
    if (role === "teacher") {
      const { key, pin } = stored(code);
      if (key) teachWith({ key });
      else if (pin) teachWith({ pin });
      else {
        setText(message, i18n.t("class.needKey"));
        pinForm.hidden = false;
        pinInput.focus();
      }
      return;
    }
    const me = stored(code);
    if (me.name) joinAs(me.name, me.token);
    else {
      nameForm.hidden = false;
      nameInput.focus();
    }
  }

  /** An `error` while joining is the class's: show it (and ask for a name again). */
  function handleError(error) {
    if (error.code === "class_removed" && role === "student") {
      // The teacher removed this tab's name: it is free again; this tab may join anew.
      store(code, { name: undefined, token: undefined });
      classState = null;
      body.dataset.classRemoved = "true";
      setText(message, error.message || error.code);
      nameForm.hidden = false;
      return true;
    }
    if (!pending) return false;
    pending = false;
    setText(message, error.message || error.code || "");
    if (role === "teacher" && ["class_bad_key", "class_bad_pin", "class_pin_rate_limited"].includes(error.code)) {
      // A wrong (or stale) secret: forget it, and ask for the PIN.
      if (error.code === "class_bad_key") store(code, { key: undefined });
      if (triedPin !== null && error.code === "class_bad_pin") store(code, { pin: undefined });
      pinForm.hidden = false;
      pinInput.focus();
    }
    if (role === "student" && (error.code === "class_name_taken" || error.code === "class_name_invalid")) {
      nameForm.hidden = false;
      nameInput.focus();
    }
    return true;
  }

  socket.on("class:state", (state) => {
    pending = false;
    if (role === "student" && classState && state.handouts !== classState.handouts) {
      // A hand-out: the questions of the scenario before are no longer on the page.
      for (const id of results.keys()) questions.delete(id);
      results.clear();
    }
    if (!classState || classState.name !== state.name) setText(message, ""); // joined: no stale error
    classState = state;
    if (state.role === "student" && state.name) store(code, { name: state.name, ...(state.token ? { token: state.token } : {}) });
    if (state.role === "teacher" && triedPin !== null) store(code, { pin: triedPin }); // the PIN worked
    triedPin = null;
    const fresh = state.role === "teacher" && stored(code).fresh;
    body.dataset.classRole = state.role;
    body.dataset.classFollowing = String(Boolean(state.following));
    body.dataset.classLocked = String(Boolean(state.locked) && state.role === "student");
    body.dataset.classEnded = String(Boolean(state.ended));
    delete body.dataset.classRemoved;
    render();
    if (fresh) {
      store(code, { fresh: undefined });
      showAccess();
    }
  });
  socket.on("class:roster", (value) => {
    roster = value;
    renderRoster();
    renderChart();
  });
  socket.on("class:question", (question) => {
    questions.set(question.id, question);
    renderQuestion();
  });
  socket.on("class:results", (value) => {
    results.set(value.id, value);
    renderQuestion();
    renderChart();
  });
  socket.on("class:watch", (value) => renderWatch(value));
  socket.on("class:export", ({ code: exported, csv }) => {
    const url = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
    const a = h("a", { href: url, download: `class-${exported}.csv` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  // ------------------------------------------------------------------ rendering
  function render() {
    renderEntry();
    panel.hidden = !code;
    if (!code) return;
    setText(heading, i18n.t("class.heading", { code: role === "student" ? code : "" }).trim());
    setText(codeBig, code);
    if (classState?.ended) setText(message, i18n.t("class.ended"));
    if (role === "teacher") {
      setText(modeButton, i18n.t(classState?.mode === "follow" ? "class.mode.free" : "class.mode.follow"));
      setText(lockButton, i18n.t(classState?.locked ? "class.unlock" : "class.lock"));
      setText(handoutButton, i18n.t("class.handoutGo"));
      setText(askButton, i18n.t("class.ask.go"));
      renderAskKind();
      setText(exportButton, i18n.t("class.export"));
      setText(endButton, i18n.t("class.end"));
      setText(teacherMenuSummary, i18n.t("class.menu"));
      setText(accessMenuButton, i18n.t("class.access.menu"));
      i18n.translateTree(teacherMenu);
      setText(accessCopy, i18n.t("class.access.copy"));
      setText(accessClose, i18n.t("class.watch.close"));
      setText(accessNoLink, i18n.t("class.access.nolink"));
      setText(pinLabel, i18n.t("class.pin.label"));
      setText(pinGo, i18n.t("class.pin.go"));
      accessQr.alt = i18n.t("class.access.qr");
      qr.alt = i18n.t("class.qr");
      renderRoster();
      renderChart();
    } else {
      setText(nameLabel, i18n.t("class.name.label"));
      setText(nameGo, i18n.t("class.name.go"));
      setText(you, classState?.name ? i18n.t("class.you", { name: classState.name }) : "");
      const mode = classState?.following ? "class.following" : classState?.own === "handout" ? "class.handout" : "class.fork";
      const explore = classState?.following && classState.mode === "free" ? ` · ${i18n.t("class.explore")}` : "";
      setText(followState, classState ? i18n.t(mode) + explore + (classState.locked ? ` · ${i18n.t("class.locked")}` : "") : "");
      body.dataset.classMode = classState?.mode ?? "";
      setText(tryButton, i18n.t("class.tryIt"));
      setText(followButton, i18n.t("class.followAgain"));
      tryButton.hidden = !classState?.following;
      handButton.hidden = !classState;
      handButton.setAttribute("aria-pressed", String(Boolean(classState?.handUp)));
      body.dataset.classHand = String(Boolean(classState?.handUp));
      setText(handButton, i18n.t(classState?.handUp ? "class.hand.lower" : "class.hand.raise"));
      followButton.hidden = !classState || classState.following;
      renderQuestion();
    }
    renderPlan();
    i18n.translateTree(panel);
    applyEnded();
  }

  // The class ended: every control of it is off (the page says so, render()); closing a
  // box and presenter mode still work.
  function applyEnded() {
    if (!classState?.ended) return;
    body.dataset.classEnded = "true";
    for (const control of panel.querySelectorAll("button, input, select")) {
      if (control !== accessClose && !["class-watch-close", "class-chart-open", "class-chart-close"].includes(control.id)) control.disabled = true;
    }
  }

  const COLUMNS = ["name", "hand", "connected", "mode", "scenario", "now", "status", "stage", "steps", "answers", "activity", "stuck", "remove"];
  function renderRoster() {
    if (role !== "teacher") return;
    const students = roster?.students ?? [];
    setText(rosterHeading, i18n.t("class.roster", { count: students.length }));
    setText(showAnswersButton, i18n.t(showAnswers ? "class.answers.hide" : "class.answers.show"));
    fill(rosterHead.firstChild, COLUMNS.map((c) => h("th", { scope: "col" }, i18n.t(`class.col.${c}`))));
    if (!students.length) {
      fill(rosterBody, h("tr", {}, h("td", { colspan: String(COLUMNS.length), class: "hint" }, i18n.t("class.roster.empty"))));
      return;
    }
    fill(rosterBody, students.map((s) => {
      const mode = s.following ? "class.following" : s.own === "handout" ? "class.handout" : "class.fork";
      const answers = showAnswers
        ? Object.entries(s.answers).map(([id, choice]) => `${questionText(id)}: ${choice === null ? "✓" : choiceText(id, choice)}`).join(", ")
        : Object.keys(s.answers).map((id) => `${questionText(id)} ✓`).join(", ");
      const row = h("tr", { class: ["class-row", s.connected ? "" : "offline", s.stuck.length ? "stuck" : "", s.handUp ? "hand-up" : ""], tabindex: "0",
        dataset: { name: s.name }, on: {
          click: () => socket.emit("class:watch", { name: s.name }),
          keydown: (event) => {
            if (event.key === "Enter") socket.emit("class:watch", { name: s.name });
          },
        } },
      h("td", { class: "class-name-cell" }, s.name),
      h("td", { class: "class-hand-cell" }, s.handUp ? lowerButton(s.name) : ""),
      h("td", {}, i18n.t(s.connected ? "class.yes" : "class.no")),
      h("td", {}, i18n.t(mode)),
      h("td", { class: "mono" }, s.scenario),
      h("td", {}, i18n.seconds(s.now)),
      h("td", { class: "mono" }, s.status),
      h("td", {}, s.stage),
      h("td", {}, s.tasks ? `${s.lessonSteps} · ${i18n.t("class.tasks", { done: s.tasks })}` : String(s.lessonSteps)),
      h("td", {}, answers),
      h("td", {}, i18n.t("class.ago", { n: s.lastActivity })),
      h("td", { class: "class-stuck-cell" }, s.stuck.map((r) => i18n.t(`class.stuck.${r}`)).join(", ")),
      h("td", {}, removeButton(s.name)));
      return row;
    }));
    applyEnded();
  }

  // A raised hand, and the teacher's control to lower it.
  function lowerButton(name) {
    const stop = (event) => event.stopPropagation(); // not the row's watch
    return h("button", { type: "button", class: "button class-lower", "aria-label": i18n.t("class.hand.lowerFor", { name }),
      on: { keydown: stop, click: (event) => {
        stop(event);
        socket.emit("class:lower", { name });
      } } }, `✋ ${i18n.t("class.hand.lower")}`);
  }

  // Remove a student (class:remove): their tab is told, their name is free again.
  function removeButton(name) {
    const stop = (event) => event.stopPropagation(); // not the row's watch
    return h("button", { type: "button", class: "button class-remove", "aria-label": i18n.t("class.remove.label", { name }),
      on: { keydown: stop, click: (event) => {
        stop(event);
        if (window.confirm(i18n.t("class.remove.confirm", { name }))) socket.emit("class:remove", { name });
      } } }, i18n.t("class.remove"));
  }

  function questionText(id) {
    const q = questions.get(id) || roster?.questions?.find((x) => x.id === id);
    return q ? text(q.question) : id;
  }

  function choiceText(id, choice) {
    const q = questions.get(id) || roster?.questions?.find((x) => x.id === id);
    return q ? text(q.choices?.[choice]) : String(choice);
  }

  function renderChart() {
    if (role !== "teacher") return;
    const list = roster?.questions ?? [];
    const q = list[list.length - 1];
    setText(chartOpen, i18n.t("class.chart.open"));
    setText(chartClose, i18n.t("class.watch.close"));
    chartOpen.hidden = !q;
    if (!q) {
      fill(chart);
      setText(stripAnswered, "");
      return;
    }
    const total = roster.students.filter((s) => s.connected).length;
    setText(stripAnswered, i18n.t("class.answered", { n: q.answered, total }));
    if (q.kind === "why") {
      // The class's answers without names (sorted by the server); text nodes, never HTML.
      fill(chart,
        h("p", { class: "class-chart-question" }, text(q.question)),
        q.texts.length
          ? h("ul", { class: "class-why-answers", id: "class-why-answers" }, q.texts.map((answer) => h("li", {}, answer)))
          : h("p", { class: "hint" }, i18n.t("class.why.none")),
        h("p", { class: "hint", id: "class-answered" }, i18n.t("class.answered", { n: q.answered, total })),
        q.revealed ? h("p", { class: "class-revealed" }, i18n.t("class.why.shown"))
          : h("button", { type: "button", class: "button", id: "class-reveal", on: { click: () => socket.emit("class:reveal", { id: q.id }) } },
            i18n.t("class.why.close")),
        chartClose);
      applyEnded();
      return;
    }
    const max = Math.max(1, ...q.counts);
    fill(chart,
      h("p", { class: "class-chart-question" }, text(q.question)),
      h("ol", { class: "class-bars", id: "class-bars" }, q.choices.map((choice, i) =>
        h("li", { class: ["class-bar", q.revealed && i === q.answer ? "correct" : ""], dataset: { count: String(q.counts[i]) } },
          h("span", { class: "class-bar-label" }, text(choice)),
          barFill((100 * q.counts[i]) / max),
          h("span", { class: "class-bar-count" }, String(q.counts[i]))))),
      h("p", { class: "hint", id: "class-answered" }, i18n.t("class.answered", { n: q.answered, total })),
      q.revealed
        ? h("p", { class: "class-revealed" }, i18n.t("class.revealed", { answer: text(q.choices[q.answer]) }))
        : h("button", { type: "button", class: "button", id: "class-reveal", on: { click: () => socket.emit("class:reveal", { id: q.id }) } },
          i18n.t("class.reveal")),
      chartClose);
    applyEnded();
  }

  function barFill(percent) {
    const bar = h("span", { class: "class-bar-fill" });
    bar.style.width = `${percent}%`; // CSSOM, allowed by the page's style-src 'self'
    return bar;
  }

  function renderQuestion() {
    if (role !== "student") return;
    const open = [...questions.values()].filter((q) => !results.has(q.id));
    const done = [...results.values()];
    const q = open[open.length - 1];
    if (!q && !done.length) {
      questionBox.hidden = true;
      return;
    }
    questionBox.hidden = false;
    if (q && q.kind === "why") {
      const area = h("textarea", { id: "class-why-text", class: "class-why-text", maxlength: "500", rows: "3" });
      area.value = whyDrafts.get(q.id) ?? "";
      area.addEventListener("input", () => whyDrafts.set(q.id, area.value));
      fill(questionBox,
        h("p", { class: "class-question-text", id: "class-question-text" }, text(q.question)),
        h("label", { for: "class-why-text", class: "hint" }, i18n.t("class.why.label")),
        area,
        h("button", { type: "button", class: "button button-primary", id: "class-why-send", on: { click: () => {
          const written = area.value.trim();
          if (!written) return;
          answered.set(q.id, written);
          socket.emit("class:answer", { id: q.id, text: written });
          renderQuestion();
        } } }, i18n.t("class.why.send")),
        answered.has(q.id) ? h("p", { class: "hint", id: "class-why-sent" }, i18n.t("class.answer.sent")) : null);
      applyEnded();
      return;
    }
    if (q) {
      fill(questionBox,
        h("p", { class: "class-question-text", id: "class-question-text" }, text(q.question)),
        h("div", { class: "class-choices", role: "group" }, q.choices.map((choice, i) =>
          h("button", { type: "button", class: ["button", "class-choice", answered.get(q.id) === i ? "chosen" : ""],
            "aria-pressed": String(answered.get(q.id) === i), dataset: { choice: String(i) },
            on: { click: () => {
              answered.set(q.id, i);
              socket.emit("class:answer", { id: q.id, choice: i });
              renderQuestion();
            } } }, text(choice)))),
        answered.has(q.id) ? h("p", { class: "hint" }, i18n.t("class.answer.sent")) : null);
      applyEnded();
      return;
    }
    const r = done[done.length - 1];
    const mine = r.mine;
    if (r.kind === "why") {
      fill(questionBox,
        h("p", { class: "class-question-text" }, text(r.question)),
        h("p", { class: "class-revealed", id: "class-revealed" }, i18n.t("class.why.shown")),
        mine ? h("p", { class: "hint" }, i18n.t("class.why.yours", { text: mine })) : null);
      return;
    }
    fill(questionBox,
      h("p", { class: "class-question-text" }, text(r.question)),
      h("p", { class: "class-revealed", id: "class-revealed" }, i18n.t("class.revealed", { answer: text(r.choices[r.answer]) })),
      mine === null || mine === undefined ? null
        : h("p", {}, mine === r.answer ? i18n.t("class.yours.right") : i18n.t("class.yours.wrong", { mine: text(r.choices[mine]) })),
      r.why ? h("p", { class: "hint" }, text(r.why)) : null);
  }

  function renderWatch(value) {
    watchOut.hidden = false;
    const close = h("button", { type: "button", class: "button", id: "class-watch-close", on: { click: () => {
      watchOut.hidden = true;
    } } }, i18n.t("class.watch.close"));
    fill(watchOut,
      h("h3", {}, i18n.t("class.watch", { name: value.name })),
      h("p", {}, `${i18n.seconds(value.now)} · ${value.status} · ${value.stage}`),
      h("pre", { class: "class-watch-text" }, value.get || ""),
      h("pre", { class: "class-watch-text" }, value.events || ""),
      close);
  }

  // ------------------------------------------------------------------ the scenario's questions
  // A question comes when the run reaches its second (`at`) or its status word (`when`):
  // the clock pauses and the learner answers (alone: the server then says which choice the
  // run bears out, and why). In a class the teacher's page asks the class instead, and a
  // student's page waits for the teacher. Questions already passed when a run is opened
  // (a reload, a seek) are not asked again.
  const quizBox = h("div", { class: "class-question quiz", id: "quiz", hidden: true });
  // A learner may turn the pauses off (remembered); a class's teacher decides for the class.
  const QUIZ_KEY = "pod-playground.quiz";
  const quizOn = () => {
    try {
      return localStorage.getItem(QUIZ_KEY) !== "off";
    } catch {
      return true;
    }
  };
  const quizToggle = h("input", { type: "checkbox", id: "quiz-toggle", on: { change: () => {
    try {
      localStorage.setItem(QUIZ_KEY, quizToggle.checked ? "on" : "off");
    } catch {
      // not remembered
    }
  } } });
  const quizToggleText = h("span", {});
  const quizToggleRow = h("label", { class: "quiz-toggle hint", hidden: true }, quizToggle, " ", quizToggleText);
  document.getElementById("lesson")?.append(quizToggleRow, quizBox);
  let fresh = true; // the next update follows a snapshot: what is due then is not asked
  let quizRun = null; // session + scenario the fired set belongs to
  let fired = new Set();
  let lastNow = null;
  let quiz = null; // {question, chosen, answer}
  socket.on("quiz:answer", (value) => {
    if (quiz && quiz.question.id === value.id) {
      quiz.answer = value;
      renderQuiz();
    }
  });
  function due(question, state, words) {
    if (question.at !== null && question.at !== undefined) return state.now >= question.at;
    return Boolean(question.when && words.has(question.when));
  }
  function update(state) {
    const questions = state.scenario?.questions || [];
    const run = `${state.session}|${state.scenario?.name}|${state.scenario?.yaml?.length}`;
    const words = questions.some((q) => q.when) ? seenWords(state) : new Set();
    quizToggleRow.hidden = !questions.length || role === "student";
    quizToggle.checked = quizOn();
    setText(quizToggleText, i18n.t("quiz.toggle"));
    if (fresh || run !== quizRun || (lastNow !== null && state.now < lastNow)) {
      // A new run, a snapshot (join, seek, apply) or time went back: what is already due
      // counts as asked; questions come as a run plays or steps into them.
      fresh = false;
      // A new run, or time went back (seek, restart): what is already due counts as asked.
      quizRun = run;
      fired = new Set(questions.filter((q) => due(q, state, words) && (q.at ?? 1) > 0).map((q) => q.id));
      if (quiz && !questions.some((q) => q.id === quiz.question.id)) quiz = null;
    }
    lastNow = state.now;
    if (role === "student") return;
    for (const question of questions) {
      if (fired.has(question.id) || !due(question, state, words)) continue;
      fired.add(question.id);
      if (!quizOn()) continue; // the learner (or the teacher, for the class) turned them off
      if (role === "teacher") {
        socket.emit("class:ask", { question: { id: question.id } });
      } else {
        emit("pg:clock", { op: "pause" });
        // The page runs its clock ahead of the server's last tick, so the server may pause
        // a little before the question's second (ci14: 29.953 for 30): the run stops at
        // exactly the moment the question is about.
        if (question.at !== null && question.at !== undefined) emit("pg:clock", { op: "seek", value: question.at });
        quiz = { question, chosen: null, answer: null };
        renderQuiz();
      }
      break;
    }
  }
  function renderQuiz() {
    quizBox.hidden = !quiz;
    if (!quiz) return;
    const { question, chosen, answer } = quiz;
    fill(quizBox,
      h("p", { class: "class-question-text", id: "quiz-text" }, text(question.question)),
      h("div", { class: "class-choices", role: "group" }, question.choices.map((choice, i) =>
        h("button", { type: "button", class: ["button", "class-choice", chosen === i ? "chosen" : "",
          answer && answer.answer === i ? "right" : ""], "aria-pressed": String(chosen === i), disabled: chosen !== null,
        dataset: { choice: String(i) }, on: { click: () => {
          quiz.chosen = i;
          socket.emit("quiz:ask", { id: question.id });
          renderQuiz();
        } } }, text(choice)))),
      answer ? h("p", { class: "class-revealed", id: "quiz-result" }, i18n.t(answer.answer === chosen ? "class.yours.right" : "class.revealed",
        { answer: text(question.choices[answer.answer]) })) : null,
      answer ? h("p", { class: "hint" }, text(answer.why)) : null,
      answer ? h("button", { type: "button", class: "button", id: "quiz-close", on: { click: () => {
        quiz = null;
        renderQuiz();
      } } }, i18n.t("class.watch.close")) : null);
  }

  i18n.onLanguageChange(() => {
    render();
    renderQuiz();
  });
  render();

  return {
    update,
    note: (text) => setText(note, text),
    snapshotArrived: () => {
      fresh = true;
    },
    inClass: () => Boolean(code && (role === "teacher" || role === "student")),
    join,
    handleError,
    code,
    role,
  };
}
