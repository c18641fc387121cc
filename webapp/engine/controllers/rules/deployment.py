"""The Deployment controller's rules (``pkg/controller/deployment``), as pure functions.

Sources: ``util/deployment_util.go`` (fenceposts, NewRSNewReplicas, annotations, conditions,
DeploymentComplete/Progressing/TimedOut), ``rolling.go`` (reconcileNewReplicaSet,
reconcileOldReplicaSets, cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate),
``recreate.go``, ``sync.go`` (calculateStatus, scale, getNewReplicaSet, checkPausedConditions),
``progress.go`` (syncRolloutStatus, requeueStuckDeployment), ``controller_utils.go``
(ComputeHash) and kubectl's ``polymorphichelpers/rollback.go`` (``rollout undo``).

Objects are API dicts. Functions never mutate their arguments: the ones that change an
object return the changed copy or the numbers the caller should apply. Scaling decisions are
returned as ``{replica set name: new spec.replicas}``; the caller records the
``ScalingReplicaSet`` event (``scaling_event_message``) and updates the objects.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from webapp.engine.controllers.rules.objects import spec as _spec
from webapp.engine.controllers.rules.objects import status as _status
from webapp.engine.controllers.rules.timestamps import timestamp, to_seconds

Obj = dict[str, Any]

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to"
DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = "pod-template-hash"
# annotationsToSkip: never copied between a Deployment and its ReplicaSets.
ANNOTATIONS_TO_SKIP = frozenset(
    {
        LAST_APPLIED_ANNOTATION,
        REVISION_ANNOTATION,
        REVISION_HISTORY_ANNOTATION,
        DESIRED_REPLICAS_ANNOTATION,
        MAX_REPLICAS_ANNOTATION,
        DEPRECATED_ROLLBACK_TO,
    }
)

# Condition reasons (deployment_util.go).
REPLICA_SET_UPDATED_REASON = "ReplicaSetUpdated"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
NEW_REPLICA_SET_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_DEPLOY_REASON = "DeploymentPaused"
RESUMED_DEPLOY_REASON = "DeploymentResumed"
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"

MAX_INT32 = 2**31 - 1
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


class IntOrStringError(ValueError):
    """An unusable maxSurge/maxUnavailable, worded as intstr's error."""


# --- int-or-percent and fenceposts ------------------------------------------------------


def get_scaled_value_from_int_or_percent(
    value: int | str | None, total: int, round_up: bool
) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``: an int as is, ``"25%"`` of ``total``.

    Percentages round up (``round_up``) or down. A string without ``%`` is an error, as
    in Go. ``None`` counts as 0 (``intstr.ValueOrDefault(x, FromInt32(0))``).
    """
    if value is None:
        return 0
    if isinstance(value, bool):
        raise IntOrStringError(f"invalid value for IntOrString: invalid type: {value!r}")
    if isinstance(value, int):
        return value
    text = str(value)
    if not text.endswith("%"):
        raise IntOrStringError(
            "invalid value for IntOrString: invalid type: string is not a percentage"
        )
    number = text[:-1]
    try:
        percent = int(number, 10)
    except ValueError:
        raise IntOrStringError(
            f'invalid value for IntOrString: invalid value "{text}": strconv.Atoi: '
            f'parsing "{number}": invalid syntax'
        ) from None
    scaled = percent * total
    return -(-scaled // 100) if round_up else scaled // 100


def resolve_fenceposts(
    max_surge: int | str | None, max_unavailable: int | str | None, desired: int
) -> tuple[int, int]:
    """``ResolveFenceposts``: (surge rounded up, unavailable rounded down); both 0 → (0, 1).

    Both resolving to 0 sets unavailable to 1 "on the theory that surge might not work due
    to quota" (validation forbids explicit 0/0, rounding down can still produce it).
    """
    surge = get_scaled_value_from_int_or_percent(max_surge, desired, True)
    unavailable = get_scaled_value_from_int_or_percent(max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def replicas(obj: Obj | None) -> int:
    """``*(obj.Spec.Replicas)``; the API defaults an unset value to 1."""
    if obj is None:
        return 0
    value = _spec(obj).get("replicas")
    return 1 if value is None else int(value)


def is_rolling_update(deployment: Obj) -> bool:
    """``IsRollingUpdate``: strategy type RollingUpdate (the default when unset)."""
    return (_spec(deployment).get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def _rolling_update(deployment: Obj) -> Obj:
    """The rollingUpdate block with the API defaults (25 % / 25 %) filled in."""
    strategy = _spec(deployment).get("strategy") or {}
    block = strategy.get("rollingUpdate")
    if block is None:
        return {"maxSurge": "25%", "maxUnavailable": "25%"}
    return {
        "maxSurge": block.get("maxSurge", "25%"),
        "maxUnavailable": block.get("maxUnavailable", "25%"),
    }


def max_unavailable(deployment: Obj) -> int:
    """``MaxUnavailable``: 0 for Recreate or 0 replicas, else the resolved value capped at replicas."""
    desired = replicas(deployment)
    if not is_rolling_update(deployment) or desired == 0:
        return 0
    block = _rolling_update(deployment)
    _, unavailable = resolve_fenceposts(block["maxSurge"], block["maxUnavailable"], desired)
    return min(unavailable, desired)


def max_surge(deployment: Obj) -> int:
    """``MaxSurge``: 0 for Recreate, else the resolved surge."""
    if not is_rolling_update(deployment):
        return 0
    block = _rolling_update(deployment)
    surge, _ = resolve_fenceposts(block["maxSurge"], block["maxUnavailable"], replicas(deployment))
    return surge


def min_available(deployment: Obj) -> int:
    """``MinAvailable``: replicas − maxUnavailable (0 for Recreate)."""
    if not is_rolling_update(deployment):
        return 0
    return replicas(deployment) - max_unavailable(deployment)


# --- replica counts ---------------------------------------------------------------------


def get_replica_count_for_replica_sets(replica_sets: Iterable[Obj | None]) -> int:
    """Σ spec.replicas."""
    return sum(replicas(rs) for rs in replica_sets if rs is not None)


def get_actual_replica_count_for_replica_sets(replica_sets: Iterable[Obj | None]) -> int:
    """Σ status.replicas."""
    return sum(int(_status(rs).get("replicas") or 0) for rs in replica_sets if rs is not None)


def get_ready_replica_count_for_replica_sets(replica_sets: Iterable[Obj | None]) -> int:
    """Σ status.readyReplicas."""
    return sum(int(_status(rs).get("readyReplicas") or 0) for rs in replica_sets if rs is not None)


def get_available_replica_count_for_replica_sets(replica_sets: Iterable[Obj | None]) -> int:
    """Σ status.availableReplicas."""
    return sum(
        int(_status(rs).get("availableReplicas") or 0) for rs in replica_sets if rs is not None
    )


def filter_active_replica_sets(replica_sets: Iterable[Obj | None]) -> list[Obj]:
    """``controller.FilterActiveReplicaSets``: those with spec.replicas > 0."""
    return [rs for rs in replica_sets if rs is not None and replicas(rs) > 0]


def _creation_key(rs: Obj) -> tuple[float, str]:
    """``ReplicaSetsByCreationTimestamp``: oldest first, then by name."""
    metadata = rs.get("metadata") or {}
    created = to_seconds(metadata.get("creationTimestamp"))
    return (created if created is not None else -math.inf, metadata.get("name", ""))


def sort_by_creation_timestamp(replica_sets: Iterable[Obj]) -> list[Obj]:
    return sorted(replica_sets, key=_creation_key)


# --- scaling decisions ------------------------------------------------------------------


def new_rs_new_replicas(deployment: Obj, all_rss: Sequence[Obj | None], new_rs: Obj) -> int:
    """``NewRSNewReplicas``: how many replicas the new ReplicaSet should have now.

    RollingUpdate: grow by the room left under replicas + maxSurge (Σ spec.replicas of all
    ReplicaSets), never past replicas. Recreate: replicas.
    """
    desired = replicas(deployment)
    if not is_rolling_update(deployment):
        return desired
    surge = get_scaled_value_from_int_or_percent(
        _rolling_update(deployment)["maxSurge"], desired, True
    )
    current = get_replica_count_for_replica_sets(all_rss)
    max_total = desired + surge
    if current >= max_total:
        return replicas(new_rs)
    scale_up = min(max_total - current, desired - replicas(new_rs))
    return replicas(new_rs) + scale_up


def reconcile_new_replica_set(
    all_rss: Sequence[Obj | None], new_rs: Obj, deployment: Obj
) -> int | None:
    """``reconcileNewReplicaSet``: the new RS's new spec.replicas, or None for no change."""
    current, desired = replicas(new_rs), replicas(deployment)
    if current == desired:
        return None
    if current > desired:
        return desired
    target = new_rs_new_replicas(deployment, all_rss, new_rs)
    return None if target == current else target


