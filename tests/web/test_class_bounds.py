"""The classroom's work per request is bounded (issue 12, webapp/classes/ahead.py): a fork,
a hand-out at a far `at`, a rebuilt teacher session and a question asked far into a run
of the crash-looping worst case never replay from second 0 inside the request; the
sessions reach their moment through the sliced seek and end in exactly the state of the
unbounded replay, event for event. Work is counted in engine events, never wall time."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.web.seeking import run_seeks
from tests.worst_case import CRASH_LOOP_POD
from webapp import create_app, kubectl, socketio_of
from webapp.classes import ahead, classes_of
from webapp.engine import Simulation
from webapp.manifest import parse_scenario
from webapp.realtime import realtime_of
from webapp.sessions import CpuBudget, Session
from webapp.sessions.slices import SLICE_EVENTS

FAR = 600.0  # about 37,000 engine events of the crash-looping Pod from second 0
ROOT = Path(__file__).resolve().parents[2]


def make_app(db: Path) -> Flask:
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(db),
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            "CLASS_STUDENT_EVENTS_PER_SECOND": 1000,
        }
    )
    realtime_of(app).seeker.clock = itertools.count(1000.0).__next__
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield make_app(tmp_path / "db.sqlite3")


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A running count of the engine events every Simulation runs (coasted ticks count)."""
    count = [0]
    original = Simulation._run_until

    def counted(self: Any, until_ms: int, stop: Any = None) -> bool:
        before = self.clock.processed
        try:
            return original(self, until_ms, stop)
        finally:
            count[0] += self.clock.processed - before

    monkeypatch.setattr(Simulation, "_run_until", counted)
    return count


def connect(app: Flask, lang: str = "en") -> SocketIOTestClient:
    client = socketio_of(app).test_client(app, headers={"Accept-Language": lang})
    client.get_received()
    return client


