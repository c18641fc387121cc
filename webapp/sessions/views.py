"""The `state` part of snapshot and tick payloads, rendered once per change.

Every pacing tick moves `now`, but the Pod, its events, the EndpointSlices and the Nodes only
change at a transition. `StateCache` reads them from the engine only when a transition was
recorded, and renders the kubectl views only when the Pod (a new entry in `pod_versions`) or
its events changed; the views that show ages (columns, describe, events) are also refreshed
when the whole virtual second changes, at most once per `age_refresh_seconds` of wall time
while playing (always when asked to be exact: on pause, step, seek and snapshots).
"""

from __future__ import annotations

import math
from typing import Any

from webapp import kubectl


def stage_of(transitions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Where the Pod is now: the stage, step and container of the last transition."""
    if not transitions:
        return None
    last = transitions[-1]
    return {
        "stage": last.get("stage"),
        "step": last.get("step"),
        "container": last.get("container"),
    }


class StateCache:
    def __init__(self, sim: Any, age_refresh_seconds: float = 1.0) -> None:
        self.sim = sim
        self.age_refresh_seconds = age_refresh_seconds
        self._transitions_seen = -1
        self._versions_seen = -1
        self._age_second: int | None = None
        self._age_wall = -math.inf
        self.pod: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.endpoint_slices: list[dict[str, Any]] = []
        self.nodes: list[dict[str, Any]] = []
        self.views: dict[str, Any] = {}

    def refresh(self, wall_now: float | None = None) -> None:
        """Bring the objects and views up to date.

        `wall_now=None` means "be exact now"; otherwise age-only refreshes are rate-limited.
        Most transitions (a probe run, say) change neither the Pod nor its events: those
        cost a comparison, not a rendering.
        """
        sim = self.sim
        objects_changed = False
        if len(sim.transitions) != self._transitions_seen:
            self._transitions_seen = len(sim.transitions)
            objects_changed = self._read_objects()
        second = math.floor(sim.now)
        if not objects_changed:
            if second == self._age_second:
                return
            if wall_now is not None and wall_now - self._age_wall < self.age_refresh_seconds:
                return
        self._age_second = second
        if wall_now is not None:
            self._age_wall = wall_now
        self._render_aged_views()

    def _read_objects(self) -> bool:
        """Read what the engine shows; True when the Pod or its events changed."""
        sim = self.sim
        self.endpoint_slices = sim.endpoint_slices()
        self.nodes = sim.nodes()
        events = sim.events()
        changed = events != self.events
        self.events = events
        if len(sim.pod_versions) != self._versions_seen:
            self._versions_seen = len(sim.pod_versions)
            self.pod = sim.pod()
            versions = [(sim.wall_time(t), kind, pod) for t, kind, pod in sim.pod_versions]
            self.views["watch"] = "\n".join(kubectl.watch_lines(versions))
            self.views["yaml"] = kubectl.pod_yaml(self.pod) if self.pod else ""
            changed = True
        return changed

    def _render_aged_views(self) -> None:
        now = self.sim.wall_time()
        pod = self.pod
        self.views["columns"] = kubectl.pod_columns(pod, now) if pod else None
        self.views["describe"] = kubectl.describe_pod(pod, self.events, now) if pod else ""
        self.views["events"] = kubectl.get_events(self.events, now)

    def state(self) -> dict[str, Any]:
        """The wire `state` minus `seq` and `transitions` (the session adds those)."""
        return {
            "now": self.sim.now,
            "pod": self.pod,
            "events": self.events,
            "endpointSlices": self.endpoint_slices,
            "nodes": self.nodes,
            "views": dict(self.views),
            "stage": stage_of(self.sim.transitions),
        }
