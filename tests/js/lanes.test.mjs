// The timeline of a cluster run (static/js/lanes.js): one lane per Pod grouped by owner, the
// focus Pod the only one unfolded, a cap on the rows, and the rollouts and other marks.
import { test } from "node:test";
import assert from "node:assert/strict";

import { clusterRows, podLane, statusClass, tailText, workloadMarks, MAX_ROWS } from "../../static/js/lanes.js";

const statuses = ["Pending", "ContainerCreating", "Running", "Terminating", "Completed", "CrashLoopBackOff"];
const pod = (name, owner, from, to, s, extra = {}) => ({ name, owner, from, to, s, r: [], d: [], ...extra });

// A rolling update seen at 60 s: three old Pods gone, three new ones live.
const rolling = {
  focus: "web-old-a",
  lanes: {
    statuses,
    dropped: 0,
    pods: [
      pod("web-old-a", "ReplicaSet/web-old", 0, 37, [0, 1, 7, 2, 37, 4], { d: [37] }),
      pod("web-old-b", "ReplicaSet/web-old", 0, 44, [0, 1, 7, 2, 44, 4], { d: [44] }),
      pod("web-old-c", "ReplicaSet/web-old", 0, 51, [0, 1, 7, 2, 51, 4], { d: [51] }),
      pod("web-new-a", "ReplicaSet/web-new", 30, null, [30, 1, 37, 2]),
      pod("web-new-b", "ReplicaSet/web-new", 37, null, [37, 1, 44, 2]),
      pod("web-new-c", "ReplicaSet/web-new", 44, null, [44, 1, 51, 2]),
    ],
  },
  rollouts: [
    { kind: "Deployment", name: "web", revision: 1, from: 0, to: 7, result: "complete" },
    { kind: "Deployment", name: "web", revision: 2, from: 30, to: 51, result: "complete" },
  ],
  scales: [{ name: "web", t: 20, from: 3, replicas: 5 }],
  milestones: [],
};

test("one lane per Pod, grouped by owner, the focus Pod unfolded", () => {
  const rows = clusterRows(rolling, 60);
  assert.deepEqual(rows.map((r) => r.type === "group" ? `group ${r.owner} ${r.count}` : `${r.type} ${r.lane.name}`), [
    "group ReplicaSet/web-old 3", "pod web-old-a", "pod web-old-b", "pod web-old-c",
    "group ReplicaSet/web-new 3", "pod web-new-a", "pod web-new-b", "pod web-new-c",
  ]);
  const pods = rows.filter((r) => r.type === "pod");
  assert.deepEqual(pods.map((r) => r.expanded), [true, false, false, false, false, false]);
  assert.deepEqual(pods.map((r) => r.focus), [true, false, false, false, false, false]);
  // a gone Pod keeps its lane up to its end; its deletion is marked
  const gone = pods[0].lane;
  assert.equal(gone.gone, true);
  assert.deepEqual(gone.segments.map((g) => [g.from, g.to, g.status, g.kind]), [
    [0, 7, "ContainerCreating", "waiting"], [7, 37, "Running", "running"], [37, 37, "Completed", "done"],
  ]);
  assert.deepEqual(gone.deleted, [37]);
  // a live Pod's last segment runs to now, and is open
  const live = pods[3].lane;
  assert.deepEqual(live.segments.at(-1), { from: 37, to: 60, status: "Running", kind: "running", open: true });
});

test("folding: the focus Pod folds; other Pods cannot unfold without being followed; owners fold", () => {
  let rows = clusterRows(rolling, 60, { collapsed: new Set(["web-old-a"]) });
  assert.equal(rows.filter((r) => r.type === "pod" && r.expanded).length, 0);
  rows = clusterRows({ ...rolling, focus: "web-new-b" }, 60);
  assert.deepEqual(rows.filter((r) => r.expanded).map((r) => r.lane.name), ["web-new-b"]);
  rows = clusterRows(rolling, 60, { closedGroups: new Set(["ReplicaSet/web-new", "ReplicaSet/web-old"]) });
  // the focus Pod's owner stays open; the other folds to its header, with its count
  assert.deepEqual(rows.map((r) => [r.type, r.collapsed ?? null]).slice(0, 1), [["group", false]]);
  assert.deepEqual(rows.at(-1), { type: "group", owner: "ReplicaSet/web-new", count: 3, collapsed: true });
});

