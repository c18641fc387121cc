"""Transitions derived from two versions of the Pod (and of an EndpointSlice).

What kubectl would show changing becomes a transition with the stage and step the page
animates: container state / ready / started / restartCount, the phase, each condition,
deletionTimestamp and podIP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webapp.engine.core.cluster import Cluster

BACKOFF_REASONS = ("CrashLoopBackOff", "ImagePullBackOff")  # a waiting reason that is a back-off
PHASE_STEP = {
    "Pending": "kubelet",
    "Running": "running",
    "Succeeded": "outcome",
    "Failed": "outcome",
}
CONDITION_STEP = {
    "PodScheduled": "scheduled",
    "PodReadyToStartContainers": "kubelet",
    "Initialized": "init",
    "ContainersReady": "readiness",
    "Ready": "readiness",
    "DisruptionTarget": "grace",  # set just before an eviction's delete: part of the ending
}
WAITING_STEP = {
    "ContainerCreating": "kubelet",
    "PodInitializing": "kubelet",
    "ErrImagePull": "pull",
    "ImagePullBackOff": "pull",
    "ErrImageNeverPull": "pull",
    "CreateContainerConfigError": "volumes",
    "CrashLoopBackOff": "backoff",
    "PostStartHookError": "postStart",
}


def state_summary(state: dict) -> dict:
    """``{"state", "reason", "exitCode"}`` of an API container state."""
    if not state:
        return {"state": None, "reason": None, "exitCode": None}
    (kind, detail), *_ = state.items()
    return {"state": kind, "reason": detail.get("reason"), "exitCode": detail.get("exitCode")}


def _container_kinds(sim: Cluster) -> dict[str, str]:
    if sim.kubelet is None:
        return {}
    return {record.name: record.kind for record in sim.kubelet.records}


def _state_step(kind: str, summary: dict, deleting: bool, signal: str | None) -> str:
    waiting_step = WAITING_STEP.get(summary["reason"] or "", "kubelet")
    if summary["state"] == "waiting" and waiting_step in ("pull", "volumes"):
        return waiting_step  # stage 1 for init containers too: the image, the config
    if kind == "init":
        return "init"
    if kind == "sidecar" and not deleting:
        return "sidecar"
    if summary["state"] == "waiting":
        return waiting_step
    if summary["state"] == "running":
        return "running"
    if deleting:
        return "sigkill" if signal == "SIGKILL" else "sigterm"
    return "exit"


def _state_cause(summary: dict, detail: dict) -> str:
    kind = summary["state"]
    if kind == "waiting":
        return detail.get("message") or f"Waiting: {summary['reason'] or 'created'}"
    if kind == "running":
        return "Container is running"
    return f"Exited with code {summary['exitCode']} ({summary['reason']})"


def _container_items(sim: Cluster, old: dict, new: dict, deleting: bool) -> list[dict]:
    """Container state / started / ready / restartCount changes.

    The stage of an init container's or a sidecar's item is set by ``Simulation.transition``
    (stage 2, see ``transitions.container_place``).
    """
    kinds = _container_kinds(sim)
    # A sidecar stopped because the Pod is done (no deletion) ends in stage 5 as well.
    stopping = deleting or (sim.kubelet is not None and sim.kubelet.stopping)
    items = []
    old_by_name = {
        s["name"]: s
        for key in ("initContainerStatuses", "containerStatuses")
        for s in old.get(key) or []
    }
    for key in ("initContainerStatuses", "containerStatuses"):
        for status in new.get(key) or []:
            name = status["name"]
            before = old_by_name.get(name) or {}
            kind = kinds.get(name, "app")
            obj = f"Container/{name}"
            summary = state_summary(status["state"])
            old_summary = state_summary(before.get("state") or {})
            if summary != old_summary:
                signal = _last_signal(sim, name)
                detail = next(iter(status["state"].values()), {})
                ending = stopping if kind == "sidecar" else deleting
                item = dict(step=_state_step(kind, summary, ending, signal), obj=obj,
                            field="state", before=old_summary if before else None,
                            after=summary, cause=_state_cause(summary, detail),
                            container=name)  # fmt: skip
                if summary["reason"] in BACKOFF_REASONS:
                    item["seconds"] = _backoff_seconds(sim, name)
                items.append(item)
            for field, step in (("started", "startupProbe"), ("ready", "readiness"),
                                ("restartCount", "backoff")):  # fmt: skip
                if before.get(field) != status.get(field) and (before or status.get(field)):
                    if field == "started" and not _has_probe(sim, name, "startup"):
                        step = "running"
                    if field == "ready" and not _has_probe(sim, name, "readiness"):
                        step = "running"  # no probe: ready follows running, not a probe result
                    items.append(dict(step=step, obj=obj, field=field, before=before.get(field),
                                      after=status.get(field), cause=_field_cause(field, status),
                                      container=name))  # fmt: skip
    return items


def _backoff_seconds(sim: Cluster, name: str) -> float | None:
    record = sim.kubelet.by_name.get(name) if sim.kubelet else None
    return record.reason_seconds if record else None


def _cause_of_condition(condition: str, items: list[dict], kinds: dict[str, str]) -> str | None:
    """The one container whose change in this diff flipped a Pod condition, else None.

    Initialized follows init containers and sidecars (state / started); ContainersReady and
    Ready follow the ``ready`` of app containers and sidecars. No single container (none, or
    several at once, or a node or deletion behind it): None.
    """
    if condition == "Initialized":
        fields, counted = ("state", "started"), ("init", "sidecar")
    elif condition in ("ContainersReady", "Ready"):
        fields, counted = ("ready",), ("app", "sidecar")
    else:
        return None
    names = {
        item["container"]
        for item in items
        if item["field"] in fields
        and item["before"] is not None  # a first status is no change of a container
        and kinds.get(item["container"], "app") in counted
    }
    return names.pop() if len(names) == 1 else None


def _has_probe(sim: Cluster, name: str, probe_type: str) -> bool:
    record = sim.kubelet.by_name.get(name) if sim.kubelet else None
    return record is not None and probe_type in record.probes


def _last_signal(sim: Cluster, name: str) -> str | None:
    record = sim.kubelet.by_name.get(name) if sim.kubelet else None
    instance = record.newest if record else None
    return instance.signal if instance else None


def _field_cause(field: str, status: dict) -> str:
    value = status.get(field)
    if field == "restartCount":
        return f"Restarted ({value} restarts)"
    if field == "started":
        return "Container started" if value else "Container not started"
    return "Container is ready" if value else "Container is not ready"


def pod_transitions(sim: Cluster, old: dict, new: dict) -> list[dict[str, Any]]:
    """Transitions for everything visible that changed between two Pod versions."""
    items: list[dict[str, Any]] = []
    pod_obj = sim.pod_object
    old_status, new_status = old.get("status") or {}, new.get("status") or {}
    deleting = "deletionTimestamp" in new["metadata"]
    old_deletion = old["metadata"].get("deletionTimestamp")
    if new["metadata"].get("deletionTimestamp") != old_deletion:
        grace = new["metadata"].get("deletionGracePeriodSeconds")
        items.append(dict(step="grace", obj=pod_obj, field="deletionTimestamp", before=old_deletion,
                          after=new["metadata"].get("deletionTimestamp"),
                          cause=f"Deletion requested with a grace period of {grace}s", stage=5))  # fmt: skip
    if old_status.get("podIP") != new_status.get("podIP"):
        items.append(dict(step="kubelet", obj=pod_obj, field="podIP", before=old_status.get("podIP"),
                          after=new_status.get("podIP"), cause="Sandbox network ready"))  # fmt: skip
    container_items = _container_items(sim, old_status, new_status, deleting)
    items.extend(container_items)
    kinds = _container_kinds(sim)
    old_conditions = {c["type"]: c for c in old_status.get("conditions") or []}
    for condition in new_status.get("conditions") or []:
        before = old_conditions.get(condition["type"], {}).get("status")
        if before != condition["status"]:
            cause = (
                condition.get("message")
                or condition.get("reason")
                or (f"{condition['type']} is {condition['status']}")
            )
            container = _cause_of_condition(condition["type"], container_items, kinds)
            step = CONDITION_STEP.get(condition["type"], "kubelet")
            if step == "readiness" and container and not _has_probe(sim, container, "readiness"):
                step = "running"
            if new_status.get("phase") in ("Succeeded", "Failed") and condition["status"] != "True":
                step = "outcome"  # the sandbox torn down after the end: part of the outcome
            items.append(dict(step=step, obj=pod_obj,
                              field=f"conditions.{condition['type']}", before=before,
                              after=condition["status"], cause=cause,
                              container=container))  # fmt: skip
    if old_status.get("phase") != new_status.get("phase"):
        phase = new_status.get("phase")
        items.append(dict(step=PHASE_STEP.get(phase, "kubelet"), obj=pod_obj, field="phase",
                          before=old_status.get("phase"), after=phase,
                          cause=f"Phase {phase}",
                          stage=5 if deleting else None))  # fmt: skip
    return items


def readiness_cause(items: list[dict[str, Any]]) -> str | None:
    """The container named by this diff's Ready / ContainersReady change, if one is."""
    return next(
        (
            item["container"]
            for item in items
            if item["field"] in ("conditions.Ready", "conditions.ContainersReady")
            and item.get("container")
        ),
        None,
    )


def endpoint_transitions(
    old: dict | None, new: dict, container: str | None = None
) -> list[dict[str, Any]]:
    """One transition per changed endpoint condition (ready / serving / terminating).

    ``container``: the one container whose readiness change moved the endpoint (see
    ``readiness_cause``); dropped when the endpoint starts or stops terminating (deletion).
    """
    obj = f"EndpointSlice/{new['metadata']['name']}"
    old_endpoints = (old or {}).get("endpoints") or []
    new_endpoints = new.get("endpoints") or []
    before = old_endpoints[0].get("conditions", {}) if old_endpoints else {}
    after = new_endpoints[0].get("conditions", {}) if new_endpoints else {}
    items = []
    if before.get("terminating") != after.get("terminating"):
        container = None
    for key in ("ready", "serving", "terminating"):
        if before.get(key) != after.get(key):
            terminating = bool(after.get("terminating")) or (bool(before) and not after)
            items.append(dict(step="endpoints" if terminating else "readiness", obj=obj,
                              field=f"endpoints.{key}", before=before.get(key), after=after.get(key),
                              cause=f"Endpoint {key}: {after.get(key)}" if after else "Endpoint removed",
                              container=container, stage=5 if terminating else 4))  # fmt: skip
    return items
