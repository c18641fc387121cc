"""The Pod's container processes: the bridge between the kubelet and the process model.

The kubelet and the runtime never look inside a process; this module gives each container
start a process of :mod:`webapp.engine.programs` (derived from the image, ``command`` and
``args``), with what the kubelet and the runtime really hand a container: its environment
(``env``, ``envFrom``, the Service variables; ``kubelet_pods.go`` makeEnvironmentVariables),
its mounts (the Pod's volumes, whose contents outlive container restarts), its hostname,
its termination-message file. It also runs the probe handlers (``pkg/probe/exec|http|tcp|
grpc``) and the lifecycle handlers (``pkg/kubelet/lifecycle/handlers.go``) against the
model, with the kubelet's texts, and answers the processes' own DNS and HTTP requests
(cluster DNS, Services through kube-proxy to ready endpoints, the Pod's shared network
namespace).

A field the Simulation document sets itself (``explicit``) still overrides the model.
"""

from __future__ import annotations

import base64
import hashlib
from typing import TYPE_CHECKING, Any

from webapp.engine.core.timefmt import EPOCH, go_duration
from webapp.engine.programs import (
    Answer,
    Derived,
    ExecResult,
    Process,
    StartOptions,
    derive,
    new_store,
    process_env,
    start_process,
)

if TYPE_CHECKING:
    from webapp.engine.core.cluster import Cluster

ContainerRecord = Any  # kubelet.record.ContainerRecord (not imported: it imports the runtime)
ContainerInstance = Any  # kubelet.runtime.ContainerInstance

SUCCESS = "success"
FAILURE = "failure"
KUBE_PROBE_AGENT = "kube-probe/1.37"
# Programs whose run only reads files and writes nothing but its own output, with no time in
# it: a probe exec of one of them answers the same until a clock event (steady_probe).
STEADY_PROGRAMS = frozenset({"true", "false", "cat", "test", "["})
STEADY_PATHS = ("", "/bin/", "/usr/bin/")


def steady_command(argv: list[str]) -> bool:
    """Is ``argv`` the exec of a steady program, with no argument that may name a ``/dev``
    or ``/proc`` file (``/dev/random``, PID 1's log)?"""
    head, _, name = argv[0].rpartition("/")
    if name not in STEADY_PROGRAMS or (head + "/" if head else "") not in STEADY_PATHS:
        return False
    return not any("dev" in a or "proc" in a for a in argv[1:])


CLUSTER_DOMAIN = "cluster.local"
KUBERNETES_SERVICE_IP = "10.96.0.1"
DNS_SERVICE_IP = "10.96.0.10"
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


def explicit(behaviour: dict, field: str) -> bool:
    """Did the Simulation document set ``field`` for this container itself?"""
    return field in (behaviour.get("explicit") or ())


def cluster_ip(name: str, namespace: str) -> str:
    """A Service's ClusterIP: stable per name, drawn from 10.96.0.0/16 without the
    simulation's random generator (so adding it moved no other seeded value)."""
    digest = hashlib.sha256(f"{namespace}/{name}".encode()).digest()
    return f"10.96.{digest[0] % 250 + 2}.{digest[1] % 250 + 2}"


def external_ip(name: str) -> str:
    digest = hashlib.sha256(name.encode()).digest()
    return f"93.184.{digest[0]}.{digest[1] % 250 + 2}"


def go_list(items: list) -> str:
    """Go's ``%v`` of a string slice: ``[sh -c sleep 5]``."""
    return "[" + " ".join(str(item) for item in items) + "]"


