// Live controls: the clock (play, pause, step, speed) and actions on the Pod (delete,
// probe switches, crash, OOM, node down / up). Sends `pg:clock` and `pg:act` events.
import { h, emit, on, fill, setText, uniqueId } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { containersOf, probesOf, probeSwitchValue } from "./state.js";
import { deleteCommand } from "./terminal-core.js";

export const SPEEDS = [0.5, 1, 2, 5, 10, 100];

/** A refusal from the server that is not about the YAML (rate limit, an action refused). */
export let showMessage = () => {};

export function mount(clockRoot, actionsRoot) {
  // ---- clock
  const play = h("button", { type: "button", class: "button button-primary", id: "play", on: { click: () => {
    emit("pg:clock", { op: playing ? "pause" : "play" });
  } } });
  const step = h("button", { type: "button", class: "button", id: "step", "data-i18n": "controls.step",
    "data-i18n-title": "controls.step.title", on: { click: () => emit("pg:clock", { op: "step" }) } });
  const speed = h("select", { id: "speed", class: "picker", on: { change: () => emit("pg:clock", { op: "speed", value: Number(speed.value) }) } },
    SPEEDS.map((v) => h("option", { value: String(v) }, `${v}×`)));
  // Start the scenario again from second 0 (a new history in the same session): the way
  // back once the Pod is gone, since choosing the same scenario in the picker changes nothing.
  const reset = h("button", { type: "button", class: "button", id: "reset", "data-i18n": "controls.reset",
    "data-i18n-title": "controls.reset.title", on: { click: () => emit("pg:reset", {}) } });
  const clockText = h("span", { class: "clock-text", id: "clock-text" });
  const clockRow = h("div", { class: "control-row", role: "group", "data-i18n-aria": "controls.clock" },
    play, step, reset, h("label", { for: "speed", class: "control-label", "data-i18n": "controls.speed" }), speed, clockText);

  // ---- actions
  const grace = h("input", { type: "number", id: "grace", class: "number", min: "0", max: "3600", step: "1",
    "data-i18n-placeholder": "controls.grace.placeholder" });
  const force = h("input", { type: "checkbox", id: "force" });
  const del = h("button", { type: "button", class: "button button-danger", id: "delete", "data-i18n": "controls.delete",
    on: { click: () => {
      const action = { action: "delete", force: force.checked };
      if (grace.value !== "") action.gracePeriodSeconds = Number(grace.value);
      emit("pg:act", action);
    } } });
  // The button's kubectl line: typed into the Terminal tab it is the same delete.
  const asKubectl = h("code", { class: "as-kubectl", id: "delete-as-kubectl", "data-i18n-title": "controls.asKubectl" });
  let podName = "";
  const showAsKubectl = () => setText(asKubectl, podName ? `$ ${deleteCommand({ name: podName, grace: grace.value, force: force.checked })}` : "");
  grace.addEventListener("input", showAsKubectl);
  force.addEventListener("change", showAsKubectl);
  const container = h("select", { id: "act-container", class: "picker", "data-i18n-aria": "controls.container", "data-i18n-title": "controls.container" });
  const exitCode = h("input", { type: "number", id: "exit-code", class: "number", value: "1", min: "0", max: "255", step: "1" });
  const crash = h("button", { type: "button", class: "button", id: "crash", "data-i18n": "controls.crash",
    on: { click: () => emit("pg:act", { action: "crash", container: container.value, exitCode: Number(exitCode.value || 0) }) } });
  const oom = h("button", { type: "button", class: "button", id: "oom", "data-i18n": "controls.oom",
    on: { click: () => emit("pg:act", { action: "oom", container: container.value }) } });
  const node = h("select", { id: "act-node", class: "picker", "data-i18n-aria": "controls.node", "data-i18n-title": "controls.node" });
  const nodeDown = h("button", { type: "button", class: "button", id: "node-down", "data-i18n": "controls.nodeDown",
    on: { click: () => emit("pg:act", { action: "node-down", node: node.value }) } });
  const nodeUp = h("button", { type: "button", class: "button", id: "node-up", "data-i18n": "controls.nodeUp",
    on: { click: () => emit("pg:act", { action: "node-up", node: node.value }) } });
  const actionRow = h("div", { class: "control-row" },
    h("div", { class: "control-group" }, del,
      h("label", { for: "grace", class: "control-label", "data-i18n": "controls.grace" }), grace,
      h("label", { class: "control-check" }, force, h("span", { "data-i18n": "controls.force" })), asKubectl),
    h("div", { class: "control-group" },
      container,
      crash, h("label", { for: "exit-code", class: "control-label", "data-i18n": "controls.exitCode" }), exitCode, oom),
    h("div", { class: "control-group" },
      node, nodeDown, nodeUp));
  const probeRow = h("div", { class: "control-row probe-row", id: "probe-switches" });
  const note = h("p", { class: "hint control-note", role: "status" });
  const message = h("p", { class: "server-message", id: "server-message", role: "alert" });
  clockRoot.append(clockRow, message);
  let messageTimer = null;
  showMessage = (text) => {
    setText(message, text || "");
    clearTimeout(messageTimer);
    if (text) messageTimer = setTimeout(() => setText(message, ""), 8000);
  };
  actionsRoot.append(actionRow, probeRow, note);

  let playing = false;
  let shapeKey = "";
  let runKey = null;

  /** A new run (another scenario, Apply, Restart): the values typed for the last one go. */
  function newRun() {
    grace.value = "";
    force.checked = false;
    exitCode.value = "1";
    showMessage("");
    showAsKubectl();
  }
  on("pg:reset", newRun);
  let switches = [];

  function rebuild(state) {
    const pod = state.pod || state.lastPod;
    const containers = containersOf(pod);
    fillOptions(container, containers.map((c) => c.name));
    const nodeNames = (state.nodes || []).map((n) => n.metadata?.name).filter(Boolean);
    fillOptions(node, nodeNames, state.pod?.spec?.nodeName);
    switches = [];
    const groups = containers.flatMap((c) => {
      const probes = probesOf(c.spec);
      if (!probes.length) return [];
      return [h("div", { class: "probe-container" },
        h("span", { class: "probe-name" }, c.name),
        probes.map((probe) => {
          const id = uniqueId("probe");
          const buttons = ["healthy", "failing"].map((value) => h("button", {
            type: "button", class: ["probe-choice", `is-${value}`], dataset: { value },
            on: { click: () => emit("pg:act", { action: "set-probe", container: c.name, probe, healthy: value === "healthy" }) },
          }, t(`probe.${value}`)));
          const group = h("div", { class: "probe-switch", role: "group", id, "aria-label": t("probe.switch", { container: c.name, probe: t(`probe.${probe}`) }),
            dataset: { container: c.name, probe } },
          h("span", { class: "probe-label" }, t(`probe.${probe}`)), buttons);
          switches.push({ container: c.name, probe, buttons });
          return group;
        }))];
    });
    fill(probeRow, groups.length ? groups : [h("span", { class: "hint" }, t("probe.none"))]);
  }

  return {
    update(state) {
      // The session and its scenario text name one run (Restart says so itself, below).
      const run = state.session ? JSON.stringify([state.session, state.scenario?.yaml ?? null]) : null;
      if (run !== null && runKey !== null && run !== runKey) newRun();
      if (run !== null) runKey = run;
      playing = Boolean(state.clock.playing);
      setText(play, t(playing ? "controls.pause" : "controls.play"));
      play.setAttribute("aria-pressed", String(playing));
      if (document.activeElement !== speed) speed.value = String(state.clock.speed ?? 1);
      setText(clockText, `${t("controls.time", { t: seconds(state.now) })} · ${t(playing ? "controls.playing" : "controls.paused")} · ${state.clock.speed ?? 1}×`);
      const pod = state.pod || state.lastPod;
      const key = JSON.stringify([lang(), containersOf(pod).map((c) => [c.name, probesOf(c.spec)]),
        (state.nodes || []).map((n) => n.metadata?.name), state.pod?.spec?.nodeName]);
      if (key !== shapeKey) {
        shapeKey = key;
        rebuild(state);
      }
      for (const sw of switches) {
        const value = probeSwitchValue(state, sw.container, sw.probe);
        for (const b of sw.buttons) b.setAttribute("aria-pressed", String(b.dataset.value === value));
      }
      const name = state.pod?.metadata?.name ?? "";
      if (name !== podName) {
        podName = name;
        showAsKubectl();
      }
      const gone = !state.pod;
      for (const el of [del, crash, oom, container, exitCode, grace, force]) el.disabled = gone;
      for (const sw of switches) for (const b of sw.buttons) b.disabled = gone;
      // A cluster run goes on without this Pod: another one can be picked.
      const others = state.cluster?.pods?.length;
      setText(note, gone && state.lastPod ? t(others ? "controls.noPod.cluster" : "controls.noPod",
        { pod: state.lastPod.metadata?.name ?? "" }) : "");
    },
  };
}

function fillOptions(select, values, preferred) {
  const before = select.value;
  fill(select, values.map((v) => h("option", { value: v }, v)));
  if (values.includes(before)) select.value = before;
  else if (preferred && values.includes(preferred)) select.value = preferred;
}