def cleanup_unhealthy_replicas(
    old_rss: Sequence[Obj], deployment: Obj, max_cleanup_count: int
) -> tuple[dict[str, int], int]:
    """``cleanupUnhealthyReplicas``: scale old RSs (oldest first) down by their unavailable Pods.

    Returns ({name: new spec.replicas}, total scaled down), within ``max_cleanup_count``.
    """
    changes: dict[str, int] = {}
    total = 0
    for rs in sort_by_creation_timestamp(old_rss):
        if total >= max_cleanup_count:
            break
        spec_replicas = replicas(rs)
        available = int(_status(rs).get("availableReplicas") or 0)
        if spec_replicas == 0 or spec_replicas == available:
            continue
        count = min(max_cleanup_count - total, spec_replicas - available)
        changes[rs["metadata"]["name"]] = spec_replicas - count
        total += count
    return changes, total


def scale_down_old_replica_sets_for_rolling_update(
    all_rss: Sequence[Obj | None], old_rss: Sequence[Obj], deployment: Obj
) -> tuple[dict[str, int], int]:
    """``scaleDownOldReplicaSetsForRollingUpdate``: remove available old Pods above minAvailable."""
    minimum = replicas(deployment) - max_unavailable(deployment)
    available = get_available_replica_count_for_replica_sets(all_rss)
    if available <= minimum:
        return {}, 0
    budget = available - minimum
    changes: dict[str, int] = {}
    total = 0
    for rs in sort_by_creation_timestamp(old_rss):
        if total >= budget:
            break
        spec_replicas = replicas(rs)
        if spec_replicas == 0:
            continue
        count = min(spec_replicas, budget - total)
        changes[rs["metadata"]["name"]] = spec_replicas - count
        total += count
    return changes, total


def _with_replicas(rs: Obj, value: int) -> Obj:
    changed = copy.deepcopy(rs)
    changed.setdefault("spec", {})["replicas"] = value
    return changed


