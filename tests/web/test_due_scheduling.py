"""The scheduler paces a playing session when something is due for it, not every round.

The wall clock is driven by hand (never read): `Scheduler.tick(wall)` is one wake-up of
the loop, and `next_wake()` is when the loop would wake next, so driving it with
`tick(next_wake())` is exactly what `Scheduler.run` does, minus the sleeping.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp.engine.simulation import Simulation
from webapp.manifest import parse_scenario
from webapp.paths import resource_dir
from webapp.sessions import ScenarioCatalog, Scheduler, Session, SessionManager

START = 1000.0


class Sent:
    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any], str]] = []

    def __call__(self, event: str, payload: dict[str, Any], to: str) -> None:
        self.messages.append((event, dict(payload), to))

    def ticks(self, room: str | None = None) -> list[dict[str, Any]]:
        return [p for e, p, to in self.messages if e == "tick" and room in (None, to)]


def playing(manager: SessionManager, sim: Any, tab: str, speed: float = 10.0) -> Session:
    session = manager.create(sim, tab=tab)
    session.snapshot(advance_seq=False)  # the joining tab's snapshot
    session.clock.set_speed(speed)
    session.clock.play()
    return session


def fake() -> FakeSimulation:
    return FakeSimulation.from_scenario(parse_scenario(POD))


def counting_paces(session: Session) -> list[float]:
    calls: list[float] = []
    pace = session.pace

    def counted(wall_now: float) -> None:
        calls.append(wall_now)
        pace(wall_now)

    session.pace = counted  # type: ignore[method-assign]
    return calls


def test_a_transition_leaves_in_the_wake_up_at_its_due_time() -> None:
    sent = Sent()
    manager = SessionManager(emit=sent, end_seconds=100)
    session = playing(manager, fake(), "tab-1")
    scheduler = Scheduler(manager)
    scheduler.tick(START)  # takes the anchor: virtual 0 at START
    # The fake engine's "scheduled" is at virtual 1.0: at 10x, 0.1 s after the anchor.
    assert scheduler.due_at(session) == pytest.approx(START + 0.1)
    assert scheduler.next_wake() == pytest.approx(START + 0.05)  # the next round comes first
    before = len(sent.ticks())
    scheduler.tick(START + 0.05)
    scheduler.tick(START + 0.0999)
    assert len(sent.ticks()) == before  # not due yet: nothing leaves, time-only waits
    scheduler.tick(START + 0.1)
    (tick,) = sent.ticks()[before:]
    assert [t["step"] for t in tick["transitions"]] == ["scheduled"]
    assert tick["now"] == pytest.approx(1.0)
    assert scheduler.due_at(session) == pytest.approx(START + 0.3)  # "running" at 3.0


def test_a_session_with_nothing_due_is_not_paced_by_rounds() -> None:
    sent = Sent()
    manager = SessionManager(emit=sent, end_seconds=100)
    busy = playing(manager, fake(), "tab-1")
    quiet = playing(manager, fake(), "tab-2")
    scheduler = Scheduler(manager)
    scheduler.tick(START)
    scheduler.tick(START + 0.1)
    scheduler.tick(START + 0.3)  # both ran "scheduled" and "running"; next: a probe at 13.0
    quiet_paces, busy_paces = counting_paces(quiet), counting_paces(busy)
    busy.clock.pause()  # a change (by a command): the next round paces it at once
    for i in range(1, 14):
        scheduler.tick(START + 0.3 + i * 0.05)  # rounds up to START + 0.95
    assert quiet_paces == []  # its probe is due at START + 1.3, its resync at START + 1.3
    assert len(busy_paces) == 1  # once for the pause, then never while paused
    scheduler.tick(START + 1.3)
    assert quiet_paces == [START + 1.3]
    assert busy_paces == [pytest.approx(START + 0.35)]


def test_paused_and_tabless_sessions_cost_no_pacing() -> None:
    manager = SessionManager(emit=Sent(), end_seconds=100)
    paused = manager.create(fake(), tab="tab-1")
    paused.snapshot(advance_seq=False)
    alone = manager.create(fake())
    alone.clock.play()
    scheduler = Scheduler(manager)
    scheduler.tick(START)
    paces = counting_paces(paused) + counting_paces(alone)
    for i in range(1, 40):
        scheduler.tick(START + i * 0.05)
    assert paces == [] and scheduler.next_wake() == pytest.approx(START + 40 * 0.05)


def test_taking_the_lock_brings_the_engine_to_the_clock() -> None:
    manager = SessionManager(emit=Sent(), end_seconds=100)
    session = playing(manager, fake(), "tab-1", speed=1.0)
    scheduler = Scheduler(manager)
    scheduler.tick(START)
    scheduler.tick(START + 1.0)  # "scheduled" at 1.0; next due: the resync at START + 2.0
    scheduler.tick(START + 1.9)  # a round, nothing due: the engine stays at 1.0
    assert session.sim.now == pytest.approx(1.0)
    with session.lock:  # a handler (a pause, an action) sees the moment the page shows
        assert session.sim.now == pytest.approx(1.9)
        session.clock.pause()
    scheduler.tick(START + 5.0)
    with session.lock:
        assert session.sim.now == pytest.approx(1.9)  # paused there


def test_many_sessions_on_the_real_engine_send_every_transition_once_in_order_when_due() -> None:
    """Crash-loop-backoff at 10x, sessions started at different moments, one paused and
    resumed on the way: the scheduler driven exactly as its loop drives itself."""
    sent = Sent()
    manager = SessionManager(emit=sent, end_seconds=7200)
    scenario = ScenarioCatalog(resource_dir("scenarios")).get("crash-loop-backoff")
    scheduler = Scheduler(manager)
    sessions: list[Session] = []
    snapshot_had: dict[str, int] = {}
    wall = START
    scheduler.tick(wall)
    paused_at = None
    while wall < START + 12.0:
        if len(sessions) < 5 and wall >= START + 0.13 * len(sessions):  # a join between wakes
            sim = Simulation.from_scenario(scenario, seed=0)
            sessions.append(playing(manager, sim, f"t{len(sessions)}"))
            snapshot_had[sessions[-1].id] = len(sim.transitions)
        wall = scheduler.next_wake()
        scheduler.tick(wall)
        if paused_at is None and wall > START + 4.0:
            with sessions[2].lock:
                sessions[2].clock.pause()
                paused_at = sessions[2].sim.now
        if paused_at is not None and wall > START + 6.0 and not sessions[2].clock.playing:
            with sessions[2].lock:
                sessions[2].clock.play()
    for session in sessions:
        ticks = sent.ticks(session.room)
        assert [t["seq"] for t in ticks] == list(range(1, len(ticks) + 1))  # no gaps
        carried = [t for tick in ticks for t in tick["transitions"]]
        first = snapshot_had[session.id]
        with session.lock:  # each once, in order, after those of the snapshot
            assert carried == session.sim.transitions[first : first + len(carried)]
        assert len(carried) > 20
        for tick in ticks:
            times = {t["t"] for t in tick["transitions"]}
            # Sent when due: the tick that carries a transition is the one at its moment
            # (the only exception: the transitions of second 0, sent with the anchor).
            assert times <= {tick["now"]} or times == {0.0}, (tick["now"], times)


def test_a_session_whose_last_tab_leaves_holds_still_where_its_clock_was() -> None:
    """Paced only when something is due, a playing session's engine may be behind its
    clock when its last tab leaves (a reload); the disconnect handler brings it to the
    clock's time while the tab still counts, so it holds still where the page was and the
    reloaded tab resumes there, not a second earlier (ci18: a reload at 4.12 s resumed at
    3.10 s). Time nobody watched still does not count."""
    from types import SimpleNamespace

    from webapp.realtime.connection import catch_up_before_leaving

    sent = Sent()
    manager = SessionManager(emit=sent, end_seconds=100)
    session = playing(manager, fake(), "tab-1", speed=1.0)
    scheduler = Scheduler(manager)
    scheduler.tick(START)  # anchor: virtual 0 at START
    scheduler.tick(START + 3.0)  # "running" at 3.0 is paced
    scheduler.tick(START + 3.5)  # a round: nothing due, the engine stays behind the clock
    assert session.sim.now == pytest.approx(3.0)
    catch_up_before_leaving(SimpleNamespace(manager=manager), "tab-1")  # type: ignore[arg-type]
    manager.detach("tab-1")
    assert session.sim.now == pytest.approx(3.5)
    scheduler.tick(START + 30.0)  # no tab: it holds still
    manager.attach("tab-2", session)
    scheduler.tick(START + 31.0)  # a fresh anchor: no jump for the time nobody watched
    with session.lock:
        assert session.sim.now == pytest.approx(3.5)
