"""Far seeks in slices (issue 12, webapp/sessions/slices.py), through the Socket.IO test
client on the real engine, with the scheduler and the seek loop stepped by hand.

The scenario is the crash-looping worst case (20 containers, three exec probes each every
second, each container exiting after 5 to 24 s): its first visit to a far moment is real
simulation work. Per-request cost is counted in engine events (deterministic), never in
wall-clock time.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.web.seeking import run_seeks
from tests.worst_case import CRASH_LOOP_POD
from webapp import create_app, routes, socketio_of
from webapp.engine import Simulation
from webapp.manifest import parse_scenario
from webapp.realtime import realtime_of
from webapp.routes import SHARE_CHECK_EVENTS
from webapp.sessions import CpuBudget, Session
from webapp.sessions.slices import SLICE_EVENTS

FAR = 600.0  # about 37,000 engine events of the crash-looping Pod from second 0


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_SCHEDULER": False,
        }
    )
    # The seek loop's wall clock moves a second per pass here, so every pass may report
    # progress (it sends at most ten progress ticks a wall second).
    realtime_of(app).seeker.clock = itertools.count(1000.0).__next__
    yield app


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def received(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


def only(client: SocketIOTestClient, name: str) -> dict[str, Any]:
    [(got, payload)] = received(client)
    assert got == name, payload
    return payload


def joined(app: Flask, client: SocketIOTestClient, text: str = CRASH_LOOP_POD) -> Session:
    client.emit("join", {"yaml": text})
    snapshot = only(client, "snapshot")
    session = realtime_of(app).manager.get(snapshot["session"])
    assert session is not None
    return session


def finish(app: Flask, client: SocketIOTestClient) -> list[dict[str, Any]]:
    """Run seek-loop passes until the seek is over; the ticks they sent."""
    ticks: list[dict[str, Any]] = []

    def collect() -> None:
        ticks.extend(payload for name, payload in received(client) if name == "tick")

    run_seeks(app, collect)
    collect()
    return ticks


def unsliced(t: float) -> dict[str, Any]:
    """The snapshot of a session that sought to `t` in one go (Session.seek)."""
    session = Session(Simulation.from_scenario(parse_scenario(CRASH_LOOP_POD)), end=7200.0)
    session.seek(t)
    return wire(session.snapshot(advance_seq=False))


def wire(snapshot: dict[str, Any]) -> dict[str, Any]:
    snapshot = json.loads(json.dumps(snapshot))
    for key in ("session", "seq"):
        snapshot.pop(key, None)
    return snapshot


def test_a_far_first_seek_answers_after_one_slice_and_gets_there_through_ticks(
    app: Flask,
) -> None:
    client = connect(app)
    session = joined(app, client)
    before = session.sim.clock.processed
    client.emit("clock", {"op": "seek", "value": FAR})
    in_request = session.sim.clock.processed - before
    snapshot = only(client, "snapshot")
    assert snapshot["seeking"]["target"] == FAR
    assert 0 < snapshot["seeking"]["reached"] == snapshot["now"] < FAR
    # One slice of engine work in the request, not the ~37,000 events of the whole way.
    assert in_request <= 2 * SLICE_EVENTS

    ticks = finish(app, client)
    # Progress ticks carry only how far it got; the last one the state at the target.
    assert all(set(t) == {"seq", "seeking", "sentAt"} for t in ticks[:-1])
    progress = [t["seeking"] for t in ticks[:-1]]
    assert len(progress) >= 5 and all(p["target"] == FAR for p in progress)
    reached = [p["reached"] for p in progress]
    assert reached == sorted(reached) and reached[-1] < FAR
    assert ticks[-1]["seeking"] is None and ticks[-1]["now"] == FAR
    # Every transition once, in order, across the snapshot and the ticks.
    seqs = [t["seq"] for t in snapshot["transitions"]]
    seqs += [t["seq"] for tick in ticks for t in tick.get("transitions", [])]
    assert seqs == list(range(len(seqs)))

    # The same final state as a seek in one go.
    client.emit("join", {"session": snapshot["session"]})
    final = wire(only(client, "snapshot"))
    assert final["seeking"] is None
    assert final == unsliced(FAR)


def test_stop_here_ends_the_seek_where_it_got_to(app: Flask) -> None:
    client = connect(app)
    session = joined(app, client)
    client.emit("clock", {"op": "seek", "value": FAR})
    only(client, "snapshot")
    seeker = realtime_of(app).seeker
    for _ in range(3):
        assert seeker.round() == 1
    received(client)
    here = session.sim.now
    client.emit("clock", {"op": "stop"})
    tick = only(client, "tick")
    assert tick["seeking"] is None and tick["now"] == here < FAR
    assert seeker.round() == 0 and session.sim.now == here
    # It plays on from there, as from any moment.
    client.emit("clock", {"op": "play"})
    realtime_of(app).scheduler.tick(1000.0)
    realtime_of(app).scheduler.tick(1001.0)
    assert session.sim.now > here


def test_pause_stops_a_seek_and_another_seek_retargets_it(app: Flask) -> None:
    client = connect(app)
    session = joined(app, client)
    client.emit("clock", {"op": "seek", "value": FAR})
    only(client, "snapshot")
    client.emit("clock", {"op": "pause"})
    assert only(client, "tick")["seeking"] is None
    assert session.seek_target is None
    client.emit("clock", {"op": "seek", "value": FAR})
    first = only(client, "snapshot")["seeking"]
    client.emit("clock", {"op": "seek", "value": 300.0})  # retarget, nearer
    again = only(client, "snapshot")["seeking"]
    assert again["target"] == 300.0 and again["reached"] >= first["reached"]
    ticks = finish(app, client)
    assert ticks[-1]["seeking"] is None and session.sim.now == 300.0
    client.emit("clock", {"op": "seek", "value": 20.0})  # back: a checkpoint, one slice
    snapshot = only(client, "snapshot")
    assert snapshot["seeking"] is None and snapshot["now"] == 20.0


def test_another_session_keeps_ticking_while_one_seeks(app: Flask) -> None:
    rt = realtime_of(app)
    seeker_tab, player_tab = connect(app), connect(app)
    seeking = joined(app, seeker_tab)
    player_tab.emit("join", {"scenario": "plain-pod"})
    only(player_tab, "snapshot")
    player_tab.emit("clock", {"op": "play"})
    only(player_tab, "tick")
    seeker_tab.emit("clock", {"op": "seek", "value": FAR})
    only(seeker_tab, "snapshot")
    times = []
    for i in range(12):  # a second apart: a playing tab gets at least its resync each round
        rt.scheduler.tick(1000.0 + i * 1.0)
        rt.seeker.round()
        times += [p["now"] for name, p in received(player_tab) if name == "tick"]
    assert len(times) >= 10 and times == sorted(times) and times[-1] > times[0]
    assert seeking.seek_target == FAR  # still on its way: it got only its slices

    # A handler holding the seeking session's lock holds up neither pass.
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with seeking.lock:
            taken.set()
            release.wait()

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert taken.wait(10)
    reached = seeking.sim.now
    try:
        assert rt.seeker.round() == 0
        rt.scheduler.tick(1013.0)
        assert [name for name, _ in received(player_tab)] == ["tick"]
    finally:
        release.set()
        holder.join(10)
    assert seeking.sim.now == reached


def test_slices_are_charged_to_the_session_and_its_client(app: Flask) -> None:
    client = connect(app)
    session = joined(app, client)
    # The test client has no address; give it the budget an addressed client gets.
    session.client_cpu = CpuBudget(0.5, 5.0)
    # No refill while measuring: on a loaded machine the wall time between rounds could
    # refill more than a slice spends.
    session.cpu.rate = session.client_cpu.rate = 0.0
    client.emit("clock", {"op": "seek", "value": FAR})
    only(client, "snapshot")
    own, theirs = session.cpu.balance, session.client_cpu.balance
    seeker = realtime_of(app).seeker
    for _ in range(5):
        seeker.round()
    assert session.cpu.balance < own and session.client_cpu.balance < theirs
    # Spent: no slice until the budget recovers, and the seek waits where it is.
    session.cpu.rate = 0.0
    session.cpu.balance = -1.0
    reached = session.sim.now
    assert seeker.round() == 0 and session.sim.now == reached
    session.cpu.balance = 1.0
    assert seeker.round() == 1 and session.sim.now > reached


def share_body(at: float, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"yaml": CRASH_LOOP_POD, "actions": actions, "at": at}


def test_a_share_post_is_checked_within_a_bound_and_says_how_far(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The CPU bound is generous here so that the outcome is the deterministic one (the last
    # action, or SHARE_CHECK_EVENTS), whatever else loads the machine.
    monkeypatch.setattr(routes, "SHARE_CHECK_CPU_SECONDS", 30.0)
    http = app.test_client()
    near = [{"at": 30, "action": "set-probe", "container": "c1", "probe": "readiness",
             "healthy": False}]  # fmt: skip
    answer = http.post("/api/share", json=share_body(7200, near))
    assert answer.status_code == 201
    assert answer.get_json()["checkedUntil"] == 30  # up to its last action, not its `at`

    far = [{**near[0], "at": 7000}]
    answer = http.post("/api/share", json=share_body(7200, far))
    assert answer.status_code == 201
    checked = answer.get_json()["checkedUntil"]
    assert 0 < checked < 7000
    # Bounded by events: the run reaches no further than SHARE_CHECK_EVENTS allow.
    sim = Simulation.from_scenario(parse_scenario(CRASH_LOOP_POD))
    sim.advance(checked)
    assert sim.clock.processed <= 2 * SHARE_CHECK_EVENTS

    broken = [{"at": 3, "action": "crash", "container": "nope"}]
    answer = http.post("/api/share", json=share_body(7200, broken))
    assert answer.status_code == 400
    assert answer.get_json()["errors"][0]["path"] == "actions[0].container"


def test_opening_a_share_at_a_far_moment_gets_there_through_a_sliced_seek(app: Flask) -> None:
    http = app.test_client()
    actions = [{"at": 100, "action": "set-probe", "container": "c1", "probe": "readiness",
                "healthy": False}]  # fmt: skip
    link = http.post("/api/share", json=share_body(FAR, actions)).get_json()["id"]
    client = connect(app)
    client.emit("join", {"share": link})
    snapshot = only(client, "snapshot")
    assert snapshot["seeking"] == {"target": FAR, "reached": snapshot["now"]}
    assert snapshot["now"] < 100  # one slice's replay only: the action is still to come
    assert [a["at"] for a in snapshot["actions"]] == [100]
    ticks = finish(app, client)
    assert ticks[-1]["seeking"] is None and ticks[-1]["now"] == FAR
    client.emit("join", {"session": snapshot["session"]})
    final = only(client, "snapshot")
    assert [a["at"] for a in final["actions"]] == [100]
    sim = Simulation.from_scenario(parse_scenario(CRASH_LOOP_POD))
    sim.advance(100)
    sim.act({k: v for k, v in actions[0].items() if k != "at"})
    sim.advance(FAR - 100)
    assert json.loads(json.dumps(list(sim.transitions))) == final["transitions"]
