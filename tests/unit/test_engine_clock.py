"""The SimPy-like core: integer ms, (time, priority, sequence) order, cancel, run(until)."""

from __future__ import annotations

from webapp.engine.core.clock import LATE, NORMAL, URGENT, Clock
from webapp.engine.core.process import Process, Signal
from webapp.engine.core.timefmt import go_duration, rfc3339


def test_same_time_events_run_by_priority_then_insertion_order():
    clock, order = Clock(), []
    clock.schedule(5, lambda: order.append("late"), LATE)
    clock.schedule(5, lambda: order.append("normal-1"), NORMAL)
    clock.schedule(5, lambda: order.append("urgent"), URGENT)
    clock.schedule(5, lambda: order.append("normal-2"), NORMAL)
    clock.schedule(1, lambda: order.append("first"))
    clock.run(10)
    assert order == ["first", "urgent", "normal-1", "normal-2", "late"]
    assert clock.now_ms == 10


def test_cancelled_timers_never_run_and_peek_skips_them():
    clock, ran = Clock(), []
    timer = clock.schedule(3, lambda: ran.append(3))
    clock.schedule(7, lambda: ran.append(7))
    timer.cancel()
    assert clock.peek() == 7
    assert clock.step() is True and ran == [7]
    assert clock.step() is False


def test_run_stops_at_until_and_leaves_later_events_queued():
    clock, ran = Clock(), []
    clock.schedule(10, lambda: ran.append(10))
    clock.run(9)
    assert ran == [] and clock.now_ms == 9 and clock.peek() == 10


def test_process_sleeps_and_waits_for_signals():
    clock, log, signal = Clock(), [], Signal()

    def worker():
        yield 1000
        log.append(("slept", clock.now_ms))
        yield signal
        log.append(("signalled", clock.now_ms))
        return "done"

    process = Process(clock, worker())
    clock.schedule(2500, signal.fire)
    clock.run(5000)
    assert log == [("slept", 1000), ("signalled", 2500)]
    assert process.done.fired and process.done.value == "done"


def test_go_duration_format():
    cases = {
        0: "0s",
        512: "512ms",
        1234: "1.234s",
        2000: "2s",
        62500: "1m2.5s",
        3_600_000: "1h0m0s",
    }
    assert {ms: go_duration(ms) for ms in cases} == cases


def test_rfc3339_truncates_to_seconds_from_the_epoch():
    assert rfc3339(0) == "2026-01-01T00:00:00Z"
    assert rfc3339(61_999) == "2026-01-01T00:01:01Z"