def reconcile_old_replica_sets(
    all_rss: Sequence[Obj | None], old_rss: Sequence[Obj], new_rs: Obj | None, deployment: Obj
) -> dict[str, int]:
    """``reconcileOldReplicaSets``: {old RS name: new spec.replicas} for this sync.

    maxScaledDown = Σspec(all) − minAvailable − (newRS.spec − newRS.available); nothing when
    ≤ 0. Unhealthy old Pods go first (cleanupUnhealthyReplicas), then available ones down to
    minAvailable (scaleDownOldReplicaSetsForRollingUpdate).
    """
    active_old = filter_active_replica_sets(old_rss)
    if get_replica_count_for_replica_sets(active_old) == 0:
        return {}
    all_pods = get_replica_count_for_replica_sets(all_rss)
    minimum = replicas(deployment) - max_unavailable(deployment)
    new_unavailable = 0
    if new_rs is not None:
        new_unavailable = replicas(new_rs) - int(_status(new_rs).get("availableReplicas") or 0)
    max_scaled_down = all_pods - minimum - new_unavailable
    if max_scaled_down <= 0:
        return {}
    cleaned, _ = cleanup_unhealthy_replicas(active_old, deployment, max_scaled_down)
    updated_old = [
        _with_replicas(rs, cleaned[rs["metadata"]["name"]])
        if rs["metadata"]["name"] in cleaned
        else rs
        for rs in active_old
    ]
    scaled, _ = scale_down_old_replica_sets_for_rolling_update(
        [*updated_old, new_rs], updated_old, deployment
    )
    return {**cleaned, **scaled}


def rollout_rolling(deployment: Obj, new_rs: Obj, old_rss: Sequence[Obj]) -> dict[str, int]:
    """``rolloutRolling``'s one change per sync: scale the new RS up if it can, else old ones down.

    Returns {RS name: new spec.replicas}; empty when nothing is to be scaled (then the
    controller only syncs status and, once complete, cleans up old revisions).
    """
    all_rss = [*old_rss, new_rs]
    target = reconcile_new_replica_set(all_rss, new_rs, deployment)
    if target is not None:
        return {new_rs["metadata"]["name"]: target}
    return reconcile_old_replica_sets(all_rss, old_rss, new_rs, deployment)


def old_pods_running(
    new_rs: Obj | None, old_rss: Sequence[Obj], pods_by_rs_uid: dict[str, list[Obj]]
) -> bool:
    """``oldPodsRunning`` (recreate.go): any old RS with status.replicas, or a non-terminal old Pod.

    Pods in phase Failed or Succeeded do not count; Unknown counts as running.
    """
    if get_actual_replica_count_for_replica_sets(old_rss) > 0:
        return True
    new_uid = ((new_rs or {}).get("metadata") or {}).get("uid")
    for uid, pods in pods_by_rs_uid.items():
        if new_rs is not None and uid == new_uid:
            continue
        for pod in pods:
            if _status(pod).get("phase") not in ("Failed", "Succeeded"):
                return True
    return False


def rollout_recreate(
    deployment: Obj,
    new_rs: Obj | None,
    old_rss: Sequence[Obj],
    pods_by_rs_uid: dict[str, list[Obj]],
) -> dict[str, int] | str:
    """``rolloutRecreate``'s next step.

    Returns {old RS name: 0} while active old RSs remain; ``"wait"`` while old Pods still
    run; ``"create"`` when the new RS must be created first; then {new RS: replicas} (or {}
    when it is already there).
    """
    active_old = filter_active_replica_sets(old_rss)
    if active_old:
        return {rs["metadata"]["name"]: 0 for rs in active_old}
    if old_pods_running(new_rs, old_rss, pods_by_rs_uid):
        return "wait"
    if new_rs is None:
        return "create"
    if replicas(new_rs) == replicas(deployment):
        return {}
    return {new_rs["metadata"]["name"]: replicas(deployment)}


def scaling_event_message(rs_name: str, old: int, new: int) -> str:
    """The ``ScalingReplicaSet`` event message of ``scaleReplicaSet`` (sync.go)."""
    direction = "up" if new > old else "down"
    return f"Scaled {direction} replica set {rs_name} to {new} from {old}"


def new_replica_set_event_message(rs_name: str, count: int) -> str:
    """The ``ScalingReplicaSet`` message when ``getNewReplicaSet`` creates an RS with Pods."""
    return f"Scaled up replica set {rs_name} to {count}"


# --- proportional scaling (sync.go ``scale``) -------------------------------------------


def _annotation_int(rs: Obj, key: str) -> int | None:
    value = ((rs.get("metadata") or {}).get("annotations") or {}).get(key)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def is_saturated(deployment: Obj, rs: Obj | None) -> bool:
    """``IsSaturated``: the RS has all replicas and its desired-replicas annotation agrees."""
    if rs is None:
        return False
    desired = _annotation_int(rs, DESIRED_REPLICAS_ANNOTATION)
    return (
        desired is not None
        and replicas(rs) == replicas(deployment)
        and desired == replicas(deployment)
    )


def get_replica_set_fraction(rs: Obj, deployment: Obj) -> int:
    """``getReplicaSetFraction``: round(rs × (replicas+maxSurge) / max-replicas) − rs."""
    if replicas(deployment) == 0:
        return -replicas(rs)
    deployment_replicas = replicas(deployment) + max_surge(deployment)
    annotated = _annotation_int(rs, MAX_REPLICAS_ANNOTATION)
    if annotated is None:
        annotated = int(_status(deployment).get("replicas") or 0)
    size = replicas(rs) * deployment_replicas / annotated
    # integer.RoundToInt32: math.Round, halves away from zero.
    rounded = math.floor(size + 0.5) if size >= 0 else -math.floor(-size + 0.5)
    return int(rounded) - replicas(rs)


