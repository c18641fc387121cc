"""The playground on three machines (issue 22): 127.0.0.2, .3 and .4 stand in for three
hosts, each `pod-playground --host ADDRESS --redis URL` in its own process group and
folder, with one Redis and one PostgreSQL between them and one nginx in front
(deploy/nginx.conf with the three in its upstream), all started by the test.

`kill -9` of a whole host under 50 playing tabs: every tab reconnects through nginx to
another host and gets its own session back, from its record in Redis, with the same
actions and the same transitions, and plays on; a share link made before opens after.
Nothing here asserts on wall-clock time; waits only stop a hung test.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.postgres import Postgres
from tests.integration.stack import ROOT, WAIT, Nginx, Redis, free_port, need_binaries
from tests.integration.test_workers import TABS, assert_resumed, close, open_tabs, seen_by

pytestmark = pytest.mark.slow

ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")


class Host:
    """One machine: `python -m webapp` on its own address, in a process group of its own
    (so that `kill -9` takes the whole tree, as a machine's death does)."""

    def __init__(self, folder: Path, address: str, port: int, redis: str, db: str) -> None:
        self.address, self.port = address, port
        (folder / address).mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "webapp", "--host", address, "--port", str(port),
             "--redis", redis],
            cwd=ROOT,
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "PYTHONUNBUFFERED": "1",
                "PLAYGROUND_DB": str(folder / address / "playground.sqlite3"),
                "PLAYGROUND_DATABASE_URL": db,
                "PLAYGROUND_TRUSTED_PROXIES": "127.0.0.1",
                "PLAYGROUND_MAX_SESSIONS_PER_CLIENT": "500",
                "PLAYGROUND_NEW_SESSIONS_PER_MINUTE": "1000",
            },
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip

    def wait_listening(self) -> None:
        deadline = time.monotonic() + WAIT
        while True:
            assert self.process.poll() is None, f"host {self.address} ended"
            with socket.socket() as s:
                if s.connect_ex((self.address, self.port)) == 0:
                    return
            assert time.monotonic() < deadline, f"host {self.address} did not start"
            time.sleep(0.05)

    def kill_9(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(WAIT)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(WAIT)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(WAIT)


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[dict[str, Any]]:
    need_binaries()
    parts: dict[str, Any] = {"hosts": []}
    try:
        parts["redis"] = Redis(tmp_path / "redis")
        parts["postgres"] = Postgres.start()
        ports = {address: free_port() for address in ADDRESSES}
        parts["ports"] = ports
        parts["nginx"] = Nginx(tmp_path / "nginx", 0, hosts=[f"{a}:{p}" for a, p in ports.items()])
        parts["folder"] = tmp_path
        yield parts
    finally:
        for host in parts["hosts"]:
            host.stop()
        for name in ("nginx", "redis"):
            if name in parts:
                parts[name].stop()
        if "postgres" in parts:
            parts["postgres"].remove()


def start(machines: dict[str, Any], address: str) -> Host:
    host = Host(
        machines["folder"],
        address,
        machines["ports"][address],
        machines["redis"].url,
        machines["postgres"].url,
    )
    machines["hosts"].append(host)
    host.wait_listening()
    return host


def test_kill_9_of_a_whole_host_under_50_tabs(machines: dict[str, Any]) -> None:
    nginx: Nginx = machines["nginx"]
    # Every tab on the first host: the others are not up yet (nginx passes a refused
    # connection on to the next server of its upstream).
    first = start(machines, ADDRESSES[0])
    request = urllib.request.Request(
        f"{nginx.url}/api/share",
        data=json.dumps(
            {"yaml": (ROOT / "scenarios" / "plain-pod.yaml").read_text(), "at": 3}
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        link = json.load(answer)["id"]
    tabs = open_tabs(nginx.url, TABS)
    try:
        for address in ADDRESSES[1:]:
            start(machines, address)
        time.sleep(1.5)  # a round of records with everyone playing
        before: dict[int, dict[str, Any]] = seen_by(tabs)
        first.kill_9()
        for i, tab in enumerate(tabs):
            tab.wait(lambda t, i=i: len(t.snapshots) > before[i]["snapshots"])
        assert all(tab.connects == 2 for tab in tabs)
        for i, tab in enumerate(tabs):  # from the last record: about a wall second back
            assert tab.snapshots[-1]["now"] >= before[i]["now"] - 20
        assert_resumed(tabs, before)
        for i, tab in enumerate(tabs):  # ... and they play on, on the other two hosts
            tab.wait(lambda t, i=i: t.now > before[i]["now"] + 1)
        with urllib.request.urlopen(f"{nginx.url}/s/{link}", timeout=WAIT) as page:
            assert page.status == 200  # the link, made through the dead host, opens
    finally:
        close(tabs)
