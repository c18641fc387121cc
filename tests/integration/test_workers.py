"""Two workers behind nginx, with Redis, all started by the test (tests/integration/stack.py):
a worker killed with `kill -9` under 50 tabs, and a SIGTERM and restart of everything under
50 tabs; every tab resumes its own session with the same history, and share links survive.

Sized for a 2-core machine: 50 sessions of crash-loop-backoff at 10x. Nothing here asserts
on wall-clock time; waits only stop a hung test.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.stack import ROOT, Nginx, Playground, Redis, Tab, need_binaries

pytestmark = pytest.mark.slow

TABS = 50
SCENARIO = "crash-loop-backoff"
# A test freezes a worker (SIGSTOP) while 50 tabs connect to the other: on a loaded machine
# that takes longer than gunicorn's 30 s worker timeout, after which the arbiter kills the
# frozen worker (CI's ProcessLookupError). Here the timeout outlasts any such wait.
FROZEN_OK = {"PLAYGROUND_SERVER_WORKER_TIMEOUT_SECONDS": "600"}


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[dict[str, object]]:
    need_binaries()
    parts: dict[str, object] = {}
    try:
        parts["redis"] = Redis(tmp_path / "redis")
        parts["playground"] = Playground(tmp_path / "playground", parts["redis"].url, env=FROZEN_OK)  # type: ignore[attr-defined]
        parts["nginx"] = Nginx(tmp_path / "nginx", parts["playground"].port)  # type: ignore[attr-defined]
        yield parts
    finally:
        for name in ("nginx", "playground", "redis"):
            part = parts.get(name)
            if part is not None:
                part.stop()  # type: ignore[attr-defined]


def open_tabs(url: str, count: int) -> list[Tab]:
    tabs = [Tab(url, SCENARIO) for _ in range(count)]
    for tab in tabs:
        tab.wait(lambda t: t.session is not None)
        tab.client.emit("clock", {"op": "speed", "value": 10})
        tab.client.emit("clock", {"op": "play"})
    for i, tab in enumerate(tabs):
        tab.wait(lambda t: t.now >= 3 and t.clock.get("playing"))
        if i % 5 == 0:  # some histories have a user action in them
            tab.client.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    for tab in tabs:
        tab.wait(lambda t: t.now >= 5)
    for i, tab in enumerate(tabs):
        if i % 5 == 0:
            tab.wait(lambda t: len(t.actions) == 1)
    return tabs


def close(tabs: list[Tab]) -> None:
    for tab in tabs:
        tab.close()


def assert_resumed(tabs: list[Tab], before: dict[int, dict[str, object]]) -> None:
    """Every tab is on its own session again, at or after where its record left it, with
    the same actions and the same transitions up to the moment it resumed at."""
    for i, tab in enumerate(tabs):
        old = before[i]
        resumed = tab.snapshots[-1]
        assert resumed["session"] == old["session"]
        assert resumed["actions"] == old["actions"]
        at = float(resumed["now"])  # type: ignore[arg-type]
        assert at > 0
        # The record may be ahead of what the tab had received when `before` was taken
        # (the worker ran on until it was killed, and a loaded tab lags its ticks): compare
        # up to the earlier of the two moments (ci14: a record at 22.866 s, the tab at less).
        seen = min(at, float(old["now"]))  # type: ignore[arg-type]
        with tab.changed:
            now_history = tab.history(seen)
        assert now_history == [h for h in old["history"] if h[1] <= seen]  # type: ignore[attr-defined]
        assert now_history, "a resumed history is not empty"


def seen_by(tabs: list[Tab]) -> dict[int, dict[str, object]]:
    """What each tab has: its session, actions, snapshots so far, second and history."""
    before = {}
    for i, tab in enumerate(tabs):
        with tab.changed:
            before[i] = {
                "session": tab.session,
                "actions": list(tab.actions),
                "snapshots": len(tab.snapshots),
                "now": tab.now,
                "history": tab.history(float("inf")),
            }
    return before


def test_kill_9_of_the_worker_serving_50_tabs(stack: dict[str, object]) -> None:
    playground: Playground = stack["playground"]  # type: ignore[assignment]
    nginx: Nginx = stack["nginx"]  # type: ignore[assignment]
    first, second = playground.worker_pids()
    # All 50 tabs on one worker: the other is frozen while they connect (it does not
    # accept, so the kernel gives every connection to the one that does).
    os.kill(second, signal.SIGSTOP)
    try:
        tabs = open_tabs(nginx.url, TABS)
    finally:
        os.kill(second, signal.SIGCONT)
    try:
        time.sleep(1.5)  # a round of records with everyone playing
        before = seen_by(tabs)
        os.kill(first, signal.SIGKILL)
        for i, tab in enumerate(tabs):
            tab.wait(lambda t, i=i: len(t.snapshots) > before[i]["snapshots"])
        assert all(tab.connects == 2 for tab in tabs)
        # Resumed from the last record: at most about a second of wall time (10 virtual
        # seconds at 10x) before where the tab was.
        for i, tab in enumerate(tabs):
            assert tab.snapshots[-1]["now"] >= before[i]["now"] - 20
        assert_resumed(tabs, before)
        # ... and they play on from there.
        for i, tab in enumerate(tabs):
            tab.wait(lambda t, i=i: t.now > before[i]["now"] + 1)
        assert first not in playground.worker_pids()
        assert len(playground.worker_pids()) == 2  # the supervisor started another
    finally:
        close(tabs)


def test_sigterm_and_restart_of_everything_with_50_tabs(
    stack: dict[str, object], tmp_path: Path
) -> None:
    redis: Redis = stack["redis"]  # type: ignore[assignment]
    playground: Playground = stack["playground"]  # type: ignore[assignment]
    nginx: Nginx = stack["nginx"]  # type: ignore[assignment]
    link = share(nginx.url)
    tabs = open_tabs(nginx.url, TABS)
    try:
        # Stop everything, the playground first (it drains: every record written).
        playground.stop()
        assert playground.process.returncode == 0
        drained = sum(
            int(n) for n in re.findall(r"drained: (\d+) sessions", "\n".join(playground.lines))
        )
        assert drained == TABS
        for tab in tabs:
            with tab.changed:
                assert not tab.client.connected or tab.connects == 1
        before = seen_by(tabs)
        nginx.stop()
        redis.stop()
        # ... and start it all again on the same ports and folders.
        stack["redis"] = Redis(redis.folder, port=redis.port)
        stack["playground"] = Playground(tmp_path / "playground", redis.url, port=playground.port,
                                         env=FROZEN_OK)  # fmt: skip
        stack["nginx"] = Nginx(tmp_path / "nginx", playground.port, port=nginx.port)
        for i, tab in enumerate(tabs):
            tab.wait(lambda t, i=i: len(t.snapshots) > before[i]["snapshots"])
        # A drained session resumes at the moment it stopped at, the last one its tab saw
        # (give or take the tick interval).
        for i, tab in enumerate(tabs):
            assert before[i]["now"] <= tab.snapshots[-1]["now"] <= before[i]["now"] + 1
        assert_resumed(tabs, before)
        for i, tab in enumerate(tabs):
            tab.wait(lambda t, i=i: t.now > before[i]["now"] + 1)
        # The share link made before opens after.
        with urllib.request.urlopen(f"{nginx.url}/api/share/{link}") as answer:
            assert json.load(answer)["yaml"].startswith("apiVersion")
    finally:
        close(tabs)


def share(url: str) -> str:
    text = (ROOT / "scenarios" / f"{SCENARIO}.yaml").read_text()
    request = urllib.request.Request(
        f"{url}/api/share",
        data=json.dumps({"yaml": text, "actions": [], "at": 3}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        return str(json.load(answer)["id"])


def test_nginx_compresses_dynamic_pages(stack: dict[str, object]) -> None:
    nginx: Nginx = stack["nginx"]  # type: ignore[assignment]
    request = urllib.request.Request(f"{nginx.url}/", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as answer:
        assert answer.headers["Content-Encoding"] == "gzip"
        assert b"<html" in gzip.decompress(answer.read()).lower()
