"""PersistentVolumeClaims in a cluster run: the StatefulSet controller's claims, the PV
controller and kind's local-path provisioner, and the scheduler's VolumeBinding plugin,
driven by :mod:`rules.storage`.

- A StatefulSet creates each Pod's claims (``<template>-<set>-<ordinal>``) before the Pod,
  with a ``SuccessfulCreate`` event; the Pod's volume of that name names the claim.
- The PV controller looks at a new claim at once: with kind's ``standard`` class
  (WaitForFirstConsumer) it waits for a Pod (``WaitForFirstConsumer``); a class that
  does not exist fails (``ProvisioningFailed``); no class and no volume: ``FailedBinding``.
- The scheduler: a Pod whose claim is unbound and binds immediately (no class, or one
  not found) is unschedulable (``pod has unbound immediate PersistentVolumeClaims``); a
  bound claim's volume pins the Pod to its node (``volume node affinity conflict``). For
  a WaitForFirstConsumer claim the chosen node is written on the claim, the provisioner
  creates ``pvc-<claim uid>`` on it (about 3 s), the claim is Bound, and only then is the
  Pod bound to the node (PreBind waits).
- Retention (``persistentVolumeClaimRetentionPolicy``): whenScaled Delete gives a claim of
  a Pod beyond the replicas to that Pod, and the garbage collector deletes the claim (and
  its volume, reclaimPolicy Delete) once the Pod is gone.
"""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any

from webapp.engine.controllers.rules import storage as rules
from webapp.engine.core.clock import URGENT
from webapp.engine.scheduler import FilterStatus

ClusterSimulation = Any  # engine/cluster.py (not imported: it imports this module)
PodRun = Any

STATEFULSET_CONTROLLER = "statefulset-controller"


def _uid(cluster: ClusterSimulation) -> str:
    return str(uuid.UUID(int=cluster.storage_names.getrandbits(128), version=4))


def create_claims(cluster: ClusterSimulation, sts: dict, ordinal: int, pod_name: str) -> None:
    """``createPersistentVolumeClaims``: every template's claim that does not exist yet."""
    set_name = sts["metadata"]["name"]
    for template in sts["spec"].get("volumeClaimTemplates") or []:
        name = rules.claim_name(template, set_name, ordinal)
        if name in cluster.claims:
            continue
        claim = rules.new_claim(sts, template, ordinal, _uid(cluster), cluster.now)
        cluster.claims[name] = claim
        cluster.workload_event(sts, *rules.claim_event(sts, pod_name, name),
                               component=STATEFULSET_CONTROLLER)  # fmt: skip
        cluster.workload_event(claim, *rules.unbound_claim_event(claim),
                               component=rules.PV_CONTROLLER)  # fmt: skip


def condemn_claims(cluster: ClusterSimulation, sts: dict, pod: dict) -> None:
    """A Pod beyond the replicas: its claims' owners as the retention policy says."""
    ordinal = int(pod["metadata"]["name"].rsplit("-", 1)[1])
    for template in sts["spec"].get("volumeClaimTemplates") or []:
        claim = cluster.claims.get(rules.claim_name(template, sts["metadata"]["name"], ordinal))
        if claim is None:
            continue
        refs = rules.claim_owner_references(sts, pod, scaled_down=True)
        if refs:
            claim["metadata"]["ownerReferences"] = refs
        else:
            claim["metadata"].pop("ownerReferences", None)


def collect_garbage(cluster: ClusterSimulation) -> None:
    """The garbage collector: a claim owned by a Pod that is gone is deleted (once no
    Pod uses it: pvc-protection), and its provisioned volume with it (reclaim Delete)."""
    if not cluster.claims:
        return
    live = {run.pod_object_dict["metadata"].get("uid") for run in cluster.live_runs()}
    in_use = {
        name for run in cluster.live_runs() for name in rules.pod_claim_names(run.pod_object_dict)
    }
    for name, claim in list(cluster.claims.items()):
        owners = [
            r for r in claim["metadata"].get("ownerReferences") or [] if r.get("kind") == "Pod"
        ]
        if owners and all(r.get("uid") not in live for r in owners) and name not in in_use:
            del cluster.claims[name]
            volume = claim["spec"].get("volumeName")
            if volume:
                cluster.volumes.pop(volume, None)


def pod_claims(run: PodRun) -> list[str]:
    return rules.pod_claim_names(run.pod_object_dict)


