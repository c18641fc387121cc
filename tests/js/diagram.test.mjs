// The five-stage diagram's "now" marker and box states, against payloads recorded from the
// real engine (tests/js/record_fixtures.py): issue 11, defects 1 and 3 to 7.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

import { applySnapshot, initialState, diagramModel, STAGE_STEPS, containersFrom } from "../../static/js/state.js";
import { caption } from "../../static/js/diagram.js";
import { setLanguage } from "../../static/js/i18n.js";

const dir = new URL("./fixtures/", import.meta.url);
const recorded = (name) => JSON.parse(readFileSync(new URL(`${name}.json`, dir), "utf8"));
const fromRecording = (name) => applySnapshot(initialState(), recorded(name));
const boxes = (d) => d.stages.flatMap((st) => st.lanes.flat());
const boxOf = (d, key) => boxes(d).find((b) => b.key === key);
const currentBoxes = (d) => boxes(d).filter((b) => b.state.split(" ").includes("current"));
const words = (d, lang = "en") => {
  setLanguage(lang, { remember: false });
  try {
    return caption(d);
  } finally {
    setLanguage("en", { remember: false });
  }
};

/** The state as the page had it at virtual time t: every transition up to t (a tick carries whole seconds). */
function at(state, t) {
  return { ...state, now: t, transitions: state.transitions.filter((tr) => tr.t <= t) };
}

test("at t=0 (start, Home, or one Step) the Pod is in stage 1, never at a readiness probe", () => {
  const d = diagramModel(fromRecording("plain-pod-start"));
  assert.equal(d.current.stage, 1);
  assert.deepEqual(currentBoxes(d).map((b) => b.stage), [1]);
  assert.equal(boxOf(d, "4:readiness:app").state, "undefined", "plain-pod has no readiness probe");
  assert.notEqual(boxOf(d, "1:pull").state, "skipped");
  assert.notEqual(boxOf(d, "3:start:app").state, "skipped");
  assert.equal(boxOf(d, "3:start:app").state, "pending");
  assert.equal(d.stages[3].state, "pending", "nothing has happened in stage 4 yet");
  assert.doesNotMatch(words(d), /Readiness|Running health/);
  assert.match(words(d), /^Now: 1 Scheduling and preparation › /);
});

test("during ContainerCreating the current step is the image pull, in progress, not done", () => {
  const d = diagramModel(fromRecording("plain-pod-creating"));
  assert.equal(d.current.stage, 1);
  assert.equal(d.current.step, "pull");
  assert.equal(boxOf(d, "1:pull").state, "current");
  assert.equal(boxOf(d, "1:volumes").state, "done");
  assert.match(words(d), /Pull images/);
  const r = diagramModel(fromRecording("readiness-creating"));
  assert.equal(r.current.stage, 1, "the endpoint added as not ready is not the Pod's progress");
  assert.equal(boxOf(r, "4:readiness:app").state, "pending");
});

test("no moment of any recorded run puts a readiness step current for a container without a readiness probe", () => {
  const names = readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => f.replace(/\.json$/, ""));
  let checked = 0;
  for (const name of names) {
    const state = fromRecording(name);
    // A container whose spec left with the Pod: it had a readiness probe if one ever ran.
    const probed = (name) => state.transitions.some((tr) => tr.container === name && tr.field === "probe.readiness");
    const specs = new Map(containersFrom(state).map((c) => [c.name, c.spec ?? (probed(c.name) ? { readinessProbe: {} } : {})]));
    for (const t of [...new Set(state.transitions.map((tr) => tr.t))]) {
      const d = diagramModel(at(state, t));
      for (const b of currentBoxes(d)) {
        if (b.step === "readiness") assert.ok(specs.get(b.container)?.readinessProbe, `${name} at ${t}s: ${b.key}`);
        assert.notEqual(b.state.includes("skipped"), true);
      }
      if (d.current?.step === "readiness") {
        assert.ok(specs.get(d.current.container)?.readinessProbe, `${name} at ${t}s: caption names a readiness probe`);
      }
      // Before the container started, stages 3-5 have nothing current.
      const started = state.transitions.some((tr) => tr.t <= t && tr.stage === 3);
      if (!started && !state.transitions.some((tr) => tr.t <= t && tr.stage === 5)) {
        assert.ok(currentBoxes(d).every((b) => b.stage <= 2), `${name} at ${t}s: ${currentBoxes(d).map((b) => b.key)}`);
      }
      checked += 1;
    }
  }
  assert.ok(checked > 80, `checked ${checked} moments`);
});

