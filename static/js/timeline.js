// The timeline: one band per container coloured by state (with words), probe results as
// ticks, events as markers, a cursor at now. Clicking (or arrow keys) seeks the clock.
import { h, s, emit, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { timelineModel, seekTarget } from "./state.js";

export function mount(root) {
  const svg = s("svg", { class: "timeline-svg", id: "timeline-svg", tabindex: "0", role: "slider",
    "aria-valuemin": "0" });
  const readout = h("p", { class: "timeline-readout", id: "timeline-readout" });
  const hint = h("p", { class: "hint timeline-hint", "data-i18n": "timeline.hint" });
  root.append(svg, h("div", { class: "timeline-foot" }, readout, hint));
  let latest = null;
  let geometry = null;
  let signature = "";
  let open = [];
  let cursor = null;

  const resize = new ResizeObserver(() => {
    signature = "";
    if (latest) draw(latest);
  });
  resize.observe(svg);

  svg.addEventListener("click", (event) => {
    if (!geometry || !latest) return;
    const box = svg.getBoundingClientRect();
    const x = event.clientX - box.left - geometry.left;
    if (x < 0) return;
    const model = timelineModel(latest);
    emit("pg:clock", { op: "seek", value: seekTarget(model, x / geometry.plot, latest.clock.end) });
  });
  svg.addEventListener("keydown", (event) => {
    if (!latest) return;
    const step = event.shiftKey ? 10 : 1;
    let value = null;
    if (event.key === "ArrowLeft") value = latest.now - step;
    else if (event.key === "ArrowRight") value = latest.now + step;
    else if (event.key === "Home") value = 0;
    if (value === null) return;
    event.preventDefault();
    const limit = latest.clock.end ?? latest.now;
    emit("pg:clock", { op: "seek", value: Math.max(0, Math.min(value, Math.max(limit, latest.now))) });
  });
  const show = (event) => {
    const target = event.target.closest?.("[data-words]");
    if (target) setText(readout, target.dataset.words);
  };
  svg.addEventListener("pointerover", show);
  svg.addEventListener("focusin", show);

  function draw(state) {
    const model = timelineModel(state);
    const width = Math.max(200, svg.clientWidth || 600);
    const fs = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const laneH = Math.round(fs * 1.35);
    const left = Math.round(fs * 7.5);
    const rows = model.lanes.length + 2;
    const height = rows * laneH + Math.round(fs * 1.4);
    const plot = width - left - Math.round(fs * 1.6);
    const x = (v) => left + (Math.max(model.start, Math.min(model.end, v)) / (model.end - model.start)) * plot;
    const sig = JSON.stringify([lang(), width, fs, model.end, Math.floor((model.now * 40) / model.end), model.lanes.map((l) => l.segments.map((g) => [g.from, g.state, g.reason, g.to === model.now])),
      model.probes.length, model.probes.at(-1)?.until, model.probes.reduce((n, p) => n + p.count, 0),
      model.events.map((e) => [e.t, e.count])]);
    geometry = { left, plot };
    svg.setAttribute("aria-valuemax", String(model.end));
    svg.setAttribute("aria-valuenow", String(state.now));
    svg.setAttribute("aria-valuetext", seconds(state.now));
    svg.setAttribute("aria-label", t("timeline.label", { end: seconds(model.end), now: seconds(state.now) }));
    if (sig === signature) {
      for (const o of open) o.el.setAttribute("width", String(Math.max(1, x(model.now) - x(o.from))));
      placeCursor(x(model.now), height);
      return;
    }
    signature = sig;
    const focusedKey = svg.contains(document.activeElement) ? document.activeElement.dataset?.key : null;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("height", String(height));
    svg.replaceChildren();
    open = [];
    model.lanes.forEach((lane, i) => {
      const y = i * laneH;
      svg.append(s("text", { class: "tl-label", x: 4, y: y + laneH * 0.7 }, lane.container));
      svg.append(s("rect", { class: "tl-lane", x: left, y: y + 2, width: plot, height: laneH - 4 }));
      lane.segments.forEach((seg, j) => {
        const x1 = x(seg.from);
        const w = Math.max(1, x(seg.to) - x1);
        const words = t("timeline.band", { container: lane.container, state: t(`state.${seg.state}`), reason: seg.reason ?? "",
          from: seconds(seg.from), to: seg.to === model.now ? t("timeline.now") : seconds(seg.to) }).replace(/\s+/g, " ");
        const key = `${lane.container}:${j}`;
        const rect = s("rect", { class: `tl-seg is-${seg.state}`, x: x1, y: y + 3, width: w, height: laneH - 6, rx: 3,
          tabindex: "0", role: "img", "aria-label": words, dataset: { words, key } }, s("title", {}, words));
        svg.append(rect);
        if (seg.to === model.now) open.push({ el: rect, from: seg.from });
        const word = seg.reason || t(`state.${seg.state}`);
        if (w > word.length * fs * 0.55 + 8) {
          svg.append(s("text", { class: `tl-seg-text is-${seg.state}`, x: x1 + 4, y: y + laneH * 0.68 }, word));
        }
      });
    });
    const py = model.lanes.length * laneH;
    svg.append(s("text", { class: "tl-label", x: 4, y: py + laneH * 0.7 }, t("timeline.probes")));
    for (const p of model.probes) {
      const when = p.count > 1 ? `${seconds(p.t)}–${seconds(p.until)} ×${p.count}` : seconds(p.t);
      const words = `${p.container ?? ""} ${t("timeline.probe", { probe: t(`probe.${p.probe}`), result: t(`result.${p.result}`), t: when })}`;
      svg.append(s("rect", { class: `tl-probe is-${p.result}`, x: x(p.t) - 1.5, y: py + 3 + (p.result === "failure" ? laneH / 3 : 0),
        width: Math.max(3, x(p.until) - x(p.t) + 3), height: (laneH - 6) * 0.66, dataset: { words } }, s("title", {}, words)));
    }
    const ey = py + laneH;
    svg.append(s("text", { class: "tl-label", x: 4, y: ey + laneH * 0.7 }, t("timeline.events")));
    for (const e of model.events) {
      const words = t("timeline.event", { reason: e.reason, message: e.message, t: seconds(e.t) });
      const cx = x(e.t);
      svg.append(s("path", { class: `tl-event is-${(e.type || "normal").toLowerCase()}`, d: `M${cx},${ey + 3} l5,${laneH / 2 - 2} l-5,${laneH / 2 - 2} l-5,-${laneH / 2 - 2} z`,
        dataset: { words } }, s("title", {}, words)));
    }
    const ay = rows * laneH;
    svg.append(s("line", { class: "tl-axis", x1: left, x2: left + plot, y1: ay + 1, y2: ay + 1 }));
    const step = niceStep(model.end, plot / (fs * 4));
    for (let v = 0; v <= model.end + 1e-9; v += step) {
      svg.append(s("line", { class: "tl-tick", x1: x(v), x2: x(v), y1: ay, y2: ay + 5 }),
        s("text", { class: "tl-tick-text", x: x(v), y: ay + fs * 1.25, "text-anchor": "middle" }, seconds(v)));
    }
    cursor = s("g", { class: "tl-cursor" }, s("line", { x1: 0, x2: 0, y1: 0, y2: ay }), s("path", { d: "M-5,0 h10 l-5,6 z" }));
    svg.append(cursor);
    placeCursor(x(model.now), height);
    if (focusedKey) svg.querySelector(`[data-key="${CSS.escape(focusedKey)}"]`)?.focus();
  }

  function placeCursor(cx) {
    cursor?.setAttribute("transform", `translate(${cx},0)`);
  }

  return {
    update(state) {
      latest = state;
      draw(state);
    },
  };
}

function niceStep(span, maxTicks) {
  for (const step of [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]) if (span / step <= Math.max(2, maxTicks)) return step;
  return 7200;
}
