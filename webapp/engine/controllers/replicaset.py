"""The ReplicaSet controller (``pkg/controller/replicaset``) driven by its rules.

``sync_replica_set`` is ``syncReplicaSet``: the RS's owned Pods, ``manageReplicas`` (create
or delete Pods, the deletion order from ``getPodsToDelete``), then ``calculateStatus``.
Every decision comes from :mod:`rules.replicaset`; this module only applies them to the
cluster (engine/cluster.py) and records the controller's Events.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.controllers.rules import replicaset as rules

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any

COMPONENT = "replicaset-controller"


def sync_replica_set(cluster: ClusterSimulation, rs: dict[str, Any]) -> bool:
    """One sync of ``rs``; True when it created or deleted Pods."""
    now = cluster.now
    pods = cluster.owned_pods(rs)
    active = rules.filter_active_pods(pods)
    diff = rules.manage_replicas_diff(rs, active)
    changed = False
    if diff > 0 and rs["metadata"].get("deletionTimestamp") is None:
        for _ in range(diff):
            if not cluster.can_create(rs):
                break
            pod = rules.new_pod_from_template(rs, "ReplicaSet", cluster.names, now)
            while pod["metadata"]["name"] in cluster.runs:  # a name taken: generate again
                pod["metadata"]["name"] = rules.generate_name(
                    pod["metadata"]["generateName"], cluster.names
                )
            cluster.create_pod(pod)
            cluster.workload_event(rs, *rules.successful_create_event(pod["metadata"]["name"]),
                                   component=COMPONENT)  # fmt: skip
        changed = True
    elif diff < 0:
        related = [p for other in cluster.siblings(rs) for p in cluster.owned_pods(other)]
        doomed = rules.get_pods_to_delete(active, rules.filter_active_pods(related), -diff, now)
        for pod in doomed:
            name = pod["metadata"]["name"]
            cluster.delete_pod_named(name, cause=f"ReplicaSet {rs['metadata']['name']} scaled down")
            cluster.workload_event(rs, *rules.successful_delete_event(name), component=COMPONENT)
        changed = True
    pods = cluster.owned_pods(rs)
    rs["status"] = rules.calculate_status(rs, pods, now)
    at = rules.requeue_for_availability(rs, pods, now)
    if at is not None:
        cluster.sync_at(at)
    return changed
