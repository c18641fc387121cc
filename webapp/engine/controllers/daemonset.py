"""The DaemonSet controller (``pkg/controller/daemon``) driven by its rules.

``sync_daemon_set`` is ``syncDaemonSet``: ``manage`` (a Pod on every node that should run
one, bound there by node affinity; Pods deleted where they should not continue), then,
with the RollingUpdate strategy, ``rollingUpdate`` (old Pods deleted within
maxUnavailable; ``manage`` recreates them from the current template on a later pass),
then ``updateDaemonSetStatus``. OnDelete replaces a Pod only once someone deletes it.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.controllers.rules import daemonset as rules
from webapp.engine.controllers.rules import replicaset as rs_rules
from webapp.engine.controllers.rules.deployment import available_after

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any

COMPONENT = "daemonset-controller"


def sync_daemon_set(cluster: ClusterSimulation, ds: dict[str, Any]) -> bool:
    """One sync of ``ds``; True when it created or deleted Pods."""
    now = cluster.now
    name = ds["metadata"]["name"]
    nodes = cluster.nodes()
    hash_ = rules.current_hash(ds)
    changed = False
    if ds["metadata"].get("deletionTimestamp") is None:
        plan = rules.manage(ds, nodes, cluster.owned_pods(ds))
        for event in plan.events:
            cluster.workload_event(ds, *event, component=COMPONENT)
        changed |= _delete(cluster, ds, plan.delete, f"DaemonSet {name} deleted it")
        for node_name in plan.create_on:
            if not cluster.can_create(ds):
                break
            pod = rules.create_pod(ds, node_name, hash_, cluster.names, now)
            while pod["metadata"]["name"] in cluster.runs:  # a name taken: generate again
                pod["metadata"]["name"] = rs_rules.generate_name(
                    pod["metadata"]["generateName"], cluster.names
                )
            cluster.create_pod(pod)
            cluster.workload_event(ds, *rs_rules.successful_create_event(pod["metadata"]["name"]),
                                   component=COMPONENT)  # fmt: skip
            changed = True
        if rules.update_strategy(ds).get("type") == "RollingUpdate":
            doomed = rules.rolling_update(ds, nodes, cluster.owned_pods(ds), hash_, now)
            changed |= _delete(cluster, ds, doomed, f"DaemonSet {name} rolling update")
    pods = cluster.owned_pods(ds)
    ds["status"] = rules.daemon_set_status(ds, nodes, pods, hash_, now)
    min_ready = float(ds["spec"].get("minReadySeconds") or 0)
    if min_ready > 0:  # requeued after minReadySeconds (enqueueDaemonSetAfter)
        for pod in pods:
            at = available_after(pod, min_ready)
            if at is not None and at >= now:
                cluster.sync_at(at + 0.001)
    return changed


def _delete(cluster: ClusterSimulation, ds: dict, names: list[str], cause: str) -> bool:
    done = False
    for pod_name in dict.fromkeys(names):
        run = cluster.runs.get(pod_name)
        if run is None or run.pod_removed:
            continue
        cluster.delete_pod_named(pod_name, cause=cause)
        cluster.workload_event(ds, *rs_rules.successful_delete_event(pod_name),
                               component=COMPONENT)  # fmt: skip
        done = True
    return done
