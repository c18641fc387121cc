"""Golden traces: every built-in scenario in, transitions / events / watch lines out.

A change in engine behaviour shows up as a diff of ``tests/unit/golden/<scenario>.json``
for a reviewer to read. Regenerate on purpose only:

    REGEN_GOLDEN=1 python -m pytest -q tests/unit/test_engine_golden.py -p no:playwright

A scenario without a golden file fails until it is generated the same way.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from webapp.engine import Simulation
from webapp.kubectl import watch_lines

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
SECONDS = 400


def golden_trace(text: str) -> dict:
    sim = Simulation.from_yaml(text, seed=0)
    sim.advance(SECONDS)
    versions = [(sim.wall_time(t), kind, pod) for t, kind, pod in sim.pod_versions]
    trace = sim.trace()
    return {
        "seconds": SECONDS,
        "watch": watch_lines(versions),
        "events": [
            {
                k: e[k]
                for k in ("type", "reason", "message", "count", "firstTimestamp", "lastTimestamp")
            }
            for e in trace["events"]
        ],
        "transitions": trace["transitions"],
        "pod": trace["pod"],
        "endpointSlices": trace["endpointSlices"],
    }


def dumps(value: dict) -> str:
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_golden_trace(path: Path):
    actual = dumps(golden_trace(path.read_text(encoding="utf-8")))
    golden = GOLDEN / f"{path.stem}.json"
    if os.environ.get("REGEN_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
        return
    assert golden.exists(), f"no golden trace for {path.name}; run with REGEN_GOLDEN=1"
    assert actual == golden.read_text(encoding="utf-8"), (
        f"{path.stem}: trace differs from {golden.relative_to(ROOT)}; "
        "if the change is intended, regenerate with REGEN_GOLDEN=1 and review the diff"
    )
