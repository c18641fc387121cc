"""The Pod's watch history kept packed (webapp/engine/core/versions.py): a VersionLog reads
exactly like the list of its items, and keeps old items far smaller than their dicts."""

from __future__ import annotations

import copy
import random
import tracemalloc

import pytest

from webapp.engine.core.versions import CHUNK, VersionLog


def _items(count: int) -> list[tuple[float, str, dict]]:
    spec = {"containers": [{"name": f"c{i}", "image": "busybox:1.36"} for i in range(20)]}
    return [(i / 2, "MODIFIED", {"spec": spec, "status": {"n": i}}) for i in range(count)]


@pytest.mark.parametrize("count", [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 5 * CHUNK + 7])
def test_a_log_reads_like_the_list_of_its_items(count: int) -> None:
    items = _items(count)
    log = VersionLog(items)
    assert len(log) == count and list(log) == items and log == items
    rng = random.Random(count)
    for _ in range(300):
        a, b = rng.randint(-3, count + 3), rng.randint(-3, count + 3)
        assert log[a:b] == items[a:b]
        head = log[:b]  # a checkpoint's restore: a log of its own, sharing packed chunks
        assert isinstance(head, VersionLog) and list(head) == items[:b]
        head.append("new")
        assert list(head) == [*items[:b], "new"] and list(log) == items
        if count:
            i = rng.randint(-count, count - 1)
            assert log[i] == items[i]
    assert log[::3] == items[::3]
    with pytest.raises(IndexError):
        log[count]


def test_old_versions_are_packed_and_far_smaller() -> None:
    """Each version its own dicts (as the Pod's status is): memory counted by tracemalloc."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        items = [copy.deepcopy(item) for item in _items(40 * CHUNK)]
        as_dicts = tracemalloc.get_traced_memory()[0] - before
        log = VersionLog(items)
        del items
        as_log = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(log._packed) == 39 and len(log._recent) == CHUNK
    assert as_log * 10 < as_dicts


def test_checkpoints_find_their_pod_in_the_packed_history() -> None:
    """A checkpoint whose Pod is the watch history's last version keeps no Pod of its own;
    restoring it and running on gives what a straight run gives."""
    import json

    from tests.worst_case import CRASH_LOOP_POD
    from webapp.engine import Simulation
    from webapp.engine.checkpoint import _IN_HISTORY, _POD, CheckpointStore, restore

    sim = Simulation.from_yaml(CRASH_LOOP_POD)
    sim.checkpoints = store = CheckpointStore(interval=30.0, budget=10_000_000)
    sim.advance_to(900.0)
    assert len(sim.pod_versions._packed) >= 2
    in_history = [c for c in store.items if c.objects.get(_POD) is _IN_HISTORY]
    assert len(in_history) >= len(store.items) - 1 >= 10
    for checkpoint in in_history[:: max(1, len(in_history) // 5)]:
        resumed = restore(checkpoint)
        straight = Simulation.from_yaml(CRASH_LOOP_POD)  # (a checkpoint may be mid-instant)
        resumed.advance_to(checkpoint.at + 60)
        straight.advance_to(checkpoint.at + 60)
        assert json.dumps(list(resumed.transitions)) == json.dumps(list(straight.transitions))
        assert json.dumps(resumed.pod()) == json.dumps(straight.pod())
        assert list(resumed.pod_versions) == list(straight.pod_versions)
