"""The Deployment controller (``pkg/controller/deployment``) driven by its rules.

``sync_deployment`` is ``syncDeployment``: find the new and old ReplicaSets, create the new
one when the template changed (``getNewReplicaSet``), then one step of the strategy
(``rolloutRolling`` / ``rolloutRecreate``) or proportional scaling (``sync``), clean up old
revisions, and ``syncRolloutStatus``. Every decision comes from :mod:`rules.deployment`;
this module applies them to the cluster (engine/cluster.py) and records the
``ScalingReplicaSet`` Events as the controller writes them.
"""

from __future__ import annotations

import copy
from typing import Any

from webapp.engine.controllers.rules import deployment as rules

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any

COMPONENT = "deployment-controller"


def sync_deployment(cluster: ClusterSimulation, deployment: dict[str, Any]) -> bool:
    """One sync of ``deployment``; True when it changed any ReplicaSet's spec.replicas
    (or created one): the ReplicaSet controller then has work to do."""
    now = cluster.now
    paused_status = rules.check_paused_conditions(deployment, now)
    if paused_status is not None:
        deployment["status"] = paused_status
    replica_sets = cluster.owned_replica_sets(deployment)
    kind = rules.sync_kind(deployment, replica_sets)
    new_rs, old_rss = _new_and_old(cluster, deployment, replica_sets)
    changed = False
    if kind == "status":
        pass
    elif kind == "scale":
        changed = _apply(cluster, deployment, rules.scale(deployment, new_rs, old_rss))
    elif kind == "rolling":
        if new_rs is None:
            new_rs = _create_new_rs(cluster, deployment, old_rss, None)
            changed = True
        else:
            _update_new_rs(deployment, new_rs, old_rss)
        changed |= _apply(cluster, deployment, rules.rollout_rolling(deployment, new_rs, old_rss))
    else:  # recreate
        pods_by_uid = {
            rs["metadata"]["uid"]: cluster.owned_pods(rs) for rs in [*old_rss, new_rs] if rs
        }
        if new_rs is not None:
            _update_new_rs(deployment, new_rs, old_rss)
        step = rules.rollout_recreate(deployment, new_rs, old_rss, pods_by_uid)
        if step == "create":
            new_rs = _create_new_rs(cluster, deployment, old_rss, rules.replicas(deployment))
            changed = True
        elif isinstance(step, dict):
            changed = _apply(cluster, deployment, step)
    all_rss = [*old_rss, new_rs] if new_rs is not None else list(old_rss)
    if deployment["spec"].get("paused"):
        # a paused Deployment's sync only updates the counts (syncDeploymentStatus)
        status = rules.calculate_status(all_rss, new_rs, deployment, now)
    else:
        status = rules.sync_rollout_status(all_rss, new_rs, deployment, now)
    if rules.deployment_complete(deployment, status):
        for rs in rules.replica_sets_to_clean_up(deployment, old_rss):
            cluster.delete_replica_set(rs)
    deployment["status"] = status
    if new_rs is not None:
        annotations = deployment["metadata"].setdefault("annotations", {})
        annotations[rules.REVISION_ANNOTATION] = str(rules.revision(new_rs))
    after = rules.requeue_stuck_deployment(deployment, status, now)
    if after:
        cluster.sync_at(now + after)
    return changed


def _new_and_old(
    cluster: ClusterSimulation, deployment: dict, replica_sets: list[dict]
) -> tuple[dict | None, list[dict]]:
    """``FindNewReplicaSet`` / ``FindOldReplicaSets``, remembered while neither the
    Deployment's spec (its generation) nor its set of ReplicaSets changed: comparing
    templates deep-copies them, and a pass runs at every Pod change. A ReplicaSet's template
    never changes after it is created."""
    key = (deployment["metadata"]["uid"], deployment["metadata"].get("generation"),
           tuple(rs["metadata"]["uid"] for rs in replica_sets))  # fmt: skip
    cached = cluster.rs_split_cache.get(deployment["metadata"]["uid"])
    if cached is not None and cached[0] == key:
        new_uid, old_uids = cached[1]
        by_uid = {rs["metadata"]["uid"]: rs for rs in replica_sets}
        return (by_uid[new_uid] if new_uid else None), [by_uid[u] for u in old_uids]
    new_rs = rules.find_new_replica_set(deployment, replica_sets)
    old_rss = rules.find_old_replica_sets(deployment, replica_sets)
    cluster.rs_split_cache[deployment["metadata"]["uid"]] = (
        key, ((new_rs or {}).get("metadata", {}).get("uid"), [r["metadata"]["uid"] for r in old_rss])
    )  # fmt: skip
    return new_rs, old_rss