def _claims_of(cluster: ClusterSimulation, run: PodRun) -> list[tuple[str, dict | None]]:
    return [(n, cluster.claims.get(n)) for n in rules.pod_claim_names(run.pod_object_dict)]


def pre_filter(cluster: ClusterSimulation, run: PodRun) -> str:
    """VolumeBinding's PreFilter: a missing claim, or an unbound one that binds at once."""
    for name, claim in _claims_of(cluster, run):
        if claim is None:
            return f'persistentvolumeclaim "{name}" not found'
    for _name, claim in _claims_of(cluster, run):
        if claim["status"].get("phase") != "Bound" and not rules.is_delay_binding_mode(claim):
            return rules.UNBOUND_IMMEDIATE
    return ""


def volume_filter(cluster: ClusterSimulation, run: PodRun):
    """VolumeBinding's Filter, or None when the Pod has no bound claim: a bound local
    volume only fits its own node."""
    pinned = set()
    for _name, claim in _claims_of(cluster, run):
        volume = cluster.volumes.get((claim or {}).get("spec", {}).get("volumeName") or "")
        if volume is not None:
            node = rules.volume_node(volume)
            if node is not None:
                pinned.add(node)
    if not pinned:
        return None

    def check(node: dict) -> FilterStatus | None:
        if node["metadata"]["name"] in pinned and len(pinned) == 1:
            return None
        return FilterStatus((rules.VOLUME_NODE_CONFLICT,), True)

    return check


def unbound_delayed_claims(cluster: ClusterSimulation, run: PodRun) -> list[dict]:
    return [
        claim
        for _name, claim in _claims_of(cluster, run)
        if claim is not None and claim["status"].get("phase") != "Bound"
    ]


def provision_then_bind(cluster: ClusterSimulation, run: PodRun, node: str, bind) -> None:
    """PreBind: write the chosen node on each unbound claim; the PV controller hands it to
    the external provisioner, which creates the volume on that node; once every claim is
    Bound the Pod is bound to the node."""
    claims = unbound_delayed_claims(cluster, run)
    component = provisioner_component(cluster)
    for claim in claims:
        claim["metadata"].setdefault("annotations", {})[rules.SELECTED_NODE] = node
        cluster.workload_event(claim, "Normal", "ExternalProvisioning",
                               rules.external_provisioning_message(),
                               component=rules.PV_CONTROLLER)  # fmt: skip
        cluster.workload_event(claim, "Normal", "Provisioning", rules.provisioning_message(claim),
                               component=component)  # fmt: skip
    run.provisioning = True
    cluster.clock.after(rules.PROVISION_MS,
                        partial(_provisioned, cluster, run, node, claims, bind), URGENT)  # fmt: skip


def _provisioned(cluster: ClusterSimulation, run: PodRun, node: str, claims: list[dict],
                 bind) -> None:  # fmt: skip
    run.provisioning = False
    component = provisioner_component(cluster)
    for claim in claims:
        if (
            claim["metadata"]["name"] not in cluster.claims
            or claim["status"].get("phase") == "Bound"
        ):
            continue
        volume = rules.provisioned_volume(claim, node, cluster.now)
        cluster.volumes[volume["metadata"]["name"]] = volume
        cluster.workload_event(claim, "Normal", "ProvisioningSucceeded",
                               f"Successfully provisioned volume {volume['metadata']['name']}",
                               component=component)  # fmt: skip
        rules.bind_claim(claim, volume, node)
    if run.pod_removed or run.deletion_ms is not None or run.node_name:
        return
    bind(node)


def provisioner_component(cluster: ClusterSimulation) -> str:
    """The event source of kind's local-path-provisioner: ``<provisioner>_<its Pod>_<uuid>``."""
    if cluster.provisioner_identity is None:
        rng = cluster.storage_names
        alphabet = "bcdfghjklmnpqrstvwxz2456789"
        rs_hash = "".join(alphabet[rng.getrandbits(5) % len(alphabet)] for _ in range(10))
        pod = "".join(alphabet[rng.getrandbits(5) % len(alphabet)] for _ in range(5))
        cluster.provisioner_identity = (
            f"{rules.PROVISIONER}_local-path-provisioner-{rs_hash}-{pod}_{_uid(cluster)}"
        )
    return cluster.provisioner_identity
