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
