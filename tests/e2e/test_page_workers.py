"""The page through nginx in front of two workers and Redis (deploy/nginx.conf,
docs/workers.md), all started by the test: it connects over WebSocket, plays with its own
clock between the server's messages, and when the worker serving it is killed (`kill -9`)
it reconnects to the other and goes on with the same session and history."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pagekit import collect_errors, now, play
from tests.integration.stack import Nginx, Playground, Redis, need_binaries

pytestmark = pytest.mark.slow


@pytest.fixture
def nginx_url(tmp_path: Path) -> Iterator[tuple[str, Playground, str]]:
    need_binaries()
    redis = Redis(tmp_path / "redis")
    playground = Playground(tmp_path / "playground", redis.url)
    nginx = Nginx(tmp_path / "nginx", playground.port)
    try:
        yield nginx.url, playground, redis.url
    finally:
        nginx.stop()
        playground.stop()
        redis.stop()


# While its worker is down the page's reconnect attempts fail; the browser reports each.
@pytest.mark.console_errors_allowed(
    r"WebSocket connection to .* failed", r"ERR_CONNECTION_REFUSED", r"status of 50[234]"
)
def test_the_page_survives_kill_9_of_its_worker_behind_nginx(
    page: Page, nginx_url: tuple[str, Playground, str], artifacts: Path
) -> None:
    url, playground, redis_url = nginx_url
    errors = collect_errors(page)
    page.goto(f"{url}/?scenario=crash-loop-backoff")
    body = page.locator("body")
    expect(body).to_have_attribute("data-transport", "websocket")
    expect(body).to_have_attribute("data-session", re.compile(".+"))
    session = page.get_attribute("body", "data-session")
    play(page, "10")
    page.wait_for_function("() => Number(document.body.dataset.now) > 25", timeout=30_000)
    before = now(page)
    victim = serving_worker(redis_url, str(session))
    os.kill(victim, signal.SIGKILL)
    expect(body).to_have_attribute("data-connected", "false", timeout=15_000)
    expect(body).to_have_attribute("data-connected", "true", timeout=30_000)
    page.wait_for_function(
        f"() => Number(document.body.dataset.now) > {before + 5}", timeout=30_000
    )
    assert page.get_attribute("body", "data-session") == session
    assert victim not in playground.worker_pids()
    expect(page.locator("#views")).not_to_be_empty()
    page.screenshot(path=str(artifacts / "workers-after-kill-9.png"))
    assert [e for e in errors if "WebSocket" not in e] == []


def serving_worker(redis_url: str, session: str) -> int:
    """The worker whose lease the session is (its token is host:pid:random)."""
    import redis

    token = redis.Redis.from_url(redis_url).get(f"playground:lease:{session}")
    assert token is not None, "the session has no lease"
    return int(token.decode().split(":")[1])
