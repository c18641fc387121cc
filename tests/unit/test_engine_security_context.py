"""verifyRunAsNonRoot: a root runAsUser under runAsNonRoot never starts (CreateContainerConfigError)."""

from __future__ import annotations

import pytest

from tests.unit.engine_support import (
    container_status,
    events,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    state_of,
    transitions,
)
from webapp.engine.kubelet.security_context import (
    effective_security_context,
    verify_run_as_non_root,
)

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n"


def container(security_context: str = "") -> str:
    text = "- name: app\n  image: nginx:1.27\n"
    if security_context:
        text += f"  securityContext: {security_context}\n"
    return text


def run(pod_sc: str, container_sc: str, seconds: float = 30, extra: str = ""):
    spec = f"securityContext: {pod_sc}\n" if pod_sc else ""
    docs = [pod_yaml(container(container_sc), spec_extra=spec), simulation_doc(IMAGES)]
    if extra:
        docs.append(extra)
    return simulate(scenario(*docs), seconds)


@pytest.mark.parametrize(
    ("pod_sc", "container_sc", "refused"),
    [
        ("{runAsNonRoot: true}", "{runAsUser: 0}", True),  # the scenario's case
        ("{runAsNonRoot: true, runAsUser: 0}", "", True),  # both from the Pod
        ("{runAsUser: 0}", "{runAsNonRoot: true}", True),  # both inherited across levels
        ("", "{runAsNonRoot: true, runAsUser: 0}", True),  # both on the container
        ("{runAsNonRoot: true, runAsUser: 0}", "{runAsUser: 101}", False),  # container wins
        ("{runAsNonRoot: true}", "{runAsNonRoot: false, runAsUser: 0}", False),
        ("{runAsNonRoot: false}", "{runAsUser: 0}", False),
        ("", "{runAsUser: 0}", False),  # root allowed when runAsNonRoot is unset
        ("{runAsNonRoot: true}", "", False),  # unset runAsUser: image user not modelled
        ("{runAsNonRoot: true}", "{runAsUser: 101}", False),
    ],
)
def test_effective_run_as_non_root_and_user_decide(pod_sc, container_sc, refused):
    sim = run(pod_sc, container_sc)
    if refused:
        assert state_of(sim) == ("waiting", "CreateContainerConfigError")
        assert sim.pod()["status"]["phase"] == "Pending"
        assert not events(sim, "Started")
    else:
        assert state_of(sim) == ("running", None)
        assert not events(sim, "Failed")


def test_message_event_and_reason_are_the_kubelets():
    sim = run("{runAsNonRoot: true}", "{runAsUser: 0}")
    want = (
        "container's runAsUser breaks non-root policy "
        f'(pod: "web_default({sim.uid})", container: app)'
    )
    assert container_status(sim)["state"]["waiting"] == {
        "reason": "CreateContainerConfigError",
        "message": want,
    }
    failed = events(sim, "Failed")
    assert failed[0]["message"] == f"Error: {want}"
    assert failed[0]["type"] == "Warning"
    assert failed[0]["involvedObject"]["fieldPath"] == "spec.containers{app}"
    assert not events(sim, "Created")
    step = transitions(sim, field="securityContext", container="app")
    assert step and step[0]["step"] == "kubelet" and step[0]["after"] == "error"


def test_it_is_retried_on_every_sync_and_never_starts():
    sim = run("{runAsNonRoot: true}", "{runAsUser: 0}", seconds=45)
    times = sorted({t["t"] for t in transitions(sim, field="securityContext")})
    assert times == [3.0, 13.0, 23.0, 33.0, 43.0]  # after the pull, then every backOffPeriod
    assert events(sim, "Failed")[0]["count"] >= 4
    assert container_status(sim)["restartCount"] == 0


def test_a_missing_config_map_is_reported_before_the_non_root_check():
    text = "- name: app\n  image: nginx:1.27\n  securityContext: {runAsUser: 0}\n"
    text += "  env:\n  - name: A\n    valueFrom: {configMapKeyRef: {name: cfg, key: a}}\n"
    spec = "securityContext: {runAsNonRoot: true}\n"
    sim = simulate(scenario(pod_yaml(text, spec_extra=spec), simulation_doc(IMAGES)), 10)
    assert container_status(sim)["state"]["waiting"]["message"] == 'configmap "cfg" not found'


def test_init_containers_are_checked_too():
    init = "- name: setup\n  image: nginx:1.27\n  securityContext: {runAsUser: 0}\n"
    spec = "securityContext: {runAsNonRoot: true}\n"
    sim = simulate(
        scenario(pod_yaml(container(), spec_extra=spec, init=init), simulation_doc(IMAGES)), 20
    )
    assert state_of(sim, "setup") == ("waiting", "CreateContainerConfigError")
    assert state_of(sim, "app") == ("waiting", "PodInitializing")


def test_effective_security_context_prefers_the_container():
    pod_spec = {"securityContext": {"runAsNonRoot": True, "runAsUser": 5}}
    assert effective_security_context(pod_spec, {"securityContext": {"runAsUser": 7}}) == {
        "runAsNonRoot": True,
        "runAsUser": 7,
    }
    assert verify_run_as_non_root({}, {"name": "x"}, "p_ns(u)") is None
