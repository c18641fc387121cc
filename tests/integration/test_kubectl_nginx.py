"""The real kubectl 1.37 against a session through nginx with deploy/nginx.conf (its
`/kube/` location): the kubeconfig made through nginx names nginx, a watch streams
through it as the changes happen (nothing buffered), and `kubectl exec`'s WebSocket is
upgraded through it. Real Redis, playground and nginx, started by the test."""

from __future__ import annotations

import json
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.stack import WAIT, Nginx, Playground, Redis, need_binaries
from tests.kubeapi.conftest import KUBECTL

pytestmark = pytest.mark.slow

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "echo hello > /tmp/greeting; sleep 3600"]
"""


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[dict[str, Any]]:
    need_binaries()
    parts: dict[str, Any] = {}
    try:
        parts["redis"] = Redis(tmp_path / "redis")
        parts["playground"] = Playground(tmp_path / "playground", parts["redis"].url, workers=1)
        parts["nginx"] = Nginx(tmp_path / "nginx", parts["playground"].port)
        yield parts
    finally:
        for name in ("nginx", "playground", "redis"):
            if name in parts:
                parts[name].stop()


def kubectl(kubeconfig: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KUBECTL, f"--kubeconfig={kubeconfig}", f"--cache-dir={cache}", *args],
        capture_output=True, text=True, timeout=WAIT, check=False,
    )  # fmt: skip


def test_kubectl_through_nginx_gets_watches_and_execs(
    stack: dict[str, Any], tmp_path: Path
) -> None:
    nginx: Nginx = stack["nginx"]
    request = urllib.request.Request(
        f"{nginx.url}/api/kubeconfig",
        data=json.dumps({"yaml": POD, "speed": 5}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        made = json.load(answer)
    assert made["server"].startswith(f"{nginx.url}/kube/")  # through nginx, as asked
    config = tmp_path / "kubeconfig"
    config.write_text(made["kubeconfig"])
    cache = tmp_path / "cache"
    deadline_lines: list[str] = []
    for _ in range(600):  # until the Pod runs (the session plays at 5x)
        got = kubectl(config, cache, "get", "pod", "web", "--no-headers")
        assert got.returncode == 0, got.stderr
        deadline_lines.append(got.stdout)
        if " Running " in got.stdout:
            break
        threading.Event().wait(0.1)
    else:
        raise AssertionError(f"never Running: {deadline_lines[-3:]}")
    said = kubectl(config, cache, "exec", "web", "--", "cat", "/tmp/greeting")
    assert (said.returncode, said.stdout) == (0, "hello\n"), said.stderr
    failed = kubectl(config, cache, "exec", "web", "--", "sh", "-c", "exit 3")
    assert failed.returncode == 3 and "command terminated with exit code 3" in failed.stderr
    # A watch: the delete below shows on it while it is still open (not at its end).
    watch = subprocess.Popen(
        [KUBECTL, f"--kubeconfig={config}", f"--cache-dir={cache}", "get", "pods", "-w",
         "--no-headers"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert watch.stdout is not None
        first = watch.stdout.readline()
        assert first.startswith("web ") and "Running" in first
        deleted = kubectl(config, cache, "delete", "pod", "web", "--wait=false")
        assert deleted.stdout == 'pod "web" deleted from default namespace\n', deleted.stderr
        seen = watch.stdout.readline()  # blocks until nginx passes the event on
        assert seen.startswith("web ") and "Terminating" in seen
    finally:
        watch.kill()
        watch.wait(WAIT)
