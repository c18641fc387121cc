"""The Job controller (``pkg/controller/job``) driven by its rules.

``sync`` runs :func:`rules.job.sync_job` over the Job's Pods and applies what it decided:
Pods created from ``job_pod_template`` (``<job>-<5 random>``, or ``<job>-<index>-<5 random>``
for an Indexed Job), Pods deleted, tracking finalizers removed, the new status, the Events,
and the next sync when a back-off or a deadline is due; then ``ttlSecondsAfterFinished``
(the ttl-after-finished controller) deletes a finished Job with its Pods.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.controllers.rules import job as rules
from webapp.engine.controllers.rules import replicaset as rs_rules
from webapp.engine.controllers.rules.timestamps import timestamp

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any

COMPONENT = "job-controller"


def sync_job(cluster: ClusterSimulation, job: dict[str, Any]) -> bool:
    """One sync of ``job``; True when it created or deleted Pods."""
    now = cluster.now
    name = job["metadata"]["name"]
    pods = cluster.owned_pods(job)
    result = rules.sync_job(job, pods, cluster.job_backoff.get(name), now)
    cluster.job_backoff[name] = result.backoff
    changed = False
    for pod_name in result.remove_finalizers:
        cluster.remove_finalizer(pod_name, rules.JOB_TRACKING_FINALIZER)
    for pod_name in result.delete:
        cluster.delete_pod_named(pod_name, cause=f"Job {name} deleted it")
        cluster.workload_event(
            job, *rs_rules.successful_delete_event(pod_name), component=COMPONENT
        )
        changed = True
    failures = {}
    if rules.has_backoff_limit_per_index(job):
        failures = rules.last_failed_pod_per_index(job, pods)
    for index in result.create:
        if not cluster.can_create(job):
            break
        counts = (
            rules.new_index_failure_counts(job, failures.get(index))
            if index is not None
            else (0, 0)
        )
        template, generate_name = rules.job_pod_template(job, index, counts)
        pod = _pod_from(job, template, generate_name, cluster, now)
        cluster.create_pod(pod)
        cluster.workload_event(job, *rs_rules.successful_create_event(pod["metadata"]["name"]),
                               component=COMPONENT)  # fmt: skip
        changed = True
    job["status"] = result.status
    for event in result.events:
        cluster.workload_event(job, *event, component=COMPONENT)
    if result.requeue_after is not None:
        cluster.sync_at(now + max(result.requeue_after, 0.001))
    expire = rules.ttl_expire_at(job)
    if expire is not None:
        if expire <= now:
            cluster.delete_job(job)
        else:
            cluster.sync_at(expire)
    return changed


def _pod_from(job: dict, template: dict, generate_name: str, cluster: ClusterSimulation,
              now: float) -> dict:  # fmt: skip
    """``GetPodFromTemplate`` with generateName and the Job's controller reference."""
    metadata = template.get("metadata") or {}
    name = rs_rules.generate_name(generate_name, cluster.names)
    while name in cluster.runs:
        name = rs_rules.generate_name(generate_name, cluster.names)
    pod_metadata: dict[str, Any] = {
        "name": name,
        "generateName": generate_name,
        "namespace": job["metadata"].get("namespace", "default"),
        "creationTimestamp": timestamp(now),
        "labels": dict(metadata.get("labels") or {}),
        "ownerReferences": [
            {"apiVersion": "batch/v1", "kind": "Job", "name": job["metadata"]["name"],
             "uid": job["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
        ],
    }  # fmt: skip
    if metadata.get("annotations"):
        pod_metadata["annotations"] = dict(metadata["annotations"])
    if metadata.get("finalizers"):
        pod_metadata["finalizers"] = list(metadata["finalizers"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_metadata,
            "spec": template.get("spec") or {}}  # fmt: skip
