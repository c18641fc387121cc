"""The timeline's history of a cluster run: one lane per Pod and the rollouts.

The page has the transitions of the focus Pod only; for every other Pod it needs when its
`kubectl get pods` STATUS changed, when a container restarted, when it was deleted and when it
was gone. `ClusterLanes` reads that from the run's watch of every Pod (`sim.watch_versions`,
what `kubectl get pods -w` receives), incrementally, and the Deployment rollouts and scales
from `sim.deployment_versions`. What it sends is bounded (docs/internals.md, "cluster.lanes"):
at most MAX_LANES lanes (every live Pod, then the gone ones that went last), MAX_SEGMENTS
STATUS segments and MAX_MARKS restart and delete marks per lane (fewer when many lanes share
TOTAL_SEGMENTS and TOTAL_MARKS), MAX_ROLLOUTS rollouts and MAX_SCALES scale marks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webapp import kubectl
from webapp.engine.core.timefmt import EPOCH
from webapp.kubectl import workloads as kubectl_workloads

MAX_LANES = 150  # every live Pod (at most 100) and the gone Pods that went last
MAX_SEGMENTS = 48  # STATUS segments per lane: the last ones (`cut`: the first time kept)
MAX_MARKS = 24  # restart and delete marks per lane: the last ones
TOTAL_SEGMENTS = 800  # ... over all lanes sent: each lane gets its share, at least
MIN_SEGMENTS = 8
TOTAL_MARKS = 400  # restart marks over all lanes, and as many delete marks
MIN_MARKS = 4
MAX_ROLLOUTS = 50
MAX_SCALES = 50
REVISION = "deployment.kubernetes.io/revision"


def _owner(pod: dict[str, Any]) -> str:
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return f"{ref.get('kind', '')}/{ref.get('name', '')}"
    return ""


def _restarts(pod: dict[str, Any]) -> int:
    status = pod.get("status") or {}
    return sum(
        int(c.get("restartCount") or 0)
        for key in ("initContainerStatuses", "containerStatuses")
        for c in status.get(key) or []
    )


class _Lane:
    __slots__ = ("count", "cut", "deleted", "deleting", "end", "name", "owner", "restarts",
                 "segments", "start", "status")  # fmt: skip

    def __init__(self, name: str, owner: str, t: float) -> None:
        self.name, self.owner, self.start = name, owner, t
        self.end: float | None = None
        self.segments: list[Any] = []  # flat: t, status index, t, status index ...
        self.cut: float | None = None
        self.restarts: list[float] = []
        self.deleted: list[float] = []
        self.status = -2
        self.count = 0
        self.deleting = False

    def to_wire(self, segments: int, marks: int) -> dict[str, Any]:
        """The lane with its last ``segments`` STATUS segments and ``marks`` marks of each kind."""
        kept = self.segments[-2 * segments :]
        out: dict[str, Any] = {"name": self.name, "owner": self.owner, "from": self.start,
                               "to": self.end, "s": kept, "r": self.restarts[-marks:],
                               "d": self.deleted[-marks:]}  # fmt: skip
        cut = kept[0] if len(kept) < len(self.segments) else self.cut
        if cut is not None:
            out["cut"] = cut
        return out


def _keep_last(items: list, n: int) -> None:
    if len(items) > n:
        del items[: len(items) - n]


class ClusterLanes:
    """`{statuses, pods, dropped}` and `{rollouts, scales}` of a cluster run, fed
    incrementally (a replay, with new version lists, starts again)."""

    def __init__(self) -> None:
        self._source: Any = None
        self._seen = 0
        self._lanes: dict[str, _Lane] = {}
        self._statuses: list[str] = []
        self._index: dict[str, int] = {}
        self._dropped = 0
        self._deployments: Any = None
        self._rollout_seen: dict[str, int] = {}
        self._rollouts: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}  # Deployment -> its rollout in progress
        self._replicas: dict[str, Any] = {}
        self._scales: list[dict[str, Any]] = []

    def _status_index(self, text: str) -> int:
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self._statuses)
            self._statuses.append(text)
        return index

    def lanes(self, sim: Any) -> dict[str, Any]:
        versions = sim.watch_versions
        if versions is not self._source or len(versions) < self._seen:
            self.__init__()  # another run (a replay): start again
            self._source = versions
        for t, kind, pod in versions[self._seen :]:
            self._read(t, kind, pod, sim)
        self._seen = len(versions)
        # Many lanes share one budget: a crash-looping hundred sends fewer segments each.
        count = max(1, len(self._lanes))
        segments = max(MIN_SEGMENTS, min(MAX_SEGMENTS, TOTAL_SEGMENTS // count))
        marks = max(MIN_MARKS, min(MAX_MARKS, TOTAL_MARKS // count))
        return {
            "statuses": list(self._statuses),
            "pods": [lane.to_wire(segments, marks) for lane in self._lanes.values()],
            "dropped": self._dropped,
        }

    def _read(self, t: float, kind: str, pod: dict[str, Any], sim: Any) -> None:
        name = (pod.get("metadata") or {}).get("name", "")
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = _Lane(name, _owner(pod), t)
            self._drop_gone()
        elif lane.end is not None:
            # the same name again (a StatefulSet's Pod): a gap, then the new life
            lane.segments += [lane.end, -1]
            lane.end, lane.status, lane.count, lane.deleting = None, -1, 0, False
        if kind == "DELETED":
            lane.end = t
            if not lane.deleting:
                lane.deleted.append(t)  # a force delete: gone at once
            return
        status = self._status_index(kubectl.pod_columns(pod, sim.wall_time(t))["STATUS"])
        if status != lane.status:
            lane.status = status
            if lane.segments and lane.segments[-2] == t:
                lane.segments[-1] = status  # changed again at the same instant
                if len(lane.segments) >= 4 and lane.segments[-3] == status:
                    del lane.segments[-2:]  # ... back to what it was before that instant
            else:
                lane.segments += [t, status]
            if len(lane.segments) > 2 * MAX_SEGMENTS:
                del lane.segments[:2]
                lane.cut = lane.segments[0]
        count = _restarts(pod)
        if count > lane.count:
            lane.restarts.append(t)
            _keep_last(lane.restarts, MAX_MARKS)
        lane.count = count
        if (pod.get("metadata") or {}).get("deletionTimestamp") and not lane.deleting:
            lane.deleting = True
            lane.deleted.append(t)
            _keep_last(lane.deleted, MAX_MARKS)

    def _drop_gone(self) -> None:
        while len(self._lanes) > MAX_LANES:
            gone = [lane for lane in self._lanes.values() if lane.end is not None]
            if not gone:
                return
            first = min(gone, key=lambda lane: lane.end or 0.0)
            del self._lanes[first.name]
            self._dropped += 1

    def rollouts(self, sim: Any) -> dict[str, Any]:
        """Each Deployment revision's rollout (`from` its new revision, `to` when `kubectl
        rollout status` says done or the deadline passed, or a newer revision took over) and
        each change of `spec.replicas`."""
        versions = sim.deployment_versions
        if versions is not self._deployments:
            self._deployments = versions
            self._rollout_seen, self._rollouts, self._open = {}, [], {}
            self._replicas, self._scales = {}, []
        for name, items in versions.items():
            seen = self._rollout_seen.get(name, 0)
            for t, deployment in items[seen:]:
                self._deployment_version(name, t, deployment)
            self._rollout_seen[name] = len(items)
        return {"rollouts": [dict(r) for r in self._rollouts], "scales": list(self._scales)}

    def _deployment_version(self, name: str, t: float, deployment: dict[str, Any]) -> None:
        annotations = (deployment.get("metadata") or {}).get("annotations") or {}
        revision = int(annotations.get(REVISION) or 0)
        replicas = (deployment.get("spec") or {}).get("replicas")
        if name in self._replicas and replicas != self._replicas[name]:
            self._scales.append({"name": name, "t": t, "from": self._replicas[name],
                                 "replicas": replicas})  # fmt: skip
            _keep_last(self._scales, MAX_SCALES)
        self._replicas[name] = replicas
        current = self._open.get(name)
        last = next((r for r in reversed(self._rollouts) if r["name"] == name), None)
        if revision and (last is None or last["revision"] != revision):
            if current is not None:
                current.update(to=t, result="superseded")
            current = {"kind": "Deployment", "name": name, "revision": revision, "from": t,
                       "to": None, "result": None}  # fmt: skip
            self._rollouts.append(current)
            _keep_last(self._rollouts, MAX_ROLLOUTS)
            self._open[name] = current
        if current is None:
            return
        try:
            _line, done = kubectl_workloads.deployment_rollout_status(deployment)
        except kubectl_workloads.RolloutStatusError:
            current.update(to=t, result="failed")
            del self._open[name]
            return
        if done:
            current.update(to=t, result="complete")
            del self._open[name]


JOB_MILESTONES = ("Complete", "Failed")


def _seconds(stamp: Any) -> float | None:
    """Virtual seconds of an RFC 3339 time of the run (EPOCH + t)."""
    try:
        when = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when - EPOCH).total_seconds()


def job_milestones(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each Job's true conditions (`Complete`, `Failed` ...) at their `lastTransitionTime`."""
    marks = []
    for job in jobs:
        name = (job.get("metadata") or {}).get("name", "")
        status = job.get("status") or {}
        for condition in status.get("conditions") or []:
            if condition.get("type") in JOB_MILESTONES and condition.get("status") == "True":
                t = _seconds(condition.get("lastTransitionTime"))
                if t is not None:
                    marks.append({"kind": "Job", "name": name, "t": t,
                                  "type": condition["type"], "reason": condition.get("reason")})  # fmt: skip
    return sorted(marks, key=lambda m: m["t"])[-MAX_SCALES:]
