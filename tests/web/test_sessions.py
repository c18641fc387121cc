"""Session mechanics without a server: pacing, seeking, the timeline, limits, idling.

These use a small fake engine (tests/web/fake_engine.py) so they test only the session
layer; tests/web/test_realtime_engine.py runs the same contracts on the real engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp.manifest import parse_scenario
from webapp.sessions import Scheduler, Session, SessionManager, TooManySessions
from webapp.sessions.clock import SessionClock


@pytest.fixture
def sim() -> FakeSimulation:
    return FakeSimulation.from_scenario(parse_scenario(POD))


class Outbox:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], str]] = []

    def __call__(self, event: str, payload: dict[str, Any], to: str) -> None:
        self.sent.append((event, payload, to))

    def ticks(self) -> list[dict[str, Any]]:
        return [payload for event, payload, _ in self.sent if event == "tick"]


@pytest.fixture
def outbox() -> Outbox:
    return Outbox()


@pytest.fixture
def manager(outbox: Outbox) -> SessionManager:
    return SessionManager(emit=outbox, max_sessions=3, idle_seconds=60, end_seconds=100)


def joined(manager: SessionManager, sim: FakeSimulation, sid: str = "tab-1") -> Session:
    session = manager.create(sim)
    manager.attach(sid, session)
    return session


def test_session_ids_are_long_and_unguessable(manager: SessionManager) -> None:
    ids = {manager.create(FakeSimulation.from_scenario(parse_scenario(POD))).id for _ in range(3)}
    assert len(ids) == 3
    assert all(len(i) >= 32 for i in ids)


def test_clock_anchors_on_the_first_tick_after_play_and_follows_the_speed() -> None:
    clock = SessionClock(end=100)
    clock.play()
    clock.set_speed(10)
    assert clock.target(50.0, 0.0) is None  # anchored now
    assert clock.target(50.5, 0.0) == pytest.approx(5.0)
    assert clock.target(60.0, 5.0) == 100  # capped at the end


def test_playing_session_advances_with_the_wall_clock_and_ticks_in_sequence(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    session = joined(manager, sim)
    session.snapshot(advance_seq=False)
    scheduler = Scheduler(manager)
    session.clock.play()
    for i in range(12):
        scheduler.tick(1000.0 + i * 0.5)
    with session.lock:  # whoever takes the lock finds the engine at the clock's time
        assert session.sim.now == pytest.approx(5.5)
    seqs = [tick["seq"] for tick in outbox.ticks()]
    assert seqs == list(range(1, len(seqs) + 1))
    steps = [t["step"] for tick in outbox.ticks() for t in tick["transitions"]]
    assert steps == ["scheduled", "running"]  # each transition sent exactly once


def test_a_paused_session_sends_nothing(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    session = joined(manager, sim)
    session.snapshot(advance_seq=False)
    scheduler = Scheduler(manager)
    for i in range(5):
        scheduler.tick(float(i))
    assert outbox.ticks() == []


def test_time_only_ticks_are_a_resync_once_a_second(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    """The page runs its clock itself: with nothing new but the time, a playing session
    sends one tick a second (it used to send ten)."""
    session = joined(manager, sim)
    sim.advance(5)  # past the start-up transitions
    session.snapshot(advance_seq=False)
    scheduler = Scheduler(manager)
    session.clock.play()
    for i in range(61):  # three wall seconds in 50 ms rounds
        scheduler.tick(i * 0.05)
    ticks = outbox.ticks()
    assert 2 <= len(ticks) <= 4
    assert all(not t["transitions"] for t in ticks)


def test_a_new_transition_leaves_in_the_round_that_made_it(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    session = joined(manager, sim)
    session.snapshot(advance_seq=False)
    scheduler = Scheduler(manager)
    session.clock.play()
    scheduler.tick(0.0)  # the clock takes its anchor
    scheduler.tick(0.05)
    before = len(outbox.ticks())
    # The fake's first transition is due at virtual second 1: the round that reaches it
    # sends it, though the previous tick left only 50 ms earlier.
    rounds = 0
    while not any(t["transitions"] for t in outbox.ticks()):
        rounds += 1
        scheduler.tick(0.05 + rounds * 0.05)
        assert rounds < 40
    assert len(outbox.ticks()) > before
    sent = next(t for t in outbox.ticks() if t["transitions"])
    assert sent["now"] - sent["transitions"][0]["t"] < 0.05 + 1e-9


def test_the_session_pauses_at_its_end(manager: SessionManager, sim: FakeSimulation) -> None:
    session = joined(manager, sim)
    scheduler = Scheduler(manager)
    session.clock.play()
    session.clock.set_speed(100)
    scheduler.tick(0.0)
    scheduler.tick(2.0)
    assert session.sim.now == 100
    assert not session.clock.playing


def test_step_runs_to_the_next_event_and_pauses(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.clock.play()
    session.step()
    assert session.sim.now == 1.0
    assert not session.clock.playing
    session.step()
    assert session.sim.now == 3.0


def test_seek_back_replays_exactly_the_state_seen_then(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.run_until(12)
    session.act({"action": "delete", "gracePeriodSeconds": 30})
    session.run_until(20)
    seen_at_20 = session.sim.pod()
    session.run_until(50)
    assert session.sim.pod() is None
    session.seek(20)
    assert session.sim.now == 20
    assert session.sim.pod() == seen_at_20
    assert [a["action"] for a in session.actions] == ["delete"]


def test_after_a_seek_back_playing_on_replays_the_kept_future(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.run_until(12)
    session.act({"action": "delete", "gracePeriodSeconds": 5})
    session.seek(4)
    assert session.sim.pod() is not None
    assert [a["at"] for a in session.future] == [12]
    session.run_until(30)
    assert session.sim.pod() is None  # the delete happened again at 12, removed at 17


def test_acting_after_a_seek_back_discards_the_old_future(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.run_until(12)
    session.act({"action": "delete", "gracePeriodSeconds": 5})
    session.seek(4)
    session.act({"action": "crash", "container": "app"})
    assert session.future == []
    assert [(a["at"], a["action"]) for a in session.actions] == [(4.0, "crash")]
    session.run_until(30)
    assert session.sim.pod() is not None


def test_a_refused_action_keeps_the_future(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.run_until(12)
    session.act({"action": "delete", "gracePeriodSeconds": 5})
    session.seek(4)
    with pytest.raises(Exception, match="unknown action"):
        session.act({"action": "explode"})
    assert len(session.future) == 1


def test_snapshot_to_one_tab_keeps_the_sequence_and_a_room_snapshot_advances_it(
    sim: FakeSimulation,
) -> None:
    session = Session(sim, end=100)
    session.run_until(5)
    first = session.tick()
    assert first is not None and first["seq"] == 1
    assert session.snapshot(advance_seq=False)["seq"] == 1
    assert session.snapshot(advance_seq=True)["seq"] == 2


def test_snapshot_carries_everything_the_page_needs(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.run_until(5)
    snapshot = session.snapshot(advance_seq=False)
    assert snapshot["session"] == session.id
    assert snapshot["clock"] == {"playing": False, "speed": 1.0, "end": 100}
    assert snapshot["pod"]["status"]["phase"] == "Running"
    assert [t["step"] for t in snapshot["transitions"]] == ["submitted", "scheduled", "running"]
    assert snapshot["stage"] == {"stage": 4, "step": "running", "container": None}
    assert snapshot["scenario"]["yaml"] == POD
    views = snapshot["views"]
    assert views["columns"]["STATUS"] == "Running"
    assert views["watch"].startswith("NAME")
    assert "Name:" in views["describe"]
    assert "Started" in views["events"]
    assert views["yaml"].startswith("apiVersion: v1")


def test_views_of_a_deleted_pod_are_empty(sim: FakeSimulation) -> None:
    session = Session(sim, end=100)
    session.run_until(5)
    session.act({"action": "delete", "gracePeriodSeconds": 1})
    session.run_until(10)
    snapshot = session.snapshot(advance_seq=False)
    assert snapshot["pod"] is None
    assert snapshot["views"]["columns"] is None
    assert snapshot["views"]["describe"] == ""
    assert snapshot["views"]["yaml"] == ""


def test_the_session_limit_is_refused_when_every_session_has_a_tab(
    manager: SessionManager,
) -> None:
    for i in range(3):
        manager.create(FakeSimulation.from_scenario(parse_scenario(POD)), tab=f"tab-{i}")
    with pytest.raises(TooManySessions):
        manager.create(FakeSimulation.from_scenario(parse_scenario(POD)))


def test_idle_sessions_are_freed_after_the_idle_time(
    manager: SessionManager, sim: FakeSimulation
) -> None:
    session = joined(manager, sim)
    session.used = True  # (one nobody used goes sooner: tests/web/test_capacity.py)
    scheduler = Scheduler(manager)
    scheduler.tick(0.0)
    manager.detach("tab-1")
    scheduler.tick(10.0)  # idle from here
    scheduler.tick(69.0)
    assert manager.get(session.id) is session
    scheduler.tick(71.0)
    assert manager.get(session.id) is None


def test_a_tab_coming_back_keeps_its_session(manager: SessionManager, sim: FakeSimulation) -> None:
    session = joined(manager, sim)
    scheduler = Scheduler(manager)
    manager.detach("tab-1")
    scheduler.tick(10.0)
    manager.attach("tab-2", session)
    scheduler.tick(100.0)
    assert manager.get(session.id) is session
    assert session.idle_since is None


def test_a_session_without_tabs_holds_still(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    session = joined(manager, sim)
    scheduler = Scheduler(manager)
    session.clock.play()
    scheduler.tick(0.0)
    scheduler.tick(1.0)
    manager.detach("tab-1")
    scheduler.tick(30.0)
    manager.attach("tab-2", session)
    scheduler.tick(31.0)  # a fresh anchor: no jump for the time nobody watched
    scheduler.tick(32.0)
    with session.lock:
        assert session.sim.now == pytest.approx(2.0)


def test_a_session_busy_in_a_handler_is_skipped_not_waited_for(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    session = joined(manager, sim)
    session.snapshot(advance_seq=False)
    session.clock.play()
    scheduler = Scheduler(manager)
    scheduler.tick(0.0)
    import threading

    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with session.lock:
            held.set()
            release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    assert scheduler.tick(1.0) == 0
    release.set()
    thread.join()
    assert scheduler.tick(1.0) == 1


def test_one_failing_session_does_not_stop_the_others(
    manager: SessionManager, outbox: Outbox
) -> None:
    broken = joined(manager, FakeSimulation.from_scenario(parse_scenario(POD)), "tab-1")
    healthy = joined(manager, FakeSimulation.from_scenario(parse_scenario(POD)), "tab-2")

    def explode(_: float) -> None:
        raise RuntimeError("boom")

    broken.sim.advance = explode  # type: ignore[method-assign]
    for session in (broken, healthy):
        session.clock.play()
    scheduler = Scheduler(manager)
    scheduler.tick(0.0)
    scheduler.tick(2.0)
    assert healthy.sim.now == pytest.approx(2.0)
    assert not broken.clock.playing


def test_a_tick_encodes_to_the_same_json_as_the_standard_library(sim: FakeSimulation) -> None:
    import json

    from webapp.sessions import wire

    session = Session(sim, end=100)
    session.run_until(5)
    first = session.tick()
    session.run_until(6)
    second = session.tick()
    for payload in (first, second):
        assert payload is not None
        text = wire.dumps(["tick", payload], separators=(",", ":"))
        assert text == json.dumps(["tick", dict(payload)], separators=(",", ":"))
    assert second is not None and first is not None
    assert second["pod"] is first["pod"]  # unchanged parts are the same objects: text reused


def test_a_changed_pod_is_encoded_afresh(sim: FakeSimulation) -> None:
    import json

    from webapp.sessions import wire

    session = Session(sim, end=100)
    session.run_until(2)
    before = session.tick()
    session.run_until(5)
    after = session.tick()
    assert before is not None and after is not None
    decoded = json.loads(wire.dumps(["tick", after]))[1]
    assert decoded["pod"]["status"]["phase"] == "Running"


def test_the_tick_interval_grows_with_the_number_of_playing_sessions(
    manager: SessionManager,
) -> None:
    scheduler = Scheduler(manager, ticks_per_second=800)
    assert scheduler.interval(1) == pytest.approx(0.1)
    assert scheduler.interval(80) == pytest.approx(0.1)
    assert scheduler.interval(400) == pytest.approx(0.5)


def test_the_scheduler_sends_nothing_before_the_first_snapshot(
    manager: SessionManager, sim: FakeSimulation, outbox: Outbox
) -> None:
    """A new session is listed (and has its tab) before the joining tab is in its room
    and has its snapshot; a paced tick then would go to nobody and skip a seq."""
    session = joined(manager, sim)
    scheduler = Scheduler(manager)
    scheduler.tick(0.0)
    scheduler.tick(5.0)
    assert outbox.ticks() == []
    snapshot = session.snapshot(advance_seq=False)
    assert snapshot["seq"] == 0
    session.clock.play()
    scheduler.tick(6.0)
    scheduler.tick(8.0)
    seqs = [t["seq"] for t in outbox.ticks()]
    assert seqs and seqs == list(range(1, len(seqs) + 1))
