"""The container runtime (what CRI and containerd do) and the simulated processes.

The kubelet never looks inside a process; it creates, starts and stops containers and
reads back their state. How each process behaves (when it answers probes, exits by itself,
reacts to SIGTERM, runs out of memory) comes from the scenario's Simulation document.
Terminated reasons are the runtime's: ``Completed`` (exit 0), ``Error``, ``OOMKilled``
(KUBERNETES-SEMANTICS §3.3, §3.4).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from webapp.engine.core.clock import URGENT, Clock, Timer
from webapp.engine.core.process import Signal

SIGTERM_EXIT_CODE = 143  # 128 + 15
SIGKILL_EXIT_CODE = 137  # 128 + 9
OOM_AFTER_START_MS = 1_000  # the working set outgrows the limit about a second after start


@dataclass(eq=False, slots=True)
class ContainerInstance:
    """One runtime container (``kubecontainer.Status``): a single attempt of a container."""

    name: str
    container_id: str
    attempt: int
    image: str
    image_id: str
    created_ms: int
    started_ms: int | None = None
    finished_ms: int | None = None
    exit_code: int | None = None
    reason: str = ""
    signal: str | None = None  # the last signal the runtime sent: SIGTERM or SIGKILL
    sigterm_ms: int | None = None  # when the stop signal (SIGTERM) was sent, if it was
    exited: Signal = field(default_factory=Signal)
    timers: list[Timer] = field(default_factory=list)

    @property
    def state(self) -> str:
        """``ContainerStateCreated`` / ``Running`` / ``Exited``."""
        if self.finished_ms is not None:
            return "exited"
        return "running" if self.started_ms is not None else "created"

    @property
    def running(self) -> bool:
        return self.started_ms is not None and self.finished_ms is None


def terminated_reason(exit_code: int, oom: bool = False) -> str:
    """containerd's reason for an exited container."""
    if oom:
        return "OOMKilled"
    return "Completed" if exit_code == 0 else "Error"


class Runtime:
    """Creates and runs container instances for one Pod on one node."""

    def __init__(
        self,
        clock: Clock,
        rng: random.Random,
        behaviours: dict[str, dict],
        on_exit: Callable[[ContainerInstance], None],
    ) -> None:
        self.clock = clock
        self.rng = rng
        self.behaviours = behaviours
        self.on_exit = on_exit

    def new_container_id(self) -> str:
        return "containerd://" + f"{self.rng.getrandbits(256):064x}"

    def create(self, name: str, attempt: int, image: str, image_id: str) -> ContainerInstance:
        """``CreateContainer``."""
        return ContainerInstance(
            name=name,
            container_id=self.new_container_id(),
            attempt=attempt,
            image=image,
            image_id=image_id,
            created_ms=self.clock.now_ms,
        )

    def start(self, instance: ContainerInstance, memory_limit_bytes: int | None) -> None:
        """``StartContainer``: the process runs and may end by itself later."""
        instance.started_ms = self.clock.now_ms
        behaviour = self.behaviours.get(instance.name) or {}
        exit_after = behaviour.get("exitAfterSeconds")
        if exit_after is not None:
            code = int(behaviour.get("exitCode", 0))
            self._later(
                instance, round(float(exit_after) * 1000), partial(self.exit, instance, code)
            )
        memory_mib = behaviour.get("memoryMiB")
        over_limit = memory_limit_bytes is not None and memory_mib is not None
        if over_limit and memory_mib * 1024 * 1024 > memory_limit_bytes:
            self._later(instance, OOM_AFTER_START_MS, partial(self.oom, instance))

    def stop(self, instance: ContainerInstance, timeout_ms: int) -> None:
        """``StopContainer(timeout)``: SIGTERM now, SIGKILL when the timeout runs out.

        containerd sends the stop signal only ``if timeout > 0`` (criService.stopContainer);
        a timeout of zero or less (a grace that wrapped around, see
        :func:`apiserver.deletion.go_seconds_ns`) is SIGKILL at once."""
        if not instance.running:
            return
        if timeout_ms <= 0:
            self._later(instance, 0, partial(self.sigkill, instance))
            return
        if instance.signal is not None:
            # A second StopContainer (a shorter grace): SIGTERM again, which the process
            # already handles, and a SIGKILL deadline that can only come earlier.
            self._later(instance, timeout_ms, partial(self.sigkill, instance))
            return
        instance.signal = "SIGTERM"
        instance.sigterm_ms = self.clock.now_ms
        behaviour = self.behaviours.get(instance.name) or {}
        if not behaviour.get("ignoreSigterm"):
            sigterm_ms = round(float(behaviour.get("sigtermSeconds") or 0) * 1000)
            if sigterm_ms < timeout_ms:
                code = int(behaviour.get("sigtermExitCode", SIGTERM_EXIT_CODE))
                self._later(instance, sigterm_ms, partial(self.exit, instance, code))
                return
        self._later(instance, timeout_ms, partial(self.sigkill, instance))

    def sigkill(self, instance: ContainerInstance) -> None:
        if instance.running:
            instance.signal = "SIGKILL"
            self.exit(instance, SIGKILL_EXIT_CODE)

    def oom(self, instance: ContainerInstance) -> None:
        """The kernel's OOM killer: exit 137, reason OOMKilled."""
        self.exit(instance, SIGKILL_EXIT_CODE, oom=True)

    def exit(self, instance: ContainerInstance, exit_code: int, *, oom: bool = False) -> None:
        """The process ended: the runtime records it and PLEG will notice."""
        if not instance.running:
            return
        for timer in instance.timers:
            timer.cancel()
        instance.timers.clear()
        instance.finished_ms = self.clock.now_ms
        instance.exit_code = exit_code
        instance.reason = terminated_reason(exit_code, oom)
        instance.exited.fire()
        self.on_exit(instance)

    def remove_timers(self, instance: ContainerInstance) -> None:
        for timer in instance.timers:
            timer.cancel()
        instance.timers.clear()

    def _later(
        self, instance: ContainerInstance, delay_ms: int, action: Callable[[], None]
    ) -> None:
        instance.timers.append(self.clock.after(delay_ms, action, URGENT))
