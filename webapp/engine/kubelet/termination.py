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
from webapp.engine.apiserver.deletion import go_seconds_ms
from webapp.engine.core.process import Signal, first_of
from webapp.engine.core.timefmt import go_duration
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
    """``killContainer``: a process generator that ends once the container has exited.

    Returns False when the runtime could not be asked to stop it (:func:`stop_deadline_ms`),
    True otherwise. The grace is an int64 of seconds as in Go, and each wait on it is
    ``time.Duration(grace) * time.Second``, which wraps around for a grace beyond about 292
    years (:func:`apiserver.deletion.go_seconds_ns`): a wait that wraps to zero or less ends
    at once, as ``time.After`` does."""
    sim = kubelet.sim
    clock = kubelet.clock
    obj = f"Container/{record.name}"
    if not instance.running:
        return True
    kubelet.event(record, NORMAL, "Killing", message)
    limit_ms = max(0, go_seconds_ms(grace_s))  # executePreStopHook's time.After
    hook = kubelet.hook_run(record, instance, PRE_STOP, limit_ms) if grace_s > 0 else None
    if hook is not None and grace_s > 0:
        started = clock.now_ms
        sim.transition("preStop", obj, "hook.preStop", None, "running",
                       f"preStop hook running ({message})", container=record.name)  # fmt: skip
        waited = min(hook.duration_ms, limit_ms)
        if waited:
            try:
                yield waited
            except GeneratorExit:  # the sync was cancelled (a shorter grace period)
                sim.transition("preStop", obj, "hook.preStop", "running", "interrupted",
                               "preStop hook interrupted: the kubelet cancelled this sync",
                               container=record.name)  # fmt: skip
                raise
        if hook.duration_ms > limit_ms:
            outcome, cause = "timedOut", "preStop hook still running when the grace period ran out"
        elif hook.fails:
            outcome, cause = "failed", "preStop hook failed"
            kubelet.event(record, WARNING, "FailedPreStopHook", "PreStopHook failed")
        else:
            outcome, cause = "succeeded", "preStop hook returned"
        sim.transition("preStop", obj, "hook.preStop", "running", outcome, cause,
                       container=record.name)  # fmt: skip
        grace_s -= (clock.now_ms - started) // 1000
    if turn is not None and not turn.fired and grace_s > 0:
        # waitForTurn: the earlier of its turn and time.After(time.Duration(grace) * time.Second)
        waited_from = clock.now_ms
        limit_ms = max(0, go_seconds_ms(grace_s))
        if limit_ms:
            yield first_of(clock, turn, limit_ms)
        grace_s -= (clock.now_ms - waited_from) // 1000
    grace_s = max(grace_s, MINIMUM_GRACE_PERIOD_SECONDS)
    if not instance.running:
        return True
    stage = 5 if sim.deletion_ms is not None else None
    timeout_ms = go_seconds_ms(grace_s)
    if stop_deadline_ms(timeout_ms) <= 0:
        sim.transition(step, obj, "signal", None, "failed",
                       f"StopContainer failed: {STOP_DEADLINE_ERROR} (the call's deadline, 2m + "
                       f"time.Duration({grace_s}) * time.Second, wrapped below zero)",
                       container=record.name, stage=stage)  # fmt: skip
        return False
    if timeout_ms <= 0:
        cause = (f"SIGKILL at once: containerd's stop timeout time.Duration({grace_s}) * "
                 f"time.Second wrapped to {go_duration(timeout_ms)}")  # fmt: skip
        sim.transition(step, obj, "signal", None, "SIGKILL", cause,
                       container=record.name, stage=stage)  # fmt: skip
    else:
        signal = kubelet.runtime.stop_signal(instance)
        sim.transition(step, obj, "signal", None, signal,
                       f"{signal} sent; SIGKILL in {timeout_ms // 1000}s if still running",
                       container=record.name, stage=stage)  # fmt: skip
    kubelet.runtime.stop(instance, timeout_ms)
    yield instance.exited
    return True


# The kubelet's CRI client gives StopContainer a deadline of its default timeout (2 minutes)
# plus the stop timeout (remote_runtime.go StopContainer). When the wrapped timeout makes
# that zero or less, the gRPC call fails at once and the container keeps running.
CRI_DEFAULT_TIMEOUT_MS = 120_000
STOP_DEADLINE_ERROR = "rpc error: code = DeadlineExceeded desc = context deadline exceeded"


def stop_deadline_ms(timeout_ms: int) -> int:
    """``r.timeout + time.Duration(timeout)*time.Second``, in milliseconds."""
    return CRI_DEFAULT_TIMEOUT_MS + timeout_ms


def kill_failure_message(container: str) -> str:
    """``PodSyncResult.Error()`` of a failed KillContainer, as FailedKillPod shows it."""
    return (f'error killing pod: failed to "KillContainer" for "{container}" with '
            f'KillContainerError: "{STOP_DEADLINE_ERROR}"')  # fmt: skip
