"""Operations endpoints: `/metrics` (Prometheus text format) and `/readyz`.

GET /metrics   from a loopback client, or with `Authorization: Bearer <METRICS_TOKEN>`
               (PLAYGROUND_METRICS_TOKEN); anyone else gets 403 (401 when a token is set)
GET /readyz    200 {"status": "ready", "checks": {...}} or 503 ("draining", "not_ready")

Behind a reverse proxy, "loopback" is the client `TRUSTED_PROXIES` names (webapp/clients.py),
not the proxy: with TRUSTED_PROXIES unset, a proxy on the same machine makes every visitor
look local, so docs/hosting.md has the proxy refuse /metrics.

What is measured (each app has its own registry: several apps in one process stay apart):

- counters: HTTP requests by route, method and status with their latency (a histogram;
  the route is the rule, `/s/<link_id>`, never the path: bounded labels, and no share id
  in them), Socket.IO events received by name, clock seeks, ticks sent, refusals by
  code (`session_busy` and `client_busy` are the CPU budget's; `rate_limited`, ...;
  HTTP ones like `share_cpu_busy` too), share links created;
- gauges read at scrape time: sessions by state (playing, paused), open tabs, Socket.IO
  connections, HTTP connections being served (webapp/serving.py), the share
  store's size, the session records written (bytes, writes: webapp/records.py), and
  readiness.

Readiness (`readiness_of(app)`): `add_check(name, fn)` registers a check (`fn()` returns
None when fine, or raises or returns a short reason); `start_draining()` makes /readyz
answer 503 "draining" so that a load balancer stops sending new visitors while open
sessions finish. Built in: the share store answers, the database can be written (a full or
read-only disk is "not ready"), and session records can be written (Redis, or SQLite).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request, request_finished
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
)
from prometheus_client import generate_latest as render_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from webapp.clients import current_client

log = logging.getLogger(__name__)
access_log = logging.getLogger("webapp.access")

bp = Blueprint("operations", __name__)

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})

# `_created` timestamps double the output and say nothing a scrape's first sample does not.
disable_created_metrics()


class Readiness:
    def __init__(self) -> None:
        self._checks: dict[str, Callable[[], Any]] = {}
        self._draining = threading.Event()
        self._lock = threading.Lock()

    def add_check(self, name: str, check: Callable[[], Any]) -> None:
        with self._lock:
            self._checks[name] = check

    def start_draining(self) -> None:
        self._draining.set()

    @property
    def draining(self) -> bool:
        return self._draining.is_set()

    def run(self) -> tuple[str, dict[str, str]]:
        """(status, {check: "ok" or its reason})."""
        with self._lock:
            checks = list(self._checks.items())
        results: dict[str, str] = {}
        for name, check in checks:
            try:
                outcome = check()
            except Exception as error:  # a failing check is an answer, not a crash
                outcome = f"{type(error).__name__}: {error}"[:200]
            results[name] = "ok" if outcome is None or outcome is True else str(outcome)[:200]
        if self.draining:
            return "draining", results
        if any(value != "ok" for value in results.values()):
            return "not_ready", results
        return "ready", results


class Metrics:
    """The counters and the histogram; gauges come from `_StateCollector` at scrape time."""

    def __init__(self, app: Flask) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Histogram(
            "playground_http_request_duration_seconds",
            "Time to answer an HTTP request (Flask routes), by route, method and status.",
            ["route", "method", "status"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.events = Counter(
            "playground_socketio_events",
            "Socket.IO events received from tabs, by event name.",
            ["event"],
            registry=r,
        )
        self.seeks = Counter("playground_seeks", "Clock seeks asked for by tabs.", registry=r)
        self.ticks = Counter("playground_ticks", "Tick messages sent to sessions.", registry=r)
        self.lateness = Histogram(
            "playground_transition_lateness_seconds",
            "From the moment a playing session's clock reached a transition to the emit of "
            "the tick that carries it (the server's part of staleness).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.refusals = Counter(
            "playground_refusals",
            "Requests and events refused, by code (session_busy and client_busy: the CPU "
            "budget; rate_limited; share_cpu_busy; ...).",
            ["code"],
            registry=r,
        )
        self.shares = Counter("playground_share_links", "Share links created.", registry=r)
        r.register(_StateCollector(app))

    def render(self) -> bytes:
        data: bytes = render_metrics(self.registry)
        return data


class _StateCollector(Collector):
    def __init__(self, app: Flask) -> None:
        self.app = app

    def collect(self) -> Iterator[Metric]:
        app = self.app
        rt = app.extensions.get("playground.realtime")
        if rt is not None:
            sessions = rt.manager.sessions()
            playing = sum(1 for s in sessions if s.clock.playing)
            by_state = GaugeMetricFamily(
                "playground_sessions", "Sessions in memory, by clock state.", labels=["state"]
            )
            by_state.add_metric(["playing"], playing)
            by_state.add_metric(["paused"], len(sessions) - playing)
            yield by_state
            yield GaugeMetricFamily(
                "playground_tabs",
                "Tabs joined to a session.",
                value=sum(len(s.tabs) for s in sessions),
            )
            eio = rt.socketio.server.eio
            yield GaugeMetricFamily(
                "playground_socketio_connections",
                "Socket.IO (engine.io) connections open.",
                value=len(getattr(eio, "sockets", {})),
            )
        server = app.extensions.get("playground.server")
        if server is not None:
            yield GaugeMetricFamily(
                "playground_http_connections_served",
                "Requests and WebSockets being served by this worker (each holds a thread).",
                value=server.served,
            )
        store = app.extensions.get("playground.share_store")
        if store is not None:
            try:
                used = store.used_bytes()
            except Exception:  # the store being down is /readyz's news
                used = None
            if used is not None:
                yield GaugeMetricFamily(
                    "playground_share_store_bytes", "Size of the share link store.", value=used
                )
        keeper = app.extensions.get("playground.records")
        if keeper is not None:
            yield CounterMetricFamily(
                "playground_session_record_bytes",
                "Bytes of session records written to the store (the parts' JSON).",
                value=keeper.bytes_written,
            )
            yield CounterMetricFamily(
                "playground_session_record_writes",
                "Session records written (one session's parts in one write).",
                value=keeper.records_written,
            )
        readiness = app.extensions.get("playground.readiness")
        if readiness is not None:
            yield GaugeMetricFamily(
                "playground_draining", "1 while the server drains.", value=int(readiness.draining)
            )


def metrics_of(app: Flask) -> Metrics:
    metrics: Metrics = app.extensions["playground.metrics"]
    return metrics


def readiness_of(app: Flask) -> Readiness:
    readiness: Readiness = app.extensions["playground.readiness"]
    return readiness


# -- routes -----------------------------------------------------------------------------------


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _metrics_allowed() -> tuple[bool, int]:
    token = str(current_app.config.get("METRICS_TOKEN") or "")
    if token:
        given = request.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            return True, 200
    if _is_loopback(current_client()):
        return True, 200
    return False, 401 if token else 403


@bp.get("/metrics")
def metrics() -> Response:
    allowed, status = _metrics_allowed()
    if not allowed:
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
        return Response(
            "metrics are for loopback or a bearer token\n",
            status,
            headers=headers,
            mimetype="text/plain",
        )
    response = Response(metrics_of(current_app).render(), 200)
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/readyz")
def readyz() -> tuple[dict[str, Any], int, dict[str, str]]:
    status, checks = readiness_of(current_app).run()
    code = 200 if status == "ready" else 503
    return {"status": status, "checks": checks}, code, {"Cache-Control": "no-store"}


# -- measuring --------------------------------------------------------------------------------


def _started() -> None:
    g.playground_started = time.perf_counter()


def _counted(response: Response) -> Response:
    """After the route (the body not compressed yet): refusal codes and shares."""
    status = response.status_code
    metrics = metrics_of(current_app)
    if status >= 400 and response.mimetype == "application/json" and not response.is_streamed:
        code = (response.get_json(silent=True) or {}).get("code")
        if isinstance(code, str) and code.isidentifier() and len(code) <= 40:
            metrics.refusals.labels(code).inc()
    if request.endpoint == "pages.share_post" and status == 201:
        metrics.shares.inc()
    return response


def _finished(app: Flask, response: Response, **_: Any) -> None:
    """The response as sent (`request_finished`): its latency, and one log line."""
    started = g.pop("playground_started", None)
    if started is None:
        return
    elapsed = time.perf_counter() - started
    rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
    method = request.method if request.method in METHODS else "other"
    status = response.status_code
    metrics_of(app).requests.labels(rule, method, str(status)).observe(elapsed)
    # One line per request; the route, never the path (share ids are capabilities).
    access_log.info(
        "%s %s %s %.1fms",
        method,
        rule,
        status,
        elapsed * 1000,
        extra={
            "event": "request",
            "method": method,
            "route": rule,
            "status": status,
            "duration_ms": round(elapsed * 1000, 2),
            "bytes": response.content_length,
            "client": current_client(),
        },
    )


def _count_socketio(app: Flask, metrics: Metrics) -> None:
    """Wrap every registered Socket.IO handler: count the event (and seeks), log it."""
    socketio = app.extensions.get("socketio")
    if socketio is None:
        return
    handlers = socketio.server.handlers.get("/", {})
    for event, handler in list(handlers.items()):
        handlers[event] = _counting(event, handler, metrics)


def _counting(event: str, handler: Callable[..., Any], metrics: Metrics) -> Callable[..., Any]:
    def counted(*args: Any) -> Any:
        metrics.events.labels(event).inc()
        payload = args[1] if len(args) > 1 else None
        if event == "clock" and isinstance(payload, dict) and payload.get("op") == "seek":
            metrics.seeks.inc()
        started = time.perf_counter()
        try:
            return handler(*args)
        finally:
            # The event's name only: payloads carry scenario text and share ids.
            access_log.info(
                "socketio %s",
                event,
                extra={
                    "event": "socketio",
                    "io_event": event,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )

    counted.__name__ = getattr(handler, "__name__", f"on_{event}")
    return counted


def _count_realtime(app: Flask, metrics: Metrics) -> None:
    rt = app.extensions.get("playground.realtime")
    if rt is None:
        return
    refuse = rt.refuse
    tick = rt.scheduler.tick

    def counted_refuse(sid: str, refusal: Any, event: str | None = None) -> None:
        metrics.refusals.labels(refusal.code).inc()
        refuse(sid, refusal, event)

    def counted_tick(wall_now: float) -> int:
        sent: int = tick(wall_now)
        if sent:
            metrics.ticks.inc(sent)
        return sent

    rt.refuse = counted_refuse
    rt.scheduler.tick = counted_tick
    rt.scheduler.lateness = metrics.lateness.observe


def _store_check(app: Flask) -> Callable[[], None]:
    def check() -> None:
        store = app.extensions.get("playground.share_store")
        if store is not None:
            store.ping()

    return check


def _database_check(app: Flask) -> Callable[[], str | None]:
    """Not ready while the database cannot be written (a full or read-only disk): a real
    write to its folder, and the faults real writes met (webapp/storage.py DiskHealth)."""

    def check() -> str | None:
        from webapp.storage import disk_health_of

        health = disk_health_of(app)
        return None if health is None else health.problem()

    return check


def init_app(app: Flask) -> Metrics:
    """After every other part (it wraps the Socket.IO handlers and the realtime hooks)."""
    metrics = Metrics(app)
    readiness = Readiness()
    readiness.add_check("store", _store_check(app))
    readiness.add_check("database", _database_check(app))
    keeper = app.extensions.get("playground.records")
    if keeper is not None:  # Redis (or SQLite) for session records (webapp/records.py)
        readiness.add_check("records", keeper.problem)
    app.extensions["playground.metrics"] = metrics
    app.extensions["playground.readiness"] = readiness
    app.register_blueprint(bp)
    app.before_request(_started)
    app.after_request(_counted)
    request_finished.connect(_finished, app)
    _count_socketio(app, metrics)
    _count_realtime(app, metrics)
    return metrics
