"""flowcontrol.Backoff as the kubelet drives it (KUBERNETES-SEMANTICS §4)."""

from __future__ import annotations

import pytest

from webapp.engine.kubelet.backoff import (
    CRASH_LOOP_INITIAL_MS,
    CRASH_LOOP_MAX_MS,
    IMAGE_BACKOFF_INITIAL_MS,
    IMAGE_BACKOFF_MAX_MS,
    Backoff,
    new_crash_loop_backoff,
    new_image_backoff,
)

KEY = "web_default_uid-1_app_hash"
RUN_MS = 1_000  # each instance runs one second before it crashes again


def restart_at(backoff: Backoff, finished_at: int) -> int:
    """The first instant the kubelet may restart a container that exited at finished_at.

    Mirrors doBackOff: in backoff → wait; otherwise Next() and start now. Also checks the
    window edge: one millisecond earlier the container is still in backoff.
    """
    if not backoff.is_in_backoff_since(KEY, finished_at, finished_at):
        start = finished_at
    else:
        start = finished_at + backoff.get(KEY)
        assert backoff.is_in_backoff_since(KEY, finished_at, start - 1)
        assert not backoff.is_in_backoff_since(KEY, finished_at, start)
    backoff.next(KEY, start, finished_at)
    return start


def crash_loop_gaps(crashes: int, run_ms: int = RUN_MS) -> list[int]:
    backoff = new_crash_loop_backoff()
    gaps, started = [], 0
    for _ in range(crashes):
        finished = started + run_ms
        started = restart_at(backoff, finished)
        gaps.append(started - finished)
    return gaps


def test_constants_match_the_kubelet():
    assert (CRASH_LOOP_INITIAL_MS, CRASH_LOOP_MAX_MS) == (10_000, 300_000)
    assert (IMAGE_BACKOFF_INITIAL_MS, IMAGE_BACKOFF_MAX_MS) == (10_000, 300_000)
    assert new_image_backoff() == Backoff(10_000, 300_000)


def test_first_restart_after_crash_is_immediate():
    assert crash_loop_gaps(1) == [0]


def test_restart_gaps_double_from_finished_at_and_cap_at_five_minutes():
    seconds = [gap // 1000 for gap in crash_loop_gaps(9)]
    assert seconds == [0, 10, 20, 40, 80, 160, 300, 300, 300]


def test_backoff_resets_after_running_more_than_ten_minutes():
    backoff = new_crash_loop_backoff()
    started = 0
    for _ in range(5):  # five restarts: the window is now 160 s
        started = restart_at(backoff, started + RUN_MS)
    assert backoff.get(KEY) == 160_000
    # Runs 10 min + 1 ms after its last restart: the entry has expired (hasExpired).
    finished = started + 600_001
    assert restart_at(backoff, finished) == finished
    assert backoff.get(KEY) == 10_000


def test_backoff_does_not_reset_after_exactly_ten_minutes():
    backoff = new_crash_loop_backoff()
    started = 0
    for _ in range(3):  # three restarts: the window is now 40 s
        started = restart_at(backoff, started + RUN_MS)
    finished = started + 600_000
    assert restart_at(backoff, finished) == finished + 40_000
    assert backoff.get(KEY) == 80_000


def test_get_without_entry_is_zero_and_not_in_backoff():
    backoff = new_crash_loop_backoff()
    assert backoff.get(KEY) == 0
    assert not backoff.is_in_backoff_since(KEY, 0, 0)
    assert not backoff.is_in_backoff_since_update(KEY, 0)


@pytest.mark.parametrize(
    ("now_ms", "in_backoff"),
    [(5_000, True), (14_999, True), (15_000, False), (605_001, False)],
)
def test_image_pull_backoff_is_measured_from_the_failed_pull(now_ms, in_backoff):
    backoff = new_image_backoff()
    backoff.next("uid_nginx:nope", 5_000)  # pull failed at 5 s
    assert backoff.is_in_backoff_since_update("uid_nginx:nope", now_ms) is in_backoff


def test_reset_forgets_the_key():
    backoff = new_crash_loop_backoff()
    backoff.next(KEY, 0)
    backoff.next(KEY, 0)
    assert backoff.get(KEY) == 20_000
    backoff.reset(KEY)
    assert backoff.get(KEY) == 0
    backoff.reset(KEY)  # no error for a missing key


def test_gc_drops_entries_older_than_twice_max():
    backoff = new_crash_loop_backoff()
    backoff.next("old", 0)
    backoff.next("new", 500_000)
    backoff.gc(600_000)
    assert set(backoff.per_item_backoff) == {"old", "new"}
    backoff.gc(600_001)
    assert set(backoff.per_item_backoff) == {"new"}


def test_copy_is_independent_and_equal():
    backoff = new_crash_loop_backoff()
    backoff.next(KEY, 0)
    snapshot = backoff.copy()
    assert snapshot == backoff
    backoff.next(KEY, 1)
    assert snapshot.get(KEY) == 10_000
    assert backoff.get(KEY) == 20_000