def get_proportion(rs: Obj | None, deployment: Obj, to_add: int, added: int) -> int:
    """``GetProportion``: this RS's share of a scaling event, within what is left to add."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = get_replica_set_fraction(rs, deployment)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def find_active_or_latest(new_rs: Obj | None, old_rss: Sequence[Obj]) -> Obj | None:
    """``FindActiveOrLatest``: the only active RS, or the newest when none is active."""
    if new_rs is None and not old_rss:
        return None
    newest_first = sorted(old_rss, key=_creation_key, reverse=True)
    active = filter_active_replica_sets([*newest_first, new_rs])
    if len(active) == 0:
        return new_rs if new_rs is not None else newest_first[0]
    if len(active) == 1:
        return active[0]
    return None


def scale(deployment: Obj, new_rs: Obj | None, old_rss: Sequence[Obj]) -> dict[str, int]:
    """``scale`` (sync.go): {RS name: new spec.replicas} for a scaling event.

    One active RS takes all replicas; a saturated new RS makes old ones go to 0; otherwise
    (RollingUpdate) the change is shared out in proportion to each RS's size, the largest
    RS first (``ReplicaSetsBySizeNewer`` when growing, ``BySizeOlder`` when shrinking), with
    the rounding leftover going to the first one.
    """
    desired = replicas(deployment)
    active_or_latest = find_active_or_latest(new_rs, old_rss)
    if active_or_latest is not None:
        if replicas(active_or_latest) == desired:
            return {}
        return {active_or_latest["metadata"]["name"]: desired}
    if is_saturated(deployment, new_rs):
        return {rs["metadata"]["name"]: 0 for rs in filter_active_replica_sets(old_rss)}
    if not is_rolling_update(deployment):
        return {}
    all_rss = filter_active_replica_sets([*old_rss, new_rs])
    allowed = desired + max_surge(deployment) if desired > 0 else 0
    to_add = allowed - get_replica_count_for_replica_sets(all_rss)
    if to_add == 0:
        return {}
    ordered = sorted(
        all_rss, key=functools.cmp_to_key(_by_size_newer if to_add > 0 else _by_size_older)
    )
    sizes: dict[str, int] = {}
    added = 0
    for rs in ordered:
        proportion = get_proportion(rs, deployment, to_add, added)
        sizes[rs["metadata"]["name"]] = replicas(rs) + proportion
        added += proportion
    first = ordered[0]["metadata"]["name"]
    sizes[first] = max(sizes[first] + to_add - added, 0)
    return {name: size for name, size in sizes.items() if size != replicas(_named(ordered, name))}


def _named(replica_sets: Sequence[Obj], name: str) -> Obj:
    return next(rs for rs in replica_sets if rs["metadata"]["name"] == name)


def _by_creation(a: Obj, b: Obj) -> int:
    """ReplicaSetsByCreationTimestamp.Less as a comparison: older first, then name."""
    key_a, key_b = _creation_key(a), _creation_key(b)
    return -1 if key_a < key_b else (1 if key_a > key_b else 0)


def _by_size_newer(a: Obj, b: Obj) -> int:
    """ReplicaSetsBySizeNewer: larger first; equal sizes, the newer first."""
    if replicas(a) != replicas(b):
        return -1 if replicas(a) > replicas(b) else 1
    return _by_creation(b, a)


def _by_size_older(a: Obj, b: Obj) -> int:
    """ReplicaSetsBySizeOlder: larger first; equal sizes, the older first."""
    if replicas(a) != replicas(b):
        return -1 if replicas(a) > replicas(b) else 1
    return _by_creation(a, b)


def replicas_annotations(deployment: Obj) -> dict[str, str]:
    """The desired-replicas and max-replicas annotations ``scaleReplicaSet`` writes on every RS
    it scales (and the new RS gets at creation): replicas and replicas + maxSurge."""
    desired = replicas(deployment)
    return {
        DESIRED_REPLICAS_ANNOTATION: str(desired),
        MAX_REPLICAS_ANNOTATION: str(desired + max_surge(deployment)),
    }


def is_scaling_event(deployment: Obj, replica_sets: Sequence[Obj]) -> bool:
    """``isScalingEvent``: an active RS's desired-replicas annotation differs from spec.replicas."""
    for rs in filter_active_replica_sets(replica_sets):
        desired = _annotation_int(rs, DESIRED_REPLICAS_ANNOTATION)
        if desired is not None and desired != replicas(deployment):
            return True
    return False


# --- pod-template-hash ------------------------------------------------------------------


def safe_encode_string(text: str) -> str:
    """``rand.SafeEncodeString``: each character c → alphanums[ord(c) % 27]."""
    return "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in text)