class PodProcesses:
    """What runs in the Pod's containers, seen from the kubelet. One per Kubelet."""

    def __init__(self, sim: Cluster, kubelet: Any) -> None:
        self.sim = sim
        self.kubelet = kubelet
        self.stores: dict[str, dict] = {}
        self.derived: dict[str, Derived] = {}
        self._derive_cache: dict[tuple, Derived] = {}

    # -- derivation --------------------------------------------------------------------

    def derive(self, record: ContainerRecord) -> Derived:
        """The derived behaviour of a container (its env as of now, for ``$(VAR)``)."""
        env = dict(self.container_env(record.spec))
        derived = derive(record.spec, env)
        self.derived[record.name] = derived
        return derived

    # -- environment ---------------------------------------------------------------------

    def container_env(self, container: dict) -> list[tuple[str, str]]:
        """``env`` and ``envFrom`` resolved the way makeEnvironmentVariables does it
        (envFrom first, then env; ``$(VAR)`` in values expands earlier variables)."""
        from webapp.engine.programs import expand_kubernetes

        sim = self.sim
        values: dict[str, str] = {}
        for source in container.get("envFrom") or []:
            prefix = str(source.get("prefix") or "")
            for field, objects in (("configMapRef", sim.config_maps), ("secretRef", sim.secrets)):
                ref = source.get(field)
                if ref is None:
                    continue
                data = _data(objects.get(ref.get("name", "")), field == "secretRef")
                for key, value in data.items():
                    values[prefix + key] = value
        for entry in container.get("env") or []:
            name = str(entry.get("name", ""))
            if "value" in entry:
                values[name] = expand_kubernetes(str(entry.get("value") or ""), values)
                continue
            value = self._value_from(container, entry.get("valueFrom") or {})
            if value is not None:
                values[name] = value
        return list(values.items())

    def _value_from(self, container: dict, source: dict) -> str | None:
        sim = self.sim
        for field, objects in (("configMapKeyRef", sim.config_maps), ("secretKeyRef", sim.secrets)):
            ref = source.get(field)
            if ref is not None:
                data = _data(objects.get(ref.get("name", "")), field == "secretKeyRef")
                return data.get(ref.get("key", ""))
        ref = source.get("fieldRef")
        if ref is not None:
            return self._field(str(ref.get("fieldPath", "")))
        ref = source.get("resourceFieldRef")
        if ref is not None:
            return _resource_field(container, ref)
        return None

    def _field(self, path: str) -> str:
        sim = self.sim
        pod = sim.pod_object_dict
        metadata = pod.get("metadata") or {}
        simple = {
            "metadata.name": sim.pod_name,
            "metadata.namespace": sim.namespace,
            "metadata.uid": sim.uid,
            "spec.nodeName": sim.node_name or "",
            "spec.serviceAccountName": str(sim.pod_spec.get("serviceAccountName") or "default"),
            "status.podIP": self.kubelet.pod_ip,
            "status.podIPs": self.kubelet.pod_ip,
            "status.hostIP": self.host_ip(),
            "status.hostIPs": self.host_ip(),
        }
        if path in simple:
            return simple[path]
        for prefix, key in (("metadata.labels", "labels"), ("metadata.annotations", "annotations")):
            if path.startswith(prefix + "['") and path.endswith("']"):
                return str((metadata.get(key) or {}).get(path[len(prefix) + 2 : -2], ""))
        return ""

    def host_ip(self) -> str:
        node = self.sim.nodes_by_name.get(self.kubelet.node_name)
        for address in ((node.obj if node else {}).get("status") or {}).get("addresses") or []:
            if address.get("type") == "InternalIP":
                return str(address.get("address", ""))
        return "10.0.0.11"

    def service_env(self) -> list[tuple[str, str]]:
        """The Service variables (``pkg/kubelet/envvars``) of every Service with a
        ClusterIP in the Pod's namespace, and ``kubernetes`` in ``default``."""
        if self.sim.pod_spec.get("enableServiceLinks") is False:
            services: list[tuple[str, str, list]] = []
        else:
            services = [
                (
                    name,
                    cluster_ip(name, self.sim.namespace),
                    (svc.get("spec") or {}).get("ports") or [],
                )
                for name, svc in sorted(self.sim.services.items())
                if (svc.get("spec") or {}).get("clusterIP") != "None"
            ]
        if self.sim.namespace == "default":
            services.append(("kubernetes", KUBERNETES_SERVICE_IP, [{"name": "https", "port": 443}]))
        env: list[tuple[str, str]] = []
        for name, ip, ports in services:
            if not ports:
                continue
            prefix = name.upper().replace("-", "_")
            first = ports[0]
            protocol = str(first.get("protocol") or "TCP")
            env.append((f"{prefix}_SERVICE_HOST", ip))
            env.append((f"{prefix}_SERVICE_PORT", str(first.get("port"))))
            for port in ports:
                if port.get("name"):
                    label = str(port["name"]).upper().replace("-", "_")
                    env.append((f"{prefix}_SERVICE_PORT_{label}", str(port.get("port"))))
            env.append((f"{prefix}_PORT", f"{protocol.lower()}://{ip}:{first.get('port')}"))
            for port in ports:
                proto = str(port.get("protocol") or "TCP")
                key = f"{prefix}_PORT_{port.get('port')}_{proto}"
                env.append((key, f"{proto.lower()}://{ip}:{port.get('port')}"))
                env.append((key + "_PROTO", proto.lower()))
                env.append((key + "_PORT", str(port.get("port"))))
                env.append((key + "_ADDR", ip))
        return env

    # -- volumes ------------------------------------------------------------------------

    def store(self, volume: dict) -> tuple[dict, bool]:
        """The Pod-level contents of one volume (created once) and whether the kubelet
        mounts it read-only (configMap, secret, projected, downwardAPI)."""
        name = str(volume.get("name", ""))
        read_only = any(k in volume for k in ("configMap", "secret", "projected", "downwardAPI"))
        store = self.stores.get(name)
        if store is None:
            store = self.stores[name] = new_store(self._volume_files(volume))
        return store, read_only

    def _volume_files(self, volume: dict) -> dict[str, str]:
        sim = self.sim
        if "configMap" in volume:
            source = volume["configMap"] or {}
            return _items(_data(_config_map(sim, source.get("name", "")), False), source)
        if "secret" in volume:
            source = volume["secret"] or {}
            return _items(_data(sim.secrets.get(source.get("secretName", "")), True), source)
        if "projected" in volume:
            files: dict[str, str] = {}
            for projection in (volume["projected"] or {}).get("sources") or []:
                if "serviceAccountToken" in projection:
                    path = (projection["serviceAccountToken"] or {}).get("path", "token")
                    files[path] = _token(sim)
                elif "configMap" in projection:
                    source = projection["configMap"] or {}
                    files.update(
                        _items(_data(_config_map(sim, source.get("name", "")), False), source)
                    )
                elif "secret" in projection:
                    source = projection["secret"] or {}
                    files.update(
                        _items(_data(sim.secrets.get(source.get("name", "")), True), source)
                    )
                elif "downwardAPI" in projection:
                    files.update(self._downward(projection["downwardAPI"] or {}))
            return files
        if "downwardAPI" in volume:
            return self._downward(volume["downwardAPI"] or {})
        return {}

    def _downward(self, source: dict) -> dict[str, str]:
        files = {}
        for item in source.get("items") or []:
            ref = item.get("fieldRef")
            if ref is not None:
                files[str(item.get("path", ""))] = self._field(str(ref.get("fieldPath", "")))
        return files

    def mounts(self, container: dict) -> tuple:
        volumes = {v.get("name"): v for v in self.sim.pod_spec.get("volumes") or []}
        mounts = []
        for mount in container.get("volumeMounts") or []:
            volume = volumes.get(mount.get("name"))
            if volume is None:
                continue
            store, read_only = self.store(volume)
            mounts.append((str(mount.get("mountPath", "")), store,
                           read_only or bool(mount.get("readOnly")), str(mount.get("subPath") or "")))  # fmt: skip
        return tuple(mounts)

    # -- starting ---------------------------------------------------------------------

    def start(
        self, record: ContainerRecord, instance: ContainerInstance, memory_limit: int | None
    ) -> Process:
        container = record.spec
        env_entries = self.container_env(container)
        key = (id(container), tuple(env_entries))
        derived = self._derive_cache.get(key)
        if derived is None or self._derive_cache.get(("spec", id(container))) is not container:
            derived = self._derive_cache[key] = derive(container, dict(env_entries))
            self._derive_cache[("spec", id(container))] = container  # keeps the id valid
        self.derived[record.name] = derived
        hostname = str(self.sim.pod_spec.get("hostname") or self.sim.pod_name)
        env = process_env(derived, env_entries, hostname, self.service_env())
        ports = tuple(
            int(p["containerPort"])
            for p in container.get("ports") or []
            if isinstance(p.get("containerPort"), int)
        )
        options = StartOptions(
            env=env,
            hostname=hostname,
            pod_ip=self.kubelet.pod_ip,
            namespace=self.sim.namespace,
            now_ms=self.sim.now_ms,
            epoch=EPOCH,
            mounts=self.mounts(container),
            memory_limit=None if explicit(record.behaviour, "memoryMiB") else memory_limit,
            stdin=bool(container.get("stdin")),
            termination_path=str(container.get("terminationMessagePath") or "/dev/termination-log"),
            container_ports=ports,
            assumed_ports=tuple(dict.fromkeys(ports + self._handler_ports(container))),
            working_dir=str(container.get("workingDir") or ""),
            dns_server=DNS_SERVICE_IP,
            cluster_domain=CLUSTER_DOMAIN,
            subdomain=str(self.sim.pod_spec.get("subdomain") or ""),
        )
        return start_process(derived, options, self.world())

    @staticmethod
    def _handler_ports(container: dict) -> tuple[int, ...]:
        """The ports the container's own probes and hooks use: an image the catalogue does
        not know is assumed to listen there."""
        found = []
        handlers = [
            container.get(f) or {} for f in ("startupProbe", "livenessProbe", "readinessProbe")
        ]
        lifecycle = container.get("lifecycle") or {}
        handlers += [lifecycle.get("postStart") or {}, lifecycle.get("preStop") or {}]
        for handler in handlers:
            for kind in ("httpGet", "tcpSocket", "grpc"):
                port = resolve_port(container, (handler.get(kind) or {}).get("port"))
                if isinstance(port, int):
                    found.append(port)
        return tuple(found)

    def world(self) -> PodWorld:
        return PodWorld(self)

    # -- the Pod's network namespace ------------------------------------------------------

    def listener(self, port: int) -> tuple[ContainerRecord, ContainerInstance] | None:
        """The running container whose process listens on ``port`` (every container of a
        Pod shares one network namespace). A Simulation ``startSeconds`` hides a
        container's ports until then."""
        now = self.sim.now_ms
        for record in self.kubelet.records:
            instance = record.newest
            if instance is None or not instance.running or instance.process is None:
                continue
            if now - (instance.started_ms or 0) < record.start_ms:
                continue
            if port in instance.process.listeners:
                return record, instance
        return None

    def pod_http(self, port: int, path: str, client: str) -> Answer:
        found = self.listener(port)
        if found is None:
            return Answer("refused")
        _record, instance = found
        answer = instance.process.http(self.sim.now_ms, port, path, client, self.world())
        self.kubelet.runtime.watch(instance)
        return answer

    def pod_tcp(self, port: int) -> bool:
        found = self.listener(port)
        if found is None:
            return False
        _record, instance = found
        ok = instance.process.tcp(self.sim.now_ms, port, self.world())
        self.kubelet.runtime.watch(instance)
        return ok

    def pod_exchange(self, port: int, data: str) -> str | None:
        """A connection to ``port`` that sends ``data`` and reads the answer."""
        found = self.listener(port)
        if found is None:
            return None
        _record, instance = found
        answer = instance.process.exchange(self.sim.now_ms, port, data, self.world())
        self.kubelet.runtime.watch(instance)
        return answer

    def pod_grpc(self, port: int, service: str) -> str:
        found = self.listener(port)
        if found is None:
            return "refused"
        _record, instance = found
        return instance.process.grpc(self.sim.now_ms, port, service, self.world())

    def probe_client(self) -> str:
        """The source address of the kubelet's probes: the node's address on the Pod
        network, the bridge gateway of the Pod's subnet."""
        prefix = self.kubelet.pod_ip.rpartition(".")[0]
        return f"{prefix}.1" if prefix else self.host_ip()

    # -- probes ---------------------------------------------------------------------------

    def steady_probe(self, record: ContainerRecord, probe_type: str, handler: dict,
                     timeout_ms: int) -> tuple[str, str, bool] | None:  # fmt: skip
        """The coasting rule (docs/internals.md, "Coasting"): what :meth:`run_probe` would
        answer at every tick before the next clock event, found without changing anything,
        or None when that answer may differ from tick to tick and each run must happen.

        A run's answer stays the same only while it is a pure function of state that
        nothing changes between clock events (files, the process tree: processes only run
        on clock events), and the run itself changes nothing but the PID counter
        (:meth:`probes_skipped` moves it on for the runs skipped). That holds for:

        - a container that is not running (FAILURE, no output);
        - an ``exec`` of a program of :data:`STEADY_PROGRAMS` (read-only, no time in its
          output, no log, no signal) whose arguments name no ``/dev`` or ``/proc`` file
          (``/dev/random``, the log of PID 1), that ends without error.

        Anything else runs for real: HTTP (servers write access logs with the time), TCP
        (``nc -l`` ends on its first client), gRPC and other hosts (a ``startSeconds``
        that hides ports until a time), shells and every other program (they may write)."""
        instance = record.newest
        if instance is None or instance.process is None or not instance.running:
            return FAILURE, "", False
        if "exec" not in handler:
            return None
        argv = [str(c) for c in (handler["exec"] or {}).get("command") or []]
        if not argv or not steady_command(argv):
            return None
        process = instance.process
        next_pid = process.next_pid
        try:
            result = process.exec(self.sim.now_ms, argv, timeout_ms, self.world())
        finally:
            process.next_pid = next_pid  # the run skipped is counted by probes_skipped
        if result.error or result.timed_out:
            return None  # an exec error names the time; a timeout is never steady
        return (SUCCESS if result.exit_code == 0 else FAILURE), result.output, False

    def probes_skipped(self, record: ContainerRecord, handler: dict, count: int) -> None:
        """``count`` runs of a probe :meth:`steady_probe` found steady were skipped: each
        would have taken one PID for its exec (none when the container is not running: no
        exec happens, as in :meth:`run_probe`)."""
        instance = record.newest
        process = None if instance is None or not instance.running else instance.process
        if "exec" in handler and process is not None:
            process.next_pid += count

    def run_probe(self, record: ContainerRecord, probe_type: str, handler: dict,
                  timeout_ms: int) -> tuple[str, str, bool]:  # fmt: skip
        """(result, output, errored) of one probe run against the model
        (``prober.go`` runProbe and ``pkg/probe/*``)."""
        instance = record.newest
        pod_ip = self.kubelet.pod_ip
        if instance is None or instance.process is None or not instance.running:
            return FAILURE, "", False
        if "exec" in handler:
            command = [str(c) for c in (handler["exec"] or {}).get("command") or []]
            result = instance.process.exec(self.sim.now_ms, command, timeout_ms, self.world())
            self.kubelet.runtime.watch(instance)
            if result.error:
                return FAILURE, self._exec_error(instance, result.error), True
            if result.timed_out:
                text = f'command timed out: "{" ".join(command)}" timed out after {go_duration(timeout_ms)}'
                return FAILURE, text, False
            return (SUCCESS if result.exit_code == 0 else FAILURE), result.output, False
        if "httpGet" in handler:
            http = handler["httpGet"] or {}
            host = str(http.get("host") or pod_ip)
            port = resolve_port(record.spec, http.get("port"))
            path = str(http.get("path") or "/")
            scheme = str(http.get("scheme") or "HTTP").lower()
            url = f"{scheme}://{host}:{port}{path}"
            if not isinstance(port, int):
                return FAILURE, f"unable to find port: {port}", True
            answer = self._http(host, port, path)
            if answer.kind == "ok":
                if 200 <= answer.status < 400:
                    return SUCCESS, "", False
                return FAILURE, f"HTTP probe failed with statuscode: {answer.status}", False
            return FAILURE, http_error(url, host, port, answer), False
        if "tcpSocket" in handler:
            tcp = handler["tcpSocket"] or {}
            host = str(tcp.get("host") or pod_ip)
            port = resolve_port(record.spec, tcp.get("port"))
            if not isinstance(port, int):
                return FAILURE, f"unable to find port: {port}", True
            ok = (
                self.pod_tcp(port)
                if host == pod_ip
                else self.world().tcp(self.sim.now_ms, host, port)
            )
            if ok:
                return SUCCESS, "", False
            return FAILURE, f"dial tcp {host}:{port}: connect: connection refused", False
        if "grpc" in handler:
            grpc = handler["grpc"] or {}
            port = int(grpc.get("port") or 0)
            status = self.pod_grpc(port, str(grpc.get("service") or ""))
            if status == "SERVING":
                return SUCCESS, "service healthy", False
            if status == "NOT_SERVING":
                return FAILURE, 'service unhealthy (responded with "NOT_SERVING")', False
            if status == "refused":
                seconds = go_duration(timeout_ms)
                return (
                    FAILURE,
                    f'timeout: failed to connect service "{pod_ip}:{port}" within {seconds}: context deadline exceeded',
                    False,
                )
            return (
                FAILURE,
                (
                    "error: health rpc probe failed: rpc error: code = Unavailable desc = connection "
                    'error: desc = "error reading server preface: http2: frame too large"'
                ),
                False,
            )
        return FAILURE, "", True

    def _http(self, host: str, port: int, path: str) -> Answer:
        if host == self.kubelet.pod_ip:
            return self.pod_http(port, path, self.probe_client())
        return self.world().http(self.sim.now_ms, host, port, path)

    def _exec_error(self, instance: ContainerInstance, error: str) -> str:
        exec_id = hashlib.sha256(f"{instance.container_id}/{self.sim.now_ms}".encode()).hexdigest()
        return (
            "rpc error: code = Unknown desc = failed to exec in container: failed to start exec "
            f'"{exec_id}": {error}'
        )

    # -- kubectl exec ------------------------------------------------------------------

    def user_exec(
        self,
        record: ContainerRecord,
        argv: list[str],
        timeout_ms: int,
        head_chars: int,
        shell: dict | None = None,
    ) -> ExecResult:
        """``kubectl exec POD -c NAME -- ARGV``: the command runs in the container's newest
        instance as a probe's does (its own time line; its effects, files removed or a
        signal to PID 1, happen now), and the runtime notices what it did to PID 1.
        ``shell``: a line of ``kubectl exec -it`` (Machine.exec)."""
        instance = record.newest
        assert instance is not None and instance.process is not None and instance.running
        result = instance.process.exec(
            self.sim.now_ms, argv, timeout_ms, self.world(), head_chars=head_chars, shell=shell
        )
        self.kubelet.runtime.watch(instance)
        if result.error:
            result.error = self._exec_error(instance, result.error)
        return result

    # -- lifecycle hooks ---------------------------------------------------------------

    def run_hook(self, record: ContainerRecord, instance: ContainerInstance, hook: str,
                 handler: dict, limit_ms: int | None) -> tuple[int | None, bool, str]:  # fmt: skip
        """(duration ms or None for never, fails, error message) of a lifecycle handler run
        against the model (``handlers.go`` Run); ``limit_ms`` bounds a preStop by the grace."""
        now = self.sim.now_ms
        pod = self.sim.pod_format
        name = record.name
        if "exec" in handler:
            command = [str(c) for c in (handler["exec"] or {}).get("command") or []]
            if instance.process is None or not instance.running:
                return (
                    0,
                    True,
                    f'Exec lifecycle hook ({go_list(command)}) for Container "{name}" in Pod "{pod}" failed - error: container not running, message: ""',
                )
            result = instance.process.exec(now, command, limit_ms, self.world())
            self.kubelet.runtime.watch(instance)
            if result.error:
                error = self._exec_error(instance, result.error)
                return (
                    0,
                    True,
                    f'Exec lifecycle hook ({go_list(command)}) for Container "{name}" in Pod "{pod}" failed - error: {error}, message: ""',
                )
            if result.timed_out or result.exit_code is None:
                return None, False, ""
            if result.exit_code != 0:
                joined = " ".join(command)
                error = f"command '{joined}' exited with {result.exit_code}: {result.stderr}"
                message = (
                    f'Exec lifecycle hook ({go_list(command)}) for Container "{name}" in Pod '
                    f'"{pod}" failed - error: {error}, message: {_go_quote(result.output)}'
                )
                return result.duration_ms, True, message
            return result.duration_ms, False, ""
        if "httpGet" in handler:
            http = handler["httpGet"] or {}
            host = str(http.get("host") or self.kubelet.pod_ip)
            port = resolve_port(record.spec, http.get("port"))
            path = str(http.get("path") or "/")
            scheme = str(http.get("scheme") or "HTTP").lower()
            if not isinstance(port, int):
                return (
                    0,
                    True,
                    f'HTTP lifecycle hook ({path}) for Container "{name}" in Pod "{pod}" failed - error: unable to find port: {port}',
                )
            answer = self._http(host, port, path)
            if answer.kind == "ok":
                return 0, False, ""
            error = http_error(f"{scheme}://{host}:{port}{path}", host, port, answer)
            return (
                0,
                True,
                f'HTTP lifecycle hook ({path}) for Container "{name}" in Pod "{pod}" failed - error: {error}',
            )
        if "sleep" in handler:
            seconds = int((handler["sleep"] or {}).get("seconds") or 0)
            return seconds * 1000, False, ""
        return 0, False, ""

    # -- the Pod's processes asking the cluster --------------------------------------------


