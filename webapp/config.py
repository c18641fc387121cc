"""Default settings; `create_app(config)` and `PLAYGROUND_*` environment variables override them."""

from __future__ import annotations

import os
import secrets
from typing import Any

DEFAULTS: dict[str, Any] = {
    # Socket.IO
    "SOCKETIO_ASYNC_MODE": "threading",
    # A message over this is answered with `message_too_large`, the connection kept; over
    # the transport's cap (engine.io's max_http_buffer_size) the connection is closed.
    "SOCKETIO_MAX_MESSAGE_BYTES": 512 * 1024,
    "SOCKETIO_TRANSPORT_MAX_BYTES": 2 * 1024 * 1024,
    # A tab whose outgoing queue holds more than SOFT stops getting updates until it drains,
    # then gets one fresh snapshot; past HARD, or lagging for LAG seconds, it is hung up.
    "SOCKETIO_BACKLOG_SOFT_BYTES": 1024 * 1024,
    "SOCKETIO_BACKLOG_HARD_BYTES": 8 * 1024 * 1024,
    "SOCKETIO_LAG_SECONDS": 30,
    # Serving (webapp/serving.py, docs/limits.md): per gunicorn worker
    "SERVER_MAX_CONNECTIONS": 1000,  # requests and WebSockets served at once
    "SERVER_MAX_CONNECTIONS_PER_CLIENT": 100,
    # gunicorn's keep-alive: a kept-alive connection waits this long for its next request
    # on its worker's poller, without a thread (0: every response closes its connection;
    # at most 300).
    "SERVER_KEEPALIVE_SECONDS": 15.0,
    # gunicorn's worker timeout: a worker whose main loop is silent this long is killed
    # and replaced by the arbiter (a frozen or wedged process; 10 to 3600).
    "SERVER_WORKER_TIMEOUT_SECONDS": 30,
    # Operations (webapp/metrics.py, webapp/logs.py): /metrics answers loopback clients,
    # and anyone with `Authorization: Bearer <METRICS_TOKEN>` when it is set.
    "METRICS_TOKEN": None,
    "LOG_FORMAT": "text",  # "json": one JSON object a line (pod-playground's logs)
    # Sessions (webapp/sessions)
    "SESSION_IDLE_SECONDS": 30 * 60,
    "MAX_SESSIONS": 1000,  # at the limit the idlest session without a tab is freed first
    "MAX_SESSIONS_PER_CLIENT": 40,  # per client address (webapp/clients.py)
    "NEW_SESSIONS_PER_MINUTE": 30,  # per client address, in bursts of as many
    "UNUSED_SESSION_IDLE_SECONDS": 45,  # a never-played session is freed this soon after its tab left
    # Sessions without a tab one client keeps; past it the oldest are freed (their memory
    # returned to the system: webapp/sessions/memory.py). 0: no limit.
    "IDLE_SESSIONS_PER_CLIENT": 4,
    "SESSION_GC_FREEZE": True,  # freeze what survives full collections (memory.py)
    # The reverse proxies' own addresses (IPs, CIDRs; "127.0.0.1, 10.0.0.0/8"): only a
    # connection from one of them has its X-Forwarded-For believed (webapp/clients.py);
    # empty: X-Forwarded-For is ignored. A count is refused (docs/limits.md).
    "TRUSTED_PROXIES": "",
    "ACTIONS_PER_SECOND": 20,
    "TICK_SECONDS": 0.05,
    "SESSION_END_SECONDS": 2 * 60 * 60,  # virtual seconds; a session pauses there
    "SESSION_TICK_BUDGET": 800,  # ticks a second for all playing sessions together
    "SESSION_SCHEDULER": True,
    # The text a session's action log may hold, in bytes (an `apply` carries its YAML): what a
    # share link's body holds beside a scenario of SHARE_MAX_TEXT_BYTES (docs/limits.md).
    "SESSION_ACTION_BYTES": 192 * 1024,  # False: tests call Scheduler.tick(wall_now) themselves
    # A session's share of the CPU (docs/limits.md): thread CPU seconds its commands and its
    # pacing may use per wall second on average, and at once. Past it, commands wait.
    "SESSION_CPU_SHARE": 0.25,
    "SESSION_CPU_BURST_SECONDS": 2.0,
    # ... and all sessions of one client address together (commands, pacing, seeks).
    "CLIENT_CPU_SHARE": 0.5,
    "CLIENT_CPU_BURST_SECONDS": 5.0,
    # ... and every session of the server together; past it only light clients go on.
    "SERVER_CPU_SHARE": 1.0,
    "SERVER_CPU_BURST_SECONDS": 5.0,
    # Several workers (docs/workers.md): Redis carries the Socket.IO message queue, the
    # session records and the leases; without it records go to SQLite (one process).
    "REDIS_URL": None,
    "WORKERS": 1,
    "SESSION_RECORDS": True,  # False: sessions live only in memory (no resume after restart)
    # Share links (webapp/storage)
    "PLAYGROUND_DB": None,  # None: <instance folder>/playground.sqlite3
    # Share links and classes in PostgreSQL, which every host reaches (docs/hosting.md):
    # postgresql://user:password@host:5432/db. None: in the SQLite file above.
    "DATABASE_URL": None,
    "SHARE_MAX_TEXT_BYTES": 64 * 1024,
    "SHARE_POSTS_PER_MINUTE": 30,  # per client address, in bursts of as many
    "SHARE_POSTS_PER_MINUTE_GLOBAL": 120,  # all clients together
    # Checking a link replays it: CPU seconds a client may spend on that per wall second,
    # and at once.
    "SHARE_CPU_SHARE": 0.25,
    "SHARE_CPU_BURST_SECONDS": 5.0,
    "SHARE_DB_MAX_BYTES": 256 * 1024 * 1024,  # past it, new links are refused (507)
    "SHARE_UNOPENED_DAYS": 30,  # a link never opened is deleted this long after it was made
    # Classes (webapp/classes, docs/limits.md)
    "CLASS_MAX_STUDENTS": 200,  # past it, class:join is refused with class_full
    "CLASS_IDLE_SECONDS": 2 * 60 * 60,  # a class nobody is connected to ends after this
    "CLASS_STUDENT_EVENTS_PER_SECOND": 10,  # per student, over all of their tabs
    "CLASSES_PER_HOUR": 20,  # new classes per client address
    # New names in classes (class:join of a name not yet in the class), per client address
    # in bursts of twice as many (a class behind one NAT joining at once), and per
    # connection in bursts of as many (issue 26, F4).
    "CLASS_NAMES_PER_MINUTE": 30,
    "CLASS_NAMES_PER_CONNECTION_PER_MINUTE": 3,
    # Lookups of class codes that are not a live class (/c/<code>..., class:join/teach), per
    # client address, in bursts of twice as many; past it every lookup of a code from that
    # address is refused (429) until the budget refills, so a hit is no longer told apart.
    "CLASS_CODE_MISSES_PER_MINUTE": 10,
    # Teacher PIN attempts (class:teach {pin}), per client address and per class (issue 21).
    "CLASS_PIN_TRIES_PER_MINUTE": 5,
}


