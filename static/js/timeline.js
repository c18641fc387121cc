// The timeline: one band per container coloured by state (with words), probe results as
// ticks, events as markers (one per occurrence known), a cursor at now. Clicking (or arrow
// keys) seeks the clock; the window zooms and pans (buttons, Ctrl+wheel, Shift+wheel, keys).
import { h, s, emit, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { timelineModel, seekTarget } from "./state.js";
import { fitView, zoomView, panView, followView, secondAt } from "./timeview.js";

const ZOOM_STEP = 0.5;

export function mount(root) {
  const svg = s("svg", { class: "timeline-svg", id: "timeline-svg", tabindex: "0", role: "slider",
    "aria-valuemin": "0" });
  const readout = h("p", { class: "timeline-readout", id: "timeline-readout" });
  const hint = h("p", { class: "hint timeline-hint", "data-i18n": "timeline.hint" });
  const button = (id, key, fn) => h("button", { type: "button", class: "button tl-button", id, "data-i18n-title": key,
    "data-i18n-aria": key, on: { click: fn } }, t(`${key}.short`));
  const zoomIn = button("timeline-zoom-in", "timeline.zoomIn", () => zoomBy(ZOOM_STEP));
  const zoomOut = button("timeline-zoom-out", "timeline.zoomOut", () => zoomBy(1 / ZOOM_STEP));
  const fit = button("timeline-fit", "timeline.fit", () => setView(fitView(lastModel?.end ?? 60)));
  const panLeft = button("timeline-pan-left", "timeline.panLeft", () => panBy(-0.5));
  const panRight = button("timeline-pan-right", "timeline.panRight", () => panBy(0.5));
  const windowText = h("span", { class: "tl-window", id: "timeline-window" });
  const tools = h("div", { class: "tl-tools", role: "group", "data-i18n-aria": "timeline.zoom" },
    panLeft, zoomOut, zoomIn, panRight, fit, windowText);
  // One line above the lanes: the window's tools, then how to use the keys.
  root.append(h("div", { class: "tl-bar" }, tools, hint), svg, h("div", { class: "timeline-foot" }, readout));
  let latest = null;
  let lastModel = null;
  let geometry = null;
  let signature = "";
  let open = [];
  let cursor = null;
  let view = null;
  let previousNow = null;

  const resize = new ResizeObserver(() => {
    signature = "";
    if (latest) draw(latest);
  });
  resize.observe(svg);

  function setView(next) {
    view = next;
    signature = "";
    if (latest) draw(latest);
  }
  function zoomBy(factor, anchor = null) {
    if (!lastModel || !view) return;
    setView(zoomView(view, factor, anchor ?? Math.min(Math.max(lastModel.now, view.start), view.end), lastModel.end));
  }
  function panBy(windows) {
    if (!lastModel || !view) return;
    setView(panView(view, windows * (view.end - view.start), lastModel.end));
  }
  /** The second under a pointer event, or null left of the plot. */
  function secondUnder(event) {
    if (!geometry || !view) return null;
    const box = svg.getBoundingClientRect();
    const scale = box.width ? geometry.width / box.width : 1;
    const x = (event.clientX - box.left) * scale - geometry.left;
    return x < 0 ? null : secondAt(view, x / geometry.plot);
  }

  svg.addEventListener("click", (event) => {
    if (!latest || !view) return;
    const second = secondUnder(event);
    if (second === null) return;
    const model = timelineModel(latest);
    const fraction = (second - model.start) / (model.end - model.start);
    emit("pg:clock", { op: "seek", value: seekTarget(model, fraction, latest.clock.end) });
  });
  // Ctrl (or ⌘) + wheel, and a trackpad's pinch, zoom around the pointer; Shift + wheel
  // and a sideways swipe pan. A plain wheel scrolls the page, as everywhere else.
  svg.addEventListener("wheel", (event) => {
    if (!view || !lastModel) return;
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      // By how far the wheel turned (a notch is about 100): smooth scrolling splits it up.
      const notches = Math.max(-3, Math.min(3, event.deltaY / 100));
      zoomBy(Math.pow(1 / ZOOM_STEP, notches), secondUnder(event) ?? undefined);
    } else if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
      event.preventDefault();
      const delta = event.shiftKey ? event.deltaY || event.deltaX : event.deltaX;
      panBy(Math.sign(delta) * 0.2);
    }
  }, { passive: false });
  svg.addEventListener("keydown", (event) => {
    if (!latest) return;
    const zoomKeys = { "+": ZOOM_STEP, "=": ZOOM_STEP, "-": 1 / ZOOM_STEP, _: 1 / ZOOM_STEP };
    if (event.key in zoomKeys && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      zoomBy(zoomKeys[event.key]);
      return;
    }
    if (event.key === "0") {
      event.preventDefault();
      fit.click();
      return;
    }
    if (event.key === "[" || event.key === "]") {
      event.preventDefault();
      panBy(event.key === "[" ? -0.5 : 0.5);
      return;
    }
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
    lastModel = model;
    view = view ? followView(view, { end: model.end, now: model.now, previousNow }) : fitView(model.end);
    previousNow = model.now;
    const width = Math.max(200, svg.clientWidth || 600);
    const fs = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const laneH = Math.round(fs * 1.35);
    // The label column fits the longest name up to a quarter of the width; longer names are
    // cut with "…" and carry their full name in a tooltip (and for screen readers).
    const labelFont = fs * 0.78;
    const names = [...model.lanes.map((l) => l.container), t("timeline.probes"), t("timeline.events")];
    const widest = Math.max(...names.map((n) => textWidth(n, labelFont)));
    const left = Math.round(Math.min(Math.max(fs * 6, widest + 12), width * 0.25));
    const rows = model.lanes.length + 2;
    const height = rows * laneH + Math.round(fs * 1.4);
    const plot = width - left - Math.round(fs * 1.6);
    const span = view.end - view.start;
    const raw = (v) => left + ((v - view.start) / span) * plot;
    const x = (v) => raw(Math.max(view.start, Math.min(view.end, v)));
    const visible = (v) => v >= view.start - 1e-9 && v <= view.end + 1e-9;
    const sig = JSON.stringify([lang(), width, fs, model.end, view, Math.floor((model.now * 40) / span), model.lanes.map((l) => l.segments.map((g) => [g.from, g.state, g.reason, g.to === model.now])),
      model.probes.length, model.events.map((e) => [e.t, e.count, e.times])]);
    geometry = { left, plot, width };
    svg.setAttribute("aria-valuemax", String(model.end));
    svg.setAttribute("aria-valuenow", String(state.now));
    svg.setAttribute("aria-valuetext", seconds(state.now));
    svg.setAttribute("aria-label", t("timeline.label", { end: seconds(model.end), now: seconds(state.now) }));
    setText(windowText, view.fit ? t("timeline.window.all", { end: seconds(model.end) })
      : t("timeline.window", { from: seconds(view.start), to: seconds(view.end) }));
    zoomOut.disabled = view.fit;
    fit.disabled = view.fit;
    panLeft.disabled = view.start <= 0;
    panRight.disabled = view.end >= model.end;
    if (sig === signature) {
      for (const o of open) o.el.setAttribute("width", String(Math.max(1, x(model.now) - x(o.from))));
      placeCursor(model.now);
      return;
    }
    signature = sig;
    const focusedKey = svg.contains(document.activeElement) ? document.activeElement.dataset?.key : null;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("height", String(height));
    svg.replaceChildren();
    // What lies outside the window is clipped at the plot's edges.
    const clip = s("clipPath", { id: "tl-clip" }, s("rect", { x: left, y: 0, width: plot + 1, height }));
    svg.append(s("defs", {}, clip));
    const plotArea = s("g", { "clip-path": "url(#tl-clip)" });
    open = [];
    const label = (text, y, key) => {
      const shown = fitText(text, left - 10, labelFont);
      const el = s("text", { class: "tl-label", x: 4, y, dataset: { full: text, key } }, shown);
      if (shown !== text) {
        // Cut: the whole name on hover, on focus and for screen readers.
        el.setAttribute("tabindex", "0");
        el.setAttribute("aria-label", text);
        el.dataset.words = text;
        el.append(s("title", {}, text));
      }
      return el;
    };
    model.lanes.forEach((lane, i) => {
      const y = i * laneH;
      svg.append(label(lane.container, y + laneH * 0.7, `label:${lane.container}`));
      svg.append(s("rect", { class: "tl-lane", x: left, y: y + 2, width: plot, height: laneH - 4 }));
      lane.segments.forEach((seg, j) => {
        if (seg.to < view.start || seg.from > view.end) return;
        const x1 = x(seg.from);
        const w = Math.max(1, x(seg.to) - x1);
        const words = t("timeline.band", { container: lane.container, state: t(`state.${seg.state}`), reason: seg.reason ?? "",
          from: seconds(seg.from), to: seg.to === model.now ? t("timeline.now") : seconds(seg.to) }).replace(/\s+/g, " ");
        const key = `${lane.container}:${j}`;
        const rect = s("rect", { class: `tl-seg is-${seg.state}`, x: x1, y: y + 3, width: w, height: laneH - 6, rx: 3,
          tabindex: "0", role: "img", "aria-label": words, dataset: { words, key } }, s("title", {}, words));
        plotArea.append(rect);
        if (seg.to === model.now) open.push({ el: rect, from: seg.from });
        const word = seg.reason || t(`state.${seg.state}`);
        if (w > word.length * fs * 0.55 + 8) {
          plotArea.append(s("text", { class: `tl-seg-text is-${seg.state}`, x: x1 + 4, y: y + laneH * 0.68 }, word));
        }
      });
    });
    const py = model.lanes.length * laneH;
    svg.append(label(t("timeline.probes"), py + laneH * 0.7, "label:probes"));
    for (const p of model.probes) {
      if (!visible(p.t)) continue;
      const words = `${p.container ?? ""} ${t("timeline.probe", { probe: t(`probe.${p.probe}`), result: t(`result.${p.result}`), t: seconds(p.t) })}`;
      plotArea.append(s("rect", { class: `tl-probe is-${p.result}`, x: raw(p.t) - 1.5, y: py + 3 + (p.result === "failure" ? laneH / 3 : 0),
        width: 3, height: (laneH - 6) * 0.66, dataset: { words } }, s("title", {}, words)));
    }
    const ey = py + laneH;
    svg.append(label(t("timeline.events"), ey + laneH * 0.7, "label:events"));
    for (const e of model.events) {
      const kind = (e.type || "normal").toLowerCase();
      // A repeated event: a thin line from its first to its last occurrence, a marker at
      // every occurrence known, and ×count on the last one.
      if (e.count > 1 && e.first !== null && e.t > e.first) {
        plotArea.append(s("line", { class: `tl-event-span is-${kind}`, x1: x(e.first), x2: x(e.t), y1: ey + laneH / 2, y2: ey + laneH / 2 }));
      }
      e.times.forEach((when, i) => {
        if (!visible(when)) return;
        const last = i === e.times.length - 1;
        const nth = e.count > 1 ? ` (${last ? e.count : i + 1}/${e.count})` : "";
        const words = t("timeline.event", { reason: e.reason, message: e.message, t: seconds(when) }) + nth;
        const cx = raw(when);
        plotArea.append(s("path", { class: `tl-event is-${kind}`, d: `M${cx},${ey + 3} l5,${laneH / 2 - 2} l-5,${laneH / 2 - 2} l-5,-${laneH / 2 - 2} z`,
          dataset: { words, reason: e.reason } }, s("title", {}, words)));
        if (last && e.count > 1 && e.times.length < e.count) {
          plotArea.append(s("text", { class: "tl-event-count", x: cx + 6, y: ey + laneH * 0.72 }, `×${e.count}`));
        }
      });
    }
    svg.append(plotArea);
    const ay = rows * laneH;
    svg.append(s("line", { class: "tl-axis", x1: left, x2: left + plot, y1: ay + 1, y2: ay + 1 }));
    const step = niceStep(span, plot / (fs * 4));
    for (let v = Math.ceil(view.start / step - 1e-9) * step; v <= view.end + 1e-9; v += step) {
      svg.append(s("line", { class: "tl-tick", x1: x(v), x2: x(v), y1: ay, y2: ay + 5 }),
        s("text", { class: "tl-tick-text", x: x(v), y: ay + fs * 1.25, "text-anchor": "middle" }, seconds(v)));
    }
    cursor = s("g", { class: "tl-cursor" }, s("line", { x1: 0, x2: 0, y1: 0, y2: ay }), s("path", { d: "M-5,0 h10 l-5,6 z" }));
    svg.append(cursor);
    placeCursor(model.now);
    if (focusedKey) svg.querySelector(`[data-key="${CSS.escape(focusedKey)}"]`)?.focus();

    function placeCursor(now) {
      cursor.setAttribute("transform", `translate(${raw(now)},0)`);
      cursor.setAttribute("visibility", visible(now) ? "visible" : "hidden");
    }
  }

  return {
    update(state) {
      latest = state;
      for (const b of [zoomIn, zoomOut, fit, panLeft, panRight]) setText(b, t(`${b.dataset.i18nTitle}.short`));
      draw(state);
    },
  };
}

/** An estimate of a text's width: CJK characters one em, others about 0.6 em. */
function textWidth(text, fontSize) {
  return [...text].reduce((n, ch) => n + (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? 1 : 0.6), 0) * fontSize;
}

/** `text`, cut with "…" to fit `room` pixels. */
export function fitText(text, room, fontSize) {
  if (textWidth(text, fontSize) <= room) return text;
  let cut = [...text];
  while (cut.length > 1 && textWidth(`${cut.join("")}…`, fontSize) > room) cut = cut.slice(0, -1);
  return `${cut.join("")}…`;
}

function niceStep(span, maxTicks) {
  for (const step of [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]) if (span / step <= Math.max(2, maxTicks)) return step;
  return 7200;
}
