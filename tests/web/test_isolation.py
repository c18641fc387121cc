"""Isolation (issue 12 item 3): one session's work never holds up the scheduler or another
session, and a session's CPU share is bounded.

A lock held "for a long time" is a lock a test thread holds until the test lets go; a
thread that would wait for it shows up as a thread still running after a generous join
timeout, which only stops a hung test (nothing here measures how long anything took).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from tests.web.live import Tab, serve
from webapp import create_app, socketio_of
from webapp.manifest import parse_scenario
from webapp.realtime import realtime_of
from webapp.sessions import CpuBudget, Scheduler, Session, SessionGone, SessionManager

HUNG = 10.0  # seconds after which a thread that should have finished is called hung


def finishes(work: Callable[[], Any]) -> bool:
    """Run `work` in a thread; True if it returned (False: it is stuck waiting)."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(HUNG)
    return not thread.is_alive()


@contextmanager
def held(lock: Any) -> Iterator[None]:
    """Hold `lock` in another thread (as a handler in a long seek would) until the block ends."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            taken.set()
            release.wait()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert taken.wait(HUNG)
    try:
        yield
    finally:
        release.set()
        thread.join(HUNG)


def new_sim() -> FakeSimulation:
    return FakeSimulation.from_scenario(parse_scenario(POD))


def manager(**options: Any) -> SessionManager:
    return SessionManager(emit=lambda *_: None, idle_seconds=60, end_seconds=100, **options)


# -- locks ------------------------------------------------------------------------------


def test_the_reaper_never_waits_for_a_session_busy_in_a_handler() -> None:
    sessions = manager()
    busy, watched = sessions.create(new_sim()), sessions.create(new_sim())
    sessions.attach("tab", watched)
    scheduler = Scheduler(sessions)
    with held(busy.lock):
        # Round one starts the busy session's idle period, round two frees it: neither waits.
        assert finishes(lambda: scheduler.tick(1000.0))
        assert finishes(lambda: scheduler.tick(1100.0))
    assert sessions.get(busy.id) is None
    assert sessions.get(watched.id) is watched


def test_tabs_come_and_go_without_waiting_for_a_busy_session() -> None:
    sessions = manager()
    busy, other = sessions.create(new_sim()), sessions.create(new_sim())
    sessions.attach("tab-1", busy)
    with held(busy.lock):
        assert finishes(lambda: sessions.detach("tab-1"))
        assert finishes(lambda: sessions.attach("tab-2", busy))
        assert finishes(lambda: sessions.attach("tab-2", other))  # leaves `busy` for `other`
    assert busy.tabs == frozenset() and other.tabs == {"tab-2"}


def test_joining_a_session_the_reaper_just_freed_is_refused() -> None:
    sessions = manager()
    session = sessions.create(new_sim())
    scheduler = Scheduler(sessions)
    scheduler.tick(0.0)
    scheduler.tick(61.0)
    with pytest.raises(SessionGone):
        sessions.attach("late-tab", session)
    assert session.tabs == frozenset()


def test_a_player_keeps_getting_ticks_while_another_session_is_busy(tmp_path: Path) -> None:
    """Over a real WebSocket with the scheduler running: session A is stuck (its lock held,
    as during a long seek); B plays on, and a third client still gets a session."""
    with serve(tmp_path, SESSION_ENGINE=FakeSimulation) as (app, url):
        a, b, c = Tab(url), Tab(url), Tab(url)
        try:
            a.client.emit("join", {"yaml": POD})
            stuck = realtime_of(app).manager.get(a.next("snapshot")["session"])
            assert stuck is not None
            b.client.emit("join", {"yaml": POD})
            b.next("snapshot")
            with held(stuck.lock):
                a.close()  # its tab leaves while the session is busy: detach must not wait
                b.client.emit("clock", {"op": "speed", "value": 20})
                b.client.emit("clock", {"op": "play"})
                ticks = b.until(lambda t: t["now"] >= 20)
                assert [t["seq"] for t in ticks] == list(
                    range(ticks[0]["seq"], ticks[0]["seq"] + len(ticks))
                )
                c.client.emit("join", {"yaml": POD})
                assert c.next("snapshot")["session"] != stuck.id
        finally:
            for tab in (a, b, c):
                tab.close()


# -- the CPU budget ---------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_cpu_budget_refills_at_its_rate_up_to_its_burst() -> None:
    clock = Clock()
    budget = CpuBudget(rate=0.5, burst=1.0, clock=clock)
    assert not budget.spent()
    budget.charge(1.5)
    assert budget.spent()
    assert budget.wait() == pytest.approx(1.0)  # 0.5 CPU s owed at 0.5 CPU s a second
    clock.now = 0.5
    assert budget.spent()
    clock.now = 1.01
    assert not budget.spent()
    clock.now = 100.0
    assert not budget.spent()
    assert budget.balance == pytest.approx(1.0)  # never more than the burst


def test_the_budget_counts_cpu_time_not_waiting() -> None:
    budget = CpuBudget(rate=0.0, burst=10.0)
    with budget.measure():
        time.sleep(0.05)  # a thread waiting for a lock or the network uses no CPU
    assert budget.balance > 9.99
    with budget.measure():
        burn(0.02)
    assert budget.balance <= 9.98


def burn(cpu_seconds: float) -> None:
    """Use `cpu_seconds` of this thread's CPU time."""
    until = time.thread_time() + cpu_seconds
    while time.thread_time() < until:
        pass