def received(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


def of(messages: list[tuple[str, dict[str, Any]]], name: str) -> list[dict[str, Any]]:
    return [payload for event, payload in messages if event == name]


def shown_run(app: Flask, shown: str) -> Any:
    """The session a snapshot's `session` names: a class's run shows a digest of its id."""
    found = [s for s in realtime_of(app).manager.sessions() if s.public_id == shown]
    return found[0] if found else None


def new_class(app: Flask, yaml: str = CRASH_LOOP_POD) -> dict[str, Any]:
    response = app.test_client().post("/api/classes", json={"yaml": yaml})
    assert response.status_code == 201, response.json
    result: dict[str, Any] = response.json
    return result


def teach(app: Flask, made: dict[str, Any], lang: str = "en") -> tuple[SocketIOTestClient, Session]:
    teacher = connect(app, lang)
    teacher.emit("lang", {"lang": lang})
    teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    [snapshot] = of(received(teacher), "snapshot")
    session = shown_run(app, snapshot["session"])
    assert session is not None
    return teacher, session


def join(app: Flask, code: str, name: str) -> SocketIOTestClient:
    student = connect(app)
    student.emit("class:join", {"code": code, "name": name})
    received(student)
    return student


def finish(app: Flask) -> None:
    run_seeks(app)


def seek_far(app: Flask, teacher: SocketIOTestClient, session: Session, t: float) -> None:
    teacher.emit("clock", {"op": "seek", "value": t})
    finish(app)
    assert session.sim.now == t and session.seek_target is None
    received(teacher)
    share_back(session)


def share_back(session: Session) -> None:
    """A far seek may use the session's CPU share (more of it on a slower or loaded machine):
    a question then gets session_busy, "wait 1 s and try again". Wait for the share to come
    back, as the message says, before a question that must be answered."""
    deadline = time.monotonic() + 120
    while session.cpu.spent():
        assert time.monotonic() < deadline, "the session's CPU share never came back"
        time.sleep(min(0.5, max(0.01, session.cpu.wait())))


def wire(snapshot: dict[str, Any]) -> dict[str, Any]:
    snapshot = json.loads(json.dumps(snapshot))
    for key in ("session", "seq", "clock"):
        snapshot.pop(key, None)
    return snapshot


def unbounded(yaml: str, actions: list[dict[str, Any]], t: float) -> dict[str, Any]:
    """The snapshot of the old way: a replay from second 0 in one go (what the classroom did)."""
    sim = Simulation.replay(parse_scenario(yaml), [dict(a) for a in actions], until=t, seed=0)
    return wire(Session(sim, end=7200.0).snapshot(advance_seq=False))


def snapshot_of(session: Session) -> dict[str, Any]:
    with session.lock:
        return wire(session.snapshot(advance_seq=False))


def test_fork_at_a_far_moment_costs_no_replay_and_is_the_replays_state(
    app: Flask, events: list[int]
) -> None:
    made = new_class(app)
    teacher, session = teach(app, made)
    seek_far(app, teacher, session, 30.0)
    teacher.emit(
        "act", {"action": "set-probe", "container": "c3", "probe": "readiness", "healthy": False}
    )
    assert not of(received(teacher), "error")
    seek_far(app, teacher, session, FAR)
    student = join(app, made["code"], "Ann")
    before = events[0]
    student.emit("class:fork", {})
    in_request = events[0] - before
    fork = of(received(student), "snapshot")[-1]
    assert in_request <= 2 * SLICE_EVENTS  # not the ~37,000 events of a replay
    own = shown_run(app, fork["session"])
    assert own is not None and own is not session
    finish(app)
    assert own.sim.now == FAR and own.seek_target is None
    expected = unbounded(CRASH_LOOP_POD, session.sim.actions, FAR)
    assert snapshot_of(own) == expected
    assert expected["actions"][0]["action"] == "set-probe"


def test_a_handout_at_a_far_moment_is_a_sliced_seek_to_the_replays_state(
    app: Flask, events: list[int]
) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    ann, bob = join(app, made["code"], "Ann"), join(app, made["code"], "Bob")
    player = connect(app)
    player.emit("join", {"scenario": "plain-pod"})
    player.emit("clock", {"op": "play"})
    received(player)
    before = events[0]
    teacher.emit("class:handout", {"yaml": CRASH_LOOP_POD, "at": FAR})
    # One slice to check the hand-out, none for the students' runs.
    assert events[0] - before <= 2 * SLICE_EVENTS
    assert not of(received(teacher), "error")
    handed = of(received(ann), "snapshot")[-1]
    assert handed["seeking"]["target"] == FAR and handed["now"] < FAR
    sessions = [shown_run(app, handed["session"])]
    sessions.append(shown_run(app, of(received(bob), "snapshot")[-1]["session"]))
    # The player keeps ticking while both seeks run in slices.
    rt = realtime_of(app)
    times = []
    for i in range(10):  # a second apart: a playing tab gets at least its resync each round
        rt.scheduler.tick(1000.0 + i * 1.0)
        rt.seeker.round()
        times += [p["now"] for name, p in received(player) if name == "tick"]
    assert len(times) >= 8 and times == sorted(times) and times[-1] > times[0]
    assert all(s is not None and s.seek_target == FAR for s in sessions)
    finish(app)
    ticks = of(received(ann), "tick")
    assert ticks[-1]["seeking"] is None and ticks[-1]["now"] == FAR
    expected = unbounded(CRASH_LOOP_POD, [], FAR)
    for own in sessions:
        assert own is not None and snapshot_of(own) == expected


def test_a_rebuilt_teacher_session_seeks_in_slices_to_the_saved_moment(
    tmp_path: Path, events: list[int]
) -> None:
    first = make_app(tmp_path / "db.sqlite3")
    made = new_class(first)
    teacher, session = teach(first, made)
    seek_far(first, teacher, session, 30.0)
    teacher.emit(
        "act", {"action": "set-probe", "container": "c1", "probe": "liveness", "healthy": False}
    )
    assert not of(received(teacher), "error")
    seek_far(first, teacher, session, FAR)
    cls = classes_of(first).get(made["code"])
    assert cls is not None
    classes_of(first).save(cls, force=True)
    actions = list(session.sim.actions)

    second = make_app(tmp_path / "db.sqlite3")  # a restart: the session is gone
    before = events[0]
    _, rebuilt = teach(second, made)
    assert events[0] - before <= 2 * SLICE_EVENTS
    assert rebuilt.seek_target == FAR
    # Saved meanwhile, the class keeps the moment it is going to.
    cls2 = classes_of(second).get(made["code"])
    assert cls2 is not None
    classes_of(second).save(cls2, force=True)
    assert cls2.timeline["now"] == FAR and cls2.timeline["actions"] == actions
    finish(second)
    assert snapshot_of(rebuilt) == unbounded(CRASH_LOOP_POD, actions, FAR)


def test_a_status_question_far_into_the_run_is_bounded_and_right(
    app: Flask, events: list[int]
) -> None:
    made = new_class(app)
    teacher, session = teach(app, made)
    seek_far(app, teacher, session, FAR)
    before = events[0]
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 300}})
    in_request = events[0] - before
    assert not of(received(teacher), "error")
    # From a checkpoint of the live run: the 300 s asked about, not the 900 s from 0.
    assert in_request <= ahead.ASK_EVENTS
    replayed = Simulation.replay(parse_scenario(CRASH_LOOP_POD), [], until=FAR + 300, seed=0)
    status = kubectl.pod_columns(replayed.pod(), replayed.wall_time())["STATUS"]
    cls = classes_of(app).get(made["code"])
    assert cls is not None
    [question] = cls.questions.values()
    assert question["choices"][question["answer"]]["en"] == status
    assert session.sim.now == FAR  # the teacher's own run did not move


def test_asking_is_charged_to_the_teacher_and_refused_when_spent(app: Flask) -> None:
    made = new_class(app)
    teacher, session = teach(app, made)
    seek_far(app, teacher, session, FAR)
    session.cpu = CpuBudget(rate=1e-9, burst=1e-9)
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 300}})
    assert not of(received(teacher), "error")
    assert session.cpu.balance < 0  # the look ahead was charged
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 300}})
    [error] = of(received(teacher), "error")
    assert error["code"] == "session_busy"


