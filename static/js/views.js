// kubectl's views, rendered by the server (get pods -w, logs, describe, -o yaml), the
// events table and the Service's endpoints, behind keyboard-navigable tabs.
import { h, fill, setText, on } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { eventRows, endpointsModel } from "./state.js";
import { explain } from "./explain.js";

const TABS = ["watch", "events", "logs", "endpoints", "describe", "yaml", "terminal"];

export function mount(root) {
  const tablist = h("div", { class: "tabs", role: "tablist", "data-i18n-aria": "views.heading" });
  const panels = {};
  const tabs = TABS.map((name, i) => {
    const tab = h("button", { type: "button", role: "tab", class: "tab", id: `tab-${name}`, "aria-controls": `view-${name}`,
      "aria-selected": String(i === 0), tabindex: i === 0 ? "0" : "-1", "data-i18n": `views.${name}`,
      on: { click: () => select(name), keydown: (e) => keys(e, i) } });
    panels[name] = h("div", { class: "tab-panel", role: "tabpanel", id: `view-${name}`, "aria-labelledby": `tab-${name}`,
      tabindex: "0", hidden: i !== 0 });
    return tab;
  });
  tablist.append(...tabs);
  // kubectl's columns are wider than the right-hand column: a toggle lays the views over the
  // page at full width (Escape puts them back), so nothing is cut off on a laptop.
  const widen = h("button", { type: "button", class: "tab-widen", id: "views-widen", "aria-pressed": "false",
    "data-i18n": "views.widen", "data-i18n-title": "views.widen.title", on: { click: () => setWide(!root.classList.contains("is-wide")) } });
  function setWide(on) {
    root.classList.toggle("is-wide", on);
    widen.setAttribute("aria-pressed", String(on));
  }
  root.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && root.classList.contains("is-wide")) {
      setWide(false);
      widen.focus();
    }
  });
  root.append(h("div", { class: "views-bar" }, tablist, widen), ...Object.values(panels));
  const pres = {};
  for (const name of ["watch", "describe", "yaml"]) {
    pres[name] = h("pre", { class: "kubectl", id: `kubectl-${name}` });
    panels[name].append(pres[name]);
  }
  // kubectl logs POD [-c NAME] [--previous] [--timestamps]: the server renders each
  // container's current and previous log; the page picks one and adds the time stamps.
  const logsContainer = h("select", { id: "logs-container", "data-i18n-aria": "logs.container" });
  const logsPrevious = h("input", { type: "checkbox", id: "logs-previous" });
  const logsTimestamps = h("input", { type: "checkbox", id: "logs-timestamps" });
  const logsPre = h("pre", { class: "kubectl", id: "kubectl-logs" });
  panels.logs.append(
    h("div", { class: "logs-bar" },
      h("label", { class: "logs-option" }, h("span", { "data-i18n": "logs.container" }), " ", logsContainer),
      h("label", { class: "logs-option" }, logsPrevious, " ", h("code", {}, "--previous")),
      h("label", { class: "logs-option" }, logsTimestamps, " ", h("code", {}, "--timestamps"))),
    logsPre);
  let latestLogs = null;
  let logsRun = null; // {run, now}: which run (and where in it) the logs pane last showed
  for (const control of [logsContainer, logsPrevious, logsTimestamps]) {
    control.addEventListener("change", () => showLogs());
  }
  function showLogs() {
    const logs = latestLogs;
    if (!logs || !logs.containers || !Object.keys(logs.containers).length) {
      setText(logsPre, t("views.empty"));
      return;
    }
    const names = Object.keys(logs.containers);
    const key = names.join("|");
    if (logsContainer.dataset.names !== key) {
      logsContainer.dataset.names = key;
      const chosen = names.includes(logsContainer.value) ? logsContainer.value : logs.default;
      fill(logsContainer, names.map((n) => h("option", { value: n }, n)));
      logsContainer.value = chosen;
    }
    const entry = logs.containers[logsContainer.value] || logs.containers[logs.default];
    const text = logsText(entry?.[logsPrevious.checked ? "previous" : "current"], logsTimestamps.checked);
    if (logsPre.textContent !== text) {
      const atBottom = panels.logs.scrollTop + panels.logs.clientHeight >= panels.logs.scrollHeight - 4;
      setText(logsPre, text);
      if (atBottom) panels.logs.scrollTop = panels.logs.scrollHeight;
    }
  }
  let shown = {};
  // The terminal (terminal.js) is loaded the first time its tab opens.
  let latestState = null;
  let terminal = null;
  const loadTerminal = () => {
    terminal ??= import("./terminal.js").then((module) => module.mount(panels.terminal, { state: () => latestState }));
    return terminal;
  };
  function openTerminal() {
    tabs[TABS.indexOf("terminal")].classList.remove("has-news");
    loadTerminal().then((term) => term.focus());
  }
  // The teacher's terminal, mirrored to a class (terminal:mirror): shown in this one, the
  // tab marked while another view is open. Lines that come before the module has loaded wait.
  let early = [];
  on("pg:terminal-mirror", (msg) => {
    if (panels.terminal.hidden) tabs[TABS.indexOf("terminal")].classList.add("has-news");
    if (early !== null) {
      if (early.length < 200) early.push(msg);
      loadTerminal().then((term) => {
        const waiting = early ?? [];
        early = null;
        for (const m of waiting) term.mirror(m);
      });
      return;
    }
    loadTerminal().then((term) => term.mirror(msg));
  });
  // `kubectl get pods -w` is read across: its type shrinks to fit the panel's width (down to
  // MIN_WATCH_PX, then it scrolls) so RESTARTS and AGE are never cut off.
  const fitWatch = () => fitToWidth(pres.watch, panels.watch);
  new ResizeObserver(fitWatch).observe(panels.watch);

  function select(name) {
    tabs.forEach((tab, i) => {
      const on = TABS[i] === name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      panels[TABS[i]].hidden = !on;
    });
    if (name === "watch") fitWatch();
    if (name === "terminal") openTerminal();
  }
  function keys(event, i) {
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const j = (next + TABS.length) % TABS.length;
    select(TABS[j]);
    tabs[j].focus();
  }

  return {
    update(state) {
      latestState = state;
      const language = lang();
      for (const name of ["watch", "describe", "yaml"]) {
        const text = state.views?.[name] || t("views.empty");
        if (pres[name].textContent !== text) {
          const atBottom = panels[name].scrollTop + panels[name].clientHeight >= panels[name].scrollHeight - 4;
          setText(pres[name], text);
          if (name === "watch") fitWatch();
          if (name === "watch" && atBottom) panels[name].scrollTop = panels[name].scrollHeight;
        }
      }
      if (latestLogs !== state.views?.logs) {
        latestLogs = state.views?.logs ?? null;
        const seen = { run: runOf(state), now: state.now };
        const chosen = latestLogs?.containers?.[logsContainer.value] ?? latestLogs?.containers?.[latestLogs?.default];
        if (logsPrevious.checked && !previousStaysTicked(logsRun, seen, chosen?.previous)) logsPrevious.checked = false;
        logsRun = seen;
        showLogs();
      }
      const eventsKey = JSON.stringify([language, state.events]);
      if (shown.events !== eventsKey) {
        shown.events = eventsKey;
        fill(panels.events, eventsTable(eventRows(state.events), (state.pod || state.lastPod)?.metadata?.name));
      }
      const endpointsKey = JSON.stringify([language, state.endpointSlices]);
      if (shown.endpoints !== endpointsKey) {
        shown.endpoints = endpointsKey;
        fill(panels.endpoints, endpointsView(endpointsModel(state.endpointSlices)));
      }
    },
  };
}

