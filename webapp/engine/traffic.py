"""A simulated client sending requests to a Service, as the node proxy routes them.

The proxy sees the Service's EndpointSlice ``propagationSeconds`` (default 1 s) late, as
kube-proxy does after the EndpointSlice controller writes it. It routes to the ready
endpoints, round robin; with none ready, to the serving terminating ones
(``ProxyTerminatingEndpoints``); with none at all the request fails ("no endpoints"). A
routed request succeeds when that Pod accepts the connection on the Service's target port
(:func:`connection_facts`, :func:`pod_accepts_connection`), and fails (connection refused) otherwise:

- where the process model knows the container's program (a catalogue image and program,
  a shell script it interprets), it decides: the port is open while a process of the Pod
  listens on it. nginx (SIGQUIT) or redis close their listener when they handle the stop
  signal; a shell as PID 1, or Python's http.server, ignore SIGTERM and keep accepting
  until SIGKILL; a Job's program that never listens refuses every request;
- where it does not (an image or a command the model does not know, or a Simulation
  document that sets the container's stop behaviour), today's rule: the app container
  accepts while it runs and has not been sent its stop signal (unless the Simulation
  document says it ignores SIGTERM).

This is why a rolling update without a preStop sleep drops requests: the Pod gets its stop
signal at once while the proxies still send it traffic for about a second.

Requests go out in batches every 250 ms (``rps`` / 4 each, the remainder carried), so an
hour at 20 requests/s is 14,400 clock events, not 72,000.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.controllers.endpoints import find_port
from webapp.engine.core.clock import LATE
from webapp.engine.kubelet.processes import explicit

# ClusterSimulation: engine/cluster.py (not imported: it imports this module)
ClusterSimulation = Any

BATCH_MS = 250
DEFAULT_PROPAGATION_SECONDS = 1.0


class Traffic:
    def __init__(self, cluster: ClusterSimulation, config: dict[str, Any]) -> None:
        self.cluster = cluster
        self.service = str(config["service"])
        self.rps = int(config.get("rps", 10))
        self.delay_ms = round(
            float(config.get("propagationSeconds", DEFAULT_PROPAGATION_SECONDS)) * 1000
        )
        self.sent = self.succeeded = self.failed = 0
        self.no_endpoints = 0
        # Requests made before the proxy ever had a ready endpoint (all of them fail with no
        # endpoint): the Service was not serving yet, which is no rollout's failure.
        self.before_ready = 0
        self._ever_ready = False
        self.per_second: dict[int, list[int]] = {}  # second -> [ok, failed]
        # (ms, ready pod names, serving terminating pod names) as the controller wrote them
        self._history: list[tuple[int, list[str], list[str]]] = [(0, [], [])]
        self._carry = 0
        self._next = 0  # round-robin position
        # pod name -> (its PodRun, connection_facts): fixed once its container started
        self._facts: dict[str, tuple[Any, tuple]] = {}
        # the requests of each rollout, from the moment its new ReplicaSet was created
        self.rollouts: list[dict[str, Any]] = []
        cluster.clock.schedule(0, self._batch, LATE)

    def rollout_started(self, deployment: str, replica_set: str, revision: int) -> None:
        """A Deployment created a new ReplicaSet: count the requests from now on apart."""
        self.rollouts.append({"deployment": deployment, "replicaSet": replica_set,
                              "revision": revision, "at": self.cluster.clock.now_ms / 1000,
                              "sent": 0, "failed": 0})  # fmt: skip

    def slice_changed(self, name: str, slice_: dict) -> None:
        if name != self.service:
            return
        ready, terminating = [], []
        for endpoint in slice_.get("endpoints") or []:
            pod = (endpoint.get("targetRef") or {}).get("name", "")
            conditions = endpoint.get("conditions") or {}
            if conditions.get("ready"):
                ready.append(pod)
            elif conditions.get("serving") and conditions.get("terminating"):
                terminating.append(pod)
        self._history.append((self.cluster.clock.now_ms, ready, terminating))

    def _view(self, now_ms: int) -> tuple[list[str], list[str]]:
        """What the proxy knows at ``now_ms``: the last slice written before now - delay."""
        seen = now_ms - self.delay_ms
        view = self._history[0]
        for entry in self._history:
            if entry[0] > seen:
                break
            view = entry
        # entries older than the one in use are never needed again
        index = self._history.index(view)
        if index > 0:
            del self._history[:index]
        return view[1], view[2]

    def _listening(self, name: str) -> bool:
        run = self.cluster.runs.get(name)
        if run is None or run.pod_removed or run.kubelet is None:
            return False
        cached = self._facts.get(name)
        if cached is None or cached[0] is not run:
            service = self.cluster.services.get(self.service) or {}
            facts = connection_facts(run.kubelet, run.pod_object_dict, service)
            if facts[2] is None:
                return False  # the container never started: nothing listens yet
            cached = self._facts[name] = (run, facts)
        return pod_accepts_connection(run.kubelet, *cached[1])

    def _batch(self) -> None:
        clock = self.cluster.clock
        now_ms = clock.now_ms
        total = self.rps * BATCH_MS + self._carry
        count, self._carry = divmod(total, 1000)
        ready, terminating = self._view(now_ms)
        targets = ready or terminating
        self._ever_ready = self._ever_ready or bool(ready)
        if not self._ever_ready:
            self.before_ready += count
        ok = failed = 0
        for _ in range(count):
            if not targets:
                failed += 1
                self.no_endpoints += 1
                continue
            name = targets[self._next % len(targets)]
            self._next += 1
            if self._listening(name):
                ok += 1
            else:
                failed += 1
        if count:
            self.sent += count
            self.succeeded += ok
            self.failed += failed
            if self.rollouts:
                self.rollouts[-1]["sent"] += count
                self.rollouts[-1]["failed"] += failed
            second = self.per_second.setdefault(now_ms // 1000, [0, 0])
            second[0] += ok
            second[1] += failed
        if now_ms + BATCH_MS <= self.cluster.horizon_ms:
            clock.schedule(now_ms + BATCH_MS, self._batch, LATE)

    def totals(self) -> dict[str, Any]:
        return {
            "service": self.service,
            "rps": self.rps,
            "sent": self.sent,
            "succeeded": self.succeeded,
            "failed": self.failed,
            "noEndpoints": self.no_endpoints,
            "perSecond": [[t, ok, bad] for t, (ok, bad) in sorted(self.per_second.items())],
            "rollouts": [dict(entry) for entry in self.rollouts],
        }


# Warnings of programs.derive that mean the model does not know what the process does
MODEL_UNKNOWN = frozenset(("unknown_image", "not_modelled", "not_modelled_syntax", "script_limit"))
# Simulation document fields that replace the process's own reaction to the stop signal
STOP_OVERRIDES = ("ignoreSigterm", "sigtermSeconds", "sigtermExitCode")


def service_target_port(service: dict, pod: dict) -> int | None:
    """The Service's first port resolved on the Pod (``podutil.FindPort``)."""
    ports = (service.get("spec") or {}).get("ports") or []
    if not ports:
        return None
    return find_port(pod, ports[0], ports[0].get("protocol") or "TCP")