class StartupError(Exception):
    """A setting or the machine does not let the server start; `pod-playground` prints the
    message, one line naming what and why, and exits 2 (no traceback)."""


_ENV_INTS = (
    "WORKERS",
    "SERVER_MAX_CONNECTIONS",
    "SERVER_MAX_CONNECTIONS_PER_CLIENT",
    "SESSION_IDLE_SECONDS",
    "MAX_SESSIONS",
    "MAX_SESSIONS_PER_CLIENT",
    "NEW_SESSIONS_PER_MINUTE",
    "UNUSED_SESSION_IDLE_SECONDS",
    "IDLE_SESSIONS_PER_CLIENT",
    "SHARE_POSTS_PER_MINUTE",
    "SHARE_POSTS_PER_MINUTE_GLOBAL",
    "SHARE_DB_MAX_BYTES",
    "SHARE_UNOPENED_DAYS",
    "ACTIONS_PER_SECOND",
    "SESSION_TICK_BUDGET",
    "SESSION_ACTION_BYTES",
    "CLASS_MAX_STUDENTS",
    "CLASS_IDLE_SECONDS",
    "CLASSES_PER_HOUR",
    "CLASS_NAMES_PER_MINUTE",
    "CLASS_NAMES_PER_CONNECTION_PER_MINUTE",
    "CLASS_CODE_MISSES_PER_MINUTE",
    "CLASS_PIN_TRIES_PER_MINUTE",
    "SERVER_WORKER_TIMEOUT_SECONDS",
)
_ENV_FLOATS = (
    "SERVER_KEEPALIVE_SECONDS",
    "SESSION_CPU_SHARE",
    "SESSION_CPU_BURST_SECONDS",
    "CLIENT_CPU_SHARE",
    "CLIENT_CPU_BURST_SECONDS",
    "SERVER_CPU_SHARE",
    "SERVER_CPU_BURST_SECONDS",
    "SHARE_CPU_SHARE",
    "SHARE_CPU_BURST_SECONDS",
    "CLASS_STUDENT_EVENTS_PER_SECOND",
)


def load_config(overrides: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults, then the environment, then `overrides` (the app factory's argument)."""
    config = dict(DEFAULTS)
    config["SECRET_KEY"] = secrets.token_hex(32)
    for key in ("DB", "METRICS_TOKEN", "LOG_FORMAT", "TRUSTED_PROXIES"):
        if os.environ.get(f"PLAYGROUND_{key}"):
            config["PLAYGROUND_DB" if key == "DB" else key] = os.environ[f"PLAYGROUND_{key}"]
    for key in ("REDIS_URL", "DATABASE_URL"):
        if os.environ.get(f"PLAYGROUND_{key}"):
            config[key] = os.environ[f"PLAYGROUND_{key}"]
    for key in _ENV_INTS:
        value = os.environ.get(f"PLAYGROUND_{key}")
        if value:
            config[key] = int(value)
    for key in _ENV_FLOATS:
        value = os.environ.get(f"PLAYGROUND_{key}")
        if value:
            config[key] = float(value)
    config.update(overrides or {})
    return config
