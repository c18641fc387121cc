"""`Simulation.advance_to(t, stop)` (issue 12): a run advanced in slices, stopped wherever
`stop()` says, is exactly the run advanced at once: the same transitions, Events, watch
history, checkpoints' effect and the same state after, event for event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.worst_case import crash_loop_pod
from webapp.engine import Simulation
from webapp.engine.checkpoint import CheckpointStore

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def observed(sim: Simulation) -> str:
    return json.dumps(
        {"trace": sim.trace(), "versions": sim.pod_versions, "now": sim.now,
         "nodes": sim.nodes(), "actions": sim.actions, "next": sim.next_event_time()},
        sort_keys=True, default=str,
    )  # fmt: skip


def every(n: int):
    """A stop() that says stop on every n-th question."""
    asked = 0

    def stop() -> bool:
        nonlocal asked
        asked += 1
        return asked % n == 0

    return stop


def sliced(sim: Simulation, t: float, n: int) -> int:
    """Advance to `t` in slices; returns how many slices it took."""
    slices = 1
    stop = every(n)
    while not sim.advance_to(t, stop):
        slices += 1
    return slices


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_sliced_is_the_run_at_once(path: Path) -> None:
    text = path.read_text()
    whole = Simulation.from_yaml(text)
    assert whole.advance_to(900.0)
    for n in (1, 3, 17):
        parts = Simulation.from_yaml(text)
        sliced(parts, 900.0, n)
        assert observed(parts) == observed(whole), f"stopping every {n}"


def test_the_crash_loop_worst_case_sliced_with_checkpoints_and_an_action() -> None:
    text = crash_loop_pod(6)
    whole = Simulation.from_yaml(text)
    whole.checkpoints = CheckpointStore(60.0, 3_000_000)
    whole.advance(300.0)
    whole.act({"action": "set-probe", "container": "c2", "probe": "liveness", "healthy": False})
    whole.advance(600.0 - whole.now)

    parts = Simulation.from_yaml(text)
    parts.checkpoints = CheckpointStore(60.0, 3_000_000)
    first = sliced(parts, 300.0, 5)
    parts.act({"action": "set-probe", "container": "c2", "probe": "liveness", "healthy": False})
    second = sliced(parts, 600.0, 5)
    assert first > 10 and second > 10  # it really was cut into many slices
    assert observed(parts) == observed(whole)
    assert len(parts.transitions) == len(whole.transitions) > 500
    assert [t["seq"] for t in parts.transitions] == [t["seq"] for t in whole.transitions]


def test_a_stopped_slice_leaves_the_clock_at_its_last_event_and_never_past_t() -> None:
    sim = Simulation.from_yaml(crash_loop_pod(4))
    assert not sim.advance_to(120.0, lambda: sim.now >= 30.0)
    assert 30.0 <= sim.now < 120.0
    before, due = sim.now, sim.next_event_time()
    assert not sim.advance_to(120.0, lambda: True)  # one instant, then it stops
    assert sim.now == due > before
    assert sim.advance_to(120.0) and sim.now == 120.0
    assert sim.advance_to(10.0) and sim.now == 120.0  # never backwards
