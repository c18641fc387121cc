// The classroom's page helpers: its words in both languages, and reading a typed class code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TEXTS } from "../../static/js/classroom-texts.js";
import { normalizeCode } from "../../static/js/classroom.js";
import { CATALOGUE, t } from "../../static/js/i18n.js";

test("every classroom text exists in English and 简体中文", () => {
  assert.deepEqual(Object.keys(TEXTS.zh).sort(), Object.keys(TEXTS.en).sort());
  for (const key of Object.keys(TEXTS.en)) {
    assert.ok(TEXTS.en[key].trim() && TEXTS.zh[key].trim(), key);
    assert.ok(/[\u4e00-\u9fff]/.test(TEXTS.zh[key]) || key === "class.col.status", `${key} zh`);
  }
});

test("the texts join the page's catalogue", () => {
  assert.equal(CATALOGUE.en["class.tryIt"], "Try it myself");
  assert.equal(t("class.answered", { n: 2, total: 3 }, "zh"), "3 人中 2 人已回答");
});

test("a typed class code is read as the server writes it", () => {
  assert.equal(normalizeCode(" abc-234 "), "ABC234");
  assert.equal(normalizeCode("ab cd 23"), "ABCD23");
  assert.equal(normalizeCode("ABC1O0"), null); // 1, O and 0 are never in a code
  assert.equal(normalizeCode("ABC23"), null);
  assert.equal(normalizeCode("ABCDEFGHJ"), null);
  assert.equal(normalizeCode(null), null);
});