class PodWorld:
    """DNS, Services and the Pod's network, as the processes inside the Pod see them."""

    dns_server = DNS_SERVICE_IP

    def __init__(self, pods: PodProcesses) -> None:
        self.pods = pods
        self.sim = pods.sim

    def _services(self) -> dict[str, tuple[str, dict]]:
        """Fully qualified name -> (ClusterIP or "None", Service)."""
        namespace = self.sim.namespace
        found = {}
        for name, service in self.sim.services.items():
            ns = (service.get("metadata") or {}).get("namespace") or namespace
            ip = (service.get("spec") or {}).get("clusterIP")
            found[f"{name}.{ns}.svc.{CLUSTER_DOMAIN}"] = (
                "None" if ip == "None" else cluster_ip(name, ns),
                service,
            )
        found[f"kubernetes.default.svc.{CLUSTER_DOMAIN}"] = (KUBERNETES_SERVICE_IP, {})
        found[f"kube-dns.kube-system.svc.{CLUSTER_DOMAIN}"] = (DNS_SERVICE_IP, {})
        return found

    def resolve(self, name: str, search: bool) -> tuple[str, str] | None:
        name = name.rstrip(".")
        namespace = self.sim.namespace
        candidates = [name]
        if search and name.count(".") < 5:
            candidates = [f"{name}.{namespace}.svc.{CLUSTER_DOMAIN}", f"{name}.svc.{CLUSTER_DOMAIN}",
                          f"{name}.{CLUSTER_DOMAIN}", name]  # fmt: skip
        services = self._services()
        for candidate in candidates:
            record = self._pod_record(candidate, services)
            if record is not None:
                return candidate, record
            found = services.get(candidate)
            if found is not None:
                ip, _service = found
                if ip == "None":
                    ready = self._ready_endpoint(_service)
                    if ready is None:
                        return None
                    return candidate, ready
                return candidate, ip
        hostname = str(self.sim.pod_spec.get("hostname") or self.sim.pod_name)
        if name in (hostname, "localhost"):
            return name, "127.0.0.1" if name == "localhost" else self.pods.kubelet.pod_ip
        if "." in name and not name.endswith(CLUSTER_DOMAIN) and not name.endswith(".svc"):
            return name, external_ip(name)  # the Internet: every public name resolves
        return None

    def _runs(self) -> list:
        """The cluster's live Pods (this one first), or only this one outside a cluster."""
        cluster = getattr(self.sim, "cluster", None)
        if cluster is None:
            return [self.sim]
        return [self.sim, *(run for run in cluster.live_runs() if run is not self.sim)]

    def _pod_record(self, fqdn: str, services: dict) -> str | None:
        """The A record ``<hostname>.<subdomain>.<namespace>.svc.<zone>`` of a Pod with
        that hostname and subdomain, when a headless Service named as the subdomain
        selects it and it is a ready endpoint (publishNotReadyAddresses is not modelled):
        the DNS specification's per-Pod records, as a StatefulSet's Pods get them."""
        parts = fqdn.split(".")
        if len(parts) != 6 or parts[3:] != ["svc", *CLUSTER_DOMAIN.split(".")]:
            return None
        host, subdomain, namespace = parts[0], parts[1], parts[2]
        found = services.get(f"{subdomain}.{namespace}.svc.{CLUSTER_DOMAIN}")
        if found is None or found[0] != "None":
            return None
        for run in self._runs():
            spec = run.pod_spec
            if (
                str(spec.get("hostname") or "") != host
                or str(spec.get("subdomain") or "") != subdomain
            ):
                continue
            if run.namespace != namespace:
                continue
            address = _endpoint_of(run.pod(), found[1])
            if address is not None:
                return address
        return None

    def _peer(self, host: str):
        """Another Pod of the cluster whose IP is ``host``."""
        for run in self._runs()[1:]:
            pod = run.pod()
            if pod is not None and (pod.get("status") or {}).get("podIP") == host:
                return run
        return None

    def _ready_endpoint(self, service: dict) -> str | None:
        """Our Pod's IP when it is a ready endpoint of ``service``."""
        pod = self.sim.pod()
        if pod is None:
            return None
        selector = (service.get("spec") or {}).get("selector") or {}
        labels = (pod.get("metadata") or {}).get("labels") or {}
        if not selector or any(labels.get(k) != v for k, v in selector.items()):
            return None
        status = pod.get("status") or {}
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in status.get("conditions") or []
        )
        if not ready or (pod.get("metadata") or {}).get("deletionTimestamp"):
            return None
        return status.get("podIP")

    def _route(self, host: str, port: int) -> tuple[str, int] | None:
        """kube-proxy: (pod address, target port) behind ``host:port``, or None."""
        kubelet = self.pods.kubelet
        if host in ("127.0.0.1", "localhost", kubelet.pod_ip):
            return "pod", port
        for _fqdn, (ip, service) in self._services().items():
            if ip != host or not service:
                continue
            for service_port in (service.get("spec") or {}).get("ports") or []:
                if service_port.get("port") != port:
                    continue
                endpoint = self._ready_endpoint(service)
                if endpoint is None:
                    return None
                target = service_port.get("targetPort", port)
                if isinstance(target, str):
                    target = self._named_port(target)
                return ("pod", int(target)) if isinstance(target, int) else None
            return None
        return None

    def _named_port(self, name: str) -> int | None:
        for record in self.pods.kubelet.records:
            port = resolve_port(record.spec, name)
            if isinstance(port, int):
                return port
        return None

    def http(self, now_ms: int, host: str, port: int, path: str) -> Answer:
        if host.startswith("93.184."):
            return Answer(
                "ok",
                200,
                "OK",
                "<!doctype html>\n<html><body><h1>Example Domain</h1></body></html>\n",
            )
        route = self._route(host, port)
        if route is None:
            return Answer("refused")
        return self.pods.pod_http(route[1], path, self.pods.kubelet.pod_ip)

    def tcp(self, now_ms: int, host: str, port: int) -> bool:
        if host.startswith("93.184."):
            return port in (80, 443)
        peer = self._peer(host)
        if peer is not None:
            return peer.kubelet.processes.pod_tcp(port)
        route = self._route(host, port)
        return route is not None and self.pods.pod_tcp(route[1])

    def exchange(self, now_ms: int, host: str, port: int, data: str) -> str | None:
        """None: the connection was refused; else what the server sent back (another
        Pod's address: that Pod's listener answers)."""
        if host.startswith("93.184."):
            return "" if port in (80, 443) else None
        peer = self._peer(host)
        if peer is not None:
            return peer.kubelet.processes.pod_exchange(port, data)
        route = self._route(host, port)
        return None if route is None else self.pods.pod_exchange(route[1], data)


