"""Issue 5's promise end to end: a link copied in one browser opens the same run in another
browser after the server was killed (-9) and started again on the same database."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.pagekit import open_scenario, pause, play, wait_until_now


class Server:
    """`python -m webapp --port 0` as a real process tree (gunicorn's arbiter and its
    worker, in a process group of their own), so it can be killed for real."""

    def __init__(self, db: Path, cwd: Path) -> None:
        env = {**os.environ, "PLAYGROUND_DB": str(db)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "webapp", "--port", "0"],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert match, f"no URL printed: {line!r}"
        self.url = match.group(1)

    def kill(self) -> None:
        """kill -9 of the whole server: the arbiter and its workers at once."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.kill()


def test_a_shared_link_survives_kill_9_and_opens_in_another_browser(
    browser: Browser, tmp_path: Path, servers: list[Server]
) -> None:
    db = tmp_path / "links.sqlite3"
    first = Server(db, tmp_path)
    servers.append(first)
    sharer = browser.new_context(base_url=first.url)
    page = sharer.new_page()
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 30)
    pause(page)
    at = float(page.get_attribute("body", "data-now") or 0)
    status = page.get_attribute("body", "data-status")
    watch = page.locator("#kubectl-watch").inner_text()
    page.click("#share")
    link = page.locator("#share-link")
    expect(link).to_have_value(re.compile(r"/s/[\w-]+$"))
    path = re.sub(r"^https?://[^/]+", "", link.input_value())
    sharer.close()

    first.kill()
    second = Server(db, tmp_path)
    servers.append(second)

    # Another browser context: no cookies, no sessionStorage, nothing shared but the link.
    viewer = browser.new_context(base_url=second.url, locale="zh-CN")
    other = viewer.new_page()
    try:
        other.goto(path)
        other.wait_for_function(
            "at => Math.abs(Number(document.body.dataset.now) - at) < 0.01", arg=at
        )
        expect(other.locator("body")).to_have_attribute("data-status", status or "")
        expect(other.locator("#kubectl-watch")).to_have_text(watch)
    finally:
        viewer.close()
