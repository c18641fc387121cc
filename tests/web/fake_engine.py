"""A small, deterministic stand-in for `webapp.engine.Simulation` (a test double).

It keeps the engine's API and data shapes so the session layer can be tested on its own:
the Pod is scheduled at 1 s, its container starts at 3 s, a liveness probe runs every 10 s;
`delete` makes it Terminating at once and removes it after the grace period. Every change
is a transition, as in the real engine; `pod_versions` grows at each Pod change.
"""

from __future__ import annotations

import copy
import heapq
from datetime import UTC, datetime, timedelta
from typing import Any

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class ActionError(Exception):
    def __init__(self, code: str, params: dict[str, Any], message: str) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def rfc3339(t: float) -> str:
    return (EPOCH + timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeSimulation:
    replays = 0  # how many times replay() ran, for tests

    def __init__(self, scenario: Any, seed: int = 0) -> None:
        self.scenario = scenario
        self.seed = seed
        self.now = 0.0
        self.actions: list[dict[str, Any]] = []
        self.transitions: list[dict[str, Any]] = []
        self.pod_versions: list[tuple[float, str, dict[str, Any]]] = []
        self._events: list[dict[str, Any]] = []
        self._queue: list[tuple[float, int, str, dict[str, Any]]] = []
        self._counter = 0
        name = scenario.pod["metadata"]["name"]
        container = scenario.pod["spec"]["containers"][0]
        self._pod: dict[str, Any] | None = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": "00000000-0000-0000-0000-000000000001",
                "creationTimestamp": rfc3339(0),
                "resourceVersion": "1",
            },
            "spec": {"containers": [copy.deepcopy(container)], "restartPolicy": "Always"},
            "status": {"phase": "Pending", "qosClass": "BestEffort"},
        }
        self._container = container["name"]
        self._change("submitted", "phase", None, "Pending", "created", version="ADDED")
        self._schedule(1.0, "scheduled", {})
        self._schedule(3.0, "running", {})

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_scenario(cls, scenario: Any, seed: int = 0) -> FakeSimulation:
        return cls(scenario, seed)

    @classmethod
    def replay(
        cls, scenario: Any, actions: list[dict[str, Any]], until: float, seed: int = 0
    ) -> FakeSimulation:
        cls.replays += 1
        sim = cls(scenario, seed)
        for action in sorted(actions, key=lambda a: a["at"]):
            sim.advance(action["at"] - sim.now)
            sim.act({k: v for k, v in action.items() if k != "at"})
        sim.advance(until - sim.now)
        return sim

    # -- the clock ----------------------------------------------------------------------
    def _schedule(self, t: float, kind: str, data: dict[str, Any]) -> None:
        self._counter += 1
        heapq.heappush(self._queue, (t, self._counter, kind, data))

    def next_event_time(self) -> float | None:
        return self._queue[0][0] if self._queue else None

    def advance(self, seconds: float) -> None:
        until = self.now + max(0.0, seconds)
        while self._queue and self._queue[0][0] <= until:
            t, _, kind, data = heapq.heappop(self._queue)
            self.now = t
            self._run(kind, data)
        self.now = until

    def step(self) -> bool:
        t = self.next_event_time()
        if t is None:
            return False
        self.advance(t - self.now)
        return True

    def wall_time(self, t: float | None = None) -> datetime:
        return EPOCH + timedelta(seconds=self.now if t is None else t)

    # -- behaviour ----------------------------------------------------------------------
    def _run(self, kind: str, data: dict[str, Any]) -> None:
        pod = self._pod
        if pod is None:
            return
        if kind == "scheduled":
            pod["spec"]["nodeName"] = "node-1"
            self._change("scheduled", "spec.nodeName", None, "node-1", "bound")
            self._event("Scheduled", "Successfully assigned default/web to node-1")
        elif kind == "running":
            pod["status"]["phase"] = "Running"
            pod["status"]["startTime"] = rfc3339(self.now)
            pod["status"]["containerStatuses"] = [
                {
                    "name": self._container,
                    "image": pod["spec"]["containers"][0].get("image", ""),
                    "imageID": "",
                    "ready": True,
                    "started": True,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": rfc3339(self.now)}},
                }
            ]
            self._change("running", "phase", "Pending", "Running", "started")
            self._event("Started", f"Started container {self._container}")
            self._schedule(self.now + 10.0, "probe", {})
        elif kind == "probe":
            self._record("liveness", "probe.liveness", None, "success", "probe")
            self._schedule(self.now + 10.0, "probe", {})
        elif kind == "removed":
            self._change("removed", "deleted", False, True, "grace period over", version="DELETED")
            self._pod = None
            self._queue.clear()

    def act(self, action: dict[str, Any]) -> None:
        word = action.get("action")
        if word == "delete":
            if self._pod is None or "deletionTimestamp" in self._pod["metadata"]:
                raise ActionError("not_found", {}, "the Pod is already being deleted")
            grace = float(action.get("gracePeriodSeconds", 30))
            self._pod["metadata"]["deletionTimestamp"] = rfc3339(self.now + grace)
            self._pod["metadata"]["deletionGracePeriodSeconds"] = int(grace)
            self._change("sigterm", "deletionTimestamp", None, rfc3339(self.now), "deleted")
            self._event("Killing", f"Stopping container {self._container}")
            self._schedule(self.now + grace, "removed", {})
        elif word == "crash":
            self._record("exit", "state", None, {"state": "terminated"}, "crash")
        elif word in ("set-probe", "oom", "node-down", "node-up", "apply"):
            self._record("running", "note", None, word, word)
        else:
            raise ActionError("unknown_action", {"action": word}, f"unknown action {word!r}")
        self.actions.append({"at": self.now, **action})

    def _record(self, step: str, field: str, before: Any, after: Any, cause: str) -> None:
        self.transitions.append(
            {
                "seq": len(self.transitions),
                "t": self.now,
                "stage": {"submitted": 1, "scheduled": 1, "running": 4, "liveness": 4}.get(step, 5),
                "step": step,
                "object": "Pod/web",
                "container": None,
                "field": field,
                "before": before,
                "after": after,
                "cause": cause,
            }
        )

    def _change(
        self, step: str, field: str, before: Any, after: Any, cause: str, version: str = "MODIFIED"
    ) -> None:
        self._record(step, field, before, after, cause)
        assert self._pod is not None
        self._pod["metadata"]["resourceVersion"] = str(len(self.pod_versions) + 1)
        self.pod_versions.append((self.now, version, copy.deepcopy(self._pod)))

    def _event(self, reason: str, message: str) -> None:
        self._events.append(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"web.{len(self._events)}", "namespace": "default"},
                "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
                "reason": reason,
                "message": message,
                "type": "Normal",
                "count": 1,
                "firstTimestamp": rfc3339(self.now),
                "lastTimestamp": rfc3339(self.now),
                "source": {"component": "kubelet", "host": "node-1"},
            }
        )

    # -- reading ------------------------------------------------------------------------
    def logs_by_container_id(self) -> dict[str, list]:
        return {}  # the double runs no processes

    def derived_containers(self) -> list[dict[str, Any]]:
        return []

    def pod(self) -> dict[str, Any] | None:
        return copy.deepcopy(self._pod)

    def events(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self._events)

    def endpoint_slices(self) -> list[dict[str, Any]]:
        return []

    def nodes(self) -> list[dict[str, Any]]:
        return [{"kind": "Node", "metadata": {"name": "node-1"}}]
