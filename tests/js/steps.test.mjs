// The five-stage diagram's step marks come from what the kubelet is doing (issue 20, item 5),
// checked at ten moments of every built-in scenario and of the docs' liveness, init and
// rolling-update examples (tests/js/record_moments.py) against the kubelet's status of the
// Pod at that moment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

import { applySnapshot, initialState, diagramModel, containersOf, kubeletContainers } from "../../static/js/state.js";
import { t } from "../../static/js/i18n.js";

const dir = new URL("./fixtures/moments/", import.meta.url);
const names = readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => f.replace(/\.json$/, ""));
const load = (name) => JSON.parse(readFileSync(new URL(`${name}.json`, dir), "utf8"));

/** The page's state at each recorded moment, as a tab that watched the run has it. */
function moments(name) {
  const run = load(name);
  let prev = initialState();
  return run.moments.map((m) => {
    const snap = { session: "moments", now: m.now, pod: m.pod, endpointSlices: m.endpointSlices, cluster: m.cluster ?? null,
      transitions: run.transitions.filter((tr) => tr.seq <= m.seq) };
    prev = applySnapshot(prev, snap);
    return prev;
  });
}
const boxes = (d) => d.stages.flatMap((st) => st.lanes.flat());
const boxOf = (d, key) => boxes(d).find((b) => b.key === key);
const at = (name, now) => {
  const found = moments(name).find((s) => s.now === now);
  assert.ok(found, `${name} has a moment at ${now}s`);
  return found;
};
const apiState = (status) => Object.keys(status?.state || {})[0] ?? null;

test("the fixtures hold every built-in scenario and the docs' examples, ten moments each", () => {
  const scenarios = [];
  const walk = (path, prefix) => {
    for (const entry of readdirSync(new URL(path, new URL("../../scenarios/", import.meta.url)), { withFileTypes: true })) {
      // scenarios/plans holds lesson plans (webapp/classes/plans.py), not scenarios.
      if (entry.isDirectory()) {
        if (!(path === "./" && entry.name === "plans")) walk(`${path}${entry.name}/`, `${prefix}${entry.name}--`);
      }
      else if (entry.name.endsWith(".yaml")) scenarios.push(prefix + entry.name.replace(/\.yaml$/, ""));
    }
  };
  walk("./", "");
  for (const s of [...scenarios, "docs-exec-liveness", "docs-init-containers", "docs-rolling-update"]) {
    assert.ok(names.includes(s), `fixture for ${s} (run tests/js/record_moments.py)`);
    assert.equal(load(s).moments.length, 10, s);
  }
});

test("at every moment of every fixture, each step's mark agrees with the kubelet's status", () => {
  let checked = 0;
  for (const name of names) {
    for (const state of moments(name)) {
      const d = diagramModel(state);
      const where = `${name} at ${state.now}s`;
      const pod = state.pod;
      if (pod) {
        const statuses = new Map([...(pod.status?.initContainerStatuses || []), ...(pod.status?.containerStatuses || [])].map((s) => [s.name, s]));
        for (const c of containersOf(pod)) {
          const status = statuses.get(c.name);
          const box = c.kind === "app" ? boxOf(d, `4:running:${c.name}`) : boxOf(d, `2:init:${c.name}`);
          if (!box || !status) continue;
          const word = box.state.split(" ")[0];
          const api = apiState(status);
          const never = api === "waiting" && !status.lastState?.terminated && !status.restartCount &&
            ["PodInitializing", "ContainerCreating"].includes(status.state.waiting.reason);
          if (c.kind === "init") {
            if (never) assert.ok(["pending", "current"].includes(word), `${where}: ${c.name} has not started, box ${box.state}`);
            if (api === "running") assert.ok(["active", "current"].includes(word), `${where}: ${c.name} runs, box ${box.state}`);
            if (api === "terminated" && status.state.terminated.exitCode === 0) {
              assert.ok(["done", "current"].includes(word), `${where}: ${c.name} completed, box ${box.state}`);
            }
          }
          if (c.kind === "sidecar" && never) assert.ok(["pending", "current"].includes(word), `${where}: ${c.name}`);
          if (c.kind === "app") {
            if (never) assert.ok(["pending", "current", "skipped"].includes(word), `${where}: ${c.name} not started, box ${box.state}`);
            if (api === "running" && status.restartCount > 0 && !state.transitions.some((tr) => tr.container === c.name && tr.field === "signal" && tr.t > (pod.status?.startTime ? 0 : 0) && tr.seq > lastStartSeq(state, c.name))) {
              assert.ok(!box.state.includes("failed"), `${where}: ${c.name} runs again (restart ${status.restartCount}), box ${box.state}`);
            }
          }
        }
      }
      // SIGKILL comes after the stop signal (or instead of it): never while SIGTERM says "not yet".
      // (A deletion's grace period runs from the delete, so during preStop it runs before SIGTERM.)
      const mark = (step) => boxOf(d, `5:${step}`).state.split(" ")[0];
      if (["done", "current"].includes(mark("sigkill"))) assert.notEqual(mark("sigterm"), "pending", `${where}: SIGKILL but SIGTERM not yet`);
      checked += 1;
    }
  }
  assert.equal(checked, names.length * 10);
});

function lastStartSeq(state, name) {
  return state.transitions.findLast((tr) => tr.container === name && tr.field === "runtime" && tr.after === "started")?.seq ?? -1;
}

