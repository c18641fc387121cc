"""A session's Kubernetes API across hosts (issues 18 and 22): a kubeconfig made on one
host is known to another through Redis; while its owner lives the other answers a clean
503 Status (requests are not forwarded yet), and once the owner is killed (-9) the other
rebuilds the session from its record and serves it. Waits stop only a hung test."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.integration.stack import WAIT
from tests.integration.test_hosts import ADDRESSES, machines, start  # noqa: F401

pytestmark = pytest.mark.slow

KUBECTL = "/root/.pyenv/versions/3.11.7/bin/kubectl"


def kubectl(server: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KUBECTL, "--server", server, *args], capture_output=True, text=True,
                          timeout=WAIT)  # fmt: skip


def test_a_kubeconfig_of_one_host_on_another(machines: dict[str, Any], tmp_path: Path) -> None:  # noqa: F811
    if not Path(KUBECTL).exists():
        pytest.skip("kubectl 1.37 not installed")
    a = start(machines, ADDRESSES[0])
    b = start(machines, ADDRESSES[1])
    request = urllib.request.Request(
        f"http://{a.address}:{a.port}/api/kubeconfig",
        data=json.dumps({"scenario": "plain-pod"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        token = json.load(answer)["token"]
    on_a = f"http://{a.address}:{a.port}/kube/{token}"
    on_b = f"http://{b.address}:{b.port}/kube/{token}"
    assert kubectl(on_a, "get", "pods").returncode == 0
    busy = kubectl(on_b, "get", "pods")
    assert busy.returncode == 1 and "ServiceUnavailable" in busy.stderr, busy.stderr
    wrong = kubectl(on_b[:-4] + "AAAA", "get", "pods")
    assert "You must be logged in to the server" in wrong.stderr, wrong.stderr
    a.kill_9()
    deadline = time.monotonic() + WAIT
    while True:  # the owner's lease runs out (3 s); then host b rebuilds the session
        got = kubectl(on_b, "get", "pods", "-o", "name")
        if got.returncode == 0:
            break
        assert "ServiceUnavailable" in got.stderr, got.stderr  # clean, never a 500
        assert time.monotonic() < deadline, got.stderr
        time.sleep(0.5)
    assert got.stdout.startswith("pod/"), got.stdout
