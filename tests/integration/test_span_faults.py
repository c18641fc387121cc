"""A class span's rounds while Redis is lost (issue 26 F8): a real redis-server, started by
the test (tests/integration/stack.py), is killed under a worker's Span; its rounds log the
fault in one line when it starts and one when Redis is back, as records do
(webapp/records.py), not a traceback every round."""

from __future__ import annotations

import logging
import signal
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.integration.stack import Redis, need_binaries
from webapp.classes.span import Span, alive_key
from webapp.records import bounded_redis

pytestmark = pytest.mark.slow

ROUNDS_DOWN = 5


class Classes:
    def held_codes(self) -> list[str]:
        return []


def test_span_rounds_log_a_lost_redis_in_one_line_not_a_traceback_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    need_binaries()
    redis = Redis(tmp_path / "redis")
    client = bounded_redis(redis.url, 4)
    outbox = SimpleNamespace(caught_up=lambda sid: False, sweep=lambda: None)
    span = Span(None, SimpleNamespace(outbox=outbox), Classes(), client, token="w1")
    try:
        span.run_round()
        assert client.get(alive_key("w1")) == b"1"
        redis.process.send_signal(signal.SIGKILL)
        redis.process.wait(10)
        with caplog.at_level(logging.INFO, logger="webapp.classes.span"):
            for _ in range(ROUNDS_DOWN):
                span.run_round()
            down = [r for r in caplog.records if r.name == "webapp.classes.span"]
            redis = Redis(tmp_path / "redis", port=redis.port)  # back, on the same port
            span.run_round()
            span.run_round()
        lines = [r for r in caplog.records if r.name == "webapp.classes.span"]
        print(f"\nspan log over {ROUNDS_DOWN} rounds without Redis: {[r.message for r in down]}")
        assert [r.getMessage() for r in down] == [
            "class span rounds cannot reach Redis: Redis cannot be reached (ConnectionError)"
        ]
        assert all(r.exc_info is None for r in lines)  # no traceback
        assert lines[-1].getMessage() == "class span rounds reach Redis again"
        assert len(lines) == 2
        assert client.get(alive_key("w1")) == b"1"
        assert span.round_fault is None
    finally:
        redis.stop()