def _fnv32a(data: bytes, value: int = 0x811C9DC5) -> int:
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def compute_hash(template: Obj, collision_count: int | None = None) -> str:
    """``controller.ComputeHash``: the ``pod-template-hash`` label value.

    Kubernetes feeds FNV-1a 32 with ``DeepHashObject`` (a spew dump of the Go struct), which
    cannot be reproduced from JSON, so the values differ from a real cluster's. This hashes
    the canonical JSON of the template (sorted keys) with FNV-1a 32 instead, then appends the
    collision count exactly as Kubernetes does (8 bytes: little-endian uint32 and four zero
    bytes) and encodes the decimal sum with SafeEncodeString, so the result has the real
    alphabet (4-9, b, c, d, f) and length (the digits of a uint32: usually 9-10 characters).
    """
    canonical = json.dumps(template, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    value = _fnv32a(canonical.encode("utf-8"))
    if collision_count is not None:
        value = _fnv32a((collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4), value)
    return safe_encode_string(str(value))


def _without_hash_label(template: Obj) -> Obj:
    stripped = copy.deepcopy(template or {})
    labels = (stripped.get("metadata") or {}).get("labels")
    if labels:
        labels.pop(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, None)
    return stripped


def equal_ignore_hash(template1: Obj, template2: Obj) -> bool:
    """``EqualIgnoreHash``: the templates are equal apart from the pod-template-hash label."""
    first, second = _without_hash_label(template1), _without_hash_label(template2)
    for template in (first, second):
        metadata = template.get("metadata")
        if metadata is not None and not metadata.get("labels"):
            metadata.pop("labels", None)
        if metadata == {}:
            template.pop("metadata")
    return first == second


def find_new_replica_set(deployment: Obj, replica_sets: Sequence[Obj]) -> Obj | None:
    """``FindNewReplicaSet``: the oldest RS whose template equals the Deployment's."""
    template = _spec(deployment).get("template") or {}
    for rs in sort_by_creation_timestamp(replica_sets):
        if equal_ignore_hash(_spec(rs).get("template") or {}, template):
            return rs
    return None


def find_old_replica_sets(deployment: Obj, replica_sets: Sequence[Obj]) -> list[Obj]:
    """``FindOldReplicaSets`` (all old): every owned RS except the new one."""
    new_rs = find_new_replica_set(deployment, replica_sets)
    return [rs for rs in replica_sets if rs is not new_rs]


# --- revisions and annotations ----------------------------------------------------------


def revision(obj: Obj) -> int:
    """``Revision``: the revision annotation as an int (0 when unset or unparsable)."""
    value = _annotation_int(obj, REVISION_ANNOTATION)
    return value or 0


def max_revision(replica_sets: Iterable[Obj]) -> int:
    """``MaxRevision``."""
    return max((revision(rs) for rs in replica_sets), default=0)


def last_revision(replica_sets: Iterable[Obj]) -> int:
    """``LastRevision``: the second-highest revision."""
    highest, second = 0, 0
    for rs in replica_sets:
        value = revision(rs)
        if value >= highest:
            highest, second = value, highest
        elif value > second:
            second = value
    return second


def set_replicas_annotations(annotations: dict[str, str], desired: int, maximum: int) -> bool:
    """``SetReplicasAnnotations`` on a copy the caller owns; True when anything changed."""
    changed = False
    for key, value in (
        (DESIRED_REPLICAS_ANNOTATION, str(desired)),
        (MAX_REPLICAS_ANNOTATION, str(maximum)),
    ):
        if annotations.get(key) != value:
            annotations[key] = value
            changed = True
    return changed


def new_replica_set_annotations(
    deployment: Obj, new_rs: Obj | None, new_revision: int, exists: bool
) -> dict[str, str]:
    """``SetNewReplicaSetAnnotations``: the new RS's annotations after this sync.

    The Deployment's own annotations are copied (except ``ANNOTATIONS_TO_SKIP``); the
    revision becomes ``new_revision`` when higher (compared as integers), and a
    reused RS keeps its former revisions in ``revision-history``; a RS about to be created
    gets desired-replicas and max-replicas.
    """
    annotations = dict(((new_rs or {}).get("metadata") or {}).get("annotations") or {})
    changed = False
    for key, value in (((deployment.get("metadata") or {}).get("annotations")) or {}).items():
        if key in ANNOTATIONS_TO_SKIP or annotations.get(key) == value:
            continue
        annotations[key] = value
        changed = True
    old_revision = annotations.get(REVISION_ANNOTATION)
    try:
        old_number = int(old_revision) if old_revision else 0
    except ValueError:
        return annotations  # "OldRevision not int": left alone, as the controller does
    if old_number < new_revision:
        annotations[REVISION_ANNOTATION] = str(new_revision)
        changed = True
    if old_revision is not None and changed:
        history = annotations.get(REVISION_HISTORY_ANNOTATION, "")
        annotations[REVISION_HISTORY_ANNOTATION] = (
            f"{history},{old_revision}" if history else old_revision
        )
    if not exists:
        desired = replicas(deployment)
        set_replicas_annotations(annotations, desired, desired + max_surge(deployment))
    return annotations


def new_replica_set(
    deployment: Obj, template_hash: str, new_revision: int, new_replicas: int, now: float
) -> Obj:
    """The ReplicaSet ``getNewReplicaSet`` creates: ``<deploy>-<hash>``, hash label everywhere."""
    metadata = deployment.get("metadata") or {}
    spec = _spec(deployment)
    template = copy.deepcopy(spec.get("template") or {})
    template.setdefault("metadata", {}).setdefault("labels", {})[
        DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY
    ] = template_hash
    selector = copy.deepcopy(spec.get("selector") or {})
    selector.setdefault("matchLabels", {})[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = template_hash
    name = f"{metadata.get('name', '')}-{template_hash}"
    rs: Obj = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": metadata.get("namespace", "default"),
            "creationTimestamp": timestamp(now),
            "labels": dict(template["metadata"]["labels"]),
            "annotations": {},
            "ownerReferences": [controller_ref(deployment, "apps/v1", "Deployment")],
        },
        "spec": {
            "replicas": new_replicas,
            "minReadySeconds": int(spec.get("minReadySeconds") or 0),
            "selector": selector,
            "template": template,
        },
        "status": {"replicas": 0},
    }
    rs["metadata"]["annotations"] = new_replica_set_annotations(
        deployment, rs, new_revision, exists=False
    )
    return rs


