"""The container runtime (what CRI and containerd do) and the simulated processes.

The kubelet never looks inside a process; it creates, starts and stops containers and
reads back their state. How each process behaves (what it logs, when it exits by itself,
what it does with the stop signal, whether it runs out of memory) comes from the process
model (:mod:`webapp.engine.programs`, through :mod:`processes`), derived from the image and
the command; a field the scenario's Simulation document sets itself overrides it.
Terminated reasons are the runtime's: ``Completed`` (exit 0), ``Error``, ``OOMKilled``,
``StartError`` (KUBERNETES-SEMANTICS §3.3, §3.4; CONTAINER-SEMANTICS §1.7, §2).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from webapp.engine.core.clock import URGENT, Clock, Timer
from webapp.engine.core.process import Signal
from webapp.engine.kubelet.processes import explicit

OVERRIDES_STOP = ("ignoreSigterm", "sigtermSeconds", "sigtermExitCode")

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
    message: str = ""  # state.terminated.message: the termination message, or the runtime's
    signal: str | None = None  # the last signal the runtime sent (the stop signal, SIGKILL)
    sigterm_ms: int | None = None  # when the stop signal was sent, if it was
    exited: Signal = field(default_factory=Signal)
    timers: list[Timer] = field(default_factory=list)
    process: Any = None  # programs.Process: what runs inside
    wake: Timer | None = None  # the process model's next timer

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
        processes: Any = None,
        records: dict | None = None,
    ) -> None:
        self.clock = clock
        self.rng = rng
        self.behaviours = behaviours
        self.on_exit = on_exit
        self.processes = processes  # kubelet.processes.PodProcesses
        self.records = records if records is not None else {}

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
        """``StartContainer``: the runtime execs the process, which may end by itself later."""
        instance.started_ms = self.clock.now_ms
        behaviour = self.behaviours.get(instance.name) or {}
        record = self.records.get(instance.name)
        if self.processes is not None and record is not None:
            instance.process = self.processes.start(record, instance, memory_limit_bytes)
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
        self.watch(instance)

    def watch(self, instance: ContainerInstance) -> None:
        """Follow the process model: an exit it reached ends the container; its next timer
        is scheduled on the clock."""
        process = instance.process
        if process is None or not instance.running:
            return
        behaviour = self.behaviours.get(instance.name) or {}
        if process.exit_code is not None and explicit(behaviour, "exitAfterSeconds"):
            return  # the Simulation document says when this container ends, not its command
        if process.exit_code is not None:
            if process.start_error:
                self.exit(
                    instance, process.exit_code, reason="StartError", message=process.start_error
                )
            else:
                self.exit(instance, process.exit_code, oom=process.oom)
            return
        wake = process.next_wake()
        if instance.wake is not None and not instance.wake.cancelled:
            if wake is not None and instance.wake.at_ms == max(wake, self.clock.now_ms):
                return
            instance.wake.cancel()
        instance.wake = None
        if wake is not None:
            instance.wake = self.clock.schedule(wake, partial(self._tick, instance), URGENT)
            instance.timers.append(instance.wake)

    def _tick(self, instance: ContainerInstance) -> None:
        instance.wake = None
        if instance.process is not None and instance.running:
            instance.process.advance(self.clock.now_ms, self.processes.world())
            self.watch(instance)
            self._followers(instance)

    def _followers(self, writer: ContainerInstance) -> None:
        """A container's step may have written a shared volume: a ``tail -f`` in another
        container of the Pod reads it at its next poll (programs.Process.follow_changes)."""
        for record in self.records.values():
            other = record.newest
            if other is None or other is writer or not other.running or other.process is None:
                continue
            if other.process.follows and other.process.follow_changes(self.clock.now_ms):
                self.watch(other)

    def stop_signal(self, instance: ContainerInstance) -> str:
        """containerd's choice: the container's ``lifecycle.stopSignal``, else the image's
        STOPSIGNAL, else SIGTERM (CONTAINER-SEMANTICS §2)."""
        derived = self.processes.derived.get(instance.name) if self.processes is not None else None
        return derived.stop_signal if derived is not None else "SIGTERM"

    def stop(self, instance: ContainerInstance, timeout_ms: int) -> None:
        """``StopContainer(timeout)``: the stop signal now, SIGKILL when the timeout runs out.

        containerd sends the stop signal only ``if timeout > 0`` (criService.stopContainer);
        a timeout of zero or less (a grace that wrapped around, see
        :func:`apiserver.deletion.go_seconds_ns`) is SIGKILL at once."""
        if not instance.running:
            return
        if timeout_ms <= 0:
            self._later(instance, 0, partial(self.sigkill, instance))
            return
        if instance.signal is not None:
            # A second StopContainer (a shorter grace): the stop signal again, which the
            # process already handles, and a SIGKILL deadline that can only come earlier.
            self._later(instance, timeout_ms, partial(self.sigkill, instance))
            return
        behaviour = self.behaviours.get(instance.name) or {}
        overridden = any(explicit(behaviour, key) for key in OVERRIDES_STOP)
        if instance.process is None or overridden:
            instance.signal = "SIGTERM"
            instance.sigterm_ms = self.clock.now_ms
            if not behaviour.get("ignoreSigterm"):
                sigterm_ms = round(float(behaviour.get("sigtermSeconds") or 0) * 1000)
                if sigterm_ms < timeout_ms:
                    code = int(behaviour.get("sigtermExitCode", SIGTERM_EXIT_CODE))
                    self._later(instance, sigterm_ms, partial(self.exit, instance, code))
                    return
            self._later(instance, timeout_ms, partial(self.sigkill, instance))
            return
        signal = self.stop_signal(instance)
        instance.signal = signal
        instance.sigterm_ms = self.clock.now_ms
        self._later(instance, timeout_ms, partial(self.sigkill, instance))
        instance.process.signal(self.clock.now_ms, signal, self.processes.world())
        self.watch(instance)

    def sigkill(self, instance: ContainerInstance) -> None:
        if instance.running:
            instance.signal = "SIGKILL"
            self.exit(instance, SIGKILL_EXIT_CODE)

    def oom(self, instance: ContainerInstance) -> None:
        """The kernel's OOM killer: exit 137, reason OOMKilled."""
        self.exit(instance, SIGKILL_EXIT_CODE, oom=True)

    def exit(self, instance: ContainerInstance, exit_code: int, *, oom: bool = False,
             reason: str = "", message: str = "") -> None:  # fmt: skip
        """The process ended: the runtime records it and PLEG will notice."""
        if not instance.running:
            return
        for timer in instance.timers:
            timer.cancel()
        instance.timers.clear()
        instance.wake = None
        process = instance.process
        if process is not None and process.running:
            process.kill(self.clock.now_ms, oom=oom)  # the crash action, a forced exit, SIGKILL
        instance.finished_ms = self.clock.now_ms
        instance.exit_code = exit_code
        instance.reason = reason or terminated_reason(exit_code, oom)
        instance.message = message or self._termination_message(instance, exit_code)
        instance.exited.fire()
        self.on_exit(instance)

    def _termination_message(self, instance: ContainerInstance, exit_code: int) -> str:
        """``getTerminationMessage``: the file at terminationMessagePath, or with
        FallbackToLogsOnError and a non-zero exit the last log lines."""
        record = self.records.get(instance.name)
        if instance.process is None or record is None:
            return ""
        spec = record.spec
        path = str(spec.get("terminationMessagePath") or "/dev/termination-log")
        policy = str(spec.get("terminationMessagePolicy") or "File")
        return instance.process.termination_message(path, policy, exit_code)

    def remove_timers(self, instance: ContainerInstance) -> None:
        for timer in instance.timers:
            timer.cancel()
        instance.timers.clear()
        instance.wake = None

    def _later(
        self, instance: ContainerInstance, delay_ms: int, action: Callable[[], None]
    ) -> None:
        instance.timers.append(self.clock.after(delay_ms, action, URGENT))
