"""What the API server rejects that the JSON schema lets through."""

from __future__ import annotations

import pytest

from webapp.manifest import ScenarioError, parse_scenario
from webapp.manifest.rules import MAX_CONTAINERS


def pod(container_extra: str = "", spec_extra: str = "", containers: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n"
        + spec_extra
        + "  containers:\n  - name: app\n    image: nginx:1.27\n"
        + container_extra
        + containers
    )


def located(text: str) -> list[tuple[str, str, int, int]]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return [(e["code"], e["path"], e["line"], e["column"]) for e in caught.value.errors]


def first_error(text: str) -> dict:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return caught.value.errors[0]


RULE_VIOLATIONS = [
    pytest.param(
        pod(spec_extra="  restartPolicy: Sometimes\n"),
        ("enum", "spec.restartPolicy", 6, 18),
        id="pod-restartPolicy-Sometimes",
    ),
    pytest.param(
        pod(
            spec_extra="  initContainers:\n  - name: init\n    image: busybox\n"
            "    restartPolicy: OnFailure\n"
        ),
        ("init_restart_policy", "spec.initContainers[0].restartPolicy", 9, 20),
        id="init-container-restartPolicy-OnFailure",
    ),
    pytest.param(
        pod("    imagePullPolicy: Sometimes\n"),
        ("enum", "spec.containers[0].imagePullPolicy", 9, 22),
        id="imagePullPolicy-Sometimes",
    ),
    pytest.param(
        pod(containers="  - name: side\n    command: [sleep]\n"),
        ("image_required", "spec.containers[1].image", 9, 5),
        id="container-without-image",
    ),
    pytest.param(
        pod(
            "    image: ''\n".replace("    image: ''\n", ""),
            containers="  - name: b\n    image: ' '\n",
        ),
        ("image_required", "spec.containers[1].image", 10, 12),
        id="container-with-blank-image",
    ),
    pytest.param(
        pod("    livenessProbe:\n      exec: {command: [x]}\n      successThreshold: 3\n"),
        ("success_threshold", "spec.containers[0].livenessProbe.successThreshold", 11, 25),
        id="liveness-successThreshold-3",
    ),
    pytest.param(
        pod("    startupProbe:\n      exec: {command: [x]}\n      successThreshold: 2\n"),
        ("success_threshold", "spec.containers[0].startupProbe.successThreshold", 11, 25),
        id="startup-successThreshold-2",
    ),
    pytest.param(
        pod(
            "    readinessProbe:\n      exec: {command: [x]}\n"
            "      terminationGracePeriodSeconds: 5\n"
        ),
        (
            "readiness_termination_grace",
            "spec.containers[0].readinessProbe.terminationGracePeriodSeconds",
            11,
            38,
        ),
        id="readiness-terminationGracePeriodSeconds",
    ),
    pytest.param(
        pod("    livenessProbe:\n      exec: {command: [x]}\n      periodSeconds: 0\n"),
        ("minimum", "spec.containers[0].livenessProbe.periodSeconds", 11, 22),
        id="periodSeconds-0",
    ),
    pytest.param(
        pod("    readinessProbe:\n      exec: {command: [x]}\n      initialDelaySeconds: -5\n"),
        ("minimum", "spec.containers[0].readinessProbe.initialDelaySeconds", 11, 28),
        id="negative-initialDelaySeconds",
    ),
    pytest.param(
        pod("    livenessProbe:\n      exec: {command: [x]}\n      failureThreshold: -1\n"),
        ("minimum", "spec.containers[0].livenessProbe.failureThreshold", 11, 25),
        id="negative-failureThreshold",
    ),
    pytest.param(
        pod("    livenessProbe:\n      periodSeconds: 5\n"),
        ("handler_missing", "spec.containers[0].livenessProbe", 9, 5),
        id="probe-without-handler",
    ),
    pytest.param(
        pod("    livenessProbe:\n      exec: {command: [x]}\n      tcpSocket: {port: 80}\n"),
        ("handler_multiple", "spec.containers[0].livenessProbe", 9, 5),
        id="probe-with-two-handlers",
    ),
    pytest.param(
        pod("    lifecycle:\n      preStop: {}\n"),
        ("handler_missing", "spec.containers[0].lifecycle.preStop", 10, 7),
        id="hook-without-handler",
    ),
    pytest.param(
        pod(containers="  - name: app\n    image: busybox\n"),
        ("duplicate_container", "spec.containers[1].name", 9, 11),
        id="duplicate-app-container-names",
    ),
    pytest.param(
        pod(spec_extra="  initContainers:\n  - name: app\n    image: busybox\n"),
        ("duplicate_container", "spec.containers[0].name", 10, 11),
        id="init-and-app-container-share-a-name",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {a: b}\nspec:\n"
        "  containers:\n  - name: app\n    image: x\n",
        ("required", "metadata.name", 3, 1),
        id="pod-without-metadata-name",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: app\n    image: x\n",
        ("required", "metadata.name", 1, 1),
        id="pod-without-metadata",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n",
        ("required", "spec", 1, 1),
        id="pod-without-spec",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers: []\n",
        ("no_containers", "spec.containers", 6, 15),
        id="pod-with-no-containers",
    ),
]