def controller_ref(owner: Obj, api_version: str, kind: str) -> Obj:
    """``metav1.NewControllerRef``: controller and blockOwnerDeletion both true."""
    metadata = owner.get("metadata") or {}
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": metadata.get("name", ""),
        "uid": metadata.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def replica_sets_to_clean_up(deployment: Obj, old_rss: Sequence[Obj]) -> list[Obj]:
    """``cleanupDeployment``: old RSs beyond revisionHistoryLimit, lowest revision first.

    Only RSs scaled to 0 with no Pods left and an up-to-date observedGeneration are deleted.
    """
    limit = _spec(deployment).get("revisionHistoryLimit", 10)
    if limit is None:
        return []
    alive = [rs for rs in old_rss if ((rs.get("metadata") or {}).get("deletionTimestamp")) is None]
    diff = len(alive) - int(limit)
    if diff <= 0:
        return []
    ordered = sorted(alive, key=lambda rs: (revision(rs), _creation_key(rs)))
    doomed: list[Obj] = []
    for rs in ordered:
        if len(doomed) >= diff:
            break
        status = _status(rs)
        generation = (rs.get("metadata") or {}).get("generation", 0)
        if (
            status.get("replicas")
            or replicas(rs) != 0
            or status.get("observedGeneration", 0) < generation
        ):
            continue
        doomed.append(rs)
    return doomed


# --- rollback (kubectl rollout undo) ----------------------------------------------------


class RollbackError(Exception):
    """``kubectl rollout undo`` refused: the message kubectl prints after ``error: ``."""


def rollback(
    deployment: Obj, replica_sets: Sequence[Obj], to_revision: int = 0
) -> tuple[str, Obj | None]:
    """``DeploymentRollbacker.Rollback``: (kubectl's result text, the patched Deployment or None).

    ``to_revision`` 0 picks the second-highest revision. The result is ``"rolled back"`` with
    the Deployment's template and annotations restored from that revision's RS, or
    ``"skipped rollback (current template already matches revision N)"`` (N as given, so 0
    for a plain undo) with None. Errors raise RollbackError with kubectl's wording.
    """
    if to_revision < 0:
        raise RollbackError(f"unable to find specified revision {to_revision} in history")
    target = _revision_replica_set(deployment, replica_sets, to_revision)
    if _spec(deployment).get("paused"):
        raise RollbackError(
            "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"
        )
    template = _spec(target).get("template") or {}
    if equal_ignore_hash(template, _spec(deployment).get("template") or {}):
        return f"skipped rollback (current template already matches revision {to_revision})", None
    patched = copy.deepcopy(deployment)
    patched.setdefault("spec", {})["template"] = _without_hash_label(template)
    current = (deployment.get("metadata") or {}).get("annotations") or {}
    annotations = {k: v for k, v in current.items() if k in ANNOTATIONS_TO_SKIP}
    for key, value in (((target.get("metadata") or {}).get("annotations")) or {}).items():
        if key not in ANNOTATIONS_TO_SKIP:
            annotations[key] = value
    patched.setdefault("metadata", {})["annotations"] = annotations
    return "rolled back", patched


def _revision_replica_set(deployment: Obj, replica_sets: Sequence[Obj], to_revision: int) -> Obj:
    latest: Obj | None = None
    latest_revision = -1
    previous: Obj | None = None
    previous_revision = -1
    for rs in replica_sets:
        value = revision(rs)
        if to_revision == 0:
            if latest_revision < value:
                previous, previous_revision = latest, latest_revision
                latest, latest_revision = rs, value
            elif previous_revision < value:
                previous, previous_revision = rs, value
        elif value == to_revision:
            return rs
    if to_revision > 0:
        raise RollbackError(f"unable to find specified revision {to_revision} in history")
    if previous is None:
        name = (deployment.get("metadata") or {}).get("name", "")
        raise RollbackError(f'no rollout history found for deployment "{name}"')
    return previous


# --- availability, status and conditions ------------------------------------------------


def _ready_condition(pod: Obj) -> Obj | None:
    for condition in _status(pod).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


def is_pod_ready(pod: Obj) -> bool:
    """``podutil.IsPodReady``: condition Ready is True."""
    condition = _ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def is_pod_available(pod: Obj, min_ready_seconds: float, now: float) -> bool:
    """``podutil.IsPodAvailable``: Ready, and Ready since strictly more than minReadySeconds.

    With minReadySeconds 0 a Ready Pod is available at once; otherwise the Ready condition's
    lastTransitionTime + minReadySeconds must be before ``now`` (a zero time never is).
    """
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds == 0:
        return True
    since = to_seconds((_ready_condition(pod) or {}).get("lastTransitionTime"))
    return since is not None and since + min_ready_seconds < now


def available_after(pod: Obj, min_ready_seconds: float) -> float | None:
    """When a Ready Pod turns available (for requeueing at that time); None if not Ready."""
    if not is_pod_ready(pod):
        return None
    since = to_seconds((_ready_condition(pod) or {}).get("lastTransitionTime"))
    return None if since is None else since + min_ready_seconds


def get_condition(status: Obj, condition_type: str) -> Obj | None:
    """``GetDeploymentCondition``."""
    for condition in status.get("conditions") or []:
        if condition.get("type") == condition_type:
            return condition
    return None


