"""Record real snapshot payloads from the engine for the JavaScript unit tests.

    python tests/js/record_fixtures.py      # rewrites tests/js/fixtures/*.json

The recordings are the server's own `Session.snapshot()` payloads, so the page's pure
view-state module is tested against the wire format as it really is. Review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webapp.engine import Simulation
from webapp.sessions import Session

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "fixtures"

# name -> (scenario file, [(at, action)], snapshot time)
RECORDINGS: dict[str, tuple[str, list[tuple[float, dict[str, Any]]], float]] = {
    "plain-pod": ("plain-pod", [], 10),
    "crash-loop": ("crash-loop-backoff", [], 70),
    "image-pull": ("image-pull-backoff", [], 60),
    "init-fails": ("init-container-fails", [], 60),
    "sidecar": ("sidecar", [], 30),
    "terminating": ("graceful-shutdown-prestop", [(20, {"action": "delete"})], 25),
    "removed": ("graceful-shutdown-prestop", [(20, {"action": "delete"})], 90),
    "node-lost": ("node-lost", [], 120),
    # The first seconds: at the start (or after seeking there) and during ContainerCreating.
    "plain-pod-start": ("plain-pod", [], 0),
    "plain-pod-creating": ("plain-pod", [], 3),
    "readiness-creating": ("readiness-endpoints", [], 2),
    "unschedulable": ("unschedulable", [], 30),
    "crash-exited": ("crash-loop-backoff", [], 53),
    "force-deleted": (
        "graceful-shutdown-prestop",
        [(20, {"action": "delete", "force": True, "gracePeriodSeconds": 0})],
        30,
    ),
    "node-down": ("node-lost", [], 30),
}


def record(scenario: str, actions: list[tuple[float, dict[str, Any]]], at: float) -> dict[str, Any]:
    text = (ROOT / "scenarios" / f"{scenario}.yaml").read_text(encoding="utf-8")
    session = Session(Simulation.from_yaml(text), end=3600, session_id="fixture-session")
    for when, action in actions:
        session.run_until(when)
        session.act(action)
    session.run_until(at)
    return session.snapshot(advance_seq=True)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (scenario, actions, at) in RECORDINGS.items():
        payload = record(scenario, actions, at)
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(
            f"{path.relative_to(ROOT)}: {len(payload['transitions'])} transitions at t={payload['now']}"
        )


if __name__ == "__main__":
    main()