test("stage 1 mounts volumes before it pulls images, as the kubelet does", () => {
  assert.deepEqual(STAGE_STEPS[1], ["submitted", "scheduled", "kubelet", "volumes", "pull"]);
  const state = fromRecording("plain-pod");
  assert.equal(boxOf(diagramModel(at(state, 1)), "1:pull").state, "current", "pulling: in progress");
  assert.equal(boxOf(diagramModel(at(state, 7)), "1:pull").state, "done", "pulled");
  // The pull runs on while the kubelet reports the sandbox's IP: still not done.
  const pulling = diagramModel(at(state, 1));
  assert.notEqual(boxOf(pulling, "1:pull").state, "done");
});

test("an unschedulable Pod: Scheduled is current and failed, with the reason", () => {
  const d = diagramModel(fromRecording("unschedulable"));
  assert.equal(d.current.stage, 1);
  assert.equal(boxOf(d, "1:scheduled").state, "current failed");
  assert.equal(boxOf(d, "1:scheduled").detail, "Unschedulable");
  assert.equal(boxOf(d, "1:kubelet").state, "pending");
  assert.match(words(d), /Scheduling.*Unschedulable/);
  assert.match(words(d, "zh"), /调度中.*Unschedulable/);
});

test("CrashLoopBackOff and Error: the caption names the back-off and the exit, not Running", () => {
  const loop = diagramModel(fromRecording("crash-loop"));
  assert.equal(loop.current.step, "backoff");
  assert.equal(loop.current.failed, true);
  assert.match(words(loop), /Restart back-off \(app\).*CrashLoopBackOff/);
  assert.doesNotMatch(words(loop), /› Running/);
  assert.equal(boxOf(loop, "4:running:app").state, "current failed");
  const exited = diagramModel(fromRecording("crash-exited"));
  assert.equal(exited.current.step, "exit");
  assert.match(words(exited), /Exited \(app\).*Error.*1/);
  assert.match(words(exited, "zh"), /已退出/);
});

test("node down: the diagram shows the node, the caption names no readiness probe", () => {
  for (const name of ["node-down", "node-lost"]) {
    const d = diagramModel(fromRecording(name));
    assert.equal(d.node?.name, "worker-1", name);
    assert.equal(d.node.down, true, name);
    assert.equal(d.node.since, 20, name);
    assert.notEqual(d.current.step, "readiness", name);
    assert.doesNotMatch(words(d), /Readiness/, name);
    assert.match(words(d), /worker-1/, name);
    assert.equal(boxOf(d, "1:kubelet").state, "failed", `${name}: the kubelet there is gone`);
  }
  assert.equal(diagramModel(fromRecording("node-lost")).node.ready, "Unknown");
  assert.equal(diagramModel(fromRecording("plain-pod")).node, null);
});

test("after a force delete the outcome is the only current thing", () => {
  const d = diagramModel(fromRecording("force-deleted"));
  assert.equal(d.outcome, "removed");
  assert.equal(d.current.step, "outcome");
  assert.deepEqual(currentBoxes(d), []);
  assert.equal(words(d), "Outcome: the Pod was removed from the API");
  assert.equal(boxOf(d, "5:sigterm").state, "done", "the kubelet still signalled the container on the node");
});