/** A run of the session: a new scenario, or the same one applied again, is another run. */
function runOf(state) {
  return `${state.session ?? ""}|${state.scenario?.yaml ?? ""}`;
}

/**
 * Whether `--previous` stays ticked when the logs change. A new run has no previous
 * container, so the box is cleared rather than open that run on kubectl's error; after going
 * back in time (a seek, a Restart) it stays only if there is a previous container to show.
 * `before`/`after`: {run, now} of the last and the new logs; `previous`: the new
 * `kubectl logs --previous` view of the chosen container.
 */
export function previousStaysTicked(before, after, previous) {
  if (!before) return !isLogsError(previous);
  if (before.run !== after.run) return false;
  if (after.now < before.now) return !isLogsError(previous);
  return true;
}

/** kubectl answered with an error and no lines (no previous terminated container). */
export function isLogsError(view) {
  return Boolean(view?.stderr) && !(view?.lines || []).length;
}

/** The terminal text of one `kubectl logs` run: the command, stderr, then the lines. */
export function logsText(view, timestamps = false) {
  if (!view) return "";
  let command = view.command;
  if (timestamps) command = command.replace(/ --tail=/, " --timestamps --tail=");
  const out = [`$ ${command}`];
  if (view.stderr) out.push(view.stderr);
  for (const [stamp, line] of view.lines || []) out.push(timestamps ? `${stamp} ${line}` : line);
  return out.join("\n");
}

