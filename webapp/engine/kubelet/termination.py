"""Stopping containers: ``killContainer`` and ``executePreStopHook``
(``pkg/kubelet/kuberuntime/kuberuntime_container.go``), KUBERNETES-SEMANTICS §6.2, §7.3, §8.

The Killing event comes first, then preStop runs for at most the grace period and its
whole seconds are subtracted, a sidecar waits its turn (also out of the grace), the
remainder is raised to at least 2 s, and the runtime sends SIGTERM and, when that runs
out, SIGKILL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from webapp.engine.api.events import NORMAL, WARNING
from webapp.engine.core.process import Signal
from webapp.engine.kubelet.hooks import PRE_STOP

if TYPE_CHECKING:
    from webapp.engine.core.cluster import Cluster
    from webapp.engine.kubelet.record import ContainerRecord
    from webapp.engine.kubelet.runtime import ContainerInstance


class KubeletParts(Protocol):
    """What ``killContainer`` uses of the kubelet that calls it."""

    sim: Cluster
    clock: Any  # core.clock.Clock
    runtime: Any  # kubelet.runtime.Runtime

    def event(
        self, record: ContainerRecord, event_type: str, reason: str, message: str
    ) -> None: ...

    def hook_run(
        self, record: ContainerRecord, instance: ContainerInstance, hook: str, limit_ms: int | None
    ) -> Any: ...  # kubelet.hooks.HookRun | None


MINIMUM_GRACE_PERIOD_SECONDS = 2  # kuberuntime_manager.go minimumGracePeriodInSeconds


def minimum_grace_ms() -> int:
    return MINIMUM_GRACE_PERIOD_SECONDS * 1000


def effective_grace_seconds(requested: int | None, spec_grace: int) -> int:
    """``calculateEffectiveGracePeriod``: the API's deletion grace, else the spec's;
    an explicit 0 (force deletion) is kept and clamped to 1."""
    grace = spec_grace if requested is None else requested
    return max(1, int(grace))


def kill_container(
    kubelet: KubeletParts,
    record: ContainerRecord,
    instance: ContainerInstance,
    message: str,
    grace_s: int,
    *,
    step: str,
    turn: Signal | None = None,
) -> Iterator:
    """``killContainer``: a process generator that ends once the container has exited."""
    sim = kubelet.sim
    clock = kubelet.clock
    obj = f"Container/{record.name}"
    if not instance.running:
        return
    kubelet.event(record, NORMAL, "Killing", message)
    grace_ms = grace_s * 1000
    hook = kubelet.hook_run(record, instance, PRE_STOP, grace_ms) if grace_ms > 0 else None
    if hook is not None and grace_ms > 0:
        started = clock.now_ms
        sim.transition("preStop", obj, "hook.preStop", None, "running",
                       f"preStop hook running ({message})", container=record.name)  # fmt: skip
        waited = min(hook.duration_ms, grace_ms)
        if waited:
            try:
                yield waited
            except GeneratorExit:  # the sync was cancelled (a shorter grace period)
                sim.transition("preStop", obj, "hook.preStop", "running", "interrupted",
                               "preStop hook interrupted: the kubelet cancelled this sync",
                               container=record.name)  # fmt: skip
                raise
        if hook.duration_ms > grace_ms:
            outcome, cause = "timedOut", "preStop hook still running when the grace period ran out"
        elif hook.fails:
            outcome, cause = "failed", "preStop hook failed"
            kubelet.event(record, WARNING, "FailedPreStopHook", "PreStopHook failed")
        else:
            outcome, cause = "succeeded", "preStop hook returned"
        sim.transition("preStop", obj, "hook.preStop", "running", outcome, cause,
                       container=record.name)  # fmt: skip
        grace_ms -= (clock.now_ms - started) // 1000 * 1000
    if turn is not None and not turn.fired:
        waited_from = clock.now_ms
        yield turn
        grace_ms -= (clock.now_ms - waited_from) // 1000 * 1000
    grace_ms = max(grace_ms, minimum_grace_ms())
    if not instance.running:
        return
    signal = kubelet.runtime.stop_signal(instance)
    sim.transition(step, obj, "signal", None, signal,
                   f"{signal} sent; SIGKILL in {grace_ms // 1000}s if still running",
                   container=record.name, stage=5 if sim.deletion_ms is not None else None)  # fmt: skip
    kubelet.runtime.stop(instance, grace_ms)
    yield instance.exited