test("the past only: a Pod not yet made has no lane, a Pod gone later still runs", () => {
  const rows = clusterRows(rolling, 40).filter((r) => r.type === "pod");
  assert.deepEqual(rows.map((r) => r.lane.name), ["web-old-a", "web-old-b", "web-old-c", "web-new-a", "web-new-b"]);
  const b = rows[1].lane;
  assert.deepEqual(b.segments.map((g) => [g.from, g.to, g.status]), [[0, 7, "ContainerCreating"], [7, 40, "Running"]]);
  assert.deepEqual(b.deleted, []);
});

test("a name used again: the gap between its two lives draws nothing", () => {
  const cluster = { focus: "web-0", lanes: { statuses, pods: [pod("web-0", "StatefulSet/web", 0, null, [0, 2, 5, 3, 6, -1, 9, 0], { d: [5] })] } };
  const [, row] = clusterRows(cluster, 20);
  assert.deepEqual(row.lane.segments.map((g) => [g.from, g.to, g.status]), [[0, 5, "Running"], [5, 6, "Terminating"], [9, 20, "Pending"]]);
});

test("100 Pods: at most MAX_ROWS lanes, the focus Pod and the live ones first, then show all", () => {
  const pods = [];
  for (let i = 0; i < 100; i += 1) pods.push(pod(`job-${i}`, "Job/many", i, i < 60 ? i + 5 : null, [i, 2]));
  const cluster = { focus: "job-3", lanes: { statuses, pods } };
  const rows = clusterRows(cluster, 200);
  const shown = rows.filter((r) => r.type === "pod").map((r) => r.lane.name);
  assert.equal(shown.length, MAX_ROWS);
  assert.ok(shown.includes("job-3"));
  assert.equal(shown.filter((n) => Number(n.slice(4)) >= 60).length, MAX_ROWS - 1, "the live ones");
  assert.deepEqual(rows.at(-1), { type: "more", hidden: 100 - MAX_ROWS, total: 100 });
  // in creation order within the group, as the strip
  const order = shown.map((n) => Number(n.slice(4)));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
  const all = clusterRows(cluster, 200, { showAll: true });
  assert.equal(all.filter((r) => r.type === "pod").length, 100);
  assert.deepEqual(all.at(-1), { type: "fewer", total: 100 });
});

test("rollouts as bands, one still going runs to now; scales and Job milestones as points", () => {
  let marks = workloadMarks(rolling, 40);
  assert.deepEqual(marks.rollouts.map((r) => [r.revision, r.from, r.to, r.result]), [[1, 0, 7, "complete"], [2, 30, 40, null]]);
  marks = workloadMarks(rolling, 60);
  assert.deepEqual(marks.rollouts.map((r) => [r.revision, r.to, r.result]), [[1, 7, "complete"], [2, 51, "complete"]]);
  assert.deepEqual(marks.points, [{ t: 20, type: "scale", name: "web", from: 3, replicas: 5 }]);
  const job = workloadMarks({ milestones: [{ kind: "Job", name: "pi", t: 12, type: "Complete", reason: "CompletionsReached" }] }, 30);
  assert.deepEqual(job.points, [{ t: 12, type: "job", name: "pi", condition: "Complete", reason: "CompletionsReached" }]);
  assert.deepEqual(workloadMarks({}, 10), { rollouts: [], points: [] });
  assert.deepEqual(workloadMarks(rolling, 5).rollouts.map((r) => [r.to, r.result]), [[5, null]]);
});

test("STATUS colours and names cut at the front", () => {
  assert.deepEqual(["Running", "Pending", "ContainerCreating", "Init:0/1", "Completed", "Terminating", "CrashLoopBackOff", "Error", "ImagePullBackOff"].map(statusClass),
    ["running", "waiting", "waiting", "waiting", "done", "terminating", "failed", "failed", "failed"]);
  const fits = (n) => (str) => [...str].length <= n;
  assert.equal(tailText("web-6b4876d74d-kq29j", fits(30)), "web-6b4876d74d-kq29j");
  assert.equal(tailText("web-6b4876d74d-kq29j", fits(8)), "…d-kq29j");
  assert.equal(podLane(pod("p", "", 0, null, [0, 2]), statuses, 3).segments.length, 1);
});

test("no cluster: no rows", () => {
  assert.deepEqual(clusterRows(null, 10), []);
});
