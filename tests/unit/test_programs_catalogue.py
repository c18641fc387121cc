"""The image catalogue: default entrypoints, what each default process does, sizes."""

from __future__ import annotations

import pytest

from tests.unit.programs_support import FakeWorld, lines, run_until, start
from webapp.engine.programs import image_facts, parse_reference
from webapp.engine.programs.catalogue import IMAGES


@pytest.mark.parametrize(
    ("image", "repository", "tag"),
    [
        ("nginx", "docker.io/library/nginx", ""),
        ("nginx:1.27", "docker.io/library/nginx", "1.27"),
        ("polinux/stress", "docker.io/polinux/stress", ""),
        ("registry.k8s.io/pause:3.9", "registry.k8s.io/pause", "3.9"),
        ("localhost:5000/app:v1", "localhost:5000/app", "v1"),
        ("busybox@sha256:abc", "docker.io/library/busybox", ""),
    ],
)
def test_references_are_normalised_like_containerd(image: str, repository: str, tag: str) -> None:
    ref = parse_reference(image)
    assert (ref.repository, ref.tag) == (repository, tag)


def test_nginx_facts() -> None:
    facts = image_facts("nginx:1.27")
    assert facts.entrypoint == ("/docker-entrypoint.sh",)
    assert facts.cmd == ("nginx", "-g", "daemon off;")
    assert facts.stop_signal == "SIGQUIT"
    assert facts.shell == "dash"


def test_nginx_default_process_serves_port_80() -> None:
    process, world = start({"name": "web", "image": "nginx:1.27"})
    assert set(process.listeners) == {80}
    answer = process.http(1_000, 80, "/", "10.244.1.1", world)
    assert (answer.status, len(answer.body.encode())) == (200, 615)
    assert "Welcome to nginx!" in answer.body
    assert process.http(1_000, 80, "/healthz", "10.244.1.1", world).status == 404
    assert lines(process)[:1] == [
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration"
    ]
    assert lines(process, "stdout")[-1] == (
        '10.244.1.1 - - [01/Jan/2026:00:00:01 +0000] "GET /healthz HTTP/1.1" 404 153 "-" "kube-probe/1.37" "-"'
    )


@pytest.mark.parametrize(
    "image",
    [
        "busybox",
        "busybox:1.36",
        "alpine:3.20",
        "debian:12",
        "ubuntu:24.04",
        "python:3.12",
        "node:20",
    ],
)
def test_shells_and_repls_exit_0_at_once_without_a_terminal(image: str) -> None:
    process, _ = start({"name": "c", "image": image})
    assert (process.exit_code, process.exit_ms) == (0, 0)


def test_stdin_true_keeps_the_shell_waiting() -> None:
    process, world = start({"name": "c", "image": "busybox:1.36"}, stdin=True)
    run_until(process, world, 3_600_000)
    assert process.running


def test_agnhost_liveness_is_healthy_for_10_seconds_after_each_start() -> None:
    container = {
        "name": "liveness",
        "image": "registry.k8s.io/e2e-test-images/agnhost:2.40",
        "args": ["liveness"],
    }
    process, world = start(container, now=5_000)
    assert set(process.listeners) == {8080}
    assert process.http(15_000, 8080, "/healthz", "10.244.1.1", world).status == 200
    late = process.http(15_001, 8080, "/healthz", "10.244.1.1", world)
    assert (late.status, late.body) == (500, "error: 10.001")
    again, _ = start(container, world, now=30_000)
    assert again.http(33_000, 8080, "/healthz", "10.244.1.1", world).status == 200


def test_agnhost_default_pause() -> None:
    process, _ = start({"name": "c", "image": "registry.k8s.io/e2e-test-images/agnhost:2.40"})
    assert lines(process) == ["Paused"]


@pytest.mark.parametrize(
    ("image", "ports"),
    [("redis:7.2", {6379}), ("httpd:2.4", {80}), ("registry.k8s.io/pause:3.9", set()),
     ("registry.k8s.io/goproxy:0.1", {8080}), ("registry.k8s.io/e2e-test-images/agnhost:2.40", set())],
)  # fmt: skip
def test_default_processes_listen_where_the_image_does(image: str, ports: set[int]) -> None:
    process, _ = start({"name": "c", "image": image})
    assert process.running
    assert set(process.listeners) == ports


