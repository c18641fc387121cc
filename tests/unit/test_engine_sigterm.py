"""What the process does with SIGTERM decides the exit code and the terminated reason."""

from __future__ import annotations

import pytest

from tests.unit.engine_support import (
    APP,
    container_status,
    pod_yaml,
    scenario,
    simulation_doc,
    status_in,
)
from webapp.engine import Simulation

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n"


def _deleted_at_ten(behaviour: str) -> Simulation:
    text = scenario(
        pod_yaml(APP),
        simulation_doc(IMAGES + "containers:\n  app:\n" + behaviour),
    )
    sim = Simulation.from_yaml(text)
    sim.advance(10)
    sim.act({"action": "delete"})
    return sim


def _last_terminated(sim: Simulation) -> tuple[float, dict]:
    for t, _kind, pod in reversed(sim.pod_versions):
        state = status_in(pod)["state"]
        if "terminated" in state:
            return t, state["terminated"]
    raise AssertionError("the container never terminated")


@pytest.mark.parametrize(
    ("behaviour", "exit_code", "reason", "phase"),
    [
        pytest.param("    sigtermSeconds: 3\n", 143, "Error", "Failed", id="dies-of-the-signal"),
        pytest.param(
            "    sigtermSeconds: 3\n    sigtermExitCode: 0\n",
            0,
            "Completed",
            "Succeeded",
            id="handles-it-and-exits-0",
        ),
        pytest.param("    ignoreSigterm: true\n", 137, "Error", "Failed", id="sigkill-at-grace"),
    ],
)
def test_exit_on_sigterm(behaviour: str, exit_code: int, reason: str, phase: str) -> None:
    sim = _deleted_at_ten(behaviour)
    sim.advance(60)
    assert sim.pod() is None
    _t, terminated = _last_terminated(sim)
    assert (terminated["exitCode"], terminated["reason"]) == (exit_code, reason)
    last = sim.pod_versions[-1][2]
    assert last["status"]["phase"] == phase


def test_a_clean_exit_still_waits_for_sigterm_seconds() -> None:
    sim = _deleted_at_ten("    sigtermSeconds: 3\n    sigtermExitCode: 0\n")
    sim.advance(2.9)
    assert "running" in container_status(sim)["state"]
    sim.advance(0.2)
    t, terminated = _last_terminated(sim)
    assert terminated["exitCode"] == 0
    assert t == pytest.approx(13.0)
