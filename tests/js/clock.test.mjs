import { test } from "node:test";
import assert from "node:assert/strict";

import { localNow, settleNow } from "../../static/js/state.js";

const base = (clock, now = 10) => ({ now, clock: { playing: true, speed: 1, end: 7200, ...clock } });

test("the page's clock moves at the session's speed from the last now it was sent", () => {
  assert.equal(localNow(base({ speed: 10 }), 250), 12.5);
  assert.equal(localNow(base({ speed: 0.5 }), 1000), 10.5);
});

test("a paused clock, or no time elapsed, stays where the server put it", () => {
  assert.equal(localNow(base({ playing: false }), 5000), 10);
  assert.equal(localNow(base({}), 0), 10);
  assert.equal(localNow(base({}), -20), 10);
});

test("the page's clock stops at the run's end", () => {
  assert.equal(localNow(base({ speed: 100, end: 20 }), 60_000), 20);
  assert.equal(localNow(base({ speed: 2, end: null }), 1000), 12);
});

test("a message's now replaces the page's, except a jitter behind it with the same clock", () => {
  assert.equal(settleNow(12.3, 12.1, true, 5), 12.3); // the tick was on the wire
  assert.equal(settleNow(12.3, 12.1, false, 5), 12.1); // speed or play changed: the server's
  assert.equal(settleNow(30, 12, true, 5), 12); // far ahead: the server held it (budget, end)
  assert.equal(settleNow(11, 12, true, 5), 12); // behind: catch up
});