def test_httpd_serves_it_works() -> None:
    process, world = start({"name": "c", "image": "httpd:2.4"})
    answer = process.http(1_000, 80, "/", "10.244.1.1", world)
    assert (answer.status, answer.body) == (200, "<html><body><h1>It works!</h1></body></html>\n")


def test_postgres_without_a_password_exits_1() -> None:
    process, _ = start({"name": "db", "image": "postgres:16"})
    assert process.exit_code == 1
    assert (
        lines(process)[0]
        == "Error: Database is uninitialized and superuser password is not specified."
    )


def test_mysql_without_a_password_exits_1() -> None:
    process, _ = start({"name": "db", "image": "mysql:8.4"})
    assert process.exit_code == 1
    assert lines(process)[0].endswith(
        "[ERROR] [Entrypoint]: Database is uninitialized and password option is not specified"
    )


def test_etcd_answers_grpc_health() -> None:
    process, world = start({"name": "etcd", "image": "registry.k8s.io/etcd:3.5.1-0",
                            "command": ["/usr/local/bin/etcd", "--data-dir", "/var/lib/etcd",
                                        "--listen-client-urls", "http://0.0.0.0:2379"]})  # fmt: skip
    assert process.grpc(1_000, 2379, "", world) == "SERVING"
    assert process.grpc(1_000, 2380, "", world) == "unavailable"
    assert process.grpc(1_000, 9999, "", world) == "refused"


def test_unknown_image_listens_on_its_ports_and_answers_200() -> None:
    process, world = start(
        {"name": "api", "image": "registry.example.com/team/api:1.4"}, ports=(8080,)
    )
    run_until(process, world, 3_600_000)
    assert process.running
    assert process.http(1_000, 8080, "/healthz", "10.244.1.1", world).status == 200
    assert process.tcp(1_000, 9090, world) is False


def test_sizes_are_realistic_and_distinct() -> None:
    """Issue 11 item 17: busybox and nginx must not report the same size."""
    sizes = {key: entry["size"] for key, entry in IMAGES.items()}
    assert len(set(sizes.values())) == len(sizes)
    assert image_facts("busybox:1.36").size_bytes < 5 * 1024 * 1024
    assert 50 * 1024 * 1024 < image_facts("nginx:1.27").size_bytes < 100 * 1024 * 1024
    assert image_facts("nginx:1.27-alpine").size_bytes < image_facts("nginx:1.27").size_bytes
    assert image_facts("registry.k8s.io/pause:3.9").size_bytes < 1024 * 1024
    assert image_facts("python:3.12").size_bytes > image_facts("python:3.12-slim").size_bytes
    assert image_facts("example.com/unknown:1").size_bytes is None


def test_busybox_images_hold_only_busybox_applets() -> None:
    facts = image_facts("busybox:1.36")
    assert facts.has_binary("wget") is True
    assert facts.has_binary("/bin/sh") is True
    assert facts.has_binary("bash") is False
    assert facts.has_binary("curl") is False
    assert facts.has_binary("true") and facts.has_binary("false") and facts.has_binary("yes")
    assert image_facts("debian:12").has_binary("curl") is False
    assert image_facts("debian:12").has_binary("bash") is None  # not listed: assumed present


def test_old_busybox_nslookup_versions() -> None:
    assert image_facts("busybox:1.28").old_nslookup
    assert image_facts("registry.k8s.io/busybox").old_nslookup
    assert not image_facts("busybox:1.36").old_nslookup
    assert not image_facts("busybox").old_nslookup


def test_missing_shell_is_a_start_error() -> None:
    process, _ = start({"name": "c", "image": "busybox:1.36", "command": ["bash", "-c", "echo hi"]})
    assert process.exit_code == 128
    assert process.start_error == (
        "failed to create containerd task: failed to create shim task: OCI runtime create failed: "
        'runc create failed: unable to start container process: exec: "bash": executable file '
        "not found in $PATH: unknown"
    )


def test_exec_of_a_missing_binary_is_an_exec_error() -> None:
    process, _world = start({"name": "c", "image": "registry.k8s.io/pause:3.9"})
    result = process.exec(1_000, ["cat", "/tmp/healthy"], 1_000, FakeWorld())
    assert result.error.startswith(
        'OCI runtime exec failed: exec failed: unable to start container process: exec: "cat"'
    )