test("init containers run one at a time: at 1.9 s neither has run, so neither is done", () => {
  const d = diagramModel(at("init-containers", 1.9));
  assert.equal(boxOf(d, "2:init:wait-for-db").state, "pending");
  assert.equal(boxOf(d, "2:init:write-page").state, "pending");
  const running = diagramModel(at("init-containers", 5.4));
  assert.match(boxOf(running, "2:init:wait-for-db").state, /current|active/);
  assert.equal(boxOf(running, "2:init:write-page").state, "pending");
  const after = diagramModel(at("init-containers", 11.9));
  assert.equal(boxOf(after, "2:init:wait-for-db").state, "done");
  assert.match(boxOf(after, "2:init:write-page").state, /^(done|current)$/);
});

test("docs' myapp-pod: while init-myservice loops on nslookup, init-mydb is not yet", () => {
  const d = diagramModel(at("docs-init-containers", 16));
  assert.match(boxOf(d, "2:init:init-myservice").state, /current|active/);
  assert.equal(boxOf(d, "2:init:init-mydb").state, "pending");
  const second = diagramModel(at("docs-init-containers", 40.4));
  assert.equal(boxOf(second, "2:init:init-myservice").state, "done");
  assert.match(boxOf(second, "2:init:init-mydb").state, /current|active/);
  assert.equal(boxOf(second, "3:start:myapp-container").state, "pending");
});

test("a container stopped because its Pod was deleted ran to that end: Running is done, not failed", () => {
  // graceful-shutdown-prestop: preStop, SIGTERM, exit 0, the Pod gone at 53 s
  const gone = diagramModel(at("graceful-shutdown-prestop", 53));
  assert.equal(boxOf(gone, "4:running:api").state, "done");
  assert.equal(boxOf(gone, "5:sigterm").state, "done");
  // a rolling update's old Pod: nginx stopped by SIGQUIT (its STOPSIGNAL), exit 0
  const replaced = diagramModel(at("workloads--rolling-update", 40));
  assert.equal(boxOf(replaced, "4:running:nginx").state, "done");
  // an exit that itself failed still shows as failed (crash-loop-backoff's exit 1)
  assert.equal(boxOf(diagramModel(at("crash-loop-backoff", 17.9)), "4:running:app").state, "current failed");
});

test("docs' exec liveness: the kill shows SIGTERM sent and the grace period running, then SIGKILL, then the new instance", () => {
  const before = diagramModel(at("docs-exec-liveness", 40));
  for (const step of ["sigterm", "grace", "sigkill"]) assert.equal(boxOf(before, `5:${step}`).state, "pending", step);
  const killing = diagramModel(at("docs-exec-liveness", 60));
  assert.equal(boxOf(killing, "5:sigterm").state, "done");
  assert.equal(boxOf(killing, "5:sigterm").detail, "SIGTERM");
  assert.equal(boxOf(killing, "5:grace").state, "active");
  assert.equal(boxOf(killing, "5:sigkill").state, "pending");
  const restarted = diagramModel(at("docs-exec-liveness", 92.5));
  assert.doesNotMatch(boxOf(restarted, "4:running:liveness").state, /failed/);
  for (const step of ["sigterm", "grace", "sigkill"]) assert.equal(boxOf(restarted, `5:${step}`).state, "pending", `${step} after the restart`);
  const k = kubeletContainers(at("docs-exec-liveness", 92.5).transitions).get("liveness");
  assert.equal(k.starts, 2);
  assert.equal(k.running, true);
});

test("the restart loop's label names the back-off only while the kubelet backs off, and the restart it waits for", () => {
  let backingOff = 0;
  for (const name of names) {
    for (const state of moments(name)) {
      const d = diagramModel(state);
      for (const loop of d.loops.restart) {
        const status = (state.pod?.status?.containerStatuses || []).find((s) => s.name === loop.container);
        if (!status) continue;
        const waiting = status.state?.waiting;
        const where = `${name} at ${state.now}s: ${JSON.stringify(loop)}`;
        if (waiting?.reason === "CrashLoopBackOff") {
          backingOff += 1;
          const [, minutes, secs] = /back-off (?:(\d+)m)?(\d+)s/.exec(waiting.message) ?? [];
          const seconds = Number(minutes ?? 0) * 60 + Number(secs);
          assert.equal(loop.seconds, seconds, where);
          assert.equal(loop.next, status.restartCount + 1, where);
          assert.equal(t("diagram.loop.restart", { seconds: loop.seconds, count: loop.next }), `back-off ${seconds}s, then restart #${status.restartCount + 1}`);
        } else {
          assert.equal(loop.seconds, null, `${where}: no back-off now, yet the label shows one`);
        }
      }
    }
  }
  assert.ok(backingOff >= 3, `${backingOff} moments in CrashLoopBackOff`);
});

test("a rolling update's old Pod, behind the Service, is marked removed from the endpoints, not skipped", () => {
  for (const name of ["workloads--rolling-update", "docs-rolling-update"]) {
    const gone = moments(name).filter((s) => !s.pod && s.lastPod);
    assert.ok(gone.length, `${name}: the followed old Pod is removed at some moment`);
    for (const state of gone) {
      const box = boxOf(diagramModel(state), "5:endpoints");
      if (name === "docs-rolling-update") assert.equal(box.state, "undefined", "no Service there: nothing to leave");
      else assert.equal(box.state, "done", `${name} at ${state.now}s`);
    }
  }
});
