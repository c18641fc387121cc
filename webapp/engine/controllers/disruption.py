"""The disruption controller (PodDisruptionBudget status) and ``kubectl drain`` with the
Eviction API, driven by :mod:`rules.disruption`.

``sync_pdb`` is the controller's ``trySync``: the budget's status from the Pods its selector
matches and their controllers' scale. :class:`Drain` is ``kubectl drain NODE``: cordon,
then evict every Pod of the node through the Eviction API (a 429 is retried after 5 s, as
kubectl does), and wait until they are gone; its output lines are kubectl's. "Gone" is
kubectl's ``waitForDelete``: the Pod is not found, or a Pod of that name has another UID (a
StatefulSet's Pod recreated under the same name counts as gone).
"""

from __future__ import annotations

from typing import Any

from webapp.engine.controllers.rules import disruption as rules
from webapp.engine.core.clock import URGENT

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any


def sync_pdb(cluster: ClusterSimulation, pdb: dict[str, Any]) -> None:
    selector = (pdb.get("spec") or {}).get("selector")
    pods = [
        p
        for p in cluster.objects("Pod")
        if rules.selector_matches(selector, (p.get("metadata") or {}).get("labels") or {})
    ]
    pdb["status"] = rules.pdb_status(pdb, pods, cluster.scale_of, cluster.now)


class Drain:
    """One ``kubectl drain NODE`` run (default grace; ``--ignore-daemonsets`` unless
    ``ignore_daemonsets`` is False: then a DaemonSet's Pod on the node stops the drain)."""

    def __init__(self, cluster: ClusterSimulation, node: str, *,
                 ignore_daemonsets: bool = True) -> None:  # fmt: skip
        self.cluster = cluster
        self.node = node
        self.ignore_daemonsets = ignore_daemonsets
        self.lines: list[str] = []  # stdout and stderr, in order
        self.pending: dict[str, float] = {}  # pod name -> when to try (again)
        self.evicted: dict[str, str] = {}  # pod name -> the UID of the Pod evicted
        self.done = False

    def start(self) -> None:
        cluster = self.cluster
        state = cluster.nodes_by_name[self.node]
        was = bool((state.obj.get("spec") or {}).get("unschedulable"))
        state.obj["spec"] = {**(state.obj.get("spec") or {}), "unschedulable": True}
        self.lines.append(rules.cordon_message(self.node, was))
        evictable, warnings, errors = rules.pods_for_deletion(
            cluster.objects("Pod"), self.node, ignore_daemonsets=self.ignore_daemonsets
        )
        warning = rules.drain_warning_line(warnings)
        if warning:
            self.lines.append(warning)
        if errors:
            self.lines.append(f"error: unable to drain node \"{self.node}\" due to error: "
                              f"{'; '.join(errors)}, continuing command...")  # fmt: skip
            self.done = True
            return
        for pod in evictable:
            self.pending[pod["metadata"]["name"]] = cluster.now
        self._round()

    def _round(self) -> None:
        cluster = self.cluster
        now = cluster.now
        for name in list(self.pending):
            if self.pending[name] > now:
                continue
            pod = cluster.pod(name)
            if pod is None:
                del self.pending[name]
                continue
            self.lines.append(rules.evicting_line(pod))
            result = rules.evict(pod, list(cluster.pdbs.values()), now)
            if result.allowed:
                if result.pdb_name and result.pdb_status is not None:
                    cluster.pdbs[result.pdb_name]["status"] = result.pdb_status
                del self.pending[name]
                self.evicted[name] = str(pod["metadata"].get("uid") or "")
                if result.condition is not None:  # addConditionAndDeletePod
                    cluster.runs[name].add_pod_condition(result.condition)
                cluster.delete_pod_named(name, cause=f"Evicted by kubectl drain {self.node}")
            elif result.code == 429:
                self.lines.append(rules.eviction_retry_line(pod, result))
                self.pending[name] = now + rules.EVICT_ERROR_RETRY_DELAY
            else:
                self.lines.append(rules.eviction_error_line(pod, result))
                del self.pending[name]
        for name in sorted(self.evicted):
            if rules.deleted_since_eviction(cluster.pod(name), self.evicted[name]):
                del self.evicted[name]
                self.lines.append(f"pod/{name} evicted")
        if not self.pending and not self.evicted:
            self.lines.append(rules.drained_line(self.node))
            self.done = True
            return
        cluster.clock.after(round(rules.DRAIN_POLL_INTERVAL * 1000), self._round, URGENT)
        cluster.sync_at(now)
