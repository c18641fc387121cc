// Every status, reason and event reason the built-in scenarios reach (collected by playing
// all of them to their end) has a "what it means, what to check" in both languages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { explain } from "../../static/js/explain.js";

const REACHED = [
  // kubectl STATUS, container reasons, Pod condition reasons
  "Pending", "ContainerCreating", "Running", "Completed", "Error", "CrashLoopBackOff", "ErrImagePull",
  "ImagePullBackOff", "ErrImageNeverPull", "CreateContainerConfigError", "OOMKilled", "PodInitializing",
  "Init:0/1", "Init:1/2", "Init:Error", "Init:CrashLoopBackOff", "Terminating", "StartError", "RunContainerError",
  "ContainersNotReady", "ContainersNotInitialized", "PodCompleted", "PodFailed", "Unschedulable", "Succeeded", "Failed",
  // event reasons
  "Scheduled", "FailedScheduling", "Pulling", "Pulled", "Created", "Started", "BackOff", "Unhealthy", "Killing",
  "NodeNotReady", "TaintManagerEviction",
];

test("every reason the scenarios reach is explained in English and Chinese", () => {
  for (const reason of REACHED) {
    for (const lang of ["en", "zh"]) {
      const [entry] = explain(reason, lang);
      assert.ok(entry?.means && entry?.check, `${reason} (${lang})`);
      if (lang === "zh") assert.match(entry.means, /[\u4e00-\u9fff]/, `${reason}: the Chinese text is Chinese`);
    }
  }
});

test("an explanation's kubectl command names the Pod it explains, not a fixed `web` (issue 20)", () => {
  for (const lang of ["en", "zh"]) {
    const [entry] = explain("ContainersNotInitialized", lang, { pod: "myapp-pod" });
    assert.match(entry.check, /kubectl logs myapp-pod -c /, lang);
    assert.doesNotMatch(entry.check, /kubectl logs web\b/, lang);
    assert.match(explain("ContainersNotInitialized", lang)[0].check, /kubectl logs <pod> -c /, `${lang}: no Pod given`);
  }
  for (const reason of Object.keys({ CrashLoopBackOff: 1, "Init:": 1, Error: 1, PodInitializing: 1 })) {
    for (const e of explain(reason, "en", { pod: "api" })) assert.doesNotMatch(`${e.means} ${e.check}`, /\bweb\b|\{pod\}/, reason);
  }
});
