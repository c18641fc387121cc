"""PodDisruptionBudgets, the Eviction API and ``kubectl drain``, as pure functions.

Sources: ``pkg/controller/disruption/disruption.go`` (getExpectedPodCount, countHealthyPods,
buildDisruptedPodMap, updatePdbStatus), ``pkg/apis/policy`` helpers
(UpdateDisruptionAllowedCondition), ``pkg/registry/core/pod/storage/eviction.go`` (Create,
canIgnorePDB, checkAndDecrement) and kubectl's ``pkg/drain/drain.go`` / ``pkg/cmd/drain``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.controllers.rules.deployment import (
    get_scaled_value_from_int_or_percent,
    is_pod_ready,
)
from webapp.engine.controllers.rules.objects import metadata as _metadata
from webapp.engine.controllers.rules.objects import spec as _spec
from webapp.engine.controllers.rules.objects import status as _status
from webapp.engine.controllers.rules.timestamps import timestamp, to_seconds

Obj = dict[str, Any]

DELETION_TIMEOUT = 120.0
EVICT_ERROR_RETRY_DELAY = 5.0
DRAIN_POLL_INTERVAL = 1.0
TOO_MANY_REQUESTS_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
MORE_THAN_ONE_PDB_MESSAGE = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
EVICTION_CONDITION = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "EvictionByEvictionAPI",
    "message": "Eviction API: evicting",
}


def selector_matches(selector: Obj | None, labels: dict[str, str]) -> bool:
    """``LabelSelectorAsSelector(...).Matches`` for matchLabels and matchExpressions.

    An empty or missing selector matches nothing here, as the eviction and disruption code
    require ("a PDB with a nil or empty selector … should match nothing").
    """
    if not selector or (not selector.get("matchLabels") and not selector.get("matchExpressions")):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = (
            expression.get("key"),
            expression.get("operator"),
            expression.get("values") or [],
        )
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


def pdbs_for_pod(pdbs: Sequence[Obj], pod: Obj) -> list[Obj]:
    """``getPodDisruptionBudgets``: the PDBs in the Pod's namespace whose selector matches."""
    namespace = _metadata(pod).get("namespace", "default")
    labels = _metadata(pod).get("labels") or {}
    return [
        p
        for p in pdbs
        if _metadata(p).get("namespace", "default") == namespace
        and selector_matches(_spec(p).get("selector"), labels)
    ]


# --- PDB status -------------------------------------------------------------------------


def expected_scale(
    pods: Sequence[Obj], scale_of: Callable[[Obj], tuple[str, int] | None]
) -> tuple[int, list[str]]:
    """``getExpectedScale``: Σ the scale of each distinct controller of the Pods.

    ``scale_of(controller ownerReference)`` returns (controller uid, replicas) for a
    ReplicaSet (the owning Deployment's replicas when it has one), StatefulSet or other
    scalable owner, or None when it is not known. Pods without a controller are returned as
    unmanaged (``<ns>/<name>``) and not counted.
    """
    seen: dict[str, int] = {}
    unmanaged: list[str] = []
    for pod in pods:
        ref = next(
            (r for r in _metadata(pod).get("ownerReferences") or [] if r.get("controller")), None
        )
        if ref is None:
            unmanaged.append(
                f"{_metadata(pod).get('namespace', 'default')}/{_metadata(pod).get('name', '')}"
            )
            continue
        found = scale_of(ref)
        if found is not None:
            seen[found[0]] = found[1]
    return sum(seen.values()), unmanaged


def get_expected_pod_count(
    pdb: Obj, pods: Sequence[Obj], scale_of: Callable[[Obj], tuple[str, int] | None]
) -> tuple[int, int]:
    """``getExpectedPodCount``: (expectedCount, desiredHealthy).

    maxUnavailable (int or %): expected = the controllers' scale, desired = expected −
    maxUnavailable (percent rounded up), not below 0. minAvailable int: expected = the
    matching Pods, desired = the number. minAvailable %: expected = the scale, desired =
    the percent of it rounded up.
    """
    spec = _spec(pdb)
    if spec.get("maxUnavailable") is not None:
        expected, _ = expected_scale(pods, scale_of)
        unavailable = get_scaled_value_from_int_or_percent(spec["maxUnavailable"], expected, True)
        return expected, max(0, expected - unavailable)
    minimum = spec.get("minAvailable")
    if isinstance(minimum, int) and not isinstance(minimum, bool):
        return len(pods), minimum
    if minimum is not None:
        expected, _ = expected_scale(pods, scale_of)
        return expected, get_scaled_value_from_int_or_percent(minimum, expected, True)
    return 0, 0