def _endpoint_of(pod: dict | None, service: dict) -> str | None:
    """The Pod's IP when ``service`` selects it and it is Ready and not being deleted."""
    if pod is None:
        return None
    selector = (service.get("spec") or {}).get("selector") or {}
    labels = (pod.get("metadata") or {}).get("labels") or {}
    if not selector or any(labels.get(k) != v for k, v in selector.items()):
        return None
    status = pod.get("status") or {}
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )
    if not ready or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return None
    return status.get("podIP")


def resolve_port(container: dict, port: object) -> object:
    """A named port resolved against the container's ports (``findPortByName``)."""
    if isinstance(port, str) and not port.isdigit():
        for declared in container.get("ports") or []:
            if declared.get("name") == port:
                return declared.get("containerPort")
        return port
    if isinstance(port, str):
        return int(port)
    return port


def http_error(url: str, host: str, port: int, answer: Answer) -> str:
    """Go's ``*url.Error`` text for a failed GET (CONTAINER-SEMANTICS §4)."""
    if answer.kind == "refused":
        return f'Get "{url}": dial tcp {host}:{port}: connect: connection refused'
    if answer.kind == "timeout":
        return f'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
    if answer.kind == "malformed":
        return f'Get "{url}": net/http: HTTP/1.x transport connection broken: malformed HTTP response {_go_quote(answer.body)}'
    return f'Get "{url}": EOF'