const MIN_WATCH_PX = 8;
let charRatio = null;

/** Width of one character of a monospace font at 1 px. */
function monoRatio(family) {
  if (charRatio === null) {
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = `100px ${family}`;
    charRatio = ctx.measureText("0000000000").width / 1000 || 0.6;
  }
  return charRatio;
}

/** Set `pre`'s font size so its longest line fits `panel`'s width (never above the CSS size). */
function fitToWidth(pre, panel) {
  if (!pre || panel.hidden || !panel.clientWidth) return;
  pre.style.fontSize = "";
  const style = getComputedStyle(pre);
  const base = parseFloat(style.fontSize) || 12;
  const longest = Math.max(1, ...pre.textContent.split("\n").map((line) => line.length));
  const room = panel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
  const size = Math.min(base, room / (longest * monoRatio(style.fontFamily)));
  if (size < base) pre.style.fontSize = `${Math.max(MIN_WATCH_PX, Math.floor(size * 10) / 10)}px`;
}

function eventsTable(rows, pod = null) {
  if (!rows.length) return h("p", { class: "hint" }, t("events.none"));
  return h("table", { class: "events-table", id: "events-table" },
    h("thead", {}, h("tr", {}, ["events.lastSeen", "events.type", "events.reason", "events.message"]
      .map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, rows.map((r) => h("tr", { class: r.type === "Warning" ? "is-warning" : "" },
      h("td", { class: "ev-time" }, r.t === null ? "" : seconds(r.t)),
      h("td", {}, r.type === "Warning" ? `⚠ ${r.type}` : r.type),
      h("td", { class: "ev-reason", title: reasonTitle(r.reason, pod) }, r.reason, r.count > 1 ? ` ×${r.count}` : ""),
      h("td", {}, r.message, h("span", { class: "ev-object" }, r.object))))));
}

/** An event reason's "what it means, what to check", shown on hover. */
function reasonTitle(reason, pod = null) {
  const [entry] = explain(reason, lang(), { pod });
  return entry ? `${entry.means}\n${t("explain.check")}: ${entry.check}` : null;
}

function endpointsView(services) {
  if (!services.length) return h("p", { class: "hint", id: "endpoints-none" }, t("endpoints.none"));
  const flag = (value, key) => h("span", { class: ["ep-flag", value === true ? "is-true" : value === false ? "is-false" : "is-unknown"],
    dataset: { flag: key } }, `${value === true ? "✓" : value === false ? "✗" : "?"} ${t(`endpoints.${key}`)}`);
  return h("div", { class: "endpoints", id: "endpoints" },
    services.map((svc) => h("section", { class: "ep-service" },
      h("h3", { class: "sub-title" }, `${t("endpoints.service")} ${svc.service}`),
      svc.endpoints.length
        ? h("ul", { class: "ep-list" }, svc.endpoints.map((e) => h("li", { class: ["ep", e.ready ? "is-ready" : "is-not-ready"], dataset: { target: e.target } },
          h("code", {}, e.address), e.target ? ` (${t("endpoints.target")} ${e.target}) ` : " ",
          flag(e.ready, "ready"), flag(e.serving, "serving"), flag(e.terminating, "terminating"))))
        : h("p", { class: "hint" }, t("endpoints.noEndpoints", { service: svc.service })))),
    h("p", { class: "hint" }, t("endpoints.note")));
}