def build_disrupted_pod_map(
    pdb: Obj, pods: Sequence[Obj], now: float
) -> tuple[dict[str, str], list[str]]:
    """``buildDisruptedPodMap``: keep entries whose Pod exists, is not yet deleted and is
    younger than DeletionTimeout (2 min); entries that expired return as ``NotDeleted``
    (the controller's Warning event: ``Pod <ns>/<name> was expected to be deleted at <t> but it wasn't``)."""
    disrupted = _status(pdb).get("disruptedPods") or {}
    by_name = {_metadata(p).get("name"): p for p in pods}
    kept: dict[str, str] = {}
    expired: list[str] = []
    for name, stamp in disrupted.items():
        pod = by_name.get(name)
        if pod is None or _metadata(pod).get("deletionTimestamp") is not None:
            continue
        since = to_seconds(stamp)
        if since is not None and since + DELETION_TIMEOUT < now:
            expired.append(name)
            continue
        kept[name] = stamp
    return kept, expired


def count_healthy_pods(pods: Sequence[Obj], disrupted: dict[str, str], now: float) -> int:
    """``countHealthyPods``: Ready Pods that are not being deleted nor recently evicted."""
    healthy = 0
    for pod in pods:
        if _metadata(pod).get("deletionTimestamp") is not None:
            continue
        since = to_seconds(disrupted.get(_metadata(pod).get("name", "")))
        if since is not None and since + DELETION_TIMEOUT > now:
            continue
        if is_pod_ready(pod):
            healthy += 1
    return healthy


def disruption_allowed_condition(
    disruptions_allowed: int, previous: Sequence[Obj], now: float
) -> Obj:
    """``UpdateDisruptionAllowedCondition``: True SufficientPods, or False InsufficientPods;
    lastTransitionTime kept while the status stays the same (``meta.SetStatusCondition``)."""
    status = "True" if disruptions_allowed > 0 else "False"
    reason = "SufficientPods" if disruptions_allowed > 0 else "InsufficientPods"
    old = next((c for c in previous if c.get("type") == "DisruptionAllowed"), None)
    since = (
        old.get("lastTransitionTime")
        if old is not None and old.get("status") == status
        else timestamp(now)
    )
    return {
        "type": "DisruptionAllowed",
        "status": status,
        "reason": reason,
        "message": "",
        "lastTransitionTime": since,
    }


def pdb_status(
    pdb: Obj, pods: Sequence[Obj], scale_of: Callable[[Obj], tuple[str, int] | None], now: float
) -> Obj:
    """``trySync``/``updatePdbStatus``: the PDB's new status from the Pods its selector matches.

    disruptionsAllowed = currentHealthy − desiredHealthy, 0 when negative or when no Pods
    are expected. ``scale_of`` as in ``expected_scale``.
    """
    expected, desired = get_expected_pod_count(pdb, pods, scale_of)
    disrupted, _ = build_disrupted_pod_map(pdb, pods, now)
    healthy = count_healthy_pods(pods, disrupted, now)
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status: Obj = {
        "observedGeneration": _metadata(pdb).get("generation", 1),
        "disruptionsAllowed": allowed,
        "currentHealthy": healthy,
        "desiredHealthy": desired,
        "expectedPods": expected,
    }
    if disrupted:
        status["disruptedPods"] = disrupted
    status["conditions"] = [
        disruption_allowed_condition(allowed, _status(pdb).get("conditions") or [], now)
    ]
    return status


# --- the Eviction API -------------------------------------------------------------------


