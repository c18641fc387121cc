// The timeline: one band per container coloured by state (with words), probe results as
// ticks, events as markers (one per occurrence known), a cursor at now. Clicking (or arrow
// keys) seeks the clock; the window zooms and pans (buttons, Ctrl+wheel, Shift+wheel, keys).
// A cluster run (state.cluster) has one lane per Pod instead, grouped by owner (lanes.js):
// the focus Pod's lane unfolds into its container lanes; a click on another Pod's lane
// follows that Pod; a row above marks the rollouts, scales and Job milestones.
import { h, s, emit, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { timelineModel, seekTarget } from "./state.js";
import { fitView, zoomView, panView, followView, secondAt } from "./timeview.js";
import { clusterRows, workloadMarks, tailText } from "./lanes.js";

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
  // A cluster's lanes scroll in a box of their own, the time axis kept in sight below them.
  const axisSvg = s("svg", { class: "timeline-svg timeline-axis-svg", id: "timeline-axis", "aria-hidden": "true" });
  const scroller = h("div", { class: "tl-scroll" }, svg, axisSvg);
  root.append(h("div", { class: "tl-bar" }, tools, hint), scroller, h("div", { class: "timeline-foot" }, readout));
  let latest = null;
  let lastModel = null;
  let geometry = null;
  let signature = "";
  let open = [];
  let cursor = null;
  let view = null;
  let previousNow = null;
  // Cluster lanes: what the user folded, and whether every Pod is shown.
  const collapsed = new Set();
  const closedGroups = new Set();
  let showAll = false;
  let clusterRef = null;
  let clusterVersion = 0;

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

  /** A Pod lane's, a group's or the "more" row's action; true when there was one. */
  function act(target) {
    const el = target?.closest?.("[data-action]");
    if (!el || !latest) return false;
    const { action, pod, owner } = el.dataset;
    const focus = latest.cluster?.focus;
    if (action === "pod") {
      if (pod === focus) {
        if (collapsed.has(pod)) collapsed.delete(pod);
        else collapsed.add(pod);
      } else {
        collapsed.delete(pod);
        emit("pg:act", { action: "focus", name: pod });
      }
    } else if (action === "follow") {
      if (pod === focus) return false; // the focus Pod's lane seeks, as every other lane
      collapsed.delete(pod);
      emit("pg:act", { action: "focus", name: pod });
    } else if (action === "group") {
      if (closedGroups.has(owner)) closedGroups.delete(owner);
      else closedGroups.add(owner);
    } else if (action === "more") {
      showAll = !showAll;
    } else {
      return false;
    }
    setView(view);
    return true;
  }

  const onClick = (event) => {
    if (!latest || !view) return;
    if (act(event.target)) return;
    const second = secondUnder(event);
    if (second === null) return;
    const model = timelineModel(latest);
    const fraction = (second - model.start) / (model.end - model.start);
    emit("pg:clock", { op: "seek", value: seekTarget(model, fraction, latest.clock.end) });
  };
  svg.addEventListener("click", onClick);
  axisSvg.addEventListener("click", onClick);
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
    if ((event.key === "Enter" || event.key === " ") && event.target.dataset?.action) {
      event.preventDefault();
      const key = event.target.dataset.key;
      if (act(event.target) && key) svg.querySelector(`[data-key="${CSS.escape(key)}"]`)?.focus();
      return;
    }
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
    const cluster = state.cluster ?? null;
    if (cluster !== clusterRef) {
      clusterRef = cluster;
      clusterVersion += 1;
    }
    const width = Math.max(200, svg.clientWidth || 600);
    const fs = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const laneH = Math.round(fs * 1.35);
    const podH = Math.round(fs * 1.1); // a folded Pod: one small lane
    const groupH = Math.round(fs * 1.05);
    // The rows, top to bottom: a Pod run has its container lanes, probes and events; a
    // cluster run the workloads' marks, then per owner its Pods (the focus Pod unfolded
    // into its container lanes and probes), then the events.
    const rows = [];
    const marks = cluster ? workloadMarks(cluster, model.now) : null;
    if (cluster) {
      if (marks.rollouts.length || marks.points.length) rows.push({ kind: "workloads", h: laneH });
      const options = { collapsed, closedGroups, showAll };
      for (const row of clusterRows(cluster, model.now, options)) {
        if (row.type === "pod") {
          rows.push({ kind: "pod", h: podH, row });
          if (row.expanded) {
            for (const lane of model.lanes) rows.push({ kind: "container", h: laneH, lane, indent: true });
            rows.push({ kind: "probes", h: laneH, indent: true });
          }
        } else {
          rows.push({ kind: row.type, h: groupH, row });
        }
      }
    } else {
      for (const lane of model.lanes) rows.push({ kind: "container", h: laneH, lane });
      rows.push({ kind: "probes", h: laneH });
    }
    rows.push({ kind: "events", h: laneH });
    let top = 0;
    for (const row of rows) {
      row.y = top;
      top += row.h;
    }
    // The label column fits the longest name up to a quarter of the width (a third for a
    // cluster's Pod names); longer names are cut with "…" and carry their full name in a
    // tooltip (and for screen readers).
    const labelFont = fs * 0.78;
    const indent = Math.round(fs * 0.7);
    const names = rows.map((r) => r.kind === "container" ? r.lane.container
      : r.kind === "pod" ? `▾ ${r.row.lane.name}` : r.kind === "probes" ? t("timeline.probes")
        : r.kind === "events" ? t("timeline.events") : r.kind === "workloads" ? workloadsLabel(marks) : "");
    const widest = Math.max(...names.map((n) => textWidth(n, labelFont * (cluster ? 1.1 : 1)))) + (cluster ? indent : 0);
    const left = Math.round(Math.min(Math.max(fs * 6, widest + 12), width * (cluster ? 0.3 : 0.25)));
    const axisH = Math.round(fs * 1.4);
    const height = top + (cluster ? 2 : axisH);
    const plot = width - left - Math.round(fs * 1.6);
    const span = view.end - view.start;
    const raw = (v) => left + ((v - view.start) / span) * plot;
    const x = (v) => raw(Math.max(view.start, Math.min(view.end, v)));
    const visible = (v) => v >= view.start - 1e-9 && v <= view.end + 1e-9;
    const sig = JSON.stringify([lang(), width, fs, model.end, view, Math.floor((model.now * 40) / span), model.lanes.map((l) => l.segments.map((g) => [g.from, g.state, g.reason, g.to === model.now])),
      model.probes.length, model.probes.at(-1)?.until, model.probes.reduce((n, p) => n + p.count, 0),
      model.events.map((e) => [e.t, e.count, e.times]),
      cluster ? [clusterVersion, [...collapsed], [...closedGroups], showAll] : null]);
    geometry = { left, plot, width };
    const hintKey = cluster ? "timeline.hint.cluster" : "timeline.hint";
    if (hint.dataset.i18n !== hintKey) hint.dataset.i18n = hintKey;
    setText(hint, t(hintKey));
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
    const label = (text, y, key, { pad = 4, tail = false, room = left - 10 - pad } = {}) => {
      const shown = tail ? tailText(text, (str) => textWidth(str, labelFont) <= room) : fitText(text, room, labelFont);
      const el = s("text", { class: "tl-label", x: pad, y, dataset: { full: text, key } }, shown);
      if (shown !== text) {
        // Cut: the whole name on hover, on focus and for screen readers.
        el.setAttribute("tabindex", "0");
        el.setAttribute("aria-label", text);
        el.dataset.words = text;
        el.append(s("title", {}, text));
      }
      return el;
    };
    const podTop = rows.find((r) => r.kind === "group" || r.kind === "pod")?.y ?? null;
    const lastPodRow = rows.findLast((r) => r.kind === "pod" || r.kind === "container" || r.kind === "probes") ?? null;
    for (const row of rows) {
      const y = row.y;
      const pad = row.indent ? 4 + indent : 4;
      if (row.kind === "container") drawContainer(row.lane, y, pad);
      else if (row.kind === "probes") drawProbes(y, pad);
      else if (row.kind === "events") drawEvents(y);
      else if (row.kind === "workloads") drawWorkloads(y, podTop, lastPodRow);
      else if (row.kind === "group") drawGroup(row.row, y, row.h);
      else if (row.kind === "pod") drawPod(row.row, y, row.h);
      else if (row.kind === "more" || row.kind === "fewer") drawMore(row.row, y, row.h);
    }

    function drawContainer(lane, y, pad) {
      svg.append(label(lane.container, y + laneH * 0.7, `label:${lane.container}`, { pad }));
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
    }

    function drawProbes(py, pad) {
      svg.append(label(t("timeline.probes"), py + laneH * 0.7, "label:probes", { pad }));
      for (const p of model.probes) {
        const until = p.until ?? p.t;
        if (until < view.start - 1e-9 || p.t > view.end + 1e-9) continue;
        const when = p.count > 1 ? `${seconds(p.t)}–${seconds(until)} ×${p.count}` : seconds(p.t);
        const words = `${p.container ?? ""} ${t("timeline.probe", { probe: t(`probe.${p.probe}`), result: t(`result.${p.result}`), t: when })}`;
        plotArea.append(s("rect", { class: `tl-probe is-${p.result}`, x: x(p.t) - 1.5, y: py + 3 + (p.result === "failure" ? laneH / 3 : 0),
          width: Math.max(3, x(until) - x(p.t) + 3), height: (laneH - 6) * 0.66, dataset: { words } }, s("title", {}, words)));
      }
    }

    function drawEvents(ey) {
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
    }

    // Rollouts as bands (and a faint band behind the Pods' lanes), scales and Job
    // milestones as flags, each with its words.
    function drawWorkloads(wy, bandTop, lastRow) {
      svg.append(label(workloadsLabel(marks), wy + laneH * 0.7, "label:workloads"));
      const bandBottom = lastRow ? lastRow.y + lastRow.h : null;
      marks.rollouts.forEach((r, i) => {
        if (r.to < view.start || r.from > view.end) return;
        const x1 = x(r.from);
        const w = Math.max(3, x(r.to) - x1);
        const state = r.result ?? "running";
        const words = t(`timeline.rollout.${state}`, { kind: r.kind, name: r.name, revision: r.revision,
          from: seconds(r.from), to: r.result ? seconds(r.to) : t("timeline.now") });
        const key = `rollout:${r.name}:${r.revision}`;
        if (bandTop !== null && bandBottom !== null) {
          const band = s("rect", { class: `tl-rollout-band is-${state}`, x: x1, y: bandTop, width: w, height: bandBottom - bandTop });
          plotArea.append(band);
          if (!r.result) open.push({ el: band, from: r.from });
        }
        const rect = s("rect", { class: `tl-rollout is-${state}`, x: x1, y: wy + 3, width: w, height: laneH - 6, rx: 3,
          tabindex: "0", role: "img", "aria-label": words, dataset: { words, key, rollout: `${r.name}:${r.revision}` } }, s("title", {}, words));
        plotArea.append(rect);
        if (!r.result) open.push({ el: rect, from: r.from });
        const word = t("timeline.rollout.short", { name: r.name, revision: r.revision });
        // inside the band when it fits, else after it (when the next band leaves room)
        const next = marks.rollouts[i + 1];
        const room = (next ? x(next.from) : left + plot) - x1;
        if (w > textWidth(word, fs * 0.72) + 8) {
          plotArea.append(s("text", { class: `tl-rollout-text is-${state}`, x: x1 + 4, y: wy + laneH * 0.68 }, word));
        } else if (room - w > textWidth(word, fs * 0.72) + 10) {
          plotArea.append(s("text", { class: "tl-rollout-text is-outside", x: x1 + w + 3, y: wy + laneH * 0.68 }, word));
        }
      });
      for (const p of marks.points) {
        if (!visible(p.t)) continue;
        const words = p.type === "scale"
          ? t("timeline.scale", { name: p.name, from: p.from, replicas: p.replicas, t: seconds(p.t) })
          : t("timeline.job", { name: p.name, condition: p.condition, reason: p.reason ?? "", t: seconds(p.t) });
        const cx = raw(p.t);
        plotArea.append(s("path", { class: `tl-mark is-${p.type}${p.condition === "Failed" ? " is-failed" : ""}`,
          d: `M${cx},${wy + 2} v${laneH - 4} M${cx},${wy + 2} h7 l-2,3 l2,3 h-7`, tabindex: "0", role: "img", "aria-label": words,
          dataset: { words, key: `mark:${p.type}:${p.name}:${p.t}` } }, s("title", {}, words)));
        if (bandTop !== null && bandBottom !== null) {
          plotArea.append(s("line", { class: "tl-mark-line", x1: cx, x2: cx, y1: bandTop, y2: bandBottom }));
        }
        // a word beside the flag when it has room before the next one
        const word = p.type === "scale" ? `${p.from}→${p.replicas}` : p.condition;
        const next = marks.points.find((q) => q.t > p.t);
        const room = (next ? raw(next.t) : left + plot) - cx - 10;
        if (room > textWidth(word, fs * 0.7) + 2) {
          plotArea.append(s("text", { class: "tl-mark-text", x: cx + 9, y: wy + laneH * 0.68 }, word));
        }
      }
    }

    function drawGroup(row, gy, h) {
      const words = t("timeline.group", { owner: row.owner || t("timeline.noOwner"), count: row.count });
      const key = `group:${row.owner}`;
      svg.append(s("line", { class: "tl-group-line", x1: 0, x2: left + plot, y1: gy + 0.5, y2: gy + 0.5 }));
      const el = s("text", { class: "tl-group", x: 4, y: gy + h * 0.72, tabindex: "0", role: "button",
        "aria-expanded": row.collapsed ? "false" : "true", "aria-label": words,
        dataset: { action: "group", owner: row.owner, key, words } },
      `${row.collapsed ? "▸" : "▾"} ${fitText(row.owner || t("timeline.noOwner"), left + plot - 30, fs * 0.7)}${row.collapsed ? ` (${row.count})` : ""}`);
      el.append(s("title", {}, words));
      svg.append(el);
    }

    function drawPod(row, y, h) {
      const lane = row.lane;
      const words = row.focus
        ? t(row.expanded ? "timeline.pod.fold" : "timeline.pod.unfold", { pod: lane.name })
        : t("timeline.pod.follow", { pod: lane.name });
      const key = `pod:${lane.name}`;
      const room = left - 10 - indent - 4;
      // bold glyphs run wider than the estimate: fit with some room to spare
      const name = tailText(lane.name, (str) => textWidth(`▾ ${str}`, labelFont * 1.1) <= room);
      const el = s("text", { class: ["tl-label tl-pod-label", row.focus && "is-focus", lane.gone && "is-gone"].filter(Boolean).join(" "),
        x: 4 + indent, y: y + h * 0.72, tabindex: "0", role: "button", "aria-label": `${lane.name}: ${words}`,
        ...(row.focus ? { "aria-expanded": row.expanded ? "true" : "false" } : {}),
        dataset: { action: "pod", pod: lane.name, key, words: `${lane.name}: ${words}`, full: lane.name } },
      `${row.expanded ? "▾" : "▸"} ${name}`);
      el.append(s("title", {}, `${lane.name}: ${words}`));
      svg.append(el);
      const end = lane.to ?? model.now;
      const bg = s("rect", { class: ["tl-lane tl-pod-lane", row.focus && "is-focus"].filter(Boolean).join(" "),
        x: left, y: y + 1, width: plot, height: h - 2,
        dataset: { action: "follow", pod: lane.name, podLane: lane.name, words: `${lane.name}: ${words}` } });
      plotArea.append(bg);
      lane.segments.forEach((seg, j) => {
        if (seg.to < view.start || seg.from > view.end) return;
        const x1 = x(seg.from);
        const w = Math.max(1, x(seg.to) - x1);
        const segWords = t("timeline.podBand", { pod: lane.name, status: seg.status, from: seconds(seg.from),
          to: seg.open ? t("timeline.now") : seconds(seg.to) });
        const rect = s("rect", { class: `tl-pseg is-${seg.kind}${row.focus ? "" : " is-follow"}`, x: x1, y: y + 2, width: w, height: h - 4, rx: 2,
          role: "img", "aria-label": segWords, dataset: { action: "follow", pod: lane.name, words: segWords, status: seg.status, key: `${key}:${j}` } },
        s("title", {}, segWords));
        plotArea.append(rect);
        if (seg.open) open.push({ el: rect, from: seg.from });
        if (w > textWidth(seg.status, fs * 0.66) + 6) {
          plotArea.append(s("text", { class: `tl-pseg-text is-${seg.kind}`, x: x1 + 3, y: y + h * 0.7 }, seg.status));
        }
      });
      for (const when of lane.restarts) {
        if (!visible(when)) continue;
        const words = t("timeline.restart", { pod: lane.name, t: seconds(when) });
        plotArea.append(s("circle", { class: "tl-restart", cx: raw(when), cy: y + 3, r: 3, dataset: { words } }, s("title", {}, words)));
      }
      for (const when of lane.deleted) {
        if (!visible(when)) continue;
        const words = t("timeline.deleted", { pod: lane.name, t: seconds(when) });
        const cx = raw(when);
        plotArea.append(s("path", { class: "tl-deleted", d: `M${cx - 3},${y + 2} l6,6 m0,-6 l-6,6 M${cx},${y + 2} v${h - 4}`,
          dataset: { words } }, s("title", {}, words)));
      }
      if (lane.gone && visible(end)) {
        const words = t("timeline.gone", { pod: lane.name, t: seconds(end) });
        plotArea.append(s("rect", { class: "tl-gone", x: raw(end) - 1, y: y + 1, width: 2, height: h - 2, dataset: { words } }, s("title", {}, words)));
      }
      if (lane.cut !== null && visible(lane.cut)) {
        plotArea.append(s("text", { class: "tl-cut", x: raw(lane.cut) - 2, y: y + h * 0.7, "text-anchor": "end" }, "…"));
      }
    }

    function drawMore(row, my, h) {
      const words = row.type === "more" ? t("timeline.more", { hidden: row.hidden, total: row.total })
        : t("timeline.fewer", { total: row.total });
      const el = s("text", { class: "tl-more", x: 4, y: my + h * 0.72, tabindex: "0", role: "button",
        dataset: { action: "more", key: "more", words } }, words);
      svg.append(el);
    }

    svg.append(plotArea);
    // The axis: below the lanes, or (a cluster) in its own svg that stays in sight.
    scroller.classList.toggle("is-cluster", Boolean(cluster));
    axisSvg.classList.toggle("is-shown", Boolean(cluster));
    const axisIn = cluster ? axisSvg : svg;
    const ay = cluster ? 0 : top;
    if (cluster) {
      axisSvg.setAttribute("viewBox", `0 0 ${width} ${axisH + 2}`);
      axisSvg.setAttribute("height", String(axisH + 2));
      axisSvg.replaceChildren();
    }
    axisIn.append(s("line", { class: "tl-axis", x1: left, x2: left + plot, y1: ay + 1, y2: ay + 1 }));
    const step = niceStep(span, plot / (fs * 4));
    for (let v = Math.ceil(view.start / step - 1e-9) * step; v <= view.end + 1e-9; v += step) {
      axisIn.append(s("line", { class: "tl-tick", x1: x(v), x2: x(v), y1: ay, y2: ay + 5 }),
        s("text", { class: "tl-tick-text", x: x(v), y: ay + fs * 1.25, "text-anchor": "middle" }, seconds(v)));
    }
    cursor = s("g", { class: "tl-cursor" }, s("line", { x1: 0, x2: 0, y1: 0, y2: top }), s("path", { d: "M-5,0 h10 l-5,6 z" }));
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

/** The workloads row's name: "rollouts" when there is one, else "workloads". */
function workloadsLabel(marks) {
  return t(marks?.rollouts.length ? "timeline.rollouts" : "timeline.workloads");
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
