"""/metrics, /readyz and JSON logs (webapp/metrics.py, webapp/logs.py)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from prometheus_client.parser import text_string_to_metric_families

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from tests.web.live import Tab, serve_with_server
from tests.web.test_realtime import connect, join, run
from webapp import create_app
from webapp.logs import JsonFormatter, configure_logging
from webapp.metrics import readiness_of
from webapp.realtime import realtime_of

OUTSIDE = {"REMOTE_ADDR": "203.0.113.9"}


def _app(tmp_path: Path, **config: Any) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            **config,
        }
    )


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield _app(tmp_path)


def samples(app: Flask, **environ: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = app.test_client().get("/metrics", environ_base=environ)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    found = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_events_seeks_ticks_and_refusals(app: Flask) -> None:
    http = app.test_client()
    http.get("/")
    link = http.post("/api/share", json={"yaml": POD}).json["id"]
    http.get(f"/s/{link}")
    tab = connect(app)
    join(tab, yaml=POD)
    tab.emit("clock", {"op": "play"})
    run(app, 2.0)
    tab.emit("clock", {"op": "seek", "value": 1})
    # Out of CPU: the next command is refused as the CPU budget's `session_busy`.
    (session,) = realtime_of(app).manager.sessions()
    session.cpu.charge(1000.0)
    tab.emit("clock", {"op": "speed", "value": 2})
    other = connect(app)
    other.emit("clock", {"op": "play"})  # joined nothing: `no_session`
    found = samples(app)
    assert value(found, "playground_socketio_events_total", event="join") == 1
    assert value(found, "playground_socketio_events_total", event="clock") == 4
    assert value(found, "playground_seeks_total") == 1
    assert value(found, "playground_ticks_total") > 0
    # Paced ticks with new transitions: how late each left is observed.
    assert value(found, "playground_transition_lateness_seconds_count") > 0
    assert value(found, "playground_refusals_total", code="session_busy") == 1
    assert value(found, "playground_refusals_total", code="no_session") == 1
    assert value(found, "playground_share_links_total") == 1
    assert value(found, "playground_sessions", state="playing") == 1
    assert value(found, "playground_sessions", state="paused") == 0
    assert value(found, "playground_tabs") == 1
    assert value(found, "playground_share_store_bytes") > 0
    route = {"route": "/s/<link_id>", "method": "GET", "status": "200"}
    assert value(found, "playground_http_request_duration_seconds_count", **route) == 1
    assert value(found, "playground_http_request_duration_seconds_bucket", le="+Inf", **route) == 1
    text = http.get("/metrics").get_data(as_text=True)
    assert link not in text, "labels carry routes, never share ids"
    # A hostile path adds no label value.
    http.get("/no/such/" + "x" * 300)
    assert "x" * 300 not in http.get("/metrics").get_data(as_text=True)


def test_http_refusals_are_counted_by_code(app: Flask) -> None:
    http = app.test_client()
    http.get("/api/share/zzzz")
    http.post("/api/share", json={"yaml": 5})
    found = samples(app)
    assert value(found, "playground_refusals_total", code="share_not_found") == 1
    assert value(found, "playground_refusals_total", code="share_invalid") == 1


def test_metrics_answer_loopback_or_a_bearer_token_only(tmp_path: Path) -> None:
    plain = _app(tmp_path)
    assert plain.test_client().get("/metrics", environ_base=OUTSIDE).status_code == 403
    assert (
        plain.test_client().get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    )
    # Behind a trusted proxy, the client is the one X-Forwarded-For names, not the proxy.
    proxied = _app(tmp_path, TRUSTED_PROXIES="127.0.0.1")
    via_proxy = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "203.0.113.9"}
    assert proxied.test_client().get("/metrics", environ_base=via_proxy).status_code == 403
    # Straight to the port from outside, a forged header is not believed (issue 26 F10).
    forged = {"REMOTE_ADDR": "203.0.113.50", "HTTP_X_FORWARDED_FOR": "127.0.0.1"}
    assert proxied.test_client().get("/metrics", environ_base=forged).status_code == 403
    token = _app(tmp_path, METRICS_TOKEN="s3cret-token")
    client = token.test_client()
    denied = client.get("/metrics", environ_base=OUTSIDE)
    assert denied.status_code == 401
    assert denied.headers["WWW-Authenticate"] == "Bearer"
    for wrong in ("Bearer nope", "Basic s3cret-token", "s3cret-token", "Bearer s3cret-token2"):
        response = client.get("/metrics", environ_base=OUTSIDE, headers={"Authorization": wrong})
        assert response.status_code == 401, wrong
    good = {"Authorization": "Bearer s3cret-token"}
    assert client.get("/metrics", environ_base=OUTSIDE, headers=good).status_code == 200


def test_readyz_reports_checks_and_draining_while_healthz_stays_up(app: Flask) -> None:
    http = app.test_client()
    ready = http.get("/readyz")
    assert ready.status_code == 200
    # the share store answers, the database and the session records can be written
    built_in = {"store": "ok", "database": "ok", "records": "ok"}
    assert ready.json == {"status": "ready", "checks": built_in}
    readiness = readiness_of(app)
    outcome: dict[str, Any] = {"redis": None}
    readiness.add_check("redis", lambda: outcome["redis"])
    assert http.get("/readyz").status_code == 200
    outcome["redis"] = "connection refused"
    failing = http.get("/readyz")
    assert failing.status_code == 503
    assert failing.json["status"] == "not_ready"
    assert failing.json["checks"] == {**built_in, "redis": "connection refused"}

    def broken() -> None:
        raise OSError("disk gone")

    outcome["redis"] = None
    readiness.add_check("disk", broken)
    assert http.get("/readyz").json["checks"]["disk"] == "OSError: disk gone"
    readiness.add_check("disk", lambda: None)
    readiness.start_draining()
    draining = http.get("/readyz")
    assert draining.status_code == 503
    assert draining.json["status"] == "draining"
    assert http.get("/healthz").status_code == 200
    assert value(samples(app), "playground_draining") == 1


def test_the_store_check_fails_when_the_store_does(app: Flask) -> None:
    from webapp import storage

    store = storage.store_of(app)
    store.close()
    store.db.file.path = "/nonexistent/dir/links.sqlite3"  # type: ignore[attr-defined]
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.json["checks"]["store"] != "ok"


def test_live_server_gauges(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation) as (app, url, _server):
        tab = Tab(url)
        try:
            found = samples(app)
            assert value(found, "playground_socketio_connections") == 1
            # The WebSocket is a request being served for as long as it is open, and the
            # scrape itself is another (the bounds are a WSGI middleware of the app now,
            # webapp/serving.py, which the test client's request goes through too).
            assert value(found, "playground_http_connections_served") == 2
        finally:
            tab.client.disconnect()


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    werkzeug_level = logging.getLogger("werkzeug").level
    root_level = logging.getLogger().level
    handler = configure_logging("json", stream)
    yield stream
    logging.getLogger().removeHandler(handler)  # type: ignore[arg-type]
    logging.getLogger().setLevel(root_level)
    logging.getLogger("werkzeug").setLevel(werkzeug_level)


def test_json_logs_are_one_object_a_line_without_paths_or_secrets(
    app: Flask, json_logs: io.StringIO
) -> None:
    http = app.test_client()
    link = http.post("/api/share", json={"yaml": POD}).json["id"]
    http.get(f"/s/{link}?key=hunter2")
    http.get(f"/api/share/{link}")
    tab = connect(app)
    join(tab, yaml=POD)
    lines = [json.loads(line) for line in json_logs.getvalue().splitlines()]
    requests = [line for line in lines if line.get("event") == "request"]
    assert [r["route"] for r in requests] == ["/api/share", "/s/<link_id>", "/api/share/<link_id>"]
    for line in requests:
        assert {"ts", "level", "logger", "msg", "method", "status", "duration_ms", "client"} <= set(
            line
        )
        assert line["level"] == "info" and line["logger"] == "webapp.access"
    assert [line["io_event"] for line in lines if line.get("event") == "socketio"] == [
        "connect",
        "join",
    ]
    text = json_logs.getvalue()
    assert link not in text and "hunter2" not in text
    assert "nginx" not in text, "no scenario text"


def test_the_json_formatter_keeps_errors_on_one_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("x").makeRecord(
            "x",
            logging.ERROR,
            __file__,
            1,
            "failed %s",
            ("here",),
            exc_info=__import__("sys").exc_info(),
        )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["msg"] == "failed here"
    assert "ValueError: boom" in parsed["exc"]
    with pytest.raises(ValueError):
        configure_logging("xml")