@dataclass
class EvictionResult:
    """The API server's answer to ``POST pods/<name>/eviction``.

    ``code`` 201 (allowed: the Pod is to be deleted) or an error code with ``message`` (the
    Status message, what kubectl prints) and ``cause`` (the DisruptionBudget cause).
    ``pdb_status``: the PDB's status after a successful check-and-decrement (or None), to be
    written back; ``condition``: the DisruptionTarget condition ``addConditionAndDeletePod``
    adds to the Pod before it deletes it (also when the PDB check was skipped for a
    terminal, Pending or deleted Pod: that path calls it too).
    """

    code: int
    message: str = ""
    cause: str = ""
    retry_after: int | None = None
    pdb_name: str | None = None
    pdb_status: Obj | None = None
    condition: Obj | None = field(default=None)

    @property
    def allowed(self) -> bool:
        return self.code == 201


def can_ignore_pdb(pod: Obj) -> bool:
    """``canIgnorePDB``: Succeeded, Failed or Pending Pods, or Pods already being deleted."""
    return (
        _status(pod).get("phase") in ("Succeeded", "Failed", "Pending")
        or _metadata(pod).get("deletionTimestamp") is not None
    )


def evict(pod: Obj, pdbs: Sequence[Obj], now: float) -> EvictionResult:
    """``EvictionREST.Create``: may this Pod be evicted now?

    More than one matching PDB: 500 with the "more than one PodDisruptionBudget" message. A
    not-Ready Pod is deleted without using the budget when the PDB is healthy enough
    (IfHealthyBudget, the default) or always (AlwaysAllow). A PDB not yet observed by the
    controller: 429 with ``The disruption budget <pdb> is still being processed by the
    server.`` No disruptions allowed: 429 ``Cannot evict pod as it would violate the pod's
    disruption budget.`` with the cause ``The disruption budget <pdb> needs <desired>
    healthy pods and has <current> currently``.
    """
    condition = dict(EVICTION_CONDITION, lastTransitionTime=timestamp(now))
    if can_ignore_pdb(pod):
        return EvictionResult(201, condition=condition)  # addConditionAndDeletePod as well
    matching = pdbs_for_pod(pdbs, pod)
    if len(matching) > 1:
        return EvictionResult(500, MORE_THAN_ONE_PDB_MESSAGE)
    if not matching:
        return EvictionResult(201, condition=condition)
    pdb = matching[0]
    name = _metadata(pdb).get("name", "")
    status = _status(pdb)
    if not is_pod_ready(pod):
        policy = _spec(pdb).get("unhealthyPodEvictionPolicy", "IfHealthyBudget")
        healthy_enough = (
            int(status.get("currentHealthy") or 0) >= int(status.get("desiredHealthy") or 0) > 0
        )
        if policy == "AlwaysAllow" or healthy_enough:
            return EvictionResult(201, pdb_name=name, condition=condition)
    if int(status.get("observedGeneration") or 0) < int(_metadata(pdb).get("generation") or 0):
        return EvictionResult(
            429,
            TOO_MANY_REQUESTS_MESSAGE,
            f"The disruption budget {name} is still being processed by the server.",
            10,
            name,
        )
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        return EvictionResult(
            403,
            f'poddisruptionbudgets.policy "{name}" is forbidden: pdb disruptions allowed is negative',
            pdb_name=name,
        )
    if allowed == 0:
        cause = f"The disruption budget {name} needs {int(status.get('desiredHealthy') or 0)} healthy pods and has {int(status.get('currentHealthy') or 0)} currently"
        return EvictionResult(429, TOO_MANY_REQUESTS_MESSAGE, cause, 0, name)
    new_status = copy.deepcopy(status)
    new_status["disruptionsAllowed"] = allowed - 1
    if new_status["disruptionsAllowed"] == 0:
        new_status["conditions"] = [
            disruption_allowed_condition(0, status.get("conditions") or [], now)
        ]
    new_status.setdefault("disruptedPods", {})[_metadata(pod).get("name", "")] = timestamp(now)
    return EvictionResult(201, pdb_name=name, pdb_status=new_status, condition=condition)


# --- kubectl drain ----------------------------------------------------------------------