@pytest.mark.parametrize(("lang", "words"), [("en", "too costly"), ("zh", "代价太高")])
def test_a_question_past_the_budget_is_refused_in_the_teachers_language(
    app: Flask, monkeypatch: pytest.MonkeyPatch, lang: str, words: str
) -> None:
    # A cluster run has no checkpoints: its look ahead replays from 0, within the budget.
    yaml = (ROOT / "scenarios/workloads/deployment-crash-loop.yaml").read_text()
    made = new_class(app, yaml)
    teacher, _ = teach(app, made, lang)
    teacher.emit("clock", {"op": "seek", "value": 300})
    finish(app)
    received(teacher)
    # Within the budget it is answered, from a replay of the cluster run (the same run).
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 60}})
    assert not of(received(teacher), "error")
    replayed = Simulation.replay(parse_scenario(yaml), [], until=360, seed=0)
    status = kubectl.pod_columns(replayed.pod(), replayed.wall_time())["STATUS"]
    cls = classes_of(app).get(made["code"])
    assert cls is not None
    [question] = cls.questions.values()
    assert question["choices"][question["answer"]]["en"] == status
    cls.questions.clear()
    monkeypatch.setattr(ahead, "ASK_EVENTS", 50)
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 60}})
    [error] = of(received(teacher), "error")
    assert error["code"] == "question_too_costly"
    assert words in error["message"] and "360" in error["message"]
    assert not cls.questions  # refused: nothing asked


def test_a_fork_without_a_live_checkpoint_resumes_from_the_store_in_slices(
    app: Flask, events: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    made = new_class(app)
    teacher, session = teach(app, made)
    seek_far(app, teacher, session, FAR)
    student = join(app, made["code"], "Ann")
    # As while a kubelet step is under way: the live run cannot be copied now.
    monkeypatch.setattr(Simulation, "checkpoint", lambda self: None)
    best = session.checkpoints.best(session.scenario, [], round(FAR * 1000), 0, 7_200_000)
    assert best is not None and 0 < best.at < FAR
    before = events[0]
    student.emit("class:fork", {})
    assert events[0] - before <= 2 * SLICE_EVENTS
    fork = of(received(student), "snapshot")[-1]
    assert fork["now"] == best.at and fork["seeking"]["target"] == FAR
    own = shown_run(app, fork["session"])
    assert own is not None
    finish(app)
    assert snapshot_of(own) == unbounded(CRASH_LOOP_POD, [], FAR)


def test_a_student_back_after_a_far_handout_gets_a_sliced_seek(
    app: Flask, events: list[int]
) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    bob = connect(app)
    bob.emit("class:join", {"code": made["code"], "name": "Bob"})
    token = of(received(bob), "class:state")[0]["token"]
    bob.disconnect()
    teacher.emit("class:handout", {"yaml": CRASH_LOOP_POD, "at": FAR})
    assert not of(received(teacher), "error")
    finish(app)
    back = connect(app)
    before = events[0]
    back.emit("class:join", {"code": made["code"], "name": "Bob", "token": token})
    assert events[0] - before <= 2 * SLICE_EVENTS
    snapshot = of(received(back), "snapshot")[-1]
    assert snapshot["seeking"]["target"] == FAR
    own = shown_run(app, snapshot["session"])
    assert own is not None
    finish(app)
    assert snapshot_of(own) == unbounded(CRASH_LOOP_POD, [], FAR)


def test_a_question_during_a_far_seek_is_about_where_it_goes_and_bounded(
    app: Flask, events: list[int]
) -> None:
    made = new_class(app)
    teacher, session = teach(app, made)
    teacher.emit("clock", {"op": "seek", "value": FAR})
    received(teacher)
    assert session.seek_target == FAR
    before = events[0]
    # From where the run is to FAR + 300 s: over the budget, refused; the seek goes on.
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 300}})
    assert events[0] - before <= ahead.ASK_EVENTS + 2 * SLICE_EVENTS
    [error] = of(received(teacher), "error")
    assert error["code"] == "question_too_costly" and "900" in error["message"]
    assert session.seek_target == FAR
    finish(app)
    assert session.sim.now == FAR
    share_back(session)
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 300}})
    assert not of(received(teacher), "error")


def test_the_roster_never_waits_for_a_busy_run_and_shows_its_last_view(tmp_path: Path) -> None:
    """The class round reads each run without waiting: while a command or a seek slice
    holds the session (its logs change under the lock), the last view read is shown."""
    import threading

    from webapp.classes.room import _session_view

    app = create_app(
        {"TESTING": True, "SESSION_SCHEDULER": False, "PLAYGROUND_DB": str(tmp_path / "db.sqlite3")}
    )
    client = socketio_of(app).test_client(app)
    client.emit("join", {"scenario": "crash-loop-backoff"})
    session = realtime_of(app).manager.sessions()[0]
    client.emit("clock", {"op": "seek", "value": 30})  # near: done in the request
    first = _session_view(session)
    assert first["now"] == 30 and first["stage"]
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with session.lock:
            taken.set()
            release.wait(10)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert taken.wait(10)
    try:
        assert _session_view(session) == first  # at once, without the lock
    finally:
        release.set()
        holder.join(10)