@pytest.mark.parametrize(("text", "expected"), RULE_VIOLATIONS)
def test_rule_violation_is_located(text: str, expected: tuple) -> None:
    assert expected in located(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            pod(spec_extra="  restartPolicy: Sometimes\n"),
            '"Sometimes" is not allowed; use one of: Always, OnFailure, Never',
        ),
        (
            pod(
                "    readinessProbe:\n      exec: {command: [x]}\n"
                "      terminationGracePeriodSeconds: 5\n"
            ),
            "terminationGracePeriodSeconds must not be set for readinessProbes",
        ),
        (
            pod("    livenessProbe:\n      exec: {command: [x]}\n      successThreshold: 3\n"),
            "successThreshold must be 1 for a livenessProbe, not 3",
        ),
        (
            pod(containers="  - name: side\n"),
            'container "side" needs an image',
        ),
        (
            pod(containers="  - name: app\n    image: busybox\n"),
            'the container name "app" is used twice (first at spec.containers[0])',
        ),
    ],
)
def test_rule_message_wording(text: str, message: str) -> None:
    assert first_error(text)["message"] == message


@pytest.mark.parametrize(
    ("container_extra", "spec_extra"),
    [
        ("    readinessProbe:\n      exec: {command: [x]}\n      successThreshold: 3\n", ""),
        ("    livenessProbe:\n      exec: {command: [x]}\n      successThreshold: 1\n", ""),
        ("    imagePullPolicy: Never\n", "  restartPolicy: OnFailure\n"),
        (
            "",
            "  initContainers:\n  - name: sidecar\n    image: envoy\n    restartPolicy: Always\n",
        ),
        ("    lifecycle:\n      preStop:\n        sleep: {seconds: 3}\n", ""),
    ],
    ids=[
        "readiness-successThreshold-3",
        "liveness-successThreshold-1",
        "imagePullPolicy-Never",
        "sidecar-restartPolicy-Always",
        "preStop-sleep",
    ],
)
def test_allowed_values_pass(container_extra: str, spec_extra: str) -> None:
    parse_scenario(pod(container_extra, spec_extra))


def test_more_than_the_container_limit_is_refused() -> None:
    extra = "".join(f"  - name: c{i}\n    image: busybox\n" for i in range(MAX_CONTAINERS))
    errors = [e for e in located(pod(containers=extra)) if e[0] == "too_many_containers"]
    assert errors == [("too_many_containers", "spec.containers", 6, 3)]


def test_the_container_limit_itself_is_allowed() -> None:
    extra = "".join(f"  - name: c{i}\n    image: busybox\n" for i in range(MAX_CONTAINERS - 1))
    parse_scenario(pod(containers=extra))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param(
            pod().replace("spec:\n  containers:", "spec: 5\nx:\n  c:"),
            "wrong_type",
            id="spec-number",
        ),
        pytest.param(pod().replace("  name: web\n", "  5\n"), "wrong_type", id="metadata-scalar"),
        pytest.param(pod(containers="  - 5\n"), "wrong_type", id="container-number"),
        pytest.param(pod("    livenessProbe: 5\n"), "wrong_type", id="probe-number"),
        pytest.param(pod("    lifecycle: [preStop]\n"), "wrong_type", id="lifecycle-list"),
        pytest.param(pod("    lifecycle: {preStop: 5}\n"), "wrong_type", id="hook-number"),
        pytest.param(pod(spec_extra="  initContainers: {a: 1}\n"), "wrong_type", id="init-mapping"),
        pytest.param(pod(spec_extra="  restartPolicy: [Never]\n"), "wrong_type", id="policy-list"),
    ],
)
def test_values_of_the_wrong_shape_are_errors_not_crashes(text: str, code: str) -> None:
    assert code in {error[0] for error in located(text)}


def test_an_empty_container_item_is_located_not_a_crash() -> None:
    """`containers:` then a bare `-` (found by the fuzz suite: it crashed the API defaults)."""
    from webapp.engine import Simulation
    from webapp.manifest import ScenarioError, parse_scenario

    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  -\n"
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    found = {(e["path"], e["code"], e["line"]) for e in caught.value.errors}
    assert found == {
        ("spec.containers[0]", "required", 7),
        ("spec.containers[0]", "image_required", 7),
    }
    with pytest.raises(ScenarioError):
        Simulation.from_yaml(text)


def test_a_pod_spec_that_is_a_list_beside_a_script_is_located_not_a_crash() -> None:
    """Found by the fuzz suite over Socket.IO: the script's checks against the Pod read a
    `spec` that was a list (its own error is reported by the Pod's validation)."""
    from webapp.manifest import ScenarioError, parse_scenario

    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec: []\n---\n"
        "apiVersion: playground/v1\nkind: Simulation\nmetadata:\n  name: s\n"
        "script:\n- {at: 1, action: node-down, node: node-1}\n"
    )
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    assert ("spec", "wrong_type") in {(e["path"], e["code"]) for e in caught.value.errors}
