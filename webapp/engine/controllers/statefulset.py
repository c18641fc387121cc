"""The StatefulSet controller (``pkg/controller/statefulset``) driven by its rules.

``sync_stateful_set`` runs :func:`rules.statefulset.sync_stateful_set` over the set's Pods
and applies its decision: Pods ``<set>-<ordinal>`` created from the template of their
revision (OrderedReady: one at a time, each after the previous is Running and Ready;
Parallel: all at once), condemned Pods deleted from the highest ordinal, a rolling update
in reverse ordinal order down to the partition. The revisions' templates are kept as
ControllerRevisions would keep them. Each Pod's PersistentVolumeClaims from
``volumeClaimTemplates`` are created before it (controllers/persistentvolume.py).
"""

from __future__ import annotations

from typing import Any

from webapp.engine.controllers import persistentvolume
from webapp.engine.controllers.rules import statefulset as rules
from webapp.engine.controllers.rules import storage as storage_rules
from webapp.engine.controllers.rules.deployment import available_after

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any

COMPONENT = "statefulset-controller"


def sync_stateful_set(cluster: ClusterSimulation, sts: dict[str, Any]) -> bool:
    """One sync of ``sts``; True when it created or deleted Pods."""
    now = cluster.now
    name = sts["metadata"]["name"]
    template = sts["spec"]["template"]
    revisions = cluster.sts_revisions.setdefault(name, {})
    update_revision = rules.revision_name(sts, template)
    revisions.setdefault(update_revision, template)
    current_revision = (sts.get("status") or {}).get("currentRevision") or update_revision
    pods = cluster.owned_pods(sts)
    result = rules.sync_stateful_set(sts, pods, current_revision, update_revision, now)
    changed = False
    claim_templates = bool(sts["spec"].get("volumeClaimTemplates"))
    for pod_name in result.delete:
        if claim_templates and not _in_ordinal_range(sts, pod_name):
            pod = cluster.pod(pod_name)
            if pod is not None:
                persistentvolume.condemn_claims(cluster, sts, pod)
        cluster.delete_pod_named(pod_name, cause=f"StatefulSet {name} deleted it")
        cluster.workload_event(sts, *rules.delete_event(sts, pod_name), component=COMPONENT)
        changed = True
    for ordinal, revision in result.create:
        if not cluster.can_create(sts):
            break
        pod = rules.new_stateful_set_pod(
            sts, ordinal, revision, revisions.get(revision, template), now
        )
        if claim_templates:  # createPersistentVolumeClaims, then updateStorage
            persistentvolume.create_claims(cluster, sts, ordinal, pod["metadata"]["name"])
            storage_rules.update_storage(pod, sts)
        cluster.create_pod(pod)
        cluster.workload_event(sts, *rules.create_event(sts, pod["metadata"]["name"]),
                               component=COMPONENT)  # fmt: skip
        changed = True
    if claim_templates:
        persistentvolume.collect_garbage(cluster)
    status = rules.compute_status(sts, cluster.owned_pods(sts), current_revision,
                                  update_revision, now)  # fmt: skip
    sts["status"] = status
    min_ready = float(sts["spec"].get("minReadySeconds") or 0)
    if min_ready > 0:  # the controller requeues after minReadySeconds (AddAfter)
        for pod in cluster.owned_pods(sts):
            at = available_after(pod, min_ready)
            if at is not None and at >= now:
                cluster.sync_at(at + 0.001)
    return changed


def _in_ordinal_range(sts: dict[str, Any], pod_name: str) -> bool:
    """``podInOrdinalRange``: start ≤ ordinal ≤ end of the set's replicas."""
    ordinal = int(pod_name.rsplit("-", 1)[1])
    return rules.start_ordinal(sts) <= ordinal <= rules.end_ordinal(sts)