def cordon_message(node: str, was_unschedulable: bool, desired: bool = True) -> str:
    """``kubectl cordon``/``uncordon``/``drain``: ``node/<n> cordoned`` or ``already cordoned``."""
    verb = "cordoned" if desired else "uncordoned"
    return f"node/{node} {'already ' if was_unschedulable == desired else ''}{verb}"


def evicting_line(pod: Obj) -> str:
    """``evicting pod <ns>/<name>`` (stdout, each attempt)."""
    return f"evicting pod {_metadata(pod).get('namespace', 'default')}/{_metadata(pod).get('name', '')}"


def eviction_retry_line(pod: Obj, result: EvictionResult) -> str:
    """A 429 on stderr: ``error when evicting pods/"<name>" -n "<ns>" (will retry after 5s): <message>``."""
    metadata = _metadata(pod)
    return f'error when evicting pods/"{metadata.get("name", "")}" -n "{metadata.get("namespace", "default")}" (will retry after 5s): {result.message}'


def eviction_error_line(pod: Obj, result: EvictionResult) -> str:
    """Any other error ends that Pod's eviction: ``error when evicting pods/"<name>" -n "<ns>": <message>``."""
    metadata = _metadata(pod)
    return f'error when evicting pods/"{metadata.get("name", "")}" -n "{metadata.get("namespace", "default")}": {result.message}'


def evicted_line(pod: Obj) -> str:
    """``pod/<name> evicted`` once the Pod is gone (polled every second)."""
    return f"pod/{_metadata(pod).get('name', '')} evicted"


def deleted_since_eviction(pod: Obj | None, evicted_uid: str) -> bool:
    """kubectl's ``waitForDelete`` test: the Pod is not found, or the Pod found under that
    name is another one (``p.ObjectMeta.UID != pod.ObjectMeta.UID``)."""
    return pod is None or _metadata(pod).get("uid", "") != evicted_uid


def drained_line(node: str) -> str:
    return f"node/{node} drained"


DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"


def pods_for_deletion(
    pods: Sequence[Obj], node: str, *, force: bool = False, ignore_daemonsets: bool = True
) -> tuple[list[Obj], list[str], list[str]]:
    """``GetPodsForDeletion`` for one node: (Pods to evict, warnings, errors) with kubectl's texts.

    Finished Pods (Succeeded/Failed) are evicted without ceremony; DaemonSet Pods are
    skipped with ``ignoring DaemonSet-managed Pods: <ns>/<pod>``; Pods without a controller
    need --force (``cannot delete Pods that declare no controller (use --force to
    override): <ns>/<pod>``).
    """
    evictable: list[Obj] = []
    warnings: dict[str, list[str]] = {}
    errors: dict[str, list[str]] = {}
    for pod in pods:
        if (_spec(pod).get("nodeName") or "") != node:
            continue
        key = f"{_metadata(pod).get('namespace', 'default')}/{_metadata(pod).get('name', '')}"
        ref = next(
            (r for r in _metadata(pod).get("ownerReferences") or [] if r.get("controller")), None
        )
        if ref is not None and ref.get("kind") == "DaemonSet":
            if ignore_daemonsets:
                warnings.setdefault(DAEMONSET_WARNING, []).append(key)
            else:
                errors.setdefault(
                    "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)", []
                ).append(key)
            continue
        if ref is None and _status(pod).get("phase") not in ("Succeeded", "Failed"):
            if not force:
                errors.setdefault(UNMANAGED_FATAL, []).append(key)
                continue
            warnings.setdefault(UNMANAGED_WARNING, []).append(key)
        evictable.append(pod)
    warning_lines = [f"{message}: {', '.join(keys)}" for message, keys in warnings.items()]
    error_lines = [
        f"cannot delete {message}: {', '.join(keys)}" for message, keys in errors.items()
    ]
    return evictable, warning_lines, error_lines


def drain_warning_line(warnings: Sequence[str]) -> str | None:
    """The WarningPrinter line on stderr: ``Warning: <message>: <pods>; <message>: <pods>``."""
    return f"Warning: {'; '.join(warnings)}" if warnings else None


def unable_to_drain_line(node: str, error: str) -> str:
    """``error: unable to drain node "<n>" due to error: <err>, continuing command...``."""
    return f'error: unable to drain node "{node}" due to error: {error}, continuing command...'
