"""A second delete during graceful termination: only a shorter grace counts (BeforeDelete,
pod_workers.go calculateEffectiveGracePeriod); force removes the object at once."""

from __future__ import annotations

import pytest

from tests.unit.engine_support import (
    events,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    transitions,
)
from webapp.engine.core.timefmt import rfc3339

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n"
STUBBORN = "containers:\n  app: {ignoreSigterm: true}\n"
RUNNING_AT = 10  # the container runs from t=3


def make(spec_grace: int = 60, container: str = "", behaviour: str = STUBBORN):
    text = "- name: app\n  image: nginx:1.27\n" + container
    spec = f"terminationGracePeriodSeconds: {spec_grace}\n"
    return simulate(
        scenario(pod_yaml(text, spec_extra=spec), simulation_doc(IMAGES + behaviour)), RUNNING_AT
    )


def delete(sim, grace=None, force=False):
    action = {"action": "delete"}
    if grace is not None:
        action["gracePeriodSeconds"] = grace
    if force:
        action["force"] = True
    sim.act(action)


def metadata(sim) -> dict:
    pod = sim.pod()
    assert pod is not None
    return pod["metadata"]


def sigkill_times(sim) -> list[float]:
    return [t["t"] for t in transitions(sim, step="sigkill", field="signal", container="app")]


def exit_time(sim) -> float:
    return transitions(sim, step="exit", container="app")[-1]["t"]


def test_shorter_second_grace_moves_the_deletion_timestamp_and_the_sigkill():
    sim = make()
    delete(sim, 60)
    assert metadata(sim)["deletionTimestamp"] == rfc3339((RUNNING_AT + 60) * 1000)
    sim.advance(10)
    delete(sim, 5)
    meta = metadata(sim)
    assert meta["deletionGracePeriodSeconds"] == 5
    # BeforeDelete: old timestamp - old grace + new grace = first deletion + 5 s
    assert meta["deletionTimestamp"] == rfc3339((RUNNING_AT + 5) * 1000)
    sim.advance(30)
    assert sigkill_times(sim) == [RUNNING_AT + 10 + 5]  # the new kill's full 5 s
    assert exit_time(sim) == RUNNING_AT + 15
    assert sim.pod() is None
    assert [e["count"] for e in events(sim, "Killing")] == [2]  # killContainer ran again
    grace = transitions(sim, step="grace", field="gracePeriod")
    assert [(g["before"], g["after"]) for g in grace] == [(None, 60), (60, 5)]


@pytest.mark.parametrize("second", [60, 90, None])
def test_a_longer_or_equal_or_default_second_grace_changes_nothing(second):
    sim = make()
    delete(sim, 60)
    before = metadata(sim)
    count = len(sim.transitions)
    sim.advance(10)
    delete(sim, second)
    assert metadata(sim) == before  # same resourceVersion: no update was stored
    assert len(sim.transitions) == count
    sim.advance(60)
    assert sigkill_times(sim) == [RUNNING_AT + 60]
    assert events(sim, "Killing")[0]["count"] == 1


def test_a_second_grace_below_two_seconds_still_gets_the_minimum():
    sim = make()
    delete(sim, 60)
    sim.advance(10)
    delete(sim, 1)
    assert metadata(sim)["deletionGracePeriodSeconds"] == 1
    sim.advance(10)
    assert sigkill_times(sim) == [RUNNING_AT + 10 + 2]


def test_force_during_graceful_termination_removes_the_object_at_once():
    sim = make()
    delete(sim, 60)
    sim.advance(10)
    delete(sim, force=True)
    assert sim.pod() is None
    assert sim.pod_versions[-1][1] == "DELETED"
    removed = transitions(sim, step="removed")
    assert removed and removed[0]["t"] == RUNNING_AT + 10
    sim.advance(10)
    # the kubelet still stops the container in the background: grace 1, minimum 2 s
    assert sigkill_times(sim) == [RUNNING_AT + 10 + 2]


def test_a_process_that_obeys_sigterm_keeps_its_own_shutdown_time():
    sim = make(behaviour="containers:\n  app: {sigtermSeconds: 4}\n")
    delete(sim, 60)
    sim.advance(1)
    delete(sim, 10)
    sim.advance(20)
    assert sigkill_times(sim) == []
    assert exit_time(sim) == RUNNING_AT + 4  # the second SIGTERM does not restart the app's exit


def test_a_shorter_grace_interrupts_prestop_which_runs_again_within_it():
    container = "  lifecycle:\n    preStop:\n      sleep: {seconds: 40}\n"
    sim = make(container=container)
    delete(sim, 60)
    sim.advance(10)
    delete(sim, 5)
    sim.advance(30)
    hooks = [(t["t"], t["after"]) for t in transitions(sim, field="hook.preStop")]
    assert hooks == [
        (RUNNING_AT, "running"),
        (RUNNING_AT + 10, "interrupted"),
        (RUNNING_AT + 10, "running"),
        (RUNNING_AT + 15, "timedOut"),
    ]
    # 5 s - 5 s of preStop leaves 0, raised to the 2 s minimum after SIGTERM
    sigterms = [t["t"] for t in transitions(sim, step="sigterm", field="signal", container="app")]
    assert sigterms == [RUNNING_AT + 15]
    assert sigkill_times(sim) == [RUNNING_AT + 17]
    assert sim.pod() is None


def test_shorter_grace_while_the_node_is_down_applies_when_it_returns():
    sim = make()
    delete(sim, 60)
    sim.advance(5)
    sim.act({"action": "node-down"})
    delete(sim, 5)
    assert metadata(sim)["deletionGracePeriodSeconds"] == 5
    sim.advance(5)
    assert sigkill_times(sim) == []
    sim.act({"action": "node-up"})
    sim.advance(10)
    assert sigkill_times(sim) == [RUNNING_AT + 10 + 5]
