"""Helpers for the process-model tests: a small fake cluster and a way to run a container."""

from __future__ import annotations

from datetime import UTC, datetime

from webapp.engine.programs import (
    Answer,
    Process,
    StartOptions,
    derive,
    new_store,
    process_env,
    start_process,
)

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"


class FakeWorld:
    """Services by fully qualified name, and HTTP answers by (ip, port)."""

    dns_server = "10.96.0.10"

    def __init__(self, services: dict[str, str] | None = None, answers: dict | None = None) -> None:
        self.services = dict(services or {})
        self.answers = dict(answers or {})
        self.requests: list[tuple] = []

    def resolve(self, name: str, search: bool) -> tuple[str, str] | None:
        names = [name]
        if search and name.count(".") < 5:
            names = [f"{name}.default.svc.cluster.local", f"{name}.svc.cluster.local",
                     f"{name}.cluster.local", name]  # fmt: skip
        for candidate in names:
            if candidate in self.services:
                return candidate, self.services[candidate]
        return None

    def http(self, now_ms: int, host: str, port: int, path: str) -> Answer:
        self.requests.append((now_ms, host, port, path))
        return self.answers.get((host, port), Answer("refused"))

    def tcp(self, now_ms: int, host: str, port: int) -> bool:
        return (host, port) in self.answers


def service_account_mount(namespace: str = "default") -> tuple:
    store = new_store({"namespace": namespace, "token": "eyJhbGciOi", "ca.crt": "-----BEGIN"})
    return (SERVICE_ACCOUNT, store, True, "")


def start(container: dict, world: FakeWorld | None = None, *, now: int = 0,
          memory: int | None = None, mounts: tuple = (), stdin: bool = False,
          ports: tuple = (), service_env: tuple = ()) -> tuple[Process, FakeWorld]:  # fmt: skip
    """Start ``container`` (a Pod spec container dict) at ``now`` ms."""
    world = world or FakeWorld()
    env_entries = [(e["name"], str(e.get("value", ""))) for e in container.get("env") or []]
    derived = derive(container, dict(env_entries))
    env = process_env(derived, env_entries, "web", list(service_env))
    options = StartOptions(env=env, hostname="web", pod_ip="10.244.1.5", namespace="default",
                           now_ms=now, epoch=EPOCH, memory_limit=memory, mounts=tuple(mounts),
                           stdin=stdin, assumed_ports=tuple(ports))  # fmt: skip
    return start_process(derived, options, world), world


def sh(script: str, image: str = "busybox:1.36", **kwargs) -> tuple[Process, FakeWorld]:
    return start({"name": "c", "image": image, "command": ["sh", "-c", script]}, **kwargs)


def run_until(process: Process, world: FakeWorld, until_ms: int) -> None:
    """Drive the process as the engine does: wake it at each time it asked for."""
    while True:
        wake = process.next_wake()
        if wake is None or wake > until_ms:
            break
        process.advance(wake, world)
    process.advance(until_ms, world)


def lines(process: Process, stream: str | None = None) -> list[str]:
    return [text for _ms, s, text in process.log_lines() if stream is None or s == stream]
