import { test } from "node:test";
import assert from "node:assert/strict";

import { applySnapshot, applyTick, initialState } from "../../static/js/state.js";
import { seekingModel } from "../../static/js/seeking.js";

test("a snapshot and ticks carry the seek's progress, and null once it is over", () => {
  let state = applySnapshot(initialState(), { session: "s", seq: 1, now: 40, seeking: { target: 7200, reached: 40 } });
  assert.deepEqual(state.seeking, { target: 7200, reached: 40 });
  state = applyTick(state, { seq: 2, now: 90, seeking: { target: 7200, reached: 90 } }).state;
  assert.deepEqual(state.seeking, { target: 7200, reached: 90 });
  state = applyTick(state, { seq: 3, now: 95 }).state; // a tick without the key keeps it
  assert.deepEqual(state.seeking, { target: 7200, reached: 90 });
  state = applyTick(state, { seq: 4, now: 7200, seeking: null }).state;
  assert.equal(state.seeking, null);
  assert.equal(applySnapshot(state, { session: "s", seq: 5, now: 3 }).seeking, null);
});

test("the bar's fraction is reached over target, bounded", () => {
  assert.equal(seekingModel(null), null);
  assert.equal(seekingModel({ target: 0, reached: 0 }), null);
  assert.equal(seekingModel({ target: 7200, reached: 1800 }).fraction, 0.25);
  assert.equal(seekingModel({ target: 100, reached: 150 }).fraction, 1);
});
