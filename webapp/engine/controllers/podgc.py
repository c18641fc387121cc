"""The pod garbage collector's ``gcOrphaned`` (``pkg/controller/podgc/gc_controller.go``).

Every ``gcCheckPeriod`` (20 s) PodGC looks for Pods bound to a node that does not exist.
Such a node name is quarantined for 40 s (``quarantineTime``); if the node is still missing
then, the Pod is patched to phase Failed with a ``DisruptionTarget`` condition (reason
``DeletionByPodGC``) and force-deleted (CONTAINER-SEMANTICS §8). No Event is recorded.
"""

from __future__ import annotations

GC_CHECK_PERIOD_MS = 20_000
QUARANTINE_MS = 40_000
DELETE_CAUSE = "PodGC: node no longer exists; the Pod was force-deleted"


def disruption_condition(now: str) -> dict:
    return {
        "type": "DisruptionTarget",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": now,
        "reason": "DeletionByPodGC",
        "message": "PodGC: node no longer exists",
    }
