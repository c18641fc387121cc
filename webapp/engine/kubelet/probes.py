"""Probe workers: ``pkg/kubelet/prober/worker.go`` doProbe and ``prober.go`` probe.

One worker per (container, probe type), started when the kubelet adds the Pod, ticking
every ``periodSeconds`` from its start (KUBERNETES-SEMANTICS §5.2). The worker reads the
container from the API status the kubelet last wrote (as the real one reads the status
manager), so it waits while a postStart hook still hides the container.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from webapp.engine.core.clock import LATE, Clock, Timer

SUCCESS = "success"
FAILURE = "failure"
UNKNOWN = "unknown"
PROBE_TYPES = ("startup", "liveness", "readiness")
SPEC_FIELD = {"startup": "startupProbe", "liveness": "livenessProbe", "readiness": "readinessProbe"}
# worker.go: the result written when a new container ID is first seen.
INITIAL_RESULT = {"readiness": FAILURE, "liveness": SUCCESS, "startup": UNKNOWN}


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    """A probe with SetDefaults_Probe applied, in milliseconds."""

    initial_delay_ms: int
    period_ms: int
    timeout_ms: int
    success_threshold: int
    failure_threshold: int
    termination_grace_period_seconds: int | None
    handler: dict

    @classmethod
    def from_api(cls, probe: dict) -> ProbeSpec:
        handler = {k: v for k, v in probe.items() if k in ("exec", "httpGet", "tcpSocket", "grpc")}
        return cls(
            initial_delay_ms=int(probe.get("initialDelaySeconds") or 0) * 1000,
            period_ms=max(1, int(probe.get("periodSeconds") or 10)) * 1000,
            timeout_ms=max(1, int(probe.get("timeoutSeconds") or 1)) * 1000,
            success_threshold=max(1, int(probe.get("successThreshold") or 1)),
            failure_threshold=max(1, int(probe.get("failureThreshold") or 3)),
            termination_grace_period_seconds=probe.get("terminationGracePeriodSeconds"),
            handler=handler,
        )


def _port(container: dict, port: object) -> object:
    """A named port resolved against the container's ports (``findPortByName``)."""
    if isinstance(port, str) and not port.isdigit():
        for declared in container.get("ports") or []:
            if declared.get("name") == port:
                return declared.get("containerPort")
    return port


def failure_output(container: dict, spec: ProbeSpec, pod_ip: str, listening: bool) -> str:
    """What the prober reports for a failing check (§5.4; outputs best knowledge)."""
    handler = spec.handler
    if "httpGet" in handler:
        http = handler["httpGet"] or {}
        host = http.get("host") or pod_ip
        port = _port(container, http.get("port"))
        if listening:
            return "HTTP probe failed with statuscode: 500"
        scheme = str(http.get("scheme") or "HTTP").lower()
        url = f"{scheme}://{host}:{port}{http.get('path') or '/'}"
        return f'Get "{url}": dial tcp {host}:{port}: connect: connection refused'
    if "tcpSocket" in handler:
        tcp = handler["tcpSocket"] or {}
        host = tcp.get("host") or pod_ip
        return f"dial tcp {host}:{_port(container, tcp.get('port'))}: connect: connection refused"
    if "grpc" in handler:
        port = (handler["grpc"] or {}).get("port")
        if listening:
            return 'service unhealthy (responded with "NOT_SERVING")'
        return f'timeout: failed to connect service "{pod_ip}:{port}" within 1s'
    command = ((handler.get("exec") or {}).get("command")) or []
    return exec_failure_output(command)


def exec_failure_output(command: list) -> str:
    """A plausible output of a failing exec check (busybox wording for file checks)."""
    words = [str(word) for word in command]
    if len(words) >= 3 and words[0] in ("sh", "/bin/sh", "bash", "/bin/bash") and words[1] == "-c":
        words = words[2].split()
    if len(words) == 2 and words[0] in ("cat", "/bin/cat"):
        return f"cat: can't open '{words[1]}': No such file or directory\n"
    if len(words) == 2 and words[0] in ("ls", "/bin/ls"):
        return f"ls: {words[1]}: No such file or directory\n"
    return ""


