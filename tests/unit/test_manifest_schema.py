"""Kubernetes objects against the strict 1.37 schema, with learner wording and exact places."""

from __future__ import annotations

import pytest

from webapp.manifest import ScenarioError, parse_objects, parse_scenario
from webapp.manifest.schema import is_quantity, validator_for


def located(text: str) -> list[tuple[str, str, int, int]]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return [(e["code"], e["path"], e["line"], e["column"]) for e in caught.value.errors]


def messages(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return [e["message"] for e in caught.value.errors]


THREE_ERRORS = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labelz:
    app: web
spec:
  containers:
  - name: app
    image: nginx:1.27
    colour: blue
    ports:
    - containerPort: "80"
"""


def test_every_schema_error_is_reported_at_once_with_exact_places() -> None:
    assert located(THREE_ERRORS) == [
        ("unknown_field_suggest", "metadata.labelz", 5, 3),
        ("unknown_field", "spec.containers[0].colour", 11, 5),
        ("wrong_type", "spec.containers[0].ports[0].containerPort", 13, 22),
    ]


def test_schema_messages_read_as_a_learner_would_want() -> None:
    assert messages(THREE_ERRORS) == [
        'unknown field "labelz" (did you mean "labels"?)',
        'unknown field "colour"',
        "expected an integer, got string",
    ]


def pod(container_extra: str = "", spec_extra: str = "", metadata_extra: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n"
        + metadata_extra
        + "spec:\n"
        + spec_extra
        + "  containers:\n  - name: app\n    image: nginx:1.27\n"
        + container_extra
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            pod("    imagee: x\n"),
            ("unknown_field_suggest", "spec.containers[0].imagee", 9, 5),
            id="misspelt-container-field",
        ),
        pytest.param(
            pod("    imagePolicy: Always\n"),
            ("unknown_field_suggest", "spec.containers[0].imagePolicy", 9, 5),
            id="suggests-imagePullPolicy",
        ),
        pytest.param(
            pod(spec_extra="  restartPolicyy: Never\n"),
            ("unknown_field_suggest", "spec.restartPolicyy", 6, 3),
            id="misspelt-spec-field",
        ),
        pytest.param(
            pod("    resources:\n      limits:\n        cpu: 1 core\n"),
            ("quantity", "spec.containers[0].resources.limits.cpu", 11, 14),
            id="quantity-with-words",
        ),
        pytest.param(
            pod("    resources:\n      requests:\n        memory: 128MB\n"),
            ("quantity", "spec.containers[0].resources.requests.memory", 11, 17),
            id="quantity-wrong-suffix",
        ),
        pytest.param(
            pod("    resources:\n      requests:\n        memory: [1]\n"),
            ("quantity", "spec.containers[0].resources.requests.memory", 11, 17),
            id="quantity-as-list",
        ),
        pytest.param(
            pod("    resources:\n      limits:\n        cpu: ~\n"),
            ("quantity", "spec.containers[0].resources.limits.cpu", 11, 14),
            id="quantity-null",
        ),
        pytest.param(
            pod("    livenessProbe:\n      httpGet:\n        port: [80]\n"),
            ("int_or_string", "spec.containers[0].livenessProbe.httpGet.port", 11, 15),
            id="port-as-list",
        ),
        pytest.param(
            pod("    args: hello\n"),
            ("wrong_type", "spec.containers[0].args", 9, 11),
            id="args-not-a-list",
        ),
        pytest.param(
            pod(metadata_extra="  labels:\n    tier: {a: 1}\n"),
            ("wrong_type", "metadata.labels.tier", 6, 11),
            id="label-value-mapping",
        ),
        pytest.param(
            pod("  - image: busybox\n"),
            ("required", "spec.containers[1].name", 9, 5),
            id="container-without-name",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  restartPolicy: Never\n",
            ("required", "spec.containers", 5, 1),
            id="spec-without-containers",
        ),
    ],
)
def test_schema_error_is_translated_and_located(text: str, expected: tuple) -> None:
    assert expected in located(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            pod("    resources:\n      limits:\n        cpu: 1 core\n"),
            '"1 core" must be a quantity such as 100m or 128Mi',
        ),
        (pod("    args: hello\n"), "expected a list, got string"),
        (pod("    tty: 3\n"), "expected a boolean (true or false), got integer"),
        (pod("  - image: busybox\n"), 'required field "name" is missing'),
    ],
)
def test_schema_message_wording(text: str, message: str) -> None:
    assert message in messages(text)


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("100m", True),
        ("128Mi", True),
        ("1.5Gi", True),
        ("1", True),
        ("0.5", True),
        ("1e3", True),
        (".5", True),
        (2, True),
        (0.25, True),
        ("128MB", False),
        ("128mi", False),
        ("one", False),
        ("", False),
        ("1 Gi", False),
        (True, False),
    ],
)
def test_quantity_grammar(value: object, valid: bool) -> None:
    assert is_quantity(value) is valid


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labelz: {}\n",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: x\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndatas: {}\n",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData: {a: [1]}\n",
    ],
    ids=["node", "service", "configmap", "secret"],
)
def test_every_supported_kind_is_checked_strictly(text: str) -> None:
    with pytest.raises(ScenarioError):
        parse_objects(text)


def test_validators_are_built_once_per_kind() -> None:
    assert validator_for("Pod") is validator_for("Pod")
    assert validator_for("Pod") is not validator_for("Node")


def test_a_valid_pod_with_probes_resources_and_hooks_passes() -> None:
    text = pod(
        "    resources:\n      requests: {cpu: 100m, memory: 128Mi}\n"
        "      limits: {cpu: 1, memory: 1Gi}\n"
        "    livenessProbe:\n      httpGet: {path: /, port: http}\n      periodSeconds: 5\n"
        "    readinessProbe:\n      tcpSocket: {port: 80}\n      successThreshold: 2\n"
        "    lifecycle:\n      preStop:\n        sleep: {seconds: 5}\n",
        spec_extra="  terminationGracePeriodSeconds: 10\n",
    )
    scenario = parse_scenario(text)
    assert scenario.pod["spec"]["containers"][0]["resources"]["limits"]["cpu"] == 1
