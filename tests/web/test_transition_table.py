"""`join {transitions: "table"}`: snapshots and ticks carry their transitions as a table
(`transitionTable`, webapp/sessions/wire.py), the same records as the list other tabs get,
and the worst valid scenario's snapshot at the horizon stays under 2 MB (docs/limits.md,
"Snapshot size")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from webapp import create_app, socketio_of
from webapp.sessions.wire import encode, transition_table

SNAPSHOT_LIMIT = 2_000_000  # bytes of JSON (issue 12)
# Bytes a session holds at the horizon: 14.1 MB before the watch history was packed and
# transition values shared, 8.1 MB then, 4.9 MB since closed transition records are packed
# too (docs/limits.md). Issue 12 asks for at most 5 MB.
SESSION_MEMORY_LIMIT = 5_000_000


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
        }
    )


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()  # the hello
    return client


def received(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


def expand(table: dict[str, Any]) -> list[dict[str, Any]]:
    """What static/js/state.js `transitionsOf` does (tests/js/state.test.mjs checks it)."""
    columns, optional = table["columns"], set(table["optional"])
    return [
        {c: v for c, v in zip(columns, row, strict=True) if v is not None or c not in optional}
        for row in table["rows"]
    ]


def transitions_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    if "transitionTable" in message:
        assert "transitions" not in message
        return expand(message["transitionTable"])
    return message["transitions"]


def test_a_table_tab_and_a_list_tab_of_one_session_get_the_same_records(app: Flask) -> None:
    table, listing = connect(app), connect(app)
    table.emit("join", {"scenario": "liveness-restart", "transitions": "table"})
    [(name, first)] = received(table)
    assert name == "snapshot" and "transitionTable" in first and "transitions" not in first
    listing.emit("join", {"session": first["session"]})
    [(_, joined)] = received(listing)
    assert joined["transitions"] == expand(first["transitionTable"])

    # Ticks with new transitions: a table to one, the list to the other.
    ticks: list[dict[str, Any]] = []
    plain: list[dict[str, Any]] = []
    for _ in range(15):
        table.emit("clock", {"op": "step"})  # from second 0
        ticks += [p for n, p in received(table) if n == "tick"]
        plain += [p for n, p in received(listing) if n == "tick"]
    assert ticks and [transitions_of(t) for t in ticks] == [t["transitions"] for t in plain]
    assert any("transitionTable" in t for t in ticks)
    assert sum(len(t["transitions"]) for t in plain) > 0

    # A seek sends both tabs a snapshot: the same records, probe runs (`repeat`) included.
    table.emit("clock", {"op": "seek", "value": 60})
    got = received(table)
    [(name, sought)] = [m for m in got if m[0] == "snapshot"]
    [(_, listed)] = [m for m in received(listing) if m[0] == "snapshot"]
    assert "transitionTable" in sought and "transitions" in listed
    assert expand(sought["transitionTable"]) == listed["transitions"]
    assert any("repeat" in t for t in listed["transitions"])
    assert any(t["container"] is None for t in listed["transitions"])  # a null kept
    assert "repeat" in sought["transitionTable"]["optional"]
    assert sought["seq"] == listed["seq"]


def test_the_table_is_smaller_and_says_the_same(app: Flask) -> None:
    client = connect(app)
    client.emit("join", {"scenario": "crash-loop-backoff"})
    [(_, snapshot)] = received(client)
    client.emit("clock", {"op": "seek", "value": 600})
    [(_, snapshot)] = [m for m in received(client) if m[0] == "snapshot"]
    records = snapshot["transitions"]
    table = transition_table(records)
    assert table is not None and expand(table) == records
    assert len(encode(table)) < 0.75 * len(encode(records))


def test_an_explicit_null_in_an_optional_key_falls_back_to_the_list() -> None:
    records = [{"seq": 0, "t": 0.0, "x": None}, {"seq": 1, "t": 1.0}]
    assert transition_table(records) is None
    records = [{"seq": 0, "t": 0.0, "x": 1}, {"seq": 1, "t": 1.0}]
    table = transition_table(records)
    assert table is not None and table["optional"] == ["x"] and expand(table) == records


@pytest.mark.parametrize(
    ("value", "problem"),
    [("columns", "must be one of: list, table"), (1, "must be text"), (None, "is required")],
)
def test_a_bad_transitions_form_is_refused_and_makes_no_session(
    app: Flask, value: Any, problem: str
) -> None:
    client = connect(app)
    client.emit("join", {"scenario": "plain-pod", "transitions": value})
    [(name, error)] = received(client)
    assert name == "error" and problem in error["message"] and '"transitions"' in error["message"]
    from webapp.realtime import realtime_of

    assert realtime_of(app).manager.session_of(client.eio_sid) is None
    assert not realtime_of(app).outbox.table_tabs


def test_joining_again_with_list_and_leaving_forget_the_table(app: Flask) -> None:
    from webapp.realtime import realtime_of

    client = connect(app)
    client.emit("join", {"scenario": "plain-pod", "transitions": "table"})
    [(_, snapshot)] = received(client)
    assert "transitionTable" in snapshot and realtime_of(app).outbox.table_tabs
    client.emit("join", {"session": snapshot["session"], "transitions": "list"})
    [(_, again)] = received(client)
    assert "transitions" in again and "transitionTable" not in again
    client.emit("join", {"session": snapshot["session"], "transitions": "table"})
    received(client)
    client.disconnect()
    assert not realtime_of(app).outbox.table_tabs


def test_the_worst_valid_scenario_at_the_horizon_snapshot_and_memory() -> None:
    """tests/worst_case.py's crash loop (20 containers, within the limits) at 7200 s: the
    snapshot as the page gets it under 2 MB, and what the session holds (tracemalloc, after
    parsing once so that shared caches are already loaded) under SESSION_MEMORY_LIMIT.
    Sizes, never times; the run is deterministic, so are its allocations."""

    # Measured in a fresh interpreter: in the suite's process, what earlier tests left
    # (caches, a live server's threads) changes what the collector frees (ci3: 17 MB).
    import subprocess
    import sys

    from tests.worst_case import CRASH_LOOP_POD
    from webapp.engine import Simulation
    from webapp.realtime.outbox import as_table
    from webapp.sessions.session import Session

    script = (
        "import tracemalloc, gc\n"
        "from tests.worst_case import CRASH_LOOP_POD\n"
        "from webapp.engine import Simulation\n"
        "from webapp.sessions.session import Session\n"
        "Simulation.from_yaml(CRASH_LOOP_POD)\n"
        "tracemalloc.start()\n"
        "before = tracemalloc.get_traced_memory()[0]\n"
        "session = Session(Simulation.from_yaml(CRASH_LOOP_POD), end=7200.0)\n"
        "session.seek(7200.0)\n"
        "gc.collect()\n"
        "print(tracemalloc.get_traced_memory()[0] - before)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=300, check=True)  # fmt: skip
    held = int(done.stdout.strip().splitlines()[-1])
    session = Session(Simulation.from_yaml(CRASH_LOOP_POD), end=7200.0)
    session.seek(7200.0)
    snapshot = session.snapshot(advance_seq=True)
    compact = as_table(snapshot)
    assert len(snapshot["transitions"]) > 8000  # the crash loop is there
    assert expand(compact["transitionTable"]) == snapshot["transitions"]
    assert len(encode(compact)) <= SNAPSHOT_LIMIT
    assert held <= SESSION_MEMORY_LIMIT, held
