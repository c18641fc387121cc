"""parse_scenario and parse_objects: which documents a scenario holds, and what comes back."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from webapp.manifest import Scenario, ScenarioError, parse_objects, parse_scenario

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n"
NODE = "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-a\n"
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n"
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {a: b}\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData: {a: b}\n"
SIMULATION = "apiVersion: playground/v1\nkind: Simulation\nmetadata:\n  name: demo\n"
SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def join(*documents: str) -> str:
    return "---\n".join(documents)


def located(text: str, parse: object = parse_scenario) -> list[tuple[str, int, str, int, int]]:
    with pytest.raises(ScenarioError) as caught:
        parse(text)  # type: ignore[operator]
    return [(e["code"], e["doc"], e["path"], e["line"], e["column"]) for e in caught.value.errors]


def test_scenario_holds_every_kind_of_object_as_written() -> None:
    text = join(SIMULATION, NODE, POD, SERVICE, CONFIG_MAP, SECRET)
    scenario = parse_scenario(text)
    assert scenario.text == text
    assert scenario.pod["metadata"]["name"] == "web"
    assert "restartPolicy" not in scenario.pod["spec"]  # no defaults applied
    assert [n["metadata"]["name"] for n in scenario.nodes] == ["node-a"]
    assert [s["metadata"]["name"] for s in scenario.services] == ["web"]
    assert [c["metadata"]["name"] for c in scenario.config_maps] == ["settings"]
    assert [s["metadata"]["name"] for s in scenario.secrets] == ["token"]
    assert scenario.simulation["name"] == "demo"


def test_scenario_is_frozen() -> None:
    scenario = parse_scenario(POD)
    assert isinstance(scenario, Scenario)
    with pytest.raises(dataclasses.FrozenInstanceError):
        scenario.pod = {}  # type: ignore[misc]


def test_without_nodes_the_scenario_has_none_listed() -> None:
    assert parse_scenario(POD).nodes == ()


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.name)
def test_built_in_scenarios_parse(path: Path) -> None:
    parse_scenario(path.read_text(encoding="utf-8"))


DOCUMENT_ERRORS = [
    pytest.param(
        join(POD, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: d\n"),
        ("unknown_kind", 1, "kind", 11, 7),
        id="unknown-kind",
    ),
    pytest.param(
        POD.replace("apiVersion: v1", "apiVersion: apps/v1"),
        ("wrong_api_version", 0, "apiVersion", 1, 13),
        id="pod-with-wrong-apiVersion",
    ),
    pytest.param(
        join(POD, SIMULATION.replace("playground/v1", "v1")),
        ("wrong_api_version", 1, "apiVersion", 10, 13),
        id="simulation-with-v1",
    ),
    pytest.param(
        POD.replace("kind: Pod\n", ""),
        ("required", 0, "kind", 1, 1),
        id="missing-kind",
    ),
    pytest.param(
        POD.replace("apiVersion: v1\n", ""),
        ("required", 0, "apiVersion", 1, 1),
        id="missing-apiVersion",
    ),
    pytest.param(
        POD.replace("kind: Pod", "kind: [Pod]"),
        ("wrong_type", 0, "kind", 2, 7),
        id="kind-not-a-string",
    ),
    pytest.param(join(SIMULATION, NODE), ("no_pod", 0, "", 1, 1), id="no-pod"),
    pytest.param(join(POD, POD), ("extra_pod", 1, "kind", 11, 7), id="two-pods"),
    pytest.param(
        join(POD, CONFIG_MAP, CONFIG_MAP),
        ("duplicate_object", 2, "metadata.name", 19, 9),
        id="same-configmap-twice",
    ),
]


@pytest.mark.parametrize(("text", "expected"), DOCUMENT_ERRORS)
def test_document_level_error_is_located(text: str, expected: tuple) -> None:
    assert expected in located(text)


def test_second_pod_message_says_where_the_first_one_is() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(join(CONFIG_MAP, POD, POD))
    (error,) = caught.value.errors
    assert (error["doc"], error["line"]) == (2, 17)
    assert error["message"] == "the scenario needs exactly one Pod; the first one starts on line 7"


def test_unknown_kind_message_lists_the_kinds_a_scenario_may_hold() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(join(POD, "apiVersion: example.com/v1\nkind: Widget\n"))
    assert caught.value.errors[0]["message"] == (
        'unknown kind "Widget" with apiVersion "example.com/v1"; use one of: '
        "Pod, Node, Service, ConfigMap, Secret, Deployment, ReplicaSet, Job, StatefulSet, DaemonSet, PodDisruptionBudget, Simulation"
    )


def test_a_real_kind_not_run_yet_is_refused_where_it_is_written() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(join(POD, "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: j\n"))
    error = caught.value.errors[0]
    assert (error["code"], error["doc"], error["path"], error["line"]) == (
        "kind_not_run_yet",
        1,
        "kind",
        11,
    )
    assert "Deployment, ReplicaSet, Job, StatefulSet" in error["message"]


def test_errors_in_several_documents_come_back_together_in_order() -> None:
    text = join(
        POD.replace("  name: web\n", "  name: web\n  labelz: {}\n"),
        CONFIG_MAP.replace("data: {", "datas: {"),
        SIMULATION + "scripts: []\n",
    )
    errors = located(text)
    assert [(code, doc, line) for code, doc, _, line, _ in errors] == [
        ("unknown_field_suggest", 0, 5),
        ("unknown_field_suggest", 1, 15),
        ("unknown_field_suggest", 2, 21),
    ]


def test_scenario_error_summarises_the_first_error() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario("a: [1\n")
    assert "line 2" in str(caught.value)
    assert caught.value.errors[0]["code"] == "yaml_syntax"


def test_parse_objects_returns_the_documents_in_order() -> None:
    assert [o["kind"] for o in parse_objects(join(CONFIG_MAP, SECRET, POD))] == [
        "ConfigMap",
        "Secret",
        "Pod",
    ]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param(join(POD, SIMULATION), "simulation_not_allowed", id="simulation"),
        pytest.param("", "empty", id="empty"),
        pytest.param(join(*[CONFIG_MAP] * 21), "too_many_documents", id="21-documents"),
        pytest.param(CONFIG_MAP.replace("data: {", "dta: {"), "unknown_field_suggest", id="schema"),
        pytest.param(
            POD.replace("image: nginx:1.27", "image: x\n    imagePullPolicy: Sometimes"),
            "enum",
            id="pod-rules",
        ),
    ],
)
def test_parse_objects_refuses(text: str, code: str) -> None:
    assert code in {error[0] for error in located(text, parse_objects)}


def test_parse_objects_accepts_twenty_documents() -> None:
    documents = [CONFIG_MAP.replace("settings", f"c{i}") for i in range(20)]
    assert len(parse_objects(join(*documents))) == 20


def test_parse_objects_needs_no_pod() -> None:
    assert parse_objects(NODE)[0]["kind"] == "Node"


def test_a_manifest_without_simulation_is_described_by_its_leading_comment() -> None:
    from webapp.manifest.scenario import comment_description

    text = (
        "# Waits for a Service.\n# Add it in the editor:\n#   kind: Service\n# zh: 等待一个 Service。\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: a, image: nginx}]\n"
    )
    assert comment_description(text) == {
        "en": "Waits for a Service. Add it in the editor:",
        "zh": "等待一个 Service。",
    }
    assert parse_scenario(text).simulation["description"]["zh"] == "等待一个 Service。"
    assert comment_description("apiVersion: v1\n") == {"en": "", "zh": ""}
