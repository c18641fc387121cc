"""The transition log kept packed (webapp/engine/core/transitions.py, RecordLog): it reads
exactly like the list of its items, keeps the items of open probe runs live (they still
grow their ``repeat``), and keeps closed ones far smaller than their dicts."""

from __future__ import annotations

import json
import random
import tracemalloc

import pytest

from tests.worst_case import CRASH_LOOP_POD
from webapp.engine import Simulation
from webapp.engine.checkpoint import CheckpointStore, restore
from webapp.engine.core.transitions import PACK_CHUNK, RecordLog, TransitionLog


def _items(count: int) -> list[dict]:
    return [{"seq": i, "t": i / 2, "after": {"state": "running", "n": i % 7}} for i in range(count)]


@pytest.mark.parametrize("count", [0, 1, PACK_CHUNK, 2 * PACK_CHUNK, 5 * PACK_CHUNK + 7])
def test_a_record_log_reads_like_the_list_of_its_items(count: int) -> None:
    items = _items(count)
    runs = {("a", "probe.x"): [items[3], 0, None]} if count > 3 else {}  # item 3 stays open
    log = RecordLog()
    for item in items:
        log.append(item, runs)
    assert len(log) == count and list(log) == items and log == items and bool(log) == bool(count)
    if count > 2 * PACK_CHUNK:
        assert log._packed and log._pinned == {3: items[3]} and log[3] is items[3]
    rng = random.Random(count)
    for _ in range(200):
        a, b = rng.randint(-3, count + 3), rng.randint(-3, count + 3)
        assert log[a:b] == items[a:b]
        head = log.head(max(b, 0))  # a checkpoint's restore: a log sharing packed chunks
        assert list(head) == items[: max(b, 0)]
        if count:
            i = rng.randint(-count, count - 1)
            assert log[i] == items[i]
    assert log[::3] == items[::3]
    picked = sorted(rng.sample(range(count), min(count, 40)))
    assert log.pick(picked) == [items[i] for i in picked]
    if count:
        head = log.head(count)
        head[0] = replaced = {"seq": 0, "replaced": True}  # restore puts its own copies in
        assert head[0] is replaced and next(iter(head)) is replaced and log[0] == items[0]
    with pytest.raises(IndexError):
        log[count]


def test_an_open_run_packed_around_keeps_growing() -> None:
    """A probe run opened first and extended after hundreds of other items: the item stays
    live (pinned) while its neighbours are packed, and reads with its latest ``repeat``."""
    log = TransitionLog()
    log.record(0, "liveness", "pod/p", "probe.app.liveness", "ok", "ok", "probe", container="app")
    for i in range(1, 5 * PACK_CHUNK):
        log.record(i * 10, "running", "pod/p", "phase", i - 1, i, "kubelet")
    log.record(
        10_000, "liveness", "pod/p", "probe.app.liveness", "ok", "ok", "probe", container="app"
    )
    log.extend_run("pod/p", "probe.app.liveness", 3, 40_000)
    assert len(log.items._packed) >= 3 and 0 in log.items._pinned
    assert log.items[0]["repeat"] == {"every": 10.0, "count": 5, "until": 40.0}
    assert next(iter(log.items))["repeat"]["count"] == 5 and len(log.items) == 5 * PACK_CHUNK


def test_checkpoints_restore_from_the_packed_log_as_a_straight_run() -> None:
    sim = Simulation.from_yaml(CRASH_LOOP_POD)
    sim.checkpoints = store = CheckpointStore(interval=30.0, budget=10_000_000)
    sim.advance_to(900.0)
    assert len(sim.transitions._packed) >= 5
    for checkpoint in store.items[:: max(1, len(store.items) // 6)]:
        resumed = restore(checkpoint)
        straight = Simulation.from_yaml(CRASH_LOOP_POD)
        resumed.advance_to(checkpoint.at + 90)
        straight.advance_to(checkpoint.at + 90)
        assert json.dumps(list(resumed.transitions)) == json.dumps(list(straight.transitions))
        assert resumed.runs_extended_since(0) == straight.runs_extended_since(0)
    again = Simulation.from_yaml(CRASH_LOOP_POD)
    again.advance_to(900.0)
    assert json.dumps(list(sim.transitions)) == json.dumps(list(again.transitions))


def test_closed_records_are_packed_and_far_smaller() -> None:
    sim = Simulation.from_yaml(CRASH_LOOP_POD)
    sim.advance_to(1800.0)
    log = sim.transitions
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        as_dicts = list(log)
        size_as_dicts = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    packed = sum(len(chunk) for chunk in log._packed)
    assert len(as_dicts) > 1000 and len(log._recent) < 2 * PACK_CHUNK
    assert packed * 5 < size_as_dicts


def test_runs_extended_since_finds_exactly_the_runs_that_grew() -> None:
    """Open and closed runs alike (a closed run's pair leaves ``extended`` for the arrays):
    from any revision a reader saw, the items it had whose ``repeat`` changed since, by seq
    (newer items it gets whole, as a session's tick does)."""
    sim = Simulation.from_yaml(CRASH_LOOP_POD)
    seen: list[tuple[int, dict[int, str]]] = []
    for second in range(0, 1200, 37):
        sim.advance_to(float(second))
        seen.append(
            (sim.revision, {i["seq"]: json.dumps(i.get("repeat")) for i in sim.transitions})
        )
    assert len(sim._log._closed_seqs) > 50 and len(sim.transitions._packed) > 5
    now = {i["seq"]: json.dumps(i.get("repeat")) for i in sim.transitions}
    for revision, repeats in seen:
        grew = [seq for seq, repeat in repeats.items() if now[seq] != repeat]
        got = [item for item in sim.runs_extended_since(revision) if item["seq"] in repeats]
        assert [item["seq"] for item in got] == grew
        assert all(json.dumps(item["repeat"]) == now[item["seq"]] for item in got)


def test_a_reader_during_a_repack_finds_every_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """The classroom's roster reads a run without its lock; while closed pinned items are
    packed into their chunks, each item is in one place or the other, never a hole."""
    from webapp.engine.core import transitions as module

    items = _items(8 * PACK_CHUNK)
    # Every item of the first chunk is an open run when packed, then they all close.
    runs = {("a", f"probe.{i}"): [items[i], 0, None] for i in range(PACK_CHUNK)}
    log = RecordLog()
    seen: list[list[dict]] = []
    real_pack = module._pack

    def pack_and_read(chunk: list) -> bytes:
        packed = real_pack(chunk)
        seen.append([log[i] for i in range(len(log))])  # read as a reader would, meanwhile
        return packed

    monkeypatch.setattr(module, "_pack", pack_and_read)
    for i, item in enumerate(items):
        log.append(item, runs if i < 3 * PACK_CHUNK else {})
    assert not log._pinned and list(log) == items  # the closed pinned items were repacked
    assert seen and all(None not in read for read in seen)
