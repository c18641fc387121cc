"""``node-down`` / ``node-up`` in a cluster of many Pods (engine/cluster.py).

The node lifecycle controller's steps for every Pod of the node, as the single-Pod
actions do them for one (engine/actions.py): the kubelet stops posting; after the node
monitor grace period the node is Unknown and tainted, each of its Pods gets Ready False
(MarkPodsNotReady) and a NodeNotReady Event, and the taint-eviction controller deletes each
one once its toleration of the unreachable taint ran out (300 s by default), after
patching in the condition DisruptionTarget (DeletionByTaintManager), so the
ReplicaSet creates replacements on the other nodes. The evicted Pods stay Terminating
while their kubelet is away. ``node-up`` cancels what is still pending.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from webapp.engine.api.events import NORMAL, WARNING
from webapp.engine.controllers.node_lifecycle import (
    NODE_MONITOR_GRACE_PERIOD_MS,
    TAINT_EVICTION_CONDITION,
    mark_node_ready,
    mark_node_unknown,
    unreachable_toleration_seconds,
)
from webapp.engine.core.clock import URGENT

# ClusterSimulation: engine/cluster.py (not imported: it imports this module's callers)
ClusterSimulation = Any


def node_down(sim: ClusterSimulation, name: str) -> None:
    state = sim.nodes_by_name[name]
    state.kubelet_up = False
    state.timers.append(
        sim.clock.after(NODE_MONITOR_GRACE_PERIOD_MS, partial(_not_ready, sim, name), URGENT)
    )


def _runs_on(sim: ClusterSimulation, name: str) -> list[Any]:
    return [run for run in sim.live_runs() if run.node_name == name]


def _not_ready(sim: ClusterSimulation, name: str) -> None:
    state = sim.nodes_by_name[name]
    state.not_ready = True
    state.obj = mark_node_unknown(state.obj, sim.now_ms)
    for run in _runs_on(sim, name):
        run.mark_pod_not_ready()
        run.pod_event(WARNING, "NodeNotReady", "Node is not ready", component="node-controller")
        seconds = unreachable_toleration_seconds(run.pod_spec)
        if seconds is not None:
            state.timers.append(sim.clock.after(seconds * 1000, partial(_evict, sim, run), URGENT))
    sim.sync()


def _evict(sim: ClusterSimulation, run: Any) -> None:
    if run.pod_removed or run.deletion_ms is not None:
        return
    run.pod_event(NORMAL, "TaintManagerEviction",
                  f"Marking for deletion Pod {run.namespace}/{run.pod_name}",
                  component="taint-eviction-controller", with_uid=False)  # fmt: skip
    run.add_pod_condition(TAINT_EVICTION_CONDITION)  # addConditionAndDeletePod
    sim.delete_pod_named(run.pod_name, cause="Evicted: the node is unreachable")
    sim.sync()


def node_up(sim: ClusterSimulation, name: str) -> None:
    state = sim.nodes_by_name[name]
    state.cancel_timers()
    state.kubelet_up = True
    if state.not_ready:
        state.not_ready = False
        state.obj = mark_node_ready(state.obj, sim.now_ms)
    for run in _runs_on(sim, name):
        if run.kubelet is not None:
            run.mark_dirty()
            run.kubelet.node_returned()
            if run.start_time_ms is None:
                sim.clock.after(0, run.kubelet_admits, URGENT)
    for run in sim.live_runs():
        run.retry_scheduling()
    sim.sync()
