"""Session records without Redis (SQLite, one process): a session written by one app is
rebuilt by the next on the same database with the same history; what the keeper does when
a session is freed, handed over or its lease lost; and SIGTERM of `python -m webapp`
drains so that a restart resumes the session (webapp/records.py, webapp/serving.py)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import socketio
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.worst_case import CRASH_LOOP_POD
from webapp import create_app, records, socketio_of
from webapp.engine import Simulation
from webapp.realtime import realtime_of

ROOT = Path(__file__).resolve().parents[2]
CRASH_LOOP = (ROOT / "scenarios" / "crash-loop-backoff.yaml").read_text()
CRASH_LOOP_WORST = CRASH_LOOP_POD  # 20 crash-looping containers: a far seek takes slices


def make_app(db: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(db),
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
        }
    )


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def received(client: SocketIOTestClient, name: str) -> list[dict[str, Any]]:
    return [m["args"][0] for m in client.get_received() if m["name"] == name]


def history(transitions: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(t["seq"], t["t"], t["object"], t["field"], repr(t["after"])) for t in transitions]


def finish_seek(app: Flask, session_id: str) -> None:
    """The session's seek run to its end, as the seeker's rounds would (its budget
    refilled as time would)."""
    session = realtime_of(app).manager.get(session_id)
    assert session is not None
    for _ in range(2000):
        if session.seek_target is None:
            return
        session.cpu.balance = 10.0
        realtime_of(app).seeker.round()
    assert session.seek_target is None


def test_a_seek_running_in_slices_goes_on_in_the_next_process(tmp_path: Path) -> None:
    db = tmp_path / "playground.sqlite3"
    first = make_app(db)
    tab = connect(first)
    tab.emit("join", {"yaml": CRASH_LOOP_WORST})
    session_id = received(tab, "snapshot")[0]["session"]
    tab.emit("clock", {"op": "seek", "value": 7000})  # far: one slice in the request
    seeking = received(tab, "snapshot")[-1]["seeking"]
    assert seeking["target"] == 7000 and seeking["reached"] < 7000
    realtime_of(first).keeper.round()

    second = make_app(db)
    again = connect(second)
    again.emit("join", {"session": session_id})
    resumed = received(again, "snapshot")[0]
    assert resumed["seeking"]["target"] == 7000
    finish_seek(second, session_id)  # the rebuild's replay was charged
    assert realtime_of(second).manager.get(session_id).sim.now == 7000  # type: ignore[union-attr]


def test_a_session_is_rebuilt_by_the_next_process_with_the_same_history(tmp_path: Path) -> None:
    db = tmp_path / "playground.sqlite3"
    first = make_app(db)
    tab = connect(first)
    tab.emit("join", {"yaml": CRASH_LOOP})
    session_id = received(tab, "snapshot")[0]["session"]
    tab.emit("clock", {"op": "seek", "value": 3})
    tab.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    tab.emit("clock", {"op": "speed", "value": 4})
    tab.emit("clock", {"op": "seek", "value": 12.5})
    tab.emit("clock", {"op": "play"})
    before = received(tab, "snapshot")[-1]
    realtime_of(first).keeper.round()  # what the records thread does every second

    second = make_app(db)  # the next process, on the same database
    again = connect(second)
    again.emit("join", {"session": session_id})
    resumed = received(again, "snapshot")[0]
    assert resumed["session"] == session_id
    assert resumed["now"] == before["now"] == 12.5
    assert resumed["actions"] == before["actions"] and len(resumed["actions"]) == 1
    assert history(resumed["transitions"]) == history(before["transitions"])
    assert resumed["clock"] == {"playing": True, "speed": 4, "end": 7200}
    assert resumed["seq"] >= before["seq"]
    assert resumed["views"] == before["views"]


def test_a_workload_session_is_rebuilt_too(tmp_path: Path) -> None:
    db = tmp_path / "playground.sqlite3"
    first = make_app(db)
    tab = connect(first)
    tab.emit("join", {"scenario": "rolling-update"})
    session_id = received(tab, "snapshot")[0]["session"]
    tab.emit("clock", {"op": "seek", "value": 40})
    finish_seek(first, session_id)  # a slow machine's seek goes on in slices
    tab.emit("join", {"session": session_id})
    before = received(tab, "snapshot")[-1]
    assert "cluster" in before
    realtime_of(first).keeper.round()
    again = connect(make_app(db))
    again.emit("join", {"session": session_id})
    resumed = received(again, "snapshot")[0]
    assert resumed["now"] == before["now"] == 40
    assert history(resumed["transitions"]) == history(before["transitions"])
    assert resumed["cluster"] == before["cluster"]


def test_an_unknown_or_malformed_id_is_still_unknown(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    tab = connect(app)
    for wanted in ("x" * 32, "../../etc/passwd", "' OR 1=1 --"):
        tab.emit("join", {"session": wanted})
        assert received(tab, "error")[0]["code"] == "unknown_session"
    tab.emit("join", {"session": "a" * 5000})  # refused at the door, before any lookup
    assert received(tab, "error")[0]["code"] == "invalid_payload"


class FakeLeases(records.LocalLeases):
    def __init__(self) -> None:
        self.held: set[str] = set()
        self.released: list[str] = []
        self.lose: set[str] = set()

    def acquire(self, session_id: str) -> bool:
        self.held.add(session_id)
        return True

    def renew(self, session_ids: list[str]) -> list[bool]:
        return [s not in self.lose for s in session_ids]

    def release(self, session_ids: list[str]) -> None:
        self.released.extend(session_ids)


def keeper_with_fakes(app: Flask) -> tuple[records.Keeper, FakeLeases, list[list[str]]]:
    rt = realtime_of(app)
    leases = FakeLeases()
    hung_up: list[list[str]] = []
    keeper = records.Keeper(rt.manager, rt.keeper.store, leases, engine=lambda: Simulation,
                            hang_up=hung_up.append)  # fmt: skip
    rt.keeper = keeper
    return keeper, leases, hung_up


def test_handover_lost_lease_and_freed_sessions(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    keeper, leases, hung_up = keeper_with_fakes(app)
    manager = realtime_of(app).manager
    tabs = [connect(app) for _ in range(3)]
    ids = []
    for tab in tabs:
        tab.emit("join", {"scenario": "plain-pod"})
        ids.append(received(tab, "snapshot")[0]["session"])
    assert set(keeper.held) == set(ids) == leases.held

    # Another worker asks for the first: it is written, let go and its tab hung up.
    keeper.on_handover(ids[0])
    assert manager.get(ids[0]) is None and ids[0] not in keeper.held
    assert leases.released == [ids[0]] and len(hung_up) == 1
    assert keeper.store.load(ids[0])["id"] == ids[0]  # type: ignore[index]

    # Another worker took the second (its lease is someone else's): dropped here, and
    # what changed here since is not written over the new holder's record.
    keeper.round()
    tabs[1].emit("clock", {"op": "seek", "value": 20})
    leases.lose.add(ids[1])
    keeper.round()
    assert manager.get(ids[1]) is None and ids[1] not in keeper.held
    assert len(hung_up) == 2
    record = keeper.store.load(ids[1])
    assert record is not None and record["now"] == 0  # the new holder's, as it was

    # The third is freed by the manager (idle): its record goes, nobody resumes it, and
    # its API tokens are revoked (webapp/kubeapi: Keeper.on_gone).
    gone: list[str] = []
    keeper.on_gone = gone.append
    manager.remove(ids[2])
    keeper.round()
    assert keeper.store.load(ids[2]) is None and ids[2] in leases.released
    assert gone == [ids[2]]


def test_sigterm_drains_and_a_restart_resumes_the_session(tmp_path: Path) -> None:
    env = {"PLAYGROUND_DB": str(tmp_path / "db.sqlite3"), "PYTHONPATH": str(ROOT)}

    def start() -> tuple[subprocess.Popen[str], str]:
        import os

        server = subprocess.Popen(
            [sys.executable, "-m", "webapp", "--port", "0"],
            cwd=tmp_path, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert server.stdout is not None
        match = re.search(r"(http://127\.0\.0\.1:\d+)/", server.stdout.readline())
        assert match
        return server, match.group(1)

    server, url = start()
    client = socketio.SimpleClient()
    try:
        client.connect(url, transports=["websocket"])
        client.emit("join", {"yaml": CRASH_LOOP})
        snapshot = next_event(client, "snapshot")
        client.emit("clock", {"op": "seek", "value": 30})
        before = next_event(client, "snapshot")
        server.send_signal(signal.SIGTERM)
        assert server.wait(30) == 0
        assert "drained: 1 sessions written" in server.stdout.read()  # type: ignore[union-attr]
    finally:
        client.disconnect()
        if server.poll() is None:
            server.kill()
    server, url = start()
    try:
        client = socketio.SimpleClient()
        client.connect(url, transports=["websocket"])
        client.emit("join", {"session": snapshot["session"]})
        resumed = next_event(client, "snapshot")
        assert resumed["now"] == before["now"] == 30
        assert history(resumed["transitions"]) == history(before["transitions"])
        client.disconnect()
    finally:
        server.terminate()
        server.wait(30)


def next_event(client: socketio.SimpleClient, name: str) -> dict[str, Any]:
    while True:
        event, *args = client.receive(timeout=30)
        if event == name:
            return dict(args[0])
        if event == "error":
            pytest.fail(f"error: {args}")


def test_a_record_lost_behind_the_keepers_back_is_written_whole_never_in_part(
    tmp_path: Path,
) -> None:
    """Its record gone while the keeper thinks it written (swept; Redis restarted empty
    without this worker seeing it down): the changed parts alone would be rows without
    their base, which no worker can resume (the F8 run lost 7 of 13 tabs so). They are
    refused by the store, and the round writes the record whole."""
    app = make_app(tmp_path / "db.sqlite3")
    keeper = realtime_of(app).keeper
    tab = connect(app)
    tab.emit("join", {"yaml": CRASH_LOOP})
    session_id = received(tab, "snapshot")[0]["session"]
    keeper.round()
    assert keeper.store.load(session_id) is not None
    written = keeper.records_written
    tab.emit("clock", {"op": "seek", "value": 5})
    tab.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    keeper.store.delete(session_id)
    # The store refuses the parts: nothing of them is written.
    write, _ = records.write_of(realtime_of(app).manager.get(session_id), keeper.held[session_id])
    assert write.base is None
    assert keeper.store.write_many({session_id: write}) == {session_id}
    assert keeper.store.load(session_id) is None
    assert keeper.store.table.connection.execute(
        "SELECT COUNT(*) FROM session_record_rows WHERE id = ?", (session_id,)
    ).fetchone() == (0,)
    keeper.round()  # the round's parts are refused too, and it writes the record whole
    loaded = keeper.store.load(session_id)
    assert loaded is not None and loaded["now"] == 5 and len(loaded["actions"]) == 1
    assert keeper.records_written == written + 1
    again = connect(make_app(tmp_path / "db.sqlite3"))
    again.emit("join", {"session": session_id})
    assert received(again, "snapshot")[0]["now"] == 5
