// What a stored layout may say (issue 11, defect 8): junk is ignored, the centre stays usable.
import { test } from "node:test";
import assert from "node:assert/strict";

import { normalizeLayout, DEFAULTS } from "../../static/js/layout.js";

test("a missing or broken stored layout gives the defaults", () => {
  assert.deepEqual(normalizeLayout(null), { ...DEFAULTS });
  assert.deepEqual(normalizeLayout("wide"), { ...DEFAULTS });
  assert.deepEqual(normalizeLayout({ left: "x", right: NaN, leftCollapsed: "yes", extra: 1 }), { ...DEFAULTS });
});

test("widths are clamped and the centre keeps at least a quarter of the page", () => {
  const l = normalizeLayout({ left: 90, right: 90, editor: 1, status: 99 });
  assert.equal(l.left, 50);
  assert.equal(l.left + l.right <= 75, true);
  assert.equal(l.editor, 15);
  assert.equal(l.status, 85);
  assert.equal(normalizeLayout({ rightCollapsed: true }).rightCollapsed, true);
});