def _go_quote(text: str) -> str:
    """Go's ``%q``."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 32:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _config_map(sim: Cluster, name: str) -> dict | None:
    from webapp.engine.kubelet.config_refs import IMPLICIT_CONFIG_MAPS

    return sim.config_maps.get(name) or IMPLICIT_CONFIG_MAPS.get(name)


def _data(obj: dict | None, secret: bool) -> dict[str, str]:
    if obj is None:
        return {}
    data: dict[str, str] = {}
    for key, value in (obj.get("data") or {}).items():
        if secret:
            try:
                data[key] = base64.b64decode(str(value)).decode("utf-8", "replace")
            except ValueError:
                data[key] = str(value)
        else:
            data[key] = str(value)
    for key, value in (obj.get("binaryData") or {}).items():
        data[key] = str(value)
    for key, value in (obj.get("stringData") or {}).items():
        data[key] = str(value)
    return data


def _items(data: dict[str, str], source: dict) -> dict[str, str]:
    items = source.get("items")
    if not items:
        return dict(data)
    return {
        str(item.get("path", item.get("key"))): data.get(item.get("key", ""), "") for item in items
    }


def _token(sim: Cluster) -> str:
    payload = (
        base64.urlsafe_b64encode(
            f'{{"sub":"system:serviceaccount:{sim.namespace}:default"}}'.encode()
        )
        .decode()
        .rstrip("=")
    )
    return f"eyJhbGciOiJSUzI1NiIsImtpZCI6InBsYXlncm91bmQifQ.{payload}.c2lnbmF0dXJl"


def _resource_field(container: dict, ref: dict) -> str:
    resource = str(ref.get("resource", ""))
    section, _, kind = resource.partition(".")
    value = ((container.get("resources") or {}).get(section) or {}).get(kind)
    if value is None:
        return "0"
    from webapp.engine.api.quantity import cpu_millis, memory_bytes

    if kind == "cpu":
        millis = cpu_millis(value)
        return str(max(1, -(-millis // 1000)))
    return str(memory_bytes(value))
