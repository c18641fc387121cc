"""Limits per client address and for everyone hold across every worker and host that
shares Redis (webapp/ratelimit.py SharedRateLimiter), not once per process: a real Redis
and real `pod-playground` processes on their own loopback addresses, started by the test.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.stack import ROOT, WAIT, Redis, free_port, need_binaries
from webapp.ratelimit import SharedRateLimiter
from webapp.redis_client import bounded_redis

PLAIN_POD = (ROOT / "scenarios" / "plain-pod.yaml").read_text()


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    need_binaries()
    server = Redis(tmp_path / "redis")
    try:
        yield server
    finally:
        server.stop()


def test_two_processes_share_one_bucket_per_key(redis: Redis) -> None:
    # Two limiters on two clients stand in for two processes.
    first = SharedRateLimiter(bounded_redis(redis.url, 2), "posts", rate=1 / 60, burst=3)
    second = SharedRateLimiter(bounded_redis(redis.url, 2), "posts", rate=1 / 60, burst=3)
    assert [first.allow("10.0.0.1"), second.allow("10.0.0.1"), first.allow("10.0.0.1")] == [
        True,
        True,
        True,
    ]
    assert second.available("10.0.0.1") is False  # looking takes nothing ...
    assert second.allow("10.0.0.1") is False and first.allow("10.0.0.1") is False
    assert second.allow("10.0.0.2") is True  # ... and each address has its own bucket
    client = bounded_redis(redis.url, 1)
    ttl = client.pttl("playground:rate:posts:10.0.0.1")
    assert 0 < ttl <= 181_000  # gone once it would be full again: keys do not pile up


def test_a_limit_refills_at_its_rate_on_redis_time(redis: Redis) -> None:
    limiter = SharedRateLimiter(bounded_redis(redis.url, 2), "fast", rate=20.0, burst=1)
    assert limiter.allow("k") and not limiter.allow("k")
    deadline = time.monotonic() + WAIT
    while not limiter.allow("k"):  # 50 ms of Redis's clock brings one token back
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_without_redis_each_process_keeps_its_own_limit(redis: Redis) -> None:
    clock = [0.0]
    limiter = SharedRateLimiter(
        bounded_redis(redis.url, 2), "lost", rate=1 / 60, burst=2, clock=lambda: clock[0]
    )
    assert limiter.allow("a")
    redis.stop()
    # Redis gone: the process's own bucket (2 at once), never no limit at all.
    assert [limiter.allow("a"), limiter.allow("a"), limiter.allow("a")] == [True, True, False]
    clock[0] += SharedRateLimiter.RETRY_SECONDS + 1  # tried again later, still down
    assert limiter.allow("b") and limiter.allow("b") and not limiter.allow("b")


def start_host(tmp_path: Path, address: str, redis_url: str, env: dict[str, str]) -> Any:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp", "--host", address, "--port", str(port),
         "--redis", redis_url],
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PLAYGROUND_DB": str(tmp_path / address / "playground.sqlite3"),
            **env,
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + WAIT
    while True:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        with socket.socket() as s:
            if s.connect_ex((address, port)) == 0:
                break
        assert time.monotonic() < deadline, "the host did not start"
        time.sleep(0.05)
    process.url = f"http://{address}:{port}"  # type: ignore[attr-defined]
    return process


def post_share(url: str) -> int:
    request = urllib.request.Request(
        f"{url}/api/share",
        data=json.dumps({"yaml": PLAIN_POD, "at": time.time() % 100}).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@pytest.mark.slow
def test_share_posts_are_limited_across_hosts_not_per_host(tmp_path: Path, redis: Redis) -> None:
    """Two hosts, 3 posts a minute per client and 5 for everyone: a client that alternates
    between the hosts gets 3 in all, not 3 on each; everyone together 5, not 10."""
    env = {
        "PLAYGROUND_SHARE_POSTS_PER_MINUTE": "3",
        "PLAYGROUND_SHARE_POSTS_PER_MINUTE_GLOBAL": "5",
    }
    hosts = [start_host(tmp_path, a, redis.url, env) for a in ("127.0.0.2", "127.0.0.3")]
    try:
        statuses = [post_share(hosts[i % 2].url) for i in range(4)]
        assert statuses == [201, 201, 201, 429]
        # Another client (behind no proxy, its address is its own): two more in all reach
        # the global limit of 5, whichever host they reach.
        others = [post_share_from(hosts[i % 2].url, f"127.0.0.{10 + i}") for i in range(3)]
        assert others == [201, 201, 429]
    finally:
        for host in hosts:
            host.send_signal(signal.SIGTERM)
        for host in hosts:
            host.wait(WAIT)


def post_share_from(url: str, source: str) -> int:
    """A post from another client address (a socket bound to it)."""
    import http.client

    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(
        host, int(port), timeout=WAIT, source_address=(source, 0)
    )
    try:
        body = json.dumps({"yaml": PLAIN_POD, "at": time.time() % 100})
        connection.request("POST", "/api/share", body, {"Content-Type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


def join_new_session(url: str) -> str:
    """`join` with a scenario on a new connection: the event it was answered with."""
    import threading

    import socketio

    answered: list[str] = []
    done = threading.Event()
    client = socketio.Client(reconnection=False)
    for event in ("snapshot", "error"):
        client.on(event, lambda payload, event=event: (answered.append(event), done.set()))
    client.connect(url, transports=["websocket"], wait_timeout=WAIT)
    try:
        client.emit("join", {"scenario": "plain-pod"})
        assert done.wait(WAIT), "no answer to join"
        return answered[0]
    finally:
        client.disconnect()


@pytest.mark.slow
def test_new_sessions_per_client_are_counted_across_hosts(tmp_path: Path, redis: Redis) -> None:
    env = {"PLAYGROUND_NEW_SESSIONS_PER_MINUTE": "2"}
    hosts = [start_host(tmp_path, a, redis.url, env) for a in ("127.0.0.2", "127.0.0.3")]
    try:
        answers = [join_new_session(hosts[i % 2].url) for i in range(3)]
        assert answers == ["snapshot", "snapshot", "error"]
    finally:
        for host in hosts:
            host.send_signal(signal.SIGTERM)
        for host in hosts:
            host.wait(WAIT)
