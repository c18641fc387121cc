"""What runs inside a container: a pure, virtual-time model of its processes.

    derived = derive(container_spec, env)            # argv, script, description, warnings
    process = start_process(derived, StartOptions(...), world)
    process.next_wake()  /  process.advance(now_ms, world)
    process.signal(now_ms, "SIGQUIT", world)  /  process.kill(now_ms)
    process.exec(now_ms, ["cat", "/tmp/healthy"], timeout_ms, world)   # probes, hooks
    process.http(now_ms, port, path, client, world)  /  .tcp(...)  /  .grpc(...)
    process.exit_code, process.oom, process.log_lines(), process.termination_message(...)

Nothing here imports the rest of the engine, reads a clock or does I/O (the image
catalogue is package data, read once at import). The state is plain data: a Process deep-
copies cheaply (the syntax tree and the derived facts are shared, never copied).
Modules: ``syntax`` (the shell parser), ``commands`` (expansion, redirections, builtins,
utilities), ``netclients`` (nslookup, wget, curl, nc), ``servers`` (long-running programs),
``machine`` (processes, signals, time), ``fs`` (files and volumes), ``catalogue`` (images),
``derive`` (container spec → behaviour), ``arith`` (``$((…))``), ``bignum`` (perl's
``bpi``), ``pycmd`` (``python3 -c`` of the Job pages), ``zookeeper`` (the ZooKeeper
tutorial's ``start-zookeeper`` and ``ruok``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from datetime import datetime

from webapp.engine.programs.base import (
    HORIZON_MS,
    SIGNUM,
    Answer,
    ExecResult,
    StartInfo,
    World,
)
from webapp.engine.programs.catalogue import ImageFacts, image_facts, parse_reference
from webapp.engine.programs.derive import Derived, derive, expand_kubernetes
from webapp.engine.programs.fs import FileSystem, new_store
from webapp.engine.programs.machine import Process
from webapp.engine.programs.syntax import (
    MAX_DEPTH,
    MAX_SCRIPT_BYTES,
    ShellSyntaxError,
    parse_script,
)

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class StartOptions:
    """What the kubelet and the runtime give a container start besides its spec."""

    env: tuple[tuple[str, str], ...]  # the process environment, in order
    hostname: str
    pod_ip: str
    namespace: str
    now_ms: int
    epoch: datetime
    mounts: tuple = ()  # (mountPath, store, readOnly, subPath)
    memory_limit: int | None = None
    stdin: bool = False
    termination_path: str = "/dev/termination-log"
    container_ports: tuple[int, ...] = ()
    assumed_ports: tuple[int, ...] = ()
    working_dir: str = ""
    dns_server: str = "10.96.0.10"
    cluster_domain: str = "cluster.local"
    extra_files: tuple[tuple[str, str], ...] = field(default=())
    subdomain: str = (
        ""  # spec.subdomain: the Pod's FQDN is <hostname>.<subdomain>.<ns>.svc.<domain>
    )


def process_env(derived: Derived, container_env: list[tuple[str, str]], hostname: str,
                service_env: list[tuple[str, str]] = ()) -> tuple[tuple[str, str], ...]:  # fmt: skip
    """The environment the runtime gives PID 1: the image's PATH, HOSTNAME, the Service
    variables, the container's ``env`` (later names win), HOME."""
    env: dict[str, str] = {"PATH": DEFAULT_PATH, "HOSTNAME": hostname}
    for name, value in service_env:
        env[name] = value
    for name, value in container_env:
        env[name] = value
    env.setdefault("HOME", "/root")
    return tuple(env.items())


def start_process(derived: Derived, options: StartOptions, world: World) -> Process:
    """A container start: a fresh filesystem layer over the Pod's volumes, PID 1 exec'd."""
    facts = derived.facts
    files = dict(facts.files)
    files["/etc/hostname"] = options.hostname + "\n"
    domain = options.cluster_domain
    fqdn = options.hostname
    if options.subdomain:
        fqdn = f"{options.hostname}.{options.subdomain}.{options.namespace}.svc.{domain}"
    names = f"{fqdn}\t{options.hostname}" if options.subdomain else options.hostname
    files["/etc/hosts"] = (
        "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"
        "::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\n"
        "fe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"
        f"{options.pod_ip}\t{names}\n"
    )
    files["/etc/resolv.conf"] = (
        f"search {options.namespace}.svc.{domain} svc.{domain} {domain}\n"
        f"nameserver {options.dns_server}\noptions ndots:5\n"
    )
    files[options.termination_path or "/dev/termination-log"] = ""
    files.update(dict(options.extra_files))
    working_dir = options.working_dir or facts.working_dir or "/"
    dirs = [working_dir, posixpath.dirname(options.termination_path or "/dev/termination-log")]
    fs = FileSystem(files, dirs, list(options.mounts))
    start = StartInfo(
        argv=derived.argv,
        env=options.env,
        hostname=options.hostname,
        pod_ip=options.pod_ip,
        working_dir=working_dir,
        stdin_open=options.stdin,
        memory_limit=options.memory_limit,
        epoch=options.epoch,
        facts=facts,
        container_ports=options.container_ports,
        assumed_ports=options.assumed_ports,
        fqdn=fqdn,
    )
    process = Process(start, fs, options.now_ms)
    process.begin(world)
    return process


__all__ = [
    "HORIZON_MS",
    "MAX_DEPTH",
    "MAX_SCRIPT_BYTES",
    "SIGNUM",
    "Answer",
    "Derived",
    "ExecResult",
    "FileSystem",
    "ImageFacts",
    "Process",
    "ShellSyntaxError",
    "StartOptions",
    "World",
    "derive",
    "expand_kubernetes",
    "image_facts",
    "new_store",
    "parse_reference",
    "parse_script",
    "process_env",
    "start_process",
]
