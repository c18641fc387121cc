"""Redis lost under two workers, and back empty (issue 26 F8), all started by the test
(tests/integration/stack.py): while Redis is down /readyz says "not ready" and a new tab
still gets a session (served by its worker, never internal_error); once Redis is back with
nothing in it, every live session's record is written again, so a later `kill -9` of the
workers loses no tab's session, paused ones included (before: 4 of 34 were lost). The
same when Redis loses everything without either worker seeing it down (FLUSHALL: a
restart between two rounds): the first round after it writes every record whole, never
rows without their base (before: 7 of 13 tabs got `unknown_session` after the kill).

Nothing here asserts on wall-clock time; waits only stop a hung test.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis as redis_client

from tests.integration.stack import Playground, Redis, Tab, need_binaries
from webapp import records
from webapp.records import RedisRecords

pytestmark = pytest.mark.slow

TABS = 12
SCENARIO = "crash-loop-backoff"


def readyz(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def steady(url: str, status: int) -> bool:
    """/readyz answers `status`, and four times in a row once every worker's cached probe
    is newer than that answer. Each worker probes Redis at most every PROBE_SECONDS and
    either may answer: four answers in a row can all come from one worker while the other
    still has its probe from before Redis died, and says "ready" (the F8 run did)."""
    if readyz(url)[0] != status:
        return False
    time.sleep(records.PROBE_SECONDS)  # what a worker probed before that answer is stale now
    return all(readyz(url)[0] == status for _ in range(4))


def wait_for(predicate, timeout: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return bool(predicate())


@dataclass
class Stack:
    """Redis, two workers on it, and TABS playing tabs (playing_tabs)."""

    redis: Redis
    playground: Playground
    tabs: list[Tab]


@contextlib.contextmanager
def redis_and_playground(tmp_path: Path) -> Iterator[Stack]:
    """The Stack, all of it stopped after (`stack.redis` as the test left it)."""
    need_binaries()
    redis = Redis(tmp_path / "redis")
    stack = Stack(redis, Playground(tmp_path / "playground", redis.url), [])
    try:
        stack.tabs.extend(playing_tabs(f"http://127.0.0.1:{stack.playground.port}"))
        yield stack
    finally:
        for tab in stack.tabs:
            tab.close()
        stack.playground.stop()
        stack.redis.stop()


def playing_tabs(url: str) -> list[Tab]:
    """TABS tabs of SCENARIO at 10x, each past its third second; half of them paused
    (nothing changes, so nothing of theirs is rewritten)."""
    tabs = [Tab(url, SCENARIO) for _ in range(TABS)]
    for tab in tabs:
        tab.wait(lambda t: t.session is not None)
        tab.client.emit("clock", {"op": "speed", "value": 10})
        tab.client.emit("clock", {"op": "play"})
    for i, tab in enumerate(tabs):
        tab.wait(lambda t: t.now >= 3)
        if i % 2:
            tab.client.emit("clock", {"op": "pause"})
            tab.wait(lambda t: not t.clock.get("playing"))
    return tabs


def lost_after_kill(playground: Playground, tabs: list[Tab]) -> list[int]:
    """kill -9 of every worker; the tabs whose next snapshot is not their session's."""
    before = {i: (tab.session, len(tab.snapshots)) for i, tab in enumerate(tabs)}
    for pid in playground.worker_pids():
        os.kill(pid, signal.SIGKILL)
    for i, tab in enumerate(tabs):
        tab.wait(lambda t, i=i: len(t.snapshots) > before[i][1], timeout=60)
    return [i for i, tab in enumerate(tabs) if tab.snapshots[-1]["session"] != before[i][0]]


def test_redis_lost_and_back_empty_loses_no_session(tmp_path: Path) -> None:
    with redis_and_playground(tmp_path) as stack:
        redis, playground, tabs = stack.redis, stack.playground, stack.tabs
        url = f"http://127.0.0.1:{playground.port}"
        assert readyz(url)[0] == 200
        # Redis dies (kill -9: nothing saved) ...
        redis.process.send_signal(signal.SIGKILL)
        redis.process.wait(10)
        assert wait_for(lambda: steady(url, 503)), readyz(url)
        status, down = readyz(url)
        print(f"\nF8: /readyz with Redis down: {status} {down}")
        assert down["status"] == "not_ready" and "Redis" in down["checks"]["records"], down
        # ... a new tab still gets a session, or a clear error; never internal_error.
        newcomer = Tab(url, SCENARIO)
        newcomer.wait(lambda t: t.session is not None or t.errors, timeout=30)
        assert all(e.get("code") != "internal_error" for e in newcomer.errors), newcomer.errors
        if newcomer.session is not None:
            tabs.append(newcomer)
        else:
            newcomer.close()
        # ... and comes back empty on the same port.
        shutil.rmtree(redis.folder)
        redis = stack.redis = Redis(tmp_path / "redis-again", port=redis.port)
        assert wait_for(lambda: steady(url, 200)), readyz(url)
        # Every live session's record is written again (the first round that can write
        # writes them whole): wait for each in the new Redis, paused ones included.
        back = redis_client.Redis.from_url(redis.url)
        keys = [RedisRecords.key(tab.session) for tab in tabs if tab.session]
        assert wait_for(lambda: all(back.exists(key) for key in keys)), [
            key for key in keys if not back.exists(key)
        ]
        lost = lost_after_kill(playground, tabs)
        print(f"F8: after Redis came back empty and kill -9: {len(lost)} of {len(tabs)} lost")
        assert not lost
        assert all(e.get("code") != "internal_error" for t in tabs for e in t.errors)


def test_redis_emptied_unseen_loses_no_session(tmp_path: Path) -> None:
    with redis_and_playground(tmp_path) as stack:
        redis, playground, tabs = stack.redis, stack.playground, stack.tabs
        back = redis_client.Redis.from_url(redis.url)
        keys = [RedisRecords.key(tab.session) for tab in tabs if tab.session]
        assert wait_for(lambda: all(back.exists(key) for key in keys))
        back.flushall()  # no worker sees an error: only its leases are gone
        assert wait_for(lambda: all(back.exists(key) for key in keys)), [
            key for key in keys if not back.exists(key)
        ]
        # Whatever is there is a whole record, at once (never parts without a base).
        store = RedisRecords(back, ttl_seconds=60)
        assert all(store.load(tab.session) is not None for tab in tabs if tab.session)
        lost = lost_after_kill(playground, tabs)
        print(f"\nF8: after Redis was emptied unseen and kill -9: {len(lost)} of {len(tabs)} lost")
        assert not lost
        assert all(e.get("code") != "internal_error" for t in tabs for e in t.errors)