def new_condition(condition_type: str, status: str, reason: str, message: str, now: float) -> Obj:
    """``NewDeploymentCondition``: both times are now."""
    stamp = timestamp(now)
    return {
        "type": condition_type,
        "status": status,
        "lastUpdateTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def set_condition(status: Obj, condition: Obj) -> Obj:
    """``SetDeploymentCondition`` on a copy: same status and reason → unchanged; same status
    → lastTransitionTime kept; the condition moves to the end of the list."""
    result = copy.deepcopy(status)
    current = get_condition(result, condition["type"])
    if (
        current is not None
        and current.get("status") == condition["status"]
        and current.get("reason") == condition["reason"]
    ):
        return result
    condition = dict(condition)
    if current is not None and current.get("status") == condition["status"]:
        condition["lastTransitionTime"] = current.get("lastTransitionTime")
    result["conditions"] = [
        c for c in result.get("conditions") or [] if c.get("type") != condition["type"]
    ] + [condition]
    return result


def remove_condition(status: Obj, condition_type: str) -> Obj:
    """``RemoveDeploymentCondition`` on a copy."""
    result = copy.deepcopy(status)
    conditions = [c for c in result.get("conditions") or [] if c.get("type") != condition_type]
    if conditions:
        result["conditions"] = conditions
    else:
        result.pop("conditions", None)
    return result


def calculate_status(
    all_rss: Sequence[Obj | None], new_rs: Obj | None, deployment: Obj, now: float
) -> Obj:
    """``calculateStatus`` (sync.go): counts from the RSs, and the Available condition.

    replicas = Σ status.replicas; updatedReplicas = the new RS's status.replicas; ready and
    available summed; unavailableReplicas = max(0, Σ spec.replicas − available) (spec, not
    status). Available is True (MinimumReplicasAvailable) when available ≥ replicas −
    maxUnavailable, else False (MinimumReplicasUnavailable).
    """
    previous = _status(deployment)
    available = get_available_replica_count_for_replica_sets(all_rss)
    total = get_replica_count_for_replica_sets(all_rss)
    status: Obj = {
        "observedGeneration": (deployment.get("metadata") or {}).get("generation", 1),
        "replicas": get_actual_replica_count_for_replica_sets(all_rss),
        "updatedReplicas": get_actual_replica_count_for_replica_sets([new_rs]),
        "readyReplicas": get_ready_replica_count_for_replica_sets(all_rss),
        "availableReplicas": available,
        "unavailableReplicas": max(0, total - available),
    }
    if previous.get("collisionCount") is not None:
        status["collisionCount"] = previous["collisionCount"]
    if previous.get("conditions"):
        status["conditions"] = copy.deepcopy(previous["conditions"])
    if available >= replicas(deployment) - max_unavailable(deployment):
        condition = new_condition(
            "Available",
            "True",
            MINIMUM_REPLICAS_AVAILABLE,
            "Deployment has minimum availability.",
            now,
        )
    else:
        condition = new_condition(
            "Available",
            "False",
            MINIMUM_REPLICAS_UNAVAILABLE,
            "Deployment does not have minimum availability.",
            now,
        )
    return set_condition(status, condition)


def has_progress_deadline(deployment: Obj) -> bool:
    """``HasProgressDeadline``: set and not MaxInt32 (the API defaults it to 600)."""
    deadline = _spec(deployment).get("progressDeadlineSeconds", 600)
    return deadline is not None and deadline != MAX_INT32


def _progress_deadline(deployment: Obj) -> int:
    return int(_spec(deployment).get("progressDeadlineSeconds", 600))


def deployment_complete(deployment: Obj, new_status: Obj) -> bool:
    """``DeploymentComplete``: all replicas updated and available, no old Pods, generation seen."""
    desired = replicas(deployment)
    return (
        new_status.get("updatedReplicas", 0) == desired
        and new_status.get("replicas", 0) == desired
        and new_status.get("availableReplicas", 0) == desired
        and new_status.get("observedGeneration", 0)
        >= (deployment.get("metadata") or {}).get("generation", 0)
    )


def deployment_progressing(deployment: Obj, new_status: Obj) -> bool:
    """``DeploymentProgressing``: more updated, fewer old, more ready or more available Pods."""
    old = _status(deployment)
    old_old = old.get("replicas", 0) - old.get("updatedReplicas", 0)
    new_old = new_status.get("replicas", 0) - new_status.get("updatedReplicas", 0)
    return (
        new_status.get("updatedReplicas", 0) > old.get("updatedReplicas", 0)
        or new_old < old_old
        or new_status.get("readyReplicas", 0) > old.get("readyReplicas", 0)
        or new_status.get("availableReplicas", 0) > old.get("availableReplicas", 0)
    )


def deployment_timed_out(deployment: Obj, new_status: Obj, now: float) -> bool:
    """``DeploymentTimedOut``: the Progressing condition's lastUpdateTime + deadline is before now.

    Never without a deadline (or with MaxInt32), never once the reason is
    NewReplicaSetAvailable, always once it is ProgressDeadlineExceeded.
    """
    if not has_progress_deadline(deployment):
        return False
    condition = get_condition(new_status, "Progressing")
    if condition is None:
        return False
    if condition.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if condition.get("reason") == TIMED_OUT_REASON:
        return True
    since = to_seconds(condition.get("lastUpdateTime"))
    if since is None:
        since = -math.inf
    return since + _progress_deadline(deployment) < now


def _subject(deployment: Obj, new_rs: Obj | None) -> str:
    if new_rs is not None:
        return f'ReplicaSet "{new_rs["metadata"]["name"]}"'
    return f'Deployment "{(deployment.get("metadata") or {}).get("name", "")}"'


def sync_rollout_status(
    all_rss: Sequence[Obj | None], new_rs: Obj | None, deployment: Obj, now: float
) -> Obj:
    """``syncRolloutStatus`` (progress.go): the new status with Progressing and ReplicaFailure.

    Progressing becomes True NewReplicaSetAvailable (``ReplicaSet "x" has successfully
    progressed.``) when complete; True ReplicaSetUpdated (``ReplicaSet "x" is progressing.``,
    lastUpdateTime refreshed, lastTransitionTime kept) on any progress; False
    ProgressDeadlineExceeded (``ReplicaSet "x" has timed out progressing.``) past the
    deadline. A finished rollout (same reason, replicas == updated) is left alone.
    """
    status = calculate_status(all_rss, new_rs, deployment, now)
    if not has_progress_deadline(deployment):
        status = remove_condition(status, "Progressing")
    current = get_condition(_status(deployment), "Progressing")
    finished = (
        status["replicas"] == status["updatedReplicas"]
        and current is not None
        and current.get("reason") == NEW_RS_AVAILABLE_REASON
    )
    if has_progress_deadline(deployment) and not finished:
        subject = _subject(deployment, new_rs)
        if deployment_complete(deployment, status):
            condition = new_condition(
                "Progressing",
                "True",
                NEW_RS_AVAILABLE_REASON,
                f"{subject} has successfully progressed.",
                now,
            )
            status = set_condition(status, condition)
        elif deployment_progressing(deployment, status):
            condition = new_condition(
                "Progressing", "True", REPLICA_SET_UPDATED_REASON, f"{subject} is progressing.", now
            )
            if current is not None:
                if current.get("status") == "True":
                    condition["lastTransitionTime"] = current.get("lastTransitionTime")
                status = remove_condition(status, "Progressing")
            status = set_condition(status, condition)
        elif deployment_timed_out(deployment, status, now):
            condition = new_condition(
                "Progressing",
                "False",
                TIMED_OUT_REASON,
                f"{subject} has timed out progressing.",
                now,
            )
            status = set_condition(status, condition)
    failures = replica_failures(all_rss, new_rs)
    if failures:
        status = set_condition(status, failures[0])
    else:
        status = remove_condition(status, "ReplicaFailure")
    return status


def replica_failures(all_rss: Sequence[Obj | None], new_rs: Obj | None) -> list[Obj]:
    """``getReplicaFailures``: ReplicaFailure conditions of the new RS, else of any RS."""

    def converted(rs: Obj) -> list[Obj]:
        found = []
        for condition in _status(rs).get("conditions") or []:
            if condition.get("type") == "ReplicaFailure":
                found.append(
                    {
                        "type": "ReplicaFailure",
                        "status": condition.get("status"),
                        "lastUpdateTime": condition.get("lastTransitionTime"),
                        "lastTransitionTime": condition.get("lastTransitionTime"),
                        "reason": condition.get("reason"),
                        "message": condition.get("message"),
                    }
                )
        return found

    if new_rs is not None and (found := converted(new_rs)):
        return found
    return [c for rs in all_rss if rs is not None for c in converted(rs)]


def requeue_stuck_deployment(deployment: Obj, new_status: Obj, now: float) -> float | None:
    """``requeueStuckDeployment``: seconds until the next progress check, 0 for now, None for never.

    lastUpdateTime + deadline − now, plus one second (to avoid AddAfter skew); under a
    second means now.
    """
    current = get_condition(_status(deployment), "Progressing")
    if not has_progress_deadline(deployment) or current is None:
        return None
    if deployment_complete(deployment, new_status) or current.get("reason") == TIMED_OUT_REASON:
        return None
    since = to_seconds(current.get("lastUpdateTime"))
    after = (since if since is not None else -math.inf) + _progress_deadline(deployment) - now
    if after < 1:
        return 0.0
    return after + 1


def check_paused_conditions(deployment: Obj, now: float) -> Obj | None:
    """``checkPausedConditions``: the status with Progressing Unknown DeploymentPaused /
    DeploymentResumed, or None when nothing changes. A ProgressDeadlineExceeded condition
    is never overwritten."""
    if not has_progress_deadline(deployment):
        return None
    status = _status(deployment)
    condition = get_condition(status, "Progressing")
    if condition is not None and condition.get("reason") == TIMED_OUT_REASON:
        return None
    paused_exists = condition is not None and condition.get("reason") == PAUSED_DEPLOY_REASON
    paused = bool(_spec(deployment).get("paused"))
    if paused and not paused_exists:
        return set_condition(
            status,
            new_condition(
                "Progressing", "Unknown", PAUSED_DEPLOY_REASON, "Deployment is paused", now
            ),
        )
    if not paused and paused_exists:
        return set_condition(
            status,
            new_condition(
                "Progressing", "Unknown", RESUMED_DEPLOY_REASON, "Deployment is resumed", now
            ),
        )
    return None


def new_replica_set_created_condition(rs_name: str, now: float) -> Obj:
    """Progressing True NewReplicaSetCreated, set by getNewReplicaSet when it creates the RS."""
    return new_condition(
        "Progressing", "True", NEW_REPLICA_SET_REASON, f'Created new replica set "{rs_name}"', now
    )


def found_new_replica_set_condition(deployment: Obj, rs_name: str, now: float) -> Obj | None:
    """Progressing True FoundNewReplicaSet: only when there is a deadline and no condition yet."""
    if (
        not has_progress_deadline(deployment)
        or get_condition(_status(deployment), "Progressing") is not None
    ):
        return None
    return new_condition(
        "Progressing", "True", FOUND_NEW_RS_REASON, f'Found new replica set "{rs_name}"', now
    )


def replica_set_create_error_condition(rs_name: str, error: str, now: float) -> Obj:
    """Progressing False ReplicaSetCreateError (also the Warning event's reason and message)."""
    return new_condition(
        "Progressing",
        "False",
        FAILED_RS_CREATE_REASON,
        f'Failed to create new replica set "{rs_name}": {error}',
        now,
    )


def sync_kind(deployment: Obj, replica_sets: Sequence[Obj]) -> str:
    """``syncDeployment``'s dispatch after checkPausedConditions: ``"status"`` (being deleted:
    status only), ``"scale"`` (paused, or a scaling event: ``sync``, proportional scaling
    only), else the strategy's rollout, ``"rolling"`` or ``"recreate"``.

    After every sync the Deployment's own revision annotation is set to the new RS's
    (``SetDeploymentRevision``).
    """
    if (deployment.get("metadata") or {}).get("deletionTimestamp") is not None:
        return "status"
    if _spec(deployment).get("paused") or is_scaling_event(deployment, replica_sets):
        return "scale"
    return "rolling" if is_rolling_update(deployment) else "recreate"
