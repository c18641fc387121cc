"""KUBERNETES-SEMANTICS §2, §3.4, §7.3, §8: deletion, stop order, the terminal status.

A Pod deleted at t=20 with the default grace of 30 s, then followed to the end.
"""

from __future__ import annotations

import pytest

from tests.unit.engine_support import (
    APP,
    condition,
    events,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    transitions,
)

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n  busybox:1.36: {pullSeconds: 1}\n"
SIDECAR = """\
- name: side
  image: busybox:1.36
  command: [sleep, infinity]
  restartPolicy: Always
"""


def deleted(app: str, *, init: str = "", side: str = "{}", extra: str = "", until: float = 60):
    """The Pod with the given app behaviour, deleted at 20; the last version before removal."""
    sim = simulate(
        scenario(
            pod_yaml(APP, init=init, spec_extra=extra),
            simulation_doc(f"containers:\n  app: {app}\n  side: {side}\n" + IMAGES)
            if init
            else simulation_doc(f"containers:\n  app: {app}\n" + IMAGES),
        ),
        20,
    )
    sim.act({"action": "delete"})
    sim.advance(until)
    return sim


def last_status(sim) -> dict:
    kind, pod = sim.pod_versions[-1][1], sim.pod_versions[-1][2]
    assert kind == "DELETED"
    return pod


def exits(sim, name="app"):
    return [
        (t["t"], t["after"]["exitCode"])
        for t in transitions(sim, container=name, field="state")
        if t["after"]["state"] == "terminated"
    ]


@pytest.mark.parametrize(
    ("app", "exit_at", "code", "phase", "reason"),
    [
        ("{sigtermSeconds: 3}", 23.0, 143, "Failed", "PodFailed"),  # obeys SIGTERM
        ("{sigtermSeconds: 3, sigtermExitCode: 0}", 23.0, 0, "Succeeded", "PodCompleted"),
        ("{ignoreSigterm: true}", 50.0, 137, "Failed", "PodFailed"),  # SIGKILL at grace
    ],
)
def test_deleted_pod_ends_with_a_terminal_phase_from_its_exit_codes(
    app, exit_at, code, phase, reason
):
    sim = deleted(app)
    assert exits(sim) == [(exit_at, code)]
    pod = last_status(sim)
    assert pod["status"]["phase"] == phase
    conditions = {c["type"]: c for c in pod["status"]["conditions"]}
    assert (conditions["ContainersReady"]["status"], conditions["ContainersReady"]["reason"]) == (
        "False",
        reason,
    )
    assert conditions["Ready"]["reason"] == reason  # Ready copies ContainersReady
    assert sim.pod() is None


def test_deletion_sets_timestamp_and_grace_and_stops_with_killing_events():
    sim = simulate(
        scenario(
            pod_yaml(APP), simulation_doc("containers:\n  app: {sigtermSeconds: 3}\n" + IMAGES)
        ),
        20,
    )
    sim.act({"action": "delete"})
    meta = sim.pod()["metadata"]
    assert meta["deletionTimestamp"] == "2026-01-01T00:00:50Z"
    assert meta["deletionGracePeriodSeconds"] == 30
    sim.advance(1)
    killing = events(sim, "Killing")
    assert [(e["type"], e["message"]) for e in killing] == [("Normal", "Stopping container app")]


def test_sidecar_gets_sigterm_only_after_the_app_exited_and_shares_the_grace():
    sim = deleted("{sigtermSeconds: 5}", init=SIDECAR, side="{sigtermSeconds: 1}")
    sigterms = [(t["t"], t["container"], t["cause"]) for t in transitions(sim, field="signal")]
    assert sigterms == [
        (20.0, "app", "SIGQUIT sent; SIGKILL in 30s if still running"),  # nginx's STOPSIGNAL
        (25.0, "side", "SIGTERM sent; SIGKILL in 25s if still running"),
    ]
    # both Killing events come first (killContainer records it before waiting its turn)
    assert [e["message"] for e in events(sim, "Killing")] == [
        "Stopping container app",
        "Stopping container side",
    ]
    assert last_status(sim)["status"]["phase"] == "Failed"


def test_endpoint_stays_serving_and_terminating_until_the_pod_stops():
    service = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
"""
    sim = simulate(
        scenario(
            pod_yaml(APP),
            service,
            simulation_doc("containers:\n  app: {sigtermSeconds: 5}\n" + IMAGES),
        ),
        20,
    )
    (slice_,) = sim.endpoint_slices()
    assert slice_["endpoints"][0]["conditions"] == {
        "ready": True,
        "serving": True,
        "terminating": False,
    }
    sim.act({"action": "delete"})
    sim.advance(1)
    (slice_,) = sim.endpoint_slices()
    assert slice_["endpoints"][0]["conditions"] == {
        "ready": False,
        "serving": True,
        "terminating": True,
    }
    sim.advance(10)
    (slice_,) = sim.endpoint_slices()
    assert slice_["endpoints"] is None  # the pod is terminal, then gone


def test_pod_ready_to_start_containers_follows_the_sandbox():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 0.5)
    assert condition(sim, "PodReadyToStartContainers")["status"] == "False"
    assert "reason" not in condition(sim, "PodReadyToStartContainers")
    sim.advance(1)
    assert condition(sim, "PodReadyToStartContainers")["status"] == "True"


def test_conditions_while_the_app_is_not_ready():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 0.5)
    for type_ in ("ContainersReady", "Ready"):
        got = condition(sim, type_)
        assert (got["status"], got["reason"], got["message"]) == (
            "False",
            "ContainersNotReady",
            "containers with unready status: [app]",
        )
    assert condition(sim, "Initialized")["status"] == "True"  # no init containers
    assert "reason" not in condition(sim, "Initialized")


def test_initialized_names_the_incomplete_init_container_then_completes():
    init = "- name: setup\n  image: busybox:1.36\n"
    sim = simulate(
        scenario(
            pod_yaml(APP, init=init, spec_extra="restartPolicy: Never"),
            simulation_doc(
                "containers:\n  setup: {exitAfterSeconds: 2}\n  app: {exitAfterSeconds: 3}\n"
                + IMAGES
            ),
        ),
        0.5,
    )
    got = condition(sim, "Initialized")
    assert (got["status"], got["reason"], got["message"]) == (
        "False",
        "ContainersNotInitialized",
        "containers with incomplete status: [setup]",
    )
    sim.advance(30)
    assert sim.pod()["status"]["phase"] == "Succeeded"
    got = condition(sim, "Initialized")
    assert (got["status"], got["reason"]) == ("True", "PodCompleted")
    assert condition(sim, "ContainersReady")["reason"] == "PodCompleted"