class CostlyReplay(FakeSimulation):
    """The fake engine, with a seek back that costs 30 ms of CPU like a long replay."""

    @classmethod
    def replay(cls, *args: Any, **kwargs: Any) -> FakeSimulation:
        burn(0.03)
        return super().replay(*args, **kwargs)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": CostlyReplay,
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            "SESSION_CPU_SHARE": 0.001,
            "SESSION_CPU_BURST_SECONDS": 0.05,
        }
    )


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def received(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


def test_repeated_seeks_are_refused_once_the_session_has_used_its_cpu_share(app: Flask) -> None:
    clock = Clock()
    realtime_of(app).manager.clock = clock
    client = connect(app)
    client.emit("join", {"yaml": POD, "lang": "zh"})
    session_id = received(client)[0][1]["session"]
    client.emit("clock", {"op": "play"})
    assert received(client)[0][0] == "tick"
    answers = []
    for target in (5, 1, 5, 1, 5, 1):  # every seek back to 1 replays (30 ms of CPU)
        client.emit("clock", {"op": "seek", "value": target})
        answers += received(client)
    kinds = [name for name, _ in answers]
    assert kinds[:4] == ["snapshot"] * 4  # the 50 ms burst covers the first two replays
    refusal = answers[-1][1]
    assert kinds[-1] == "error" and refusal["code"] == "session_busy"
    assert "秒" in refusal["message"] and "暂停" in refusal["message"]
    client.emit("clock", {"op": "pause"})  # pausing is never refused
    [(kind, paused)] = received(client)
    assert kind == "tick" and paused["clock"]["playing"] is False
    # Another session of the same server is not affected.
    other = connect(app)
    other.emit("join", {"yaml": POD})
    received(other)
    other.emit("clock", {"op": "seek", "value": 5})
    assert received(other)[0][0] == "snapshot"
    # The budget recovers with (wall) time.
    session = realtime_of(app).manager.get(session_id)
    assert session is not None
    clock.now += session.cpu.wait() + 1
    client.emit("clock", {"op": "seek", "value": 3})
    assert received(client)[0][0] == "snapshot"


def test_a_session_over_its_cpu_share_is_not_paced_and_the_others_are() -> None:
    clock = Clock()
    sessions = manager(cpu_rate=0.001, cpu_burst=0.05, clock=clock)
    spent, fine = sessions.create(new_sim()), sessions.create(new_sim())
    for tab, session in (("a", spent), ("b", fine)):
        sessions.attach(tab, session)
        session.clock.play()
    spent.cpu.charge(1.0)
    scheduler = Scheduler(sessions)
    for i in range(11):
        scheduler.tick(1000.0 + i * 0.5)
    with spent.lock, fine.lock:  # taking the lock brings the engine to the clock's time
        assert spent.sim.now == 0.0
        assert fine.sim.now == pytest.approx(5.0)
    clock.now = 10_000.0  # the budget recovered: it plays on from where it was, no jump
    for i in range(11, 15):
        scheduler.tick(1000.0 + i * 0.5)
    with spent.lock:
        assert spent.sim.now == pytest.approx(1.5)


def test_sessions_made_by_the_manager_carry_its_budget() -> None:
    session = manager(cpu_rate=0.3, cpu_burst=1.5).create(new_sim())
    assert isinstance(session, Session)
    assert (session.cpu.rate, session.cpu.burst) == (0.3, 1.5)


def connect_from(app: Flask, address: str) -> SocketIOTestClient:
    """A test client whose connection comes from `address` (REMOTE_ADDR)."""
    http = app.test_client()
    http.environ_base["REMOTE_ADDR"] = address
    client = socketio_of(app).test_client(app, flask_test_client=http)
    client.get_received()
    return client


def test_new_sessions_of_one_client_do_not_bring_new_cpu_time(tmp_path: Path) -> None:
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": CostlyReplay,
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            "SESSION_CPU_BURST_SECONDS": 10.0,  # each session alone could go on
            "CLIENT_CPU_SHARE": 0.001,
            "CLIENT_CPU_BURST_SECONDS": 0.05,
        }
    )
    realtime_of(app).manager.client_cpu.clock = Clock()  # type: ignore[union-attr]
    answers = []
    for _ in range(3):  # a fresh session each time, from the same address
        client = connect_from(app, "198.51.100.7")
        client.emit("join", {"yaml": POD, "lang": "zh"})
        codes = [p.get("code", name) for name, p in received(client)]
        for target in (5, 1):  # the seek back to 1 replays: 30 ms of CPU
            client.emit("clock", {"op": "seek", "value": target})
            codes += [p.get("code", name) for name, p in received(client)]
        answers.append(codes)
    assert answers[0] == ["snapshot"] * 3
    # Once the client's share is spent, a new session of the same address brings no new
    # CPU time: its commands are refused, or (issue 26, F1: building a session is the
    # client's cost too) its join is, and it has no commands to refuse.
    refused = (
        ["snapshot", "client_busy", "client_busy"],
        ["client_busy", "no_session", "no_session"],
    )
    assert answers[1] in (["snapshot"] * 3, *refused)
    assert answers[2] in refused
    stranger = connect_from(app, "203.0.113.5")
    stranger.emit("join", {"yaml": POD})
    received(stranger)
    stranger.emit("clock", {"op": "seek", "value": 5})
    assert received(stranger)[0][0] == "snapshot"
