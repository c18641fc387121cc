// The five-stage flow diagram (the seed article's figure) as SVG: one row per stage, a box
// per step, lanes per container, loops drawn when they happen, a grace countdown, the outcome.
// The SVG is built once per shape (containers, loops, language) and repainted in place, so
// the CSS animation of the current step keeps running smoothly between ticks.
import { s, h, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { diagramModel } from "./state.js";

const PAD = 6;
const GUTTER = 26;
const TITLE_W = 120;
const BOX_H = 49;
const LANE_GAP = 6;
const STAGE_GAP = 14;
const ARROW = 12;
const LABEL_W = 70;
const OUTCOME_H = 28;
const MIN_BOX_W = 76; // room for the longest one-word label ("Submitted", "Scheduled") at 12.5 units
const ROW_GAP = 8;
const UNIT_FONT = 13; // the SVG's body text size in user units

export function mount(root) {
  const svg = s("svg", { class: "diagram-svg", id: "diagram-svg", role: "img", preserveAspectRatio: "xMidYMin meet" });
  const caption_ = h("p", { class: "diagram-caption", id: "diagram-caption", "aria-live": "polite" });
  const nodeNote = h("p", { class: "diagram-node", id: "diagram-node", role: "status", hidden: true });
  const holder = h("div", { class: "diagram-holder" }, svg);
  root.append(caption_, nodeNote, holder);
  let shapeKey = "";
  let refs = null;
  let latest = null;
  new ResizeObserver(() => {
    shapeKey = "";
    if (latest) update(latest);
  }).observe(holder);

  // Text in the SVG is as large as the page's type scale (so it grows on a projector),
  // shrinking to at most 74% of it when the five stages would not fit the panel. On a
  // one-column page the panel grows with the diagram instead.
  function fit(model) {
    const fs = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const width = holder.clientWidth || 600;
    const stacked = matchMedia("(max-width: 999.98px)").matches;
    const height = stacked ? Infinity : holder.clientHeight || 400;
    let scale = fs / UNIT_FONT;
    let W = Math.round(width / scale);
    let geometry = plan(model, W);
    // The panel's height with the stages at their smallest (a cluster run's min-height).
    // Presenter mode (issue 21): the five stages always fit the projected screen, the page's
    // type being 1.5x there; elsewhere the text keeps at least 74% of the type scale.
    const present = document.body.dataset.present === "true";
    const least = ((present ? 0.5 : 0.74) * fs) / UNIT_FONT;
    root.style.setProperty("--diagram-need", `${Math.ceil(plan(model, Math.round(width / least)).H * least
      + root.offsetHeight - holder.clientHeight)}px`);
    if (geometry.H * scale > height) {
      scale = Math.max(height / geometry.H, least);
      W = Math.round(width / scale);
      geometry = plan(model, W);
      if (geometry.H * scale > height) scale = Math.max(height / geometry.H, least);
    }
    return { W, H: geometry.H, scale, geometry };
  }

  function update(state) {
    latest = state;
    const model = diagramModel(state);
    const { W, H, scale, geometry } = fit(model);
    const key = JSON.stringify([lang(), W, model.lanes, model.stages[1].lanes[0].map((b) => [b.container, b.kind]),
      Boolean(model.loops.pull), Boolean(model.loops.init), model.loops.restart.map((l) => l.container)]);
    if (key !== shapeKey) {
      shapeKey = key;
      refs = build(svg, model, geometry);
      svg.style.height = `${Math.floor(H * scale)}px`;
    }
    paint(refs, model);
    const text = caption(model);
    setText(caption_, text);
    const node = model.node;
    nodeNote.hidden = !node?.down || model.outcome === "removed";
    setText(nodeNote, node?.down ? t(node.ready === "True" ? "diagram.node.banner" : "diagram.node.bannerNotReady",
      { node: node.name, since: seconds(node.since ?? node.readySince ?? 0), ready: node.ready }) : "");
    svg.setAttribute("aria-label", t("diagram.label", { step: text }));
    root.dataset.stage = model.current?.stage ?? "";
    root.dataset.step = model.current?.step ?? "";
  }
  return { update };
}

/** "Now: <stage> › <step> (<container>) · <reason>", the outcome, or the node's news. */
export function caption(model) {
  const current = model.current;
  if (current?.step === "outcome" && model.outcome) return t(`diagram.outcome.${model.outcome}`);
  if (!current?.stage) return t("diagram.waiting");
  let step;
  if (current.step === "node") {
    const node = model.node;
    const key = !node?.down ? "diagram.node.back" : node.ready === "True" ? "diagram.node.stopped" : "diagram.node.notReady";
    step = t(key, { node: current.node, ready: node?.ready ?? "" });
  } else {
    step = stepName(current.step) + (current.container ? ` (${current.container})` : "");
    if (current.detail) step += ` · ${current.detail}`;
  }
  return t("diagram.now", { stage: t(`stage.${current.stage}`), step });
}

function stepName(step) {
  const text = t(`step.${step}`);
  return text === `step.${step}` ? step : text;
}

function titleLines(stage, width = TITLE_W - 14) {
  return wrap(t(`stage.${stage}`), width, 12.5, 0.6).slice(0, 3);
}

/** Boxes per row so that none is narrower than MIN_BOX_W ("Submitted" must fit). */
function chunk(lane, avail) {
  if (!lane.length) return [lane];
  const perRow = Math.max(1, Math.floor((avail + ARROW) / (MIN_BOX_W + ARROW)));
  const rows = Math.ceil(lane.length / perRow);
  const size = Math.ceil(lane.length / rows);
  const out = [];
  for (let i = 0; i < lane.length; i += size) out.push(lane.slice(i, i + size));
  return out;
}

/**
 * Where everything goes for a width of W units. Wide: each stage's title on the left of its
 * boxes. Narrow (a phone): the title on a line above the boxes, and a row of boxes that would
 * be narrower than MIN_BOX_W wraps onto a second row, so labels never run together.
 */
export function plan(model, W) {
  const x0 = GUTTER;
  const width = W - PAD - GUTTER;
  const right = x0 + width - PAD;
  // Titles move above the boxes only when not even three boxes fit beside them.
  const compact = right - (x0 + TITLE_W) < 3 * MIN_BOX_W + 2 * ARROW;
  const areaX = compact ? x0 + 6 : x0 + TITLE_W;
  const multi = model.lanes.length > 1;
  let y = PAD;
  const stages = model.stages.map((stage) => {
    const showLabel = multi && (stage.stage === 3 || stage.stage === 4);
    const titles = compact ? titleLines(stage.stage, width - 110).slice(0, 2) : titleLines(stage.stage);
    const header = compact ? 4 + titles.length * 15 : 0;
    let ly = y + PAD + header;
    const lanes = stage.lanes.map((lane) => {
      // Wide: a container's name left of its lane; narrow: on a line above it.
      const labelAbove = showLabel && compact ? 15 : 0;
      const bx = areaX + (showLabel && !compact ? LABEL_W : 0);
      const rows = chunk(lane, right - bx);
      const top = ly + labelAbove;
      const height = labelAbove + rows.length * BOX_H + (rows.length - 1) * ROW_GAP;
      ly += height + LANE_GAP;
      return { lane, rows, x: bx, top, labelY: labelAbove ? ly - height - LANE_GAP + 11 : null, height, avail: right - bx };
    });
    const inner = ly - LANE_GAP - y + PAD;
    const height = compact ? inner : Math.max(inner, 18 + titles.length * 16 + 10);
    // Centre the lanes vertically in a stage made taller by its title.
    const shift = compact ? 0 : (height - inner) / 2;
    for (const l of lanes) {
      l.top += shift;
      if (l.labelY !== null) l.labelY += shift;
    }
    const out = { stage, y, height, titles, header, lanes, showLabel };
    y += height + STAGE_GAP;
    return out;
  });
  const outY = y - STAGE_GAP + 8;
  return { W, x0, width, right, areaX, compact, stages, outY, H: outY + OUTCOME_H + PAD };
}

function build(svg, model, geometry) {
  svg.replaceChildren(defs());
  const refs = { boxes: new Map(), stages: new Map(), loops: [], countdown: null, outcome: null, arrows: [] };
  const { x0, width, areaX, compact, W } = geometry;
  const laneY = { 3: new Map(), 4: new Map() };
  const boxCentre = new Map();
  for (const st of geometry.stages) {
    const { stage, y, height } = st;
    const g = s("g", { class: "stage", dataset: { stage: stage.stage } });
    g.append(s("rect", { class: "stage-bg", x: x0, y, width, height, rx: 9 }));
    st.titles.forEach((line, i) => g.append(s("text", { class: "stage-title", x: x0 + 8, y: y + 16 + i * (compact ? 15 : 16) }, line)));
    const side = compact
      ? s("text", { class: "stage-phase", x: x0 + width - 8, y: y + 16, "text-anchor": "end" }, t(`stage.${stage.stage}.phase`))
      : s("text", { class: "stage-phase", x: x0 + 8, y: y + 18 + st.titles.length * 16 }, t(`stage.${stage.stage}.phase`));
    g.append(side);
    if (stage.stage === 5) refs.countdown = side;
    for (const lane of st.lanes) {
      const name = lane.lane[0]?.container ?? null;
      if (st.showLabel) {
        if (lane.labelY !== null) g.append(s("text", { class: "lane-label", x: areaX, y: lane.labelY }, name ?? ""));
        else {
          wrap(name ?? "", LABEL_W - 6, 12).slice(0, 2).forEach((line, i) =>
            g.append(s("text", { class: "lane-label", x: areaX, y: lane.top + BOX_H / 2 + 4 + (i - 0.5) * 13 }, line)));
        }
      }
      if (stage.stage === 3 || stage.stage === 4) laneY[stage.stage].set(name, lane.top + BOX_H / 2);
      if (!lane.lane.length) {
        g.append(s("rect", { class: "box-empty", x: lane.x, y: lane.top, width: lane.avail, height: BOX_H, rx: 7 }),
          s("text", { class: "box-empty-text", x: lane.x + lane.avail / 2, y: lane.top + BOX_H / 2 + 5, "text-anchor": "middle" }, t("diagram.noInit")));
        continue;
      }
      lane.rows.forEach((row, r) => {
        const ry = lane.top + r * (BOX_H + ROW_GAP);
        const bw = (lane.avail - (row.length - 1) * ARROW) / row.length;
        let bx = lane.x;
        row.forEach((b, i) => {
          if (i > 0) g.append(s("path", { class: "flow-arrow", d: `M${bx - ARROW + 1},${ry + BOX_H / 2} h${ARROW - 4}`, "marker-end": "url(#arrowhead)" }));
          const box = makeBox(b, bx, ry, bw);
          g.append(box.g);
          refs.boxes.set(b.key, box);
          boxCentre.set(b.key, { x: bx + bw / 2, y: ry, w: bw });
          bx += bw + ARROW;
        });
      });
    }
    svg.append(g);
    refs.stages.set(stage.stage, { g, y, height });
    if (stage.stage < 5) {
      const mid = areaX + (x0 + width - areaX) / 2;
      const arrow = s("path", { class: "stage-arrow", d: `M${mid},${y + height + 2} v${STAGE_GAP - 6}`, "marker-end": "url(#arrowhead)" });
      svg.append(arrow);
      refs.arrows.push({ from: stage.stage, el: arrow });
    }
  }
  // Loops, drawn only once they happened.
  if (model.loops.pull) {
    const c = boxCentre.get("1:pull");
    if (c) refs.loops.push({ kind: "pull", ...loopBelow(svg, c, refs.stages.get(1)) });
  }
  if (model.loops.init) {
    const c = boxCentre.get(`2:init:${model.loops.init.container}`);
    if (c) refs.loops.push({ kind: "init", ...loopBelow(svg, c, refs.stages.get(2)) });
  }
  model.loops.restart.forEach((loop, i) => {
    const from = laneY[4].get(loop.container) ?? laneY[4].values().next().value;
    const to = laneY[3].get(loop.container) ?? laneY[3].values().next().value;
    if (from === undefined || to === undefined) return;
    const x = GUTTER - 4 - i * 5;
    const path = s("path", { class: "loop loop-restart", d: `M${GUTTER},${from} C${x - 20},${from} ${x - 20},${to} ${GUTTER - 1},${to}`, "marker-end": "url(#arrowhead-loop)" });
    const s3 = refs.stages.get(3);
    const label = s("text", { class: "loop-label", x: x0 + 8, y: s3.y + s3.height + STAGE_GAP / 2 + 4 + i * 13 });
    svg.append(path, label);
    refs.loops.push({ kind: "restart", container: loop.container, path, label });
  });
  const outY = geometry.outY;
  const outcome = s("g", { class: "outcome" });
  const outRect = s("rect", { class: "outcome-bg", x: x0, y: outY, width, height: OUTCOME_H, rx: 7 });
  const outText = s("text", { class: "outcome-text", x: x0 + width / 2, y: outY + OUTCOME_H / 2 + 5, "text-anchor": "middle" });
  outcome.append(outRect, outText);
  svg.append(outcome);
  refs.outcome = { g: outcome, text: outText };
  svg.setAttribute("viewBox", `0 0 ${W} ${geometry.H}`);
  refs.W = W;
  return refs;
}

function loopBelow(svg, c, stage) {
  const yb = stage.y + stage.height;
  const x1 = c.x - c.w / 3;
  const x2 = c.x + c.w / 3;
  const path = s("path", { class: "loop", d: `M${x2},${c.y + BOX_H} C${x2},${yb + 14} ${x1},${yb + 14} ${x1},${c.y + BOX_H + 2}`, "marker-end": "url(#arrowhead-loop)" });
  const label = s("text", { class: "loop-label", x: x2 + 6, y: yb + STAGE_GAP / 2 + 5 });
  svg.append(path, label);
  return { path, label };
}

/** Narrow a box's status line that would overflow its box (a long reason such as CreateContainerConfigError). */
function squeeze(text, room) {
  text.removeAttribute("textLength");
  let length = 0;
  try {
    length = text.getComputedTextLength();
  } catch {
    return;
  }
  if (length > room) {
    text.setAttribute("textLength", String(room));
    text.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}

/** Slide a label left when its text would run past the right edge (long Chinese labels). */
function keepInside(label, W) {
  if (!label.dataset.x) label.dataset.x = label.getAttribute("x");
  const x = Number(label.dataset.x);
  let length = 0;
  try {
    length = label.getComputedTextLength();
  } catch {
    return;
  }
  const room = W - PAD - 2;
  label.setAttribute("x", String(Math.max(PAD, Math.min(x, room - length))));
}

function defs() {
  const d = s("defs");
  for (const [id, cls] of [["arrowhead", "arrowhead"], ["arrowhead-loop", "arrowhead-loop"]]) {
    d.append(s("marker", { id, viewBox: "0 0 10 10", refX: "8", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" },
      s("path", { class: cls, d: "M0,0 L10,5 L0,10 z" })));
  }
  return d;
}

function makeBox(b, x, y, w) {
  const g = s("g", { class: "box", dataset: { key: b.key, step: b.step } });
  const halo = s("rect", { class: "box-halo", x: x - 3, y: y - 3, width: w + 6, height: BOX_H + 6, rx: 10 });
  const rect = s("rect", { class: "box-bg", x, y, width: w, height: BOX_H, rx: 8 });
  const title = s("title");
  g.append(halo, rect, title);
  const label = b.stage === 2 ? [b.container, t(b.kind === "sidecar" ? "diagram.sidecarMark" : "step.init")] : wrap(stepName(b.step), w - 8, 12.5);
  label.slice(0, 2).forEach((line, i) => {
    g.append(s("text", { class: i === 0 || b.stage !== 2 ? "box-label" : "box-sub", x: x + w / 2, y: y + 14.5 + i * 13.5, "text-anchor": "middle" }, line));
  });
  const status = s("text", { class: "box-status", x: x + w / 2, y: y + BOX_H - 5, "text-anchor": "middle" });
  g.append(status);
  let bar = null;
  if (b.step === "grace") {
    bar = s("rect", { class: "grace-bar", x: x + 5, y: y + BOX_H - 19, width: 0, height: 4, rx: 2 });
    g.append(s("rect", { class: "grace-track", x: x + 5, y: y + BOX_H - 19, width: w - 10, height: 4, rx: 2 }), bar);
  }
  return { g, rect, title, status, bar, width: w - 10, label: label.join(" ") };
}

/** Break a label into lines that fit `width` units (CJK characters count as one em). */
export function wrap(text, width, fontSize, latin = 0.6) {
  const em = (ch) => (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? 1 : latin);
  const measure = (str) => [...str].reduce((n, ch) => n + em(ch), 0) * fontSize;
  // Short runs of CJK characters stay together ("接管"), long ones break anywhere.
  const tokens = text.match(/[\u2e80-\u9fff\uff00-\uffef]{1,3}|[^\s\u2e80-\u9fff\uff00-\uffef]+|\s+/g) || [];
  const lines = [""];
  for (const token of tokens) {
    const candidate = lines.at(-1) + token;
    if (measure(candidate.trim()) <= width || !lines.at(-1).trim()) lines[lines.length - 1] = candidate;
    else lines.push(token.trimStart());
  }
  return lines.map((l) => l.trim()).filter(Boolean);
}

const STATE_WORDS = {
  active: "diagram.state.active", done: "diagram.state.done", current: "diagram.state.current", failed: "diagram.state.failed",
  pending: "diagram.state.pending", skipped: "diagram.state.skipped", undefined: "diagram.state.undefined",
};

function paint(refs, model) {
  for (const stage of model.stages) {
    const ref = refs.stages.get(stage.stage);
    ref.g.setAttribute("class", `stage is-${stage.state}`);
    for (const b of stage.lanes.flat()) {
      const box = refs.boxes.get(b.key);
      if (!box) continue;
      const states = b.state.split(" ");
      box.g.setAttribute("class", ["box", ...states.map((x) => `is-${x}`)].join(" "));
      let words = t(STATE_WORDS[states.includes("failed") && !states.includes("current") ? "failed" : states[0]]);
      if ((states[0] === "undefined" || states[0] === "failed") && b.why) words = t(`diagram.state.${b.why}`);
      if (states.includes("current") && states.includes("failed")) words = `▶ ${t("diagram.state.failed")}`;
      const detail = b.detail;
      if (states.includes("failed") && detail) words = `✗ ${detail}`;
      else if (states.includes("current") && detail) words = `▶ ${detail}`;
      else if (states.includes("done") && detail && b.stage === 5) words = `✓ ${detail}`;
      if (b.step === "grace" && model.countdown) {
        const { remaining, grace } = model.countdown;
        words = remaining > 0 ? t("diagram.countdown", { seconds: Math.ceil(remaining), grace: grace ?? "?" }) : t("diagram.countdown.over");
        if (box.bar) box.bar.setAttribute("width", grace ? String(Math.max(0, (box.width * remaining) / grace)) : "0");
      }
      if (box.status.textContent !== words) {
        setText(box.status, words);
        squeeze(box.status, box.width + 4);
      }
      setText(box.title, `${box.label}${b.container ? ` (${b.container})` : ""}: ${words}`);
    }
  }
  for (const arrow of refs.arrows) {
    const cur = model.current?.stage ?? 0;
    arrow.el.setAttribute("class", `stage-arrow${cur > arrow.from ? " is-passed" : ""}`);
  }
  if (refs.countdown) {
    const c = model.countdown;
    setText(refs.countdown, c ? (c.remaining > 0 ? t("diagram.countdownShort", { seconds: Math.ceil(c.remaining) }) : t("diagram.countdown.over")) : t("stage.5.phase"));
    refs.countdown.setAttribute("class", c ? "stage-phase is-countdown" : "stage-phase");
  }
  for (const loop of refs.loops) {
    let text = "";
    if (loop.kind === "pull") {
      const l = model.loops.pull;
      text = l?.seconds ? t("diagram.loop.pull", { seconds: l.seconds }) : t("diagram.loop.pullShort", { count: l?.count ?? 0 });
    } else if (loop.kind === "init") {
      text = t("diagram.loop.init", { count: model.loops.init?.count ?? 0 });
    } else {
      const l = model.loops.restart.find((r) => r.container === loop.container);
      const who = model.lanes.length > 1 ? `${loop.container}: ` : "";
      text = `↻ ${who}${l?.seconds !== null && l?.seconds !== undefined ? t("diagram.loop.restart", { seconds: l.seconds, count: l.next ?? l.count + 1 }) : t("diagram.loop.restartShort", { count: l?.count ?? 0 })}`;
    }
    setText(loop.label, text);
    keepInside(loop.label, refs.W);
  }
  const outcome = model.outcome;
  refs.outcome.g.setAttribute("class", `outcome${outcome ? ` is-${outcome.toLowerCase()}` : ""}`);
  setText(refs.outcome.text, t(outcome ? `diagram.outcome.${outcome}` : "diagram.outcome.none"));
}
