import { test } from "node:test";
import assert from "node:assert/strict";

import { CATALOGUE, t, pickLanguage, normalize, seconds } from "../../static/js/i18n.js";
import { EXPLANATIONS, explain } from "../../static/js/explain.js";

test("English and Chinese catalogues have exactly the same keys, none empty", () => {
  const en = Object.keys(CATALOGUE.en).sort();
  const zh = Object.keys(CATALOGUE.zh).sort();
  assert.deepEqual(zh, en);
  for (const lang of ["en", "zh"]) {
    for (const [key, text] of Object.entries(CATALOGUE[lang])) assert.ok(text.trim(), `${lang} ${key}`);
  }
});

test("placeholders are the same in both languages", () => {
  const names = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(CATALOGUE.en)) {
    assert.deepEqual(names(CATALOGUE.zh[key]), names(CATALOGUE.en[key]), key);
  }
});

test("t fills placeholders and falls back to the key", () => {
  assert.equal(t("diagram.countdown", { seconds: 3, grace: 30 }, "en"), "3s left of 30s");
  assert.equal(t("diagram.countdown", { seconds: 3, grace: 30 }, "zh"), "宽限期 30 秒，剩余 3 秒");
  assert.equal(t("no.such.key"), "no.such.key");
  assert.equal(seconds(12.34, "en"), "12.3s");
});

test("language choice: remembered, then the server's hint, then the browser", () => {
  assert.equal(pickLanguage({ stored: "zh", hint: "en" }), "zh");
  assert.equal(pickLanguage({ stored: null, hint: "", browser: ["fr-FR", "zh-CN"] }), "zh");
  assert.equal(pickLanguage({ browser: ["de"] }), "en");
  assert.equal(normalize("zh-Hans-CN"), "zh");
});

const MUST_EXPLAIN = [
  "CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "OOMKilled", "Error",
  "Completed", "StartError", "PodInitializing", "ContainerCreating", "Terminating", "Unknown", "Pending",
  "NotReady", "RunContainerError", "PostStartHookError", "ErrImageNeverPull", "ContainersNotReady",
  "Unschedulable", "Running", "Succeeded", "Failed", "ContainerCannotRun",
];

test("every status and reason the page can show is explained in both languages", () => {
  for (const reason of MUST_EXPLAIN) {
    for (const lang of ["en", "zh"]) {
      const [entry] = explain(reason, lang);
      assert.ok(entry?.means && entry?.check, `${reason} ${lang}`);
    }
  }
  for (const [key, entry] of Object.entries(EXPLANATIONS)) {
    assert.equal(entry.en.length, 2, key);
    assert.equal(entry.zh.length, 2, key);
  }
});

test("Init:x/y and Init:<reason> explain the init stage and the inner reason", () => {
  assert.deepEqual(explain("Init:0/2", "en").map((e) => e.key), ["Init:"]);
  assert.deepEqual(explain("Init:CrashLoopBackOff", "zh").map((e) => e.key), ["CrashLoopBackOff", "Init:"]);
  assert.deepEqual(explain("Signal:9").map((e) => e.key), ["Error"]);
});