def serving_record(records: list, port: int | None) -> Any:
    """The app container that declares ``port`` (else the first app container)."""
    apps = [record for record in records if record.kind == "app"]
    for record in apps:
        if any(p.get("containerPort") == port for p in record.spec.get("ports") or []):
            return record
    return apps[0] if apps else None


def model_knows(record: Any, derived: Any) -> bool:
    """Does the process model know where this container's process listens and what it does
    with the stop signal? Not for an unknown image or command, nor when the Simulation
    document sets its stop behaviour."""
    if derived is None or any(explicit(record.behaviour, key) for key in STOP_OVERRIDES):
        return False
    return not any(warning["code"] in MODEL_UNKNOWN for warning in derived.warnings)


def connection_facts(kubelet: Any, pod: dict, service: dict) -> tuple[int | None, Any, bool | None]:
    """What a connection to the Pod depends on that does not change while it runs: (the
    Service's target port, the app container serving it, whether the process model knows
    its program; None until that container first started)."""
    port = service_target_port(service, pod)
    record = serving_record(kubelet.records, port)
    if record is None or record.name not in kubelet.processes.derived:
        return port, record, None
    return port, record, model_knows(record, kubelet.processes.derived[record.name])


def pod_accepts_connection(kubelet: Any, port: int | None, record: Any, knows: bool | None) -> bool:
    """Would a TCP connection to the Pod on the Service's target port be accepted now?"""
    instance = None if record is None else record.newest
    if instance is None or not instance.running:
        return False
    if knows and port is not None and instance.process is not None:
        return kubelet.processes.listener(port) is not None
    return instance.sigterm_ms is None or bool(record.behaviour.get("ignoreSigterm"))
