// The timeline's visible window: zoom and pan over [0, end]. Pure functions of numbers, so
// Node's test runner checks them (tests/js/timeview.test.mjs); timeline.js owns the state.

/** The narrowest window, in virtual seconds. */
export const MIN_SPAN = 5;

/** The whole run. */
export function fitView(end) {
  return { start: 0, end, fit: true };
}

function clampView(start, span, end) {
  const width = Math.min(Math.max(span, Math.min(MIN_SPAN, end)), end);
  const from = Math.min(Math.max(0, start), end - width);
  return { start: from, end: from + width, fit: width >= end - 1e-9 };
}

/** Zoom by `factor` (< 1 zooms in) keeping the second `anchor` where it is on screen. */
export function zoomView(view, factor, anchor, end) {
  const span = view.end - view.start;
  const at = Math.min(Math.max(anchor, view.start), view.end);
  const next = span * factor;
  const start = at - ((at - view.start) * next) / span;
  return clampView(start, next, end);
}

/** Move the window by `seconds` (negative: towards the start). */
export function panView(view, seconds, end) {
  return clampView(view.start + seconds, view.end - view.start, end);
}

/**
 * As the clock runs: a whole-run view grows with the run; a zoomed one that was showing
 * `now` keeps it in sight (scrolls so now stays at 90% of the window).
 */
export function followView(view, { end, now, previousNow }) {
  if (view.fit) return fitView(end);
  const span = view.end - view.start;
  const wasVisible = previousNow === null || (previousNow >= view.start && previousNow <= view.end);
  if (wasVisible && now > view.end) return clampView(now - span * 0.9, span, end);
  return clampView(view.start, span, end);
}

/** The second at fraction x (0..1) of the window. */
export function secondAt(view, fraction) {
  return view.start + Math.min(1, Math.max(0, fraction)) * (view.end - view.start);
}
