// A duplicated tab (same sessionStorage) is told apart from a reload (issue 11, defect 16).
import { test } from "node:test";
import assert from "node:assert/strict";

import { tabIdentity, TAB_KEY } from "../../static/js/tabs.js";

class Storage {
  constructor(entries = {}) {
    this.map = new Map(Object.entries(entries));
  }
  getItem(key) {
    return this.map.has(key) ? this.map.get(key) : null;
  }
  setItem(key, value) {
    this.map.set(key, String(value));
  }
  copy() {
    return new Storage(Object.fromEntries(this.map));
  }
}

let n = 0;
const ids = () => `tab-${++n}`;
const channels = [];
const channel = (name) => {
  const c = new BroadcastChannel(name);
  channels.push(c);
  return c;
};
test.after(() => channels.forEach((c) => c.close()));

test("a first visit gets an id at once, with no question asked", async () => {
  const storage = new Storage();
  const tab = tabIdentity({ storage, channel: channel("t1"), makeId: ids });
  assert.deepEqual(await tab.checked, { duplicate: false, original: null });
  assert.equal(storage.getItem(TAB_KEY), tab.id());
});

test("a reload (no other tab holds the id) keeps its id and its session", async () => {
  const storage = new Storage({ [TAB_KEY]: "tab-old", "pod-playground.session": "s1" });
  const tab = tabIdentity({ storage, channel: channel("t2"), timeout: 50, makeId: ids });
  assert.deepEqual(await tab.checked, { duplicate: false, original: null });
  assert.equal(tab.id(), "tab-old");
});

test("a duplicated tab learns it is one, takes a new id, and hears the original's scenario", async () => {
  const storageA = new Storage();
  const a = tabIdentity({ storage: storageA, channel: channel("t3"), makeId: ids, describe: () => ({ yaml: "kind: Pod" }) });
  await a.checked;
  const storageB = storageA.copy(); // what the browser does when it duplicates a tab
  const b = tabIdentity({ storage: storageB, channel: channel("t3"), timeout: 2000, makeId: ids });
  const result = await b.checked;
  assert.equal(result.duplicate, true);
  assert.deepEqual(result.original, { yaml: "kind: Pod" });
  assert.notEqual(b.id(), a.id());
  assert.equal(storageB.getItem(TAB_KEY), b.id());
  assert.equal(storageA.getItem(TAB_KEY), a.id(), "the original keeps its id");
  // A duplicate of the duplicate is a duplicate too; the original is not disturbed.
  const c = tabIdentity({ storage: storageB.copy(), channel: channel("t3"), timeout: 2000, makeId: ids });
  assert.equal((await c.checked).duplicate, true);
  assert.notEqual(c.id(), b.id());
});

test("a tab that is still checking does not answer for the id it may not own", async () => {
  const storage = new Storage({ [TAB_KEY]: "tab-shared" });
  const one = tabIdentity({ storage: storage.copy(), channel: channel("t4"), timeout: 80, makeId: ids });
  const two = tabIdentity({ storage: storage.copy(), channel: channel("t4"), timeout: 80, makeId: ids });
  // Both restored at once (a browser restart): neither is live yet, so neither is told it is a copy.
  assert.equal((await one.checked).duplicate, false);
  assert.equal((await two.checked).duplicate, false);
});
