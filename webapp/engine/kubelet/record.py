"""The kubelet's record of one spec container: its runtime instances (newest first), the
reason cache (``reasonCache``), the probe workers and their results, and the API status it
last wrote. The pod worker (:mod:`kubelet`), the prober and ``killContainer`` share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webapp.engine.kubelet.probes import PROBE_TYPES, SUCCESS, ProbeWorker
from webapp.engine.kubelet.runtime import ContainerInstance
from webapp.engine.kubelet.status import ContainerSnapshot


@dataclass(eq=False)
class ContainerRecord:
    """The kubelet's view of one spec container: runtime instances, reason cache, probes."""

    spec: dict
    kind: str  # "init" | "sidecar" | "app"
    behaviour: dict
    instances: list[ContainerInstance] = field(default_factory=list)  # newest first
    reason: tuple[str, str] | None = None  # reasonCache entry: (reason, message)
    reason_seconds: float | None = None  # the back-off wait of the last back-off reason
    snapshot: ContainerSnapshot | None = None  # API status as of the last sync
    probes: dict[str, ProbeWorker] = field(default_factory=dict)
    health: dict[str, bool] = field(default_factory=dict)  # forced: Simulation probes, set-probe
    kill_message: str | None = None  # a probe asked for a kill (computePodActions)
    kill_grace_s: int | None = None

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def newest(self) -> ContainerInstance | None:
        return self.instances[0] if self.instances else None

    @property
    def start_ms(self) -> int:
        return round(float(self.behaviour.get("startSeconds") or 0) * 1000)

    @property
    def field_path(self) -> str:
        field_name = "containers" if self.kind == "app" else "initContainers"
        return f"spec.{field_name}{{{self.name}}}"

    def result(self, probe_type: str) -> str | None:
        worker = self.probes.get(probe_type)
        return None if worker is None else worker.result

    @property
    def started(self) -> bool:
        """``started`` as UpdatePodStatus computes it from the last written status."""
        if self.snapshot is None or not self.snapshot.running:
            return False
        startup = self.result("startup")
        return startup is None or startup == SUCCESS


def health_from_behaviour(behaviour: dict) -> dict[str, bool]:
    """The probe results the Simulation document forces itself (the rest is the model's).
    A behaviour without an ``explicit`` list (built by hand) forces every listed probe."""
    probes = behaviour.get("probes") or {}
    given = behaviour.get("explicit")
    return {
        t: probes[t] != "failing"
        for t in PROBE_TYPES
        if t in probes and (given is None or f"probes.{t}" in given)
    }