class ProbedContainer(Protocol):
    """What a probe worker reads of the container it probes (kubelet.record.ContainerRecord)."""

    spec: dict
    health: dict[str, bool]
    snapshot: Any  # kubelet.status.ContainerSnapshot | None: the API status last written

    @property
    def started(self) -> bool: ...
    @property
    def newest(self) -> Any: ...  # kubelet.runtime.ContainerInstance | None
    @property
    def start_ms(self) -> int: ...


class ProbeWorker:
    """``worker``: probes one container periodically and stores a thresholded result."""

    def __init__(
        self,
        clock: Clock,
        record: ProbedContainer,
        probe_type: str,
        spec: ProbeSpec,
        on_run: Callable[[ProbeWorker, str, str, bool], None],
        on_result: Callable[[ProbeWorker], None],
        context: ProbeContext,
    ) -> None:
        self.clock = clock
        self.record = record
        self.probe_type = probe_type
        self.spec = spec
        self.on_run = on_run
        self.on_result = on_result
        self.context = context
        self.result = ""  # no result until the worker sees a container
        self.container_id = ""
        self.on_hold = False
        self.last_result = ""
        self.result_run = 0
        self.stopped = False
        self._manual: Timer | None = None
        self.timer = clock.after(0, self.tick, LATE, tag=self)

    def stop(self) -> None:
        self.stopped = True
        self.timer.cancel()
        if self._manual is not None:
            self._manual.cancel()

    def trigger(self) -> None:
        """``manualTriggerCh``: one extra run now (a pending trigger is not doubled)."""
        if self.stopped or (self._manual is not None and not self._manual.cancelled):
            return
        self._manual = self.clock.after(0, self._manual_run, LATE)

    def _manual_run(self) -> None:
        self._manual = None
        if self.context.kubelet_up():
            self._do_probe()

    def tick(self) -> None:
        if self.stopped:
            return
        self.timer = self.clock.after(self.spec.period_ms, self.tick, LATE, tag=self)
        if self.context.kubelet_up():
            self._do_probe()

    def _set_result(self, result: str) -> None:
        if result != self.result:
            self.result = result
            self.on_result(self)

    def _do_probe(self) -> None:
        """``doProbe``, step by step as in worker.go (§5.2)."""
        context = self.context
        if context.pod_terminal():
            self.stop()
            return
        snapshot = self.record.snapshot
        if snapshot is None or not snapshot.container_id:
            return
        if snapshot.container_id != self.container_id:
            self.container_id = snapshot.container_id
            self.on_hold = False
            self.last_result, self.result_run = "", 0
            self._set_result(INITIAL_RESULT[self.probe_type])
        if self.on_hold:
            return
        if not snapshot.running:
            self._set_result(FAILURE)
            if snapshot.terminated is not None and context.restart_policy() == "Never":
                self.stop()
            return
        if context.deleting() and self.probe_type != "readiness":
            self._set_result(SUCCESS)
            self.stop()
            return
        if self.clock.now_ms - (snapshot.started_ms or 0) < self.spec.initial_delay_ms:
            return
        started = self.record.started
        if (self.probe_type == "startup") == started:
            return  # startup probes stop once started; the others wait for it
        result, output, errored = self._probe()
        self.on_run(self, result, output, errored)
        if result == self.last_result:
            self.result_run += 1
        else:
            self.last_result, self.result_run = result, 1
        threshold = (
            self.spec.failure_threshold if result == FAILURE else self.spec.success_threshold
        )
        if self.result_run < threshold:
            return
        self._set_result(result)
        if result == FAILURE and self.probe_type != "readiness":
            self.on_hold = True
            self.result_run = 0

    def _probe(self) -> tuple[str, str, bool]:
        return self._probe_at(self.clock.now_ms)  # type: ignore[return-value]

    def _probe_at(self, now_ms: int, *, dry: bool = False) -> tuple[str, str, bool] | None:
        """(result, output, errored): run the handler against the container's process model;
        a health the Simulation document or a ``set-probe`` action forces answers instead
        (after ``startSeconds``). ``dry`` (coasting): the answer every tick before the next
        clock event would give, without running anything, or None when that answer is not a
        pure function of state that holds until then (:meth:`Processes.steady_probe`)."""
        instance = self.record.newest
        context = self.context
        forced = self.record.health.get(self.probe_type)
        if forced is None and context.run_handler is not None:
            return context.run_handler(self.record, self.probe_type, self.spec, dry)
        listening = bool(
            instance is not None
            and instance.running
            and now_ms - (instance.started_ms or 0) >= self.record.start_ms
        )
        if listening and forced is not False:
            return SUCCESS, "", False
        output = failure_output(self.record.spec, self.spec, context.pod_ip(), listening)
        return FAILURE, output, False

    # -- coasting --------------------------------------------------------------------------

    def repeats(self, first_ms: int, limit_ms: int) -> Repeats | None:
        """What this worker's periodic ticks at ``first_ms``, ``first_ms + period`` ... before
        ``limit_ms`` would do if nothing else happened in between: the longest run of ticks
        from the first that each do exactly the same (nothing, or one probe run with the same
        result and output) and change nothing a later tick reads but ``result_run``. None
        when the very first tick would do anything else (a new container, a threshold
        reached, a stop...): that tick must run for real.

        Mirrors :meth:`_tick` / :meth:`_do_probe` step by step; the simulation uses it to
        skip ahead over steady probing (docs/internals.md, "Coasting").
        """
        period = self.spec.period_ms
        context = self.context
        if self.stopped or limit_ms <= first_ms:
            return None
        idle = Repeats(_ticks(first_ms, limit_ms, period), None, "")
        if not context.kubelet_up():
            return idle
        if context.pod_terminal():
            return None
        snapshot = self.record.snapshot
        if snapshot is None or not snapshot.container_id:
            return idle
        if snapshot.container_id != self.container_id:
            return None
        if self.on_hold:
            return idle
        if not snapshot.running:
            if self.result != FAILURE or (
                snapshot.terminated is not None and context.restart_policy() == "Never"
            ):
                return None
            return idle
        if context.deleting() and self.probe_type != "readiness":
            return None
        delay_end = (snapshot.started_ms or 0) + self.spec.initial_delay_ms
        if first_ms < delay_end:
            return Repeats(_ticks(first_ms, min(limit_ms, delay_end), period), None, "")
        if (self.probe_type == "startup") == self.record.started:
            return idle
        instance = self.record.newest
        if instance is not None and instance.running:
            answers_from = (instance.started_ms or 0) + self.record.start_ms
            if first_ms < answers_from:
                limit_ms = min(limit_ms, answers_from)  # the answer changes there
        answer = self._probe_at(first_ms, dry=True)
        if answer is None:
            return None  # the handler's answer may differ from tick to tick: run for real
        result, output, errored = answer
        if result != self.last_result:
            return None
        count = _ticks(first_ms, limit_ms, period)
        stops_at_threshold = result == FAILURE and self.probe_type != "readiness"
        if stops_at_threshold or result != self.result:
            threshold = (
                self.spec.failure_threshold if result == FAILURE else self.spec.success_threshold
            )
            before_threshold = threshold - self.result_run - 1  # ticks before the one that acts
            if before_threshold <= 0:
                return None
            count = min(count, before_threshold)
        return Repeats(count, result, output, errored)

    def skip(self, repeats: Repeats) -> None:
        """What ``repeats.count`` ticks of :meth:`repeats` do to the worker itself."""
        if repeats.result is not None:
            self.result_run += repeats.count


@dataclass(frozen=True, slots=True)
class Repeats:
    """``count`` periodic ticks that each do the same: nothing (``result`` None), or one
    probe run reporting ``result`` with ``output``."""

    count: int
    result: str | None
    output: str
    errored: bool = False


def _ticks(first_ms: int, limit_ms: int, period_ms: int) -> int:
    """How many of the times first, first + period ... fall before ``limit_ms``."""
    return max(0, -(-(limit_ms - first_ms) // period_ms))


class ProbeContext:
    """What a worker asks of the kubelet (kept narrow so workers stay testable)."""

    def __init__(
        self,
        kubelet_up: Callable[[], bool],
        pod_terminal: Callable[[], bool],
        deleting: Callable[[], bool],
        restart_policy: Callable[[], str],
        pod_ip: Callable[[], str],
        run_handler: Callable[[ProbedContainer, str, ProbeSpec, bool], tuple[str, str, bool] | None]
        | None = None,
    ) -> None:
        self.kubelet_up = kubelet_up
        self.pod_terminal = pod_terminal
        self.deleting = deleting
        self.restart_policy = restart_policy
        self.pod_ip = pod_ip
        self.run_handler = run_handler  # the process model (kubelet.processes); None: health
