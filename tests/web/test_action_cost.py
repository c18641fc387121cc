"""Actions stay cheap (issue 26, F9): what an action costs does not grow with the session's
history. Ticks carry the action log as a delta (the snapshot still carries the whole), the
session record is written in parts as they change (an action row once, the small head each
round), checkpoints do not pickle the log again, and the log's text is bounded
(SESSION_ACTION_BYTES). Sizes and counts, never times."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.web.seeking import run_seeks
from webapp import create_app, socketio_of
from webapp.engine import Simulation
from webapp.manifest import parse_scenario
from webapp.realtime import realtime_of
from webapp.sessions import Session
from webapp.storage import SessionRecordTable

ROOT = Path(__file__).resolve().parents[2]
CRASH_LOOP = (ROOT / "scenarios" / "crash-loop-backoff.yaml").read_text()


def config_map(size: int, name: str = "big", fill: str = "x") -> str:
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: {fill * size}\n"
    )


def make_app(db: Path, **config: Any) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(db),
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            "SESSION_CPU_BURST_SECONDS": 1000.0,
            "CLIENT_CPU_BURST_SECONDS": 1000.0,
            **config,
        }
    )


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def received(client: SocketIOTestClient, name: str) -> list[dict[str, Any]]:
    return [m["args"][0] for m in client.get_received() if m["name"] == name]


def apply(tab: SocketIOTestClient, yaml: str) -> dict[str, Any]:
    """An `apply` now (the clock does not move: the state beside the log stays the same)."""
    tab.emit("act", {"action": "apply", "yaml": yaml})
    got = tab.get_received()
    assert [m["name"] for m in got] == ["tick"], got
    tick: dict[str, Any] = got[0]["args"][0]
    return tick


def test_the_tick_after_an_action_carries_only_the_new_action(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", SESSION_ACTION_BYTES=0)  # 0: no bound
    tab = connect(app)
    tab.emit("join", {"scenario": "plain-pod"})
    received(tab, "snapshot")
    yaml = config_map(30_000)
    sizes = []
    for i in range(40):
        tick = apply(tab, yaml)
        assert "actions" not in tick
        assert tick["actionsDelta"]["keep"] == i
        assert [a["yaml"] for a in tick["actionsDelta"]["add"]] == [yaml]
        sizes.append(len(json.dumps(tick)))
    print(f"tick after the 1st action {sizes[0]} bytes, after the 40th {sizes[-1]} bytes")
    assert sizes[-1] <= sizes[0] + 1024  # was the whole log: 40 x 30 KB
    # the snapshot still carries the whole log
    tab.emit("join", {"session": realtime_of(app).manager.sessions()[0].id})
    snapshot = received(tab, "snapshot")[0]
    assert len(snapshot["actions"]) == 40


def test_an_action_after_a_seek_back_replaces_the_kept_future_in_the_delta(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    tab = connect(app)
    tab.emit("join", {"yaml": CRASH_LOOP})
    received(tab, "snapshot")
    for t in (2, 4, 6):
        tab.emit("clock", {"op": "seek", "value": t})
        tab.emit("act", {"action": "apply", "yaml": config_map(10, name=f"c{t}")})
    log = received(tab, "tick")[-1]
    assert log["actionsDelta"]["keep"] == 2
    tab.emit("clock", {"op": "seek", "value": 3})
    assert [a["at"] for a in received(tab, "snapshot")[-1]["actions"]] == [2, 4, 6]
    tab.emit("act", {"action": "delete", "gracePeriodSeconds": 1})
    delta = received(tab, "tick")[-1]["actionsDelta"]
    assert delta["keep"] == 1  # the action at 2 s stays; those at 4 and 6 s are gone
    assert [(a["action"], a["at"]) for a in delta["add"]] == [("delete", 3)]
    # a tick with nothing new in the log carries no delta
    tab.emit("clock", {"op": "step"})
    assert "actionsDelta" not in received(tab, "tick")[-1]


def rows(db: Path, session_id: str) -> list[tuple[int, int]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT part, length(body) FROM session_record_rows WHERE id = ? ORDER BY part",
            (session_id,),
        ).fetchall()


def test_the_record_is_written_in_parts_and_resumes_the_same_run(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    app = make_app(db, SESSION_ACTION_BYTES=0)
    keeper = realtime_of(app).keeper
    assert keeper is not None
    tab = connect(app)
    tab.emit("join", {"yaml": CRASH_LOOP})
    session_id = received(tab, "snapshot")[0]["session"]
    yaml = config_map(60_000)
    written = []
    for _ in range(30):
        apply(tab, yaml)
        before = keeper.bytes_written
        keeper.round()
        written.append(keeper.bytes_written - before)
    print(f"record bytes written after the 1st apply {written[0]}, after the 30th {written[-1]}")
    assert max(written) < 62_000  # one action row and the head (was the whole: 30 x 60 KB)
    assert written[-1] <= written[0] + 64
    parts = rows(db, session_id)
    assert [part for part, _ in parts] == [-2, -1, *range(30)]
    # a round with nothing new writes nothing; one after the clock moved writes the head
    before = keeper.bytes_written
    keeper.round()
    assert keeper.bytes_written == before
    tab.emit("clock", {"op": "step"})
    tab.get_received()
    keeper.round()
    assert 0 < keeper.bytes_written - before < 400

    # a seek back and an action: the kept future's rows go, the new one is appended
    tab.emit("clock", {"op": "seek", "value": 10.5})
    tab.emit("act", {"action": "crash", "container": "app", "exitCode": 3})
    before = keeper.bytes_written
    keeper.round()
    assert keeper.bytes_written - before < 1000
    session = realtime_of(app).manager.get(session_id)
    assert session is not None
    with session.lock:
        expected = session.actions
    assert [part for part, _ in rows(db, session_id)] == [-2, -1, *range(len(expected))]
    tab.emit("clock", {"op": "seek", "value": 40})
    before_resume = received(tab, "snapshot")[-1]
    keeper.round()

    other = make_app(db, SESSION_ACTION_BYTES=0)
    again = connect(other)
    again.emit("join", {"session": session_id})
    resumed = received(again, "snapshot")[0]
    assert resumed["actions"] == before_resume["actions"]
    assert [a["action"] for a in resumed["actions"]] == [a["action"] for a in expected]
    resumed_session = realtime_of(other).manager.get(session_id)
    assert resumed_session is not None
    run_seeks(other)
    again.emit("join", {"session": session_id})
    resumed = received(again, "snapshot")[-1]
    assert resumed["now"] == before_resume["now"] == 40
    assert resumed["transitions"] == before_resume["transitions"]


def old_format(session: Session) -> str:
    """A record as the first format wrote it (webapp/records.py before issue 26)."""
    sim = session.sim
    return json.dumps({
        "v": 1, "id": session.id, "yaml": session.scenario.text,
        "actions": list(sim.actions), "future": list(session.future), "now": sim.now,
        "seekTarget": None, "seq": session.seq, "playing": False, "speed": 1.0,
        "seed": session.seed, "used": True, "savedAt": 0.0,
    })  # fmt: skip


def test_a_record_of_the_first_format_loads_and_is_written_again_in_parts(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite3"
    app = make_app(db, SESSION_RECORDS=False)
    tab = connect(app)
    tab.emit("join", {"yaml": CRASH_LOOP})
    session_id = received(tab, "snapshot")[0]["session"]
    tab.emit("clock", {"op": "seek", "value": 5})
    tab.emit("act", {"action": "apply", "yaml": config_map(100)})
    tab.emit("clock", {"op": "seek", "value": 12})
    before = received(tab, "snapshot")[-1]
    session = realtime_of(app).manager.get(session_id)
    assert session is not None
    with session.lock:
        text = old_format(session)
    table = SessionRecordTable(db)
    with table.connection as connection:
        connection.execute(
            "INSERT INTO session_records (id, body, saved_at) VALUES (?, ?, ?)",
            (session_id, text, table.clock()),
        )

    other = make_app(db)
    again = connect(other)
    again.emit("join", {"session": session_id})
    resumed = received(again, "snapshot")[0]
    assert resumed["session"] == session_id and resumed["now"] == before["now"] == 12
    assert resumed["actions"] == before["actions"]
    assert resumed["transitions"] == before["transitions"]
    keeper = realtime_of(other).keeper
    assert keeper is not None
    keeper.round()  # migrated: written in parts, the old row gone
    assert [part for part, _ in rows(db, session_id)] == [-2, -1, 0]
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM session_records").fetchone() == (0,)


def test_the_action_log_text_is_bounded(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")  # the default: 192 KiB
    limit = int(app.config["SESSION_ACTION_BYTES"])
    tab = connect(app)
    tab.emit("join", {"scenario": "plain-pod", "lang": "zh"})
    received(tab, "snapshot")
    yaml = config_map(60_000)
    accepted = 0
    while True:
        tab.emit("clock", {"op": "step"})
        tab.get_received()
        tab.emit("act", {"action": "apply", "yaml": yaml})
        got = tab.get_received()
        if [m["name"] for m in got] != ["tick"]:
            break
        accepted += 1
    assert accepted == limit // 61_000 == 3
    errors = [m["args"][0] for m in got if m["name"] == "error"]
    assert [m["name"] for m in got] == ["error"], got
    assert errors[0]["code"] == "action_refused"
    assert "192 KiB" in errors[0]["message"] and "上限" in errors[0]["message"]
    session = realtime_of(app).manager.sessions()[0]
    assert len(session.actions) == 3  # refused: nothing changed
    # small actions still go in (the log is far from 1000 actions)
    tab.emit("act", {"action": "crash", "container": "app", "exitCode": 1})
    assert [m["name"] for m in tab.get_received()] == ["tick"]


def test_a_checkpoint_does_not_pickle_the_action_log_again() -> None:
    scenario = parse_scenario(CRASH_LOOP)
    small, large = Simulation(scenario), Simulation(scenario)
    for sim, size in ((small, 10), (large, 60_000)):
        for t in range(1, 21):
            sim.advance(1.0)
            sim.act({"action": "apply", "yaml": config_map(size, fill=chr(97 + t))})
    # the ConfigMap is state (its last version); the log of its 20 applies is not
    a, b = small.checkpoint(), large.checkpoint()
    assert a is not None and b is not None
    restored = Simulation.restore(b)
    assert restored.actions == large.actions and restored.actions is not large.actions
    assert restored.actions[0] is not b.actions[0]
    restored.advance(30)
    large.advance(30)
    assert list(restored.transitions) == list(large.transitions)
    state = len(zlib.decompress(b.state))
    print(
        f"checkpoint state {state} bytes after 20 applies of 60 KB ({len(zlib.decompress(a.state))} after 20 of 10 bytes)"
    )
    assert state < len(zlib.decompress(a.state)) + 2 * 60_000  # the ConfigMap, not 20 x 60 KB
