// The timeline: every occurrence of a repeated event, zoom and pan (issue 11, defect 14).
import { test } from "node:test";
import assert from "node:assert/strict";

import { applySnapshot, applyTick, initialState, timelineModel, mergeEventTimes } from "../../static/js/state.js";
import { fitView, zoomView, panView, followView, secondAt, MIN_SPAN } from "../../static/js/timeview.js";
import { iso } from "./fixtures.mjs";

const unhealthy = (count, first, last) => ({
  metadata: { name: "web.1a2b", creationTimestamp: iso(first) },
  type: "Warning", reason: "Unhealthy", message: "Liveness probe failed: HTTP probe failed with statuscode: 500",
  firstTimestamp: iso(first), lastTimestamp: iso(last), count,
});
const snap = (now, events, session = "s1") => ({ session, seq: 1, now, transitions: [], events, clock: {}, views: {} });

test("each repeat of an event seen by the tab keeps its own marker", () => {
  let s = applySnapshot(initialState(), snap(30, [unhealthy(1, 30, 30)]));
  for (const [seq, now, count] of [[2, 40, 2], [3, 50, 3]]) {
    s = applyTick(s, { seq, now, events: [unhealthy(count, 30, now)] }).state;
  }
  const [event] = timelineModel(s).events;
  assert.deepEqual(event.times, [30, 40, 50]);
  assert.equal(event.count, 3);
  // Seeking back to 45 s: the past up to then is the same run, the future is gone.
  s = applySnapshot(s, { ...snap(45, [unhealthy(2, 30, 40)]), seq: 9 });
  assert.deepEqual(timelineModel(s).events[0].times, [30, 40]);
  // Another session's snapshot does not inherit them.
  s = applySnapshot(s, snap(45, [unhealthy(3, 30, 50)], "s2"));
  assert.deepEqual(timelineModel(s).events[0].times, [30, 50], "first and last are always known");
});

test("a snapshot taken late shows the first and the last occurrence, with the count", () => {
  const s = applySnapshot(initialState(), snap(300, [unhealthy(12, 30, 290)]));
  const [event] = timelineModel(s).events;
  assert.deepEqual([event.first, event.t, event.count], [30, 290, 12]);
  assert.deepEqual(event.times, [30, 290]);
});

test("more remembered moments than the event's count means another history: start over", () => {
  const times = mergeEventTimes({ "web.1a2b": [1, 2, 3, 4] }, [unhealthy(2, 10, 20)]);
  assert.deepEqual(times["web.1a2b"], [10, 20]);
});

test("zoom keeps the anchor in place, never narrower than MIN_SPAN nor wider than the run", () => {
  const whole = fitView(600);
  const z = zoomView(whole, 0.1, 30, 600);
  assert.ok(Math.abs(z.end - z.start - 60) < 1e-9);
  assert.ok(Math.abs((30 - z.start) / (z.end - z.start) - 30 / 600) < 1e-9, "30 s stays at 5% of the width");
  assert.equal(z.fit, false);
  let tight = z;
  for (let i = 0; i < 10; i += 1) tight = zoomView(tight, 0.5, 30, 600);
  assert.equal(tight.end - tight.start, MIN_SPAN);
  const back = zoomView(z, 100, 30, 600);
  assert.deepEqual(back, { start: 0, end: 600, fit: true });
});

test("pan moves the window and stops at both ends", () => {
  const z = { start: 100, end: 160, fit: false };
  assert.deepEqual(panView(z, 30, 600), { start: 130, end: 190, fit: false });
  assert.deepEqual(panView(z, -500, 600), { start: 0, end: 60, fit: false });
  assert.deepEqual(panView(z, 5000, 600), { start: 540, end: 600, fit: false });
});

test("the window follows the clock: the whole run grows, a zoomed window keeps now in sight", () => {
  assert.deepEqual(followView(fitView(60), { end: 90, now: 61, previousNow: 59 }), fitView(90));
  const z = { start: 0, end: 60, fit: false };
  const moved = followView(z, { end: 600, now: 61, previousNow: 59 });
  assert.ok(moved.start > 0 && moved.end >= 61 && Math.abs(moved.end - moved.start - 60) < 1e-9);
  const away = { start: 0, end: 60, fit: false };
  assert.deepEqual(followView(away, { end: 600, now: 200, previousNow: 199 }), away, "looking at the past: stay there");
  assert.equal(secondAt({ start: 100, end: 200 }, 0.25), 125);
});
