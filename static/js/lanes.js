// The timeline of a cluster run: one lane per Pod, grouped by owner as in the cluster strip,
// and the workloads' rollouts, scales and Job milestones. Pure functions of the wire's
// `cluster` (docs/internals.md, "cluster.lanes"), so Node's test runner checks them
// (tests/js/lanes.test.mjs); timeline.js draws what they return.

/** Pod lanes shown at most until "show all": collapsed lanes are small, but 100 are tall. */
export const MAX_ROWS = 30;

/** The colour class of a `kubectl get pods` STATUS. */
export function statusClass(status) {
  if (status === "Running") return "running";
  if (status === "Completed" || status === "Succeeded") return "done";
  if (status === "Terminating") return "terminating";
  if (/^(Pending|ContainerCreating|PodInitializing|Init:\d+\/\d+|SchedulingGated)$/.test(status)) return "waiting";
  return "failed"; // Error, CrashLoopBackOff, ImagePullBackOff, OOMKilled, Init:Error, Evicted ...
}

/** One Pod's lane at `now`: its STATUS segments (gaps between two lives left out). */
export function podLane(wire, statuses, now) {
  const flat = wire.s || [];
  const end = wire.to ?? now;
  const segments = [];
  for (let i = 0; i < flat.length; i += 2) {
    const from = flat[i];
    const to = i + 2 < flat.length ? flat[i + 2] : end;
    const index = flat[i + 1];
    if (index < 0 || from > now) continue;
    const status = statuses[index] ?? "";
    segments.push({ from, to: Math.min(to, now), status, kind: statusClass(status), open: i + 2 >= flat.length && wire.to === null });
  }
  return {
    name: wire.name,
    owner: wire.owner || "",
    from: wire.from,
    to: wire.to ?? null,
    gone: wire.to !== null && wire.to !== undefined,
    cut: wire.cut ?? null,
    segments,
    restarts: (wire.r || []).filter((t) => t <= now),
    deleted: (wire.d || []).filter((t) => t <= now),
  };
}

/**
 * The rows of the Pod part of the timeline, in order:
 * {type: "group", owner, count, collapsed} then its Pods' {type: "pod", lane, focus, expanded},
 * and {type: "more", hidden} when some Pods are left out (at most MAX_ROWS Pod rows unless
 * `showAll`: the focus Pod first, then the live ones, then those gone last).
 * `collapsed`: Pods whose container lanes the user folded; only the focus Pod can be
 * expanded (the page has the transitions of that one only). `closedGroups`: owners folded.
 */
export function clusterRows(cluster, now, { collapsed = new Set(), closedGroups = new Set(), showAll = false, maxRows = MAX_ROWS } = {}) {
  const statuses = cluster?.lanes?.statuses || [];
  const lanes = (cluster?.lanes?.pods || []).filter((p) => p.from <= now).map((p) => podLane(p, statuses, now));
  const focus = cluster?.focus ?? null;
  let shown = lanes;
  let hidden = 0;
  if (!showAll && lanes.length > maxRows) {
    const rank = (lane) => (lane.name === focus ? 0 : lane.gone ? 2 : 1);
    const keep = new Set([...lanes]
      .sort((a, b) => rank(a) - rank(b) || (b.to ?? Infinity) - (a.to ?? Infinity) || b.from - a.from)
      .slice(0, maxRows).map((l) => l.name));
    shown = lanes.filter((l) => keep.has(l.name));
    hidden = lanes.length - shown.length;
  }
  const groups = new Map();
  for (const lane of shown) {
    if (!groups.has(lane.owner)) groups.set(lane.owner, []);
    groups.get(lane.owner).push(lane);
  }
  const rows = [];
  for (const [owner, pods] of groups) {
    const closed = closedGroups.has(owner) && !pods.some((p) => p.name === focus);
    rows.push({ type: "group", owner, count: pods.length, collapsed: closed });
    if (closed) continue;
    for (const lane of pods) {
      const isFocus = lane.name === focus;
      rows.push({ type: "pod", lane, focus: isFocus, expanded: isFocus && !collapsed.has(lane.name) });
    }
  }
  if (hidden) rows.push({ type: "more", hidden, total: lanes.length });
  else if (showAll && lanes.length > maxRows) rows.push({ type: "fewer", total: lanes.length });
  return rows;
}

/** The workload marks at `now`: rollouts (bands), scales and Job milestones (points). */
export function workloadMarks(cluster, now) {
  const rollouts = (cluster?.rollouts || []).filter((r) => r.from <= now).map((r) => ({
    kind: r.kind, name: r.name, revision: r.revision, from: r.from,
    // still going (or ended after now, seen from an earlier moment)
    to: r.to === null || r.to > now ? now : r.to,
    result: r.to === null || r.to > now ? null : r.result,
  }));
  const points = [
    ...(cluster?.scales || []).map((s) => ({ t: s.t, type: "scale", name: s.name, from: s.from, replicas: s.replicas })),
    ...(cluster?.milestones || []).map((m) => ({ t: m.t, type: "job", name: m.name, condition: m.type, reason: m.reason })),
  ].filter((p) => p.t <= now).sort((a, b) => a.t - b.t);
  return { rollouts, points };
}

/** `text`, or its end after "…" (a Pod name's random suffix tells Pods apart), as `fits` allows. */
export function tailText(text, fits) {
  if (fits(text)) return text;
  let chars = [...text];
  while (chars.length > 1 && !fits(`…${chars.join("")}`)) chars = chars.slice(1);
  return `…${chars.join("")}`;
}
