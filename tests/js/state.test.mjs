import { test } from "node:test";
import assert from "node:assert/strict";

import {
  applySnapshot, applyTick, initialState, diagramModel, graceCountdown, timelineModel,
  statusModel, lessonModel, endpointsModel, eventRows, seekTarget, probeSwitchValue,
  toVirtual, boxKey, isFailure, transitionsOf,
} from "../../static/js/state.js";
import { snapshot, crashTick, deleteTick, iso } from "./fixtures.mjs";
import { readFileSync } from "node:fs";

const recorded = (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8"));
const fromRecording = (name) => applySnapshot(initialState(), recorded(name));
const boxOf = (d, key) => d.stages.flatMap((st) => st.lanes.flat()).find((b) => b.key === key);

const fromSnapshot = (o) => applySnapshot(initialState(), snapshot(o));

test("times in API objects are virtual seconds after 2026-01-01", () => {
  assert.equal(toVirtual(iso(42.5)), 42.5);
  assert.equal(toVirtual(null), null);
});

test("a snapshot replaces the whole state and keeps session and seq", () => {
  const s = fromSnapshot();
  assert.equal(s.session, "s-123");
  assert.equal(s.seq, 4);
  assert.equal(s.now, 20);
  assert.equal(s.transitions.length, 12);
  assert.deepEqual(s.stage, { stage: 4, step: "readiness", container: "app" });
});

test("a tick with the next seq appends only the new transitions", () => {
  const s = fromSnapshot();
  const tick = crashTick(s);
  tick.transitions.unshift(s.transitions.at(-1)); // a duplicate must not be appended twice
  const { state, resync } = applyTick(s, tick);
  assert.equal(resync, false);
  assert.equal(state.seq, 5);
  assert.equal(state.transitions.length, 14);
  assert.equal(state.views.columns.STATUS, "CrashLoopBackOff");
  assert.equal(state.events, s.events, "fields a tick leaves out are kept");
});

test("a gap in sequence numbers asks for a resync and leaves the state alone", () => {
  const s = fromSnapshot();
  const tick = { ...crashTick(s), seq: s.seq + 2 };
  const { state, resync } = applyTick(s, tick);
  assert.equal(resync, true);
  assert.equal(state, s);
  assert.equal(applyTick(initialState(), { seq: 0 }).resync, true, "no snapshot yet");
});

test("a tick with pod null keeps the last Pod for the diagram and says removed", () => {
  const s = fromSnapshot();
  const { state } = applyTick(s, {
    seq: 5, now: 70, pod: null,
    transitions: [{ seq: 12, t: 70, stage: 5, step: "removed", object: "Pod/web", container: null, field: "phase", after: null, cause: "" }],
  });
  assert.equal(state.pod, null);
  assert.equal(state.lastPod.metadata.name, "web");
  const d = diagramModel(state);
  assert.equal(d.outcome, "removed");
  assert.equal(d.current.step, "removed");
});

test("diagram: finished steps are done, the current one is current, later ones pending", () => {
  const d = diagramModel(fromSnapshot());
  const box = (key) => d.stages.flatMap((s) => s.lanes.flat()).find((b) => b.key === key);
  assert.equal(box("1:submitted").state, "done");
  assert.equal(box("2:init:migrate").state, "done");
  assert.equal(box("2:init:log-shipper").kind, "sidecar");
  assert.equal(box("3:start:app").state, "done");
  assert.equal(box("3:postStart:app").state, "undefined", "no postStart hook in the spec");
  assert.equal(box("4:readiness:app").state, "current");
  assert.equal(box("5:sigterm").state, "pending");
  assert.equal(d.stages[3].state, "current");
  assert.equal(d.stages[1].state, "visited");
  assert.deepEqual(d.lanes, ["app"]);
  assert.equal(d.countdown, null);
  assert.equal(d.outcome, null);
});

test("grace countdown is the deletionTimestamp minus now, never negative", () => {
  const s = fromSnapshot();
  const { state } = applyTick(s, deleteTick(s, 45));
  assert.deepEqual(graceCountdown(state.pod, 45), { deadline: 60, grace: 20, remaining: 15, started: 40 });
  assert.equal(graceCountdown(state.pod, 75).remaining, 0);
  const d = diagramModel(state);
  assert.equal(d.countdown.remaining, 15);
  assert.equal(d.stages[4].state, "current");
  assert.equal(d.stages[4].lanes[0].find((b) => b.step === "endpoints").state, "done");
});

test("box keys: container-scoped in stages 2-4, pod-wide in 1 and 5, aliases for steps without a box", () => {
  assert.equal(boxKey(1, "scheduling", null), "1:scheduled");
  assert.equal(boxKey(4, "backoff", "app"), "4:running:app");
  assert.equal(boxKey(2, "sidecar", "log"), "2:init:log");
  assert.equal(boxKey(5, "sigterm", "app"), "5:sigterm");
});

test("a scripted change of health is an input, not a failed step", () => {
  assert.equal(isFailure({ step: "running", field: "health.readiness", after: false, cause: "The process now fails its readiness check" }), false);
  assert.equal(isFailure({ step: "readiness", field: "probe.readiness", after: "failure" }), true);
  assert.equal(isFailure({ step: "pull", field: "image", after: "failed" }), true);
});

test("back-off seconds come from the transition's seconds, never from its cause", () => {
  const waiting = (t, seconds, cause) => ({
    seq: t, t, stage: 4, step: "backoff", object: "Container/app", container: "app", field: "state",
    after: { state: "waiting", reason: "CrashLoopBackOff", exitCode: null }, cause, ...(seconds === undefined ? {} : { seconds }),
  });
  const model = (...transitions) => diagramModel({ ...initialState(), transitions }).loops.restart[0];
  assert.equal(model(waiting(1, 80, "back-off 1m20s restarting failed container=app")).seconds, 80);
  assert.equal(model(waiting(1, undefined, "back-off 20s restarting failed container=app")), undefined, "the cause is not read");
  assert.equal(model(waiting(1, 10, ""), waiting(2, undefined, "")).seconds, 10, "the last known wait stays");
});

test("timeline: one band per container, probe ticks, event markers", () => {
  const s = fromSnapshot();
  const { state } = applyTick(s, crashTick(s));
  const m = timelineModel(state);
  assert.deepEqual(m.lanes.map((l) => l.container), ["migrate", "log-shipper", "app"]);
  const app = m.lanes[2].segments;
  assert.deepEqual(app.map((x) => [x.from, x.to, x.state]), [[6, 30, "running"], [30, 31, "waiting"]], "zero-length segments are dropped");
  assert.equal(m.probes.length, 2);
  assert.equal(m.probes[0].probe, "liveness");
  assert.equal(m.events.length, 3);
  assert.equal(m.now, 31);
  assert.ok(m.end >= 31);
});

test("seeking goes to the clicked second but never past now", () => {
  const m = { start: 0, end: 100, now: 50 };
  assert.equal(seekTarget(m, 0.25), 25);
  assert.equal(seekTarget(m, 0.9), 50);
  assert.equal(seekTarget(m, -1), 0);
});

test("status: phase, kubectl STATUS, conditions in order, containers with kinds", () => {
  const st = statusModel(fromSnapshot());
  assert.equal(st.phase, "Running");
  assert.equal(st.kubectlStatus, "Running");
  assert.deepEqual(st.conditions.map((c) => c.type), ["PodScheduled", "Initialized", "ContainersReady", "Ready"]);
  assert.equal(st.conditions[1].since, 5);
  assert.deepEqual(st.containers.map((c) => [c.name, c.kind, c.state]), [
    ["migrate", "init", "terminated"], ["log-shipper", "sidecar", "running"], ["app", "app", "running"],
  ]);
  assert.deepEqual(st.containers[2].probes, ["liveness", "readiness"]);
  assert.deepEqual(st.surprises, []);
});

test("status: CrashLoopBackOff with phase Running is flagged as a surprise", () => {
  const s = fromSnapshot();
  const { state } = applyTick(s, crashTick(s));
  const st = statusModel(state);
  const keys = st.surprises.map((x) => x.key);
  assert.ok(keys.includes("surprise.crashloop"));
  assert.ok(!keys.includes("surprise.statusNotPhase"), "the more telling surprise is enough");
  assert.ok(st.reasons.includes("CrashLoopBackOff"));
  assert.ok(st.reasons.includes("Error"), "the last state's reason is explained too");
  assert.equal(st.containers[2].last.exitCode, 1);
});

test("status: STATUS is not the phase, said when nothing more telling applies", () => {
  const s = fromSnapshot();
  s.views = { ...s.views, columns: { ...s.views.columns, STATUS: "Init:0/2" } };
  assert.deepEqual(statusModel(s).surprises.map((x) => x.key), ["surprise.statusNotPhase"]);
});

test("status: a lost node with phase Running says phase is not Unknown", () => {
  const s = fromSnapshot();
  s.nodes = structuredClone(s.nodes);
  s.nodes[0].status.conditions[0].status = "Unknown";
  assert.ok(statusModel(s).surprises.some((x) => x.key === "surprise.nodeLost"));
});

test("lesson steps are reached by time or by a word that appeared", () => {
  const s = fromSnapshot();
  assert.deepEqual(lessonModel(s).map((l) => l.reached), [true, true, false]);
  const { state } = applyTick(s, crashTick(s));
  assert.deepEqual(lessonModel(state).map((l) => l.reached), [true, true, true]);
});

test("endpoints as ready / serving / terminating per Service", () => {
  assert.deepEqual(endpointsModel(snapshot().endpointSlices), [
    { service: "web", endpoints: [{ address: "10.244.1.7", target: "web", ready: true, serving: true, terminating: false }] },
  ]);
});

test("event rows are sorted by time and name their object", () => {
  const rows = eventRows(snapshot().events);
  assert.deepEqual(rows.map((r) => r.t), [0, 1, 6]);
  assert.equal(rows[2].object, "Pod/web spec.containers{app}");
});

test("probe switches show the user's last choice, else the last probe result", () => {
  let s = fromSnapshot();
  assert.equal(probeSwitchValue(s, "app", "liveness"), "healthy");
  const accepted = [{ at: 20, action: "set-probe", container: "app", probe: "liveness", healthy: false }];
  s = applyTick(s, { seq: s.seq + 1, actionsDelta: { keep: 0, add: accepted } }).state;
  assert.equal(probeSwitchValue(s, "app", "liveness"), "failing");
  assert.equal(s.actions[0].at, 20);
});

test("the action log is the server's: a tick without a delta keeps it, one with a delta keeps its first actions and adds the rest", () => {
  let s = fromSnapshot();
  const before = s.actions;
  s = applyTick(s, { seq: s.seq + 1, now: 21 }).state;
  assert.equal(s.actions, before);
  const crash = { at: 21, action: "crash", container: "app", exitCode: 1 };
  s = applyTick(s, { seq: s.seq + 1, actionsDelta: { keep: 0, add: [crash] } }).state;
  assert.deepEqual(s.actions.map((a) => a.action), ["crash"]);
  const oom = { at: 30, action: "oom", container: "app" };
  s = applyTick(s, { seq: s.seq + 1, actionsDelta: { keep: 1, add: [oom] } }).state;
  assert.deepEqual(s.actions.map((a) => a.action), ["crash", "oom"]);
  // an action after a seek back replaces the kept future: keep 1, add the new one
  s = applyTick(s, { seq: s.seq + 1, actionsDelta: { keep: 1, add: [{ at: 25, action: "delete" }] } }).state;
  assert.deepEqual(s.actions.map((a) => a.action), ["crash", "delete"]);
});

test("a tick keeping more actions than the page has asks for a fresh snapshot", () => {
  const s = fromSnapshot();
  const { state, resync } = applyTick(s, { seq: s.seq + 1, actionsDelta: { keep: s.actions.length + 1, add: [] } });
  assert.equal(resync, true);
  assert.equal(state, s);
});

// ---- against payloads recorded from the real engine (tests/js/record_fixtures.py)

test("recorded plain Pod: stage 1 done, container running in stage 4", () => {
  const d = diagramModel(fromRecording("plain-pod"));
  assert.equal(boxOf(d, "1:pull").state, "done");
  assert.equal(boxOf(d, "3:start:app").state, "done");
  assert.equal(d.stages[3].state, "current");
  assert.equal(d.stages[1].state, "visited", "Initialized=True at once: stage 2 passed with no init containers");
  assert.equal(d.stages[1].lanes[0].length, 0);
  assert.equal(d.loops.restart.length, 0);
});

test("recorded CrashLoopBackOff: the restart loop counts restarts and shows the back-off", () => {
  const s = fromRecording("crash-loop");
  const d = diagramModel(s);
  assert.equal(d.loops.restart.length, 1);
  const [loop] = d.loops.restart;
  assert.equal(loop.container, "app");
  assert.equal(loop.count, s.pod.status.containerStatuses[0].restartCount);
  assert.equal(loop.seconds, 40);
  assert.ok(statusModel(s).surprises.some((x) => x.key === "surprise.crashloop"));
});

test("recorded ImagePullBackOff: the pull loop in stage 1 with the back-off the engine reports", () => {
  const d = diagramModel(fromRecording("image-pull"));
  assert.deepEqual(d.loops.pull, { count: 2, seconds: 20 });
  assert.equal(d.current.stage, 1);
  assert.match(boxOf(d, "1:pull").state, /current failed|failed/);
});

test("recorded init container failure: init retry loop in stage 2, the exit stays in stage 2", () => {
  const d = diagramModel(fromRecording("init-fails"));
  assert.equal(d.loops.init.container, "migrate");
  assert.equal(d.loops.init.count, 3);
  assert.equal(d.loops.init.seconds, 40);
  assert.deepEqual(d.lanes, ["app"], "an init container never gets a stage-4 lane");
  assert.equal(d.currentKey, "2:init:migrate");
});

test("recorded sidecar: one box per init container, the sidecar marked", () => {
  const d = diagramModel(fromRecording("sidecar"));
  const kinds = d.stages[1].lanes[0].map((b) => b.kind);
  assert.ok(kinds.includes("sidecar"));
  assert.deepEqual(d.lanes, ["app"], "the sidecar's later transitions stay on its stage-2 box");
  assert.equal(boxOf(d, "2:init:log-shipper").state, "done");
});

test("recorded deletion: stage 5 current with a grace countdown from deletionTimestamp", () => {
  const s = fromRecording("terminating");
  const d = diagramModel(s);
  assert.equal(d.stages[4].state, "current");
  assert.equal(d.countdown.grace, 30);
  assert.equal(d.countdown.remaining, d.countdown.deadline - s.now);
  assert.equal(boxOf(d, "5:endpoints").state, "done");
  assert.equal(boxOf(d, "5:preStop").state, "current");
});

test("recorded removal: the Pod is gone, the outcome is removed, bands stop at removal", () => {
  const s = fromRecording("removed");
  assert.equal(s.pod, null);
  const d = diagramModel(s);
  assert.equal(d.outcome, "removed");
  assert.deepEqual(d.lanes, ["api"], "no Pod spec left: lanes come from the transitions");
  const m = timelineModel(s);
  assert.deepEqual(m.lanes.map((l) => l.container), ["api"]);
  assert.ok(m.lanes[0].segments.every((seg) => seg.to <= 33), "bands end when the Pod was removed");
});

test("recorded node loss: phase is not Unknown and the page says so", () => {
  const s = fromRecording("node-lost");
  const st = statusModel(s);
  if (st.present) assert.ok(st.surprises.some((x) => x.key === "surprise.nodeLost"), JSON.stringify(st.surprises));
});

test("a Pod condition echoes the container the engine names: it moves no marker and touches no other lane", () => {
  const pod = { metadata: { name: "web" }, spec: { containers: [{ name: "a", readinessProbe: {} }, { name: "b", readinessProbe: {} }] }, status: {} };
  const t = (seq, stage, step, container, object, field, after) => ({ seq, t: seq, stage, step, object, container, field, before: null, after, cause: "" });
  const transitions = [
    t(0, 4, "readiness", "a", "Container/a", "probe.readiness", "success"),
    t(1, 4, "readiness", "b", "Container/b", "probe.readiness", "failure"),
    t(2, 4, "readiness", "a", "Container/a", "probe.readiness", "success"),
    t(3, 4, "readiness", "a", "Pod/web", "conditions.Ready", "True"),
  ];
  let d = diagramModel({ ...initialState(), pod, transitions });
  assert.equal(d.currentKey, "4:readiness:a");
  assert.equal(boxOf(d, "4:readiness:b").state, "failed", "the condition echoes a, it does not touch b");
  transitions.push(t(4, 4, "running", null, "Node/node-1", "conditions.Ready", "Unknown"));
  d = diagramModel({ ...initialState(), pod, transitions });
  assert.equal(d.currentKey, "4:readiness:a", "a node's news moves no container's box");
  assert.equal(d.current.step, "node");
  assert.equal(d.current.node, "node-1");
});

test("a tick's runs extend probe runs the tab already has, by seq", () => {
  const probe = (seq, t, repeat) => ({ seq, t, stage: 4, step: "readiness", object: "Container/app", container: "app",
    field: "probe.readiness", before: "success", after: "success", cause: "Readiness probe succeeded", ...(repeat ? { repeat } : {}) });
  const s = applySnapshot(initialState(), { ...snapshot(), transitions: [probe(0, 10), probe(1, 11, { every: 5, count: 2, until: 16 })] });
  const { state } = applyTick(s, { seq: s.seq + 1, now: 40, transitions: [],
    runs: [{ seq: 0, repeat: { every: 1, count: 30, until: 39 } }, { seq: 1, repeat: { every: 5, count: 6, until: 36 } }] });
  assert.deepEqual(state.transitions.map((tr) => tr.repeat), [{ every: 1, count: 30, until: 39 }, { every: 5, count: 6, until: 36 }]);
  assert.equal(s.transitions[0].repeat, undefined, "the previous state is not changed");
  const m = timelineModel(state);
  assert.deepEqual(m.probes.map((p) => [p.t, p.until, p.count]), [[10, 39, 30], [11, 36, 6]]);
  const same = applyTick(state, { seq: state.seq + 1, now: 41, transitions: [], runs: [] }).state;
  assert.equal(same.transitions, state.transitions, "no runs: the same array");
});

test("a transition table (join {transitions: \"table\"}) expands into the records the list carries", () => {
  const listed = recorded("removed");
  const records = listed.transitions;
  assert.ok(records.some((tr) => tr.repeat) && records.some((tr) => tr.container === null));
  // The table as webapp/sessions/wire.py builds it: the usual columns, then the optional ones.
  const columns = ["seq", "t", "stage", "step", "object", "container", "field", "before", "after", "cause"];
  for (const tr of records) for (const key of Object.keys(tr)) if (!columns.includes(key)) columns.push(key);
  const optional = columns.filter((c) => records.some((tr) => !Object.hasOwn(tr, c)));
  const rows = records.map((tr) => columns.map((c) => tr[c] ?? null));
  const { transitions, ...rest } = listed;
  const compact = { ...rest, transitionTable: { columns, optional, rows } };
  assert.deepEqual(transitionsOf(compact), records);
  // The page's state is the same whichever form the snapshot came in ...
  const fromTable = applySnapshot(initialState(), compact);
  assert.deepEqual(fromTable.transitions, fromRecording("removed").transitions);
  assert.deepEqual(timelineModel(fromTable), timelineModel(fromRecording("removed")));
  // ... and a tick's table extends it like its list would.
  const next = records.length;
  const fresh = { seq: next, t: 99, stage: 4, step: "exit", object: "Container/app", container: "app",
    field: "runtime", before: "running", after: "exited", cause: "Process exited with code 1 (Error)" };
  const tick = { seq: fromTable.seq + 1, transitionTable: { columns, optional,
    rows: [columns.map((c) => fresh[c] ?? null)] } };
  const { state, resync } = applyTick(fromTable, tick);
  assert.equal(resync, false);
  assert.deepEqual(state.transitions.at(-1), fresh);
  assert.equal(state.transitions.length, next + 1);
});