def _apply(cluster: ClusterSimulation, deployment: dict, changes: dict[str, int]) -> bool:
    """``scaleReplicaSet`` for each change: spec.replicas, the replicas annotations, the
    ScalingReplicaSet Event."""
    for name, value in changes.items():
        rs = cluster.replica_set(name)
        if rs is None:
            continue
        old = rules.replicas(rs)
        annotations = rs["metadata"].setdefault("annotations", {})
        rules.set_replicas_annotations(
            annotations,
            rules.replicas(deployment),
            rules.replicas(deployment) + rules.max_surge(deployment),
        )
        if old == value:
            continue
        rs["spec"]["replicas"] = value
        rs["metadata"]["generation"] = rs["metadata"].get("generation", 1) + 1
        cluster.workload_event(deployment, "Normal", "ScalingReplicaSet",
                               rules.scaling_event_message(name, old, value), component=COMPONENT)  # fmt: skip
    return bool(changes)


def _create_new_rs(
    cluster: ClusterSimulation, deployment: dict, old_rss: list[dict], replicas: int | None
) -> dict:
    """``getNewReplicaSet`` with createIfNotExisted: ``<name>-<pod-template-hash>`` at the
    next revision, its first size from ``NewRSNewReplicas`` (Recreate: all replicas)."""
    now = cluster.now
    template_hash = rules.compute_hash(
        deployment["spec"]["template"], (deployment.get("status") or {}).get("collisionCount")
    )
    revision = rules.max_revision(old_rss) + 1
    if replicas is None:
        placeholder = {"spec": {"replicas": 0}, "metadata": {"name": ""}}
        replicas = rules.new_rs_new_replicas(deployment, old_rss, placeholder)
    rs = rules.new_replica_set(deployment, template_hash, revision, replicas, now)
    cluster.add_replica_set(rs)
    if cluster.traffic_client is not None:
        cluster.traffic_client.rollout_started(deployment["metadata"]["name"], rs["metadata"]["name"],
                                               revision)  # fmt: skip
    status = deployment.setdefault("status", {})
    condition = rules.new_replica_set_created_condition(rs["metadata"]["name"], now)
    deployment["status"] = rules.set_condition(status, condition)
    if replicas > 0:
        cluster.workload_event(deployment, "Normal", "ScalingReplicaSet",
                               rules.new_replica_set_event_message(rs["metadata"]["name"], replicas),
                               component=COMPONENT)  # fmt: skip
    return rs


def _update_new_rs(deployment: dict, new_rs: dict, old_rss: list[dict]) -> None:
    """``getNewReplicaSet`` on an existing RS: its annotations take the next revision (an
    undo reuses an old RS), minReadySeconds follows the Deployment's."""
    annotations = rules.new_replica_set_annotations(
        deployment, new_rs, rules.max_revision(old_rss) + 1, exists=True
    )
    if annotations != (new_rs["metadata"].get("annotations") or {}):
        new_rs["metadata"]["annotations"] = annotations
    new_rs["spec"]["minReadySeconds"] = int(deployment["spec"].get("minReadySeconds") or 0)


def restart(deployment: dict, at: str) -> dict:
    """``kubectl rollout restart``: the template's restartedAt annotation (a new hash)."""
    patched = copy.deepcopy(deployment)
    template_meta = patched["spec"]["template"].setdefault("metadata", {})
    template_meta.setdefault("annotations", {})["kubectl.kubernetes.io/restartedAt"] = at
    return patched
