"""Fair pacing (issue 26, F1): pacing is charged to the session, its client and the
server; past the server's budget only light clients go on; pacing runs in slices (a run
that cannot keep up is slowed); heavy runs are paced by the heavy pacer, one working visit
per client per pass; a client's handlers take turns; tabless sessions per client are
capped."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from tests.worst_case import CRASH_LOOP_POD, cluster_crash_loop
from webapp.engine import Simulation
from webapp.manifest import parse_scenario
from webapp.sessions import CpuBudget, Scheduler, SessionManager, memory
from webapp.sessions.budget import ClientGates, held


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def manager(**options: Any) -> SessionManager:
    return SessionManager(emit=lambda *_: None, idle_seconds=60, end_seconds=7200, **options)


def test_held_waits_for_its_own_and_its_clients_budget_and_the_servers_for_heavy_clients() -> None:
    clock = Clock()
    own, client, server = (CpuBudget(0.5, 1.0, clock=clock) for _ in range(3))
    assert not held(own, client, server)
    client.charge(1.5)
    assert held(own, client, server)  # its client spent the client's share
    clock.now += 10.0  # everything refilled
    server.charge(2.0)
    assert not held(own, client, server)  # the server's is spent, but this client is light
    client.charge(0.6)  # ... and now it is not: more than half its burst used
    assert held(own, client, server)
    own.charge(5.0)
    assert held(own)


def test_pacing_is_charged_to_the_session_its_client_and_the_server() -> None:
    sessions = manager(client_cpu_rate=0.5, server_cpu_rate=1.0)
    session = sessions.create(Simulation.from_yaml(CRASH_LOOP_POD), client="198.51.100.7")
    sessions.attach("tab", session)
    session.clock.play()
    session.clock.set_speed(100)
    scheduler = Scheduler(sessions)
    before = [b.balance for b in session.budgets()]
    for i in range(20):
        scheduler.tick(1000.0 + i * 0.1)
    assert len(session.budgets()) == 3
    assert all(b.balance < was for b, was in zip(session.budgets(), before, strict=True))
    assert session.client_cpu is sessions.client_cpu.of("198.51.100.7")  # type: ignore[union-attr]
    assert session.server_cpu is sessions.server_cpu


def test_a_run_that_cannot_keep_up_is_paced_one_slice_at_a_time_and_slowed() -> None:
    sessions = manager()
    session = sessions.create(Simulation.from_yaml(CRASH_LOOP_POD))
    sessions.attach("tab", session)
    session.clock.play()
    session.clock.set_speed(100)
    scheduler = Scheduler(sessions)
    scheduler.tick(1000.0)  # the anchor
    processed = session.sim.clock.processed
    started = time.thread_time()
    scheduler.tick(1100.0)  # 100 wall seconds at 100x: 10,000 virtual seconds asked
    cost = time.thread_time() - started
    assert session.sim.clock.processed - processed <= 2 * 2000  # SLICE_EVENTS, not 10,000 s
    assert session.sim.now < 7200
    assert not session.clock.anchored or session.clock.wall_at(session.sim.now) == 1100.0
    assert cost < 5.0  # one slice, not the whole run (seconds of CPU)
    assert session.clock.playing  # slowed, not stopped


def test_cluster_runs_are_paced_by_the_heavy_pacer_one_working_visit_per_client() -> None:
    sessions = manager()
    text = cluster_crash_loop(10, 1, probes=0)
    light = sessions.create(FakeSimulation.from_scenario(parse_scenario(POD)), client="b")
    heavy = [sessions.create(Simulation.from_yaml(text), client="a") for _ in range(3)]
    for i, session in enumerate([light, *heavy]):
        sessions.attach(f"tab{i}", session)
        session.clock.play()
    assert [s.heavy for s in heavy] == [True] * 3 and not light.heavy
    scheduler = Scheduler(sessions)
    scheduler.pacer.running = True  # as once its thread runs: the scheduler leaves them
    for i in range(5):
        scheduler.tick(1000.0 + i * 0.5)
    assert all(s.sim.now == 0.0 for s in heavy)
    assert light.sim.now > 0.0  # the scheduler paced the light one
    for session in heavy:
        session.snapshot(advance_seq=True)  # as a joining tab gets: ticks follow it
        session.clock.set_speed(10)
    scheduler._last_wall = 1003.0
    scheduler.pacer.round()  # takes the anchors (cheap visits: they do not use the turn)
    paced: list[int] = []
    for i in range(3):  # each pass: one working visit for client "a", in turn
        scheduler._last_wall = 1004.0 + i
        before = [s.sim.now for s in heavy]
        assert scheduler.pacer.round() == 1
        moved = [k for k, s in enumerate(heavy) if s.sim.now != before[k]]
        assert len(moved) == 1
        paced += moved
    assert sorted(paced) == [0, 1, 2]


def test_a_session_whose_pacing_is_costly_becomes_heavy() -> None:
    sessions = manager()
    session = sessions.create(Simulation.from_yaml(CRASH_LOOP_POD))
    sessions.attach("tab", session)
    session.clock.play()
    session.clock.set_speed(100)
    assert not session.heavy
    scheduler = Scheduler(sessions)
    for i in range(10):
        scheduler.tick(1000.0 + i)
    assert session.heavy  # a slice of the crash loop at 100x costs more than 20 ms


def test_the_handlers_of_one_client_take_turns_and_others_do_not_wait() -> None:
    gates = ClientGates()
    inside: list[str] = []
    release = threading.Event()

    def hold() -> None:
        with gates.held("a"):
            inside.append("first")
            release.wait(5)

    first = threading.Thread(target=hold)
    first.start()
    while not inside:
        time.sleep(0.01)
    second = threading.Thread(target=lambda: gates.held("a").__enter__() or inside.append("a"))
    second.daemon = True
    second.start()
    with gates.held("b"):  # another address goes straight in
        inside.append("b")
    second.join(0.2)
    assert inside == ["first", "b"]  # the same address waits its turn
    release.set()
    first.join(5)
    second.join(5)
    assert inside == ["first", "b", "a"]


def test_a_client_keeps_a_few_sessions_without_a_tab_and_the_rest_are_freed() -> None:
    sessions = manager(idle_per_client=2)
    clock = Clock()
    sessions.clock = clock
    made = []
    for i in range(5):
        clock.now = float(i)
        session = sessions.create(FakeSimulation.from_scenario(parse_scenario(POD)), client="a")
        sessions.attach(f"t{i}", session)
        made.append(session)
    other = sessions.create(FakeSimulation.from_scenario(parse_scenario(POD)), client="b")
    for i in range(5):
        clock.now = 10.0 + i
        sessions.detach(f"t{i}")
    freed = sessions.reap(100.0)
    assert sorted(freed) == sorted(s.id for s in made[:3])  # the last tabs to leave stay
    assert {s.id for s in sessions.sessions()} == {made[3].id, made[4].id, other.id}


def test_what_survives_a_full_collection_is_frozen_once_after_each() -> None:
    try:
        gc.collect()
        assert memory.settle()  # a full collection ran since the last look
        assert gc.get_freeze_count() > 0
        assert not memory.settle()  # none since
    finally:
        gc.unfreeze()


def test_freed_sessions_are_collected_at_most_once_per_interval(monkeypatch: Any) -> None:
    released: list[float] = []
    monkeypatch.setattr(memory, "release", lambda: released.append(1.0) or 0.0)
    monkeypatch.setattr(memory, "settle", lambda: False)
    monkeypatch.setattr(memory, "_released_at", float("-inf"))
    monkeypatch.setattr(memory, "_pending", False)
    memory.freed(100.0)
    assert len(released) == 1  # the first at once
    memory.freed(110.0)
    memory.settle_or_release(120.0)
    assert len(released) == 1  # within RELEASE_SECONDS: it waits ...
    memory.settle_or_release(100.0 + memory.RELEASE_SECONDS)
    assert len(released) == 2  # ... for its turn
    memory.settle_or_release(200.0)
    assert len(released) == 2  # nothing freed since


def frozen_then_let_go(monkeypatch: Any, let_go: Callable[[SessionManager, Any], None]) -> int:
    """A session frozen with the server's objects (a full collection, then `settle`), let go
    by `let_go(manager, session)`; then the scheduler's once-a-second call past
    RELEASE_SECONDS. Returns how many of the session and its run are still alive."""
    monkeypatch.setattr(memory, "_released_at", float("-inf"))
    monkeypatch.setattr(memory, "_pending", False)
    monkeypatch.setattr(memory, "_trim", lambda: None)
    try:
        sessions = manager(max_per_client=1)
        session = sessions.create(Simulation.from_yaml(CRASH_LOOP_POD), client="a", tab="t")
        session.seek(30.0)
        alive = [weakref.ref(session), weakref.ref(session.sim)]
        gc.collect()
        assert memory.settle()  # the session is frozen now
        sessions.detach("t")
        let_go(sessions, session)
        del session
        memory.settle_or_release(1000.0)
        return sum(1 for ref in alive if ref() is not None)
    finally:
        gc.unfreeze()


def test_a_frozen_session_evicted_to_make_room_is_collected_at_the_next_release(
    monkeypatch: Any,
) -> None:
    def evict(sessions: SessionManager, _: Any) -> None:
        sessions.create(FakeSimulation.from_scenario(parse_scenario(POD)), client="a")

    assert frozen_then_let_go(monkeypatch, evict) == 0


def test_a_frozen_session_handed_over_is_collected_at_the_next_release(monkeypatch: Any) -> None:
    def remove(sessions: SessionManager, session: Any) -> None:
        sessions.remove(session.id)

    assert frozen_then_let_go(monkeypatch, remove) == 0


def test_a_frozen_run_replaced_by_a_new_scenario_is_collected_at_the_next_release(
    monkeypatch: Any,
) -> None:
    kept: list[Any] = []

    def restart(_: SessionManager, session: Any) -> None:
        session.restart(Simulation.from_yaml(CRASH_LOOP_POD))
        kept.append(session)  # the session stays; its old run must go

    assert frozen_then_let_go(monkeypatch, restart) == 1  # the session, not its old run


def test_a_seek_back_marks_a_release_only_if_the_replaced_run_may_be_frozen(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(memory, "_pending", False)
    try:
        session = manager().create(Simulation.from_yaml(CRASH_LOOP_POD))
        session.seek(20.0)
        session.seek(10.0)  # a replay: the first run is dropped, nothing known of it
        assert memory._pending
        memory._pending = False
        session.seek(5.0)  # the replaced run was made after the last freeze: plain garbage
        assert not memory._pending
        gc.collect()
        assert memory.settle()  # now it may be frozen
        session.seek(2.0)
        assert memory._pending
    finally:
        gc.unfreeze()
