"""The playground/v1 Simulation document: its checks and its normalised form."""

from __future__ import annotations

import pytest

from webapp.manifest import ScenarioError, parse_scenario

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  initContainers:
  - name: init
    image: busybox
  - name: sidecar
    image: envoy
    restartPolicy: Always
  containers:
  - {name: app, readinessProbe: {httpGet: {path: /, port: 80}},
    image: nginx:1.27}
---
"""
# The Simulation document starts on line 16.
HEADER = "apiVersion: playground/v1\nkind: Simulation\nmetadata:\n  name: demo\n"


def scenario(body: str) -> str:
    return POD + HEADER + body


def located(text: str) -> list[tuple[str, str, int, int]]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return [(e["code"], e["path"], e["line"], e["column"]) for e in caught.value.errors]


def error_of(text: str, code: str) -> dict:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return next(e for e in caught.value.errors if e["code"] == code)


SIMULATION_ERRORS = [
    pytest.param(
        "scripts: []\n",
        ("unknown_field_suggest", "scripts", 20, 1),
        id="misspelt-top-level-field",
    ),
    pytest.param(
        "containers:\n  app:\n    startSecond: 3\n",
        ("unknown_field_suggest", "containers.app.startSecond", 22, 5),
        id="misspelt-container-field",
    ),
    pytest.param(
        "containers:\n  app:\n    hooks:\n      preStop: {seconds: 1, fail: true}\n",
        ("unknown_field_suggest", "containers.app.hooks.preStop.fail", 23, 29),
        id="misspelt-hook-field",
    ),
    pytest.param(
        "containers:\n  app:\n    colour: red\n",
        ("unknown_field", "containers.app.colour", 22, 5),
        id="unknown-field-without-suggestion",
    ),
    pytest.param(
        "images:\n  nginx:1.27: {pullSecond: 3}\n",
        ("unknown_field_suggest", 'images["nginx:1.27"].pullSecond', 21, 16),
        id="misspelt-image-field",
    ),
    pytest.param(
        "containers:\n  app:\n    startSeconds: '3'\n",
        ("wrong_type", "containers.app.startSeconds", 22, 19),
        id="startSeconds-as-string",
    ),
    pytest.param(
        "containers:\n  app:\n    memoryMiB: 1.5\n",
        ("wrong_type", "containers.app.memoryMiB", 22, 16),
        id="memoryMiB-not-integer",
    ),
    pytest.param(
        "containers:\n  app:\n    ignoreSigterm: 'yes'\n",
        ("wrong_type", "containers.app.ignoreSigterm", 22, 20),
        id="ignoreSigterm-as-string",
    ),
    pytest.param(
        "containers:\n  app:\n    sigtermSeconds: -1\n",
        ("minimum", "containers.app.sigtermSeconds", 22, 21),
        id="negative-sigtermSeconds",
    ),
    pytest.param(
        "containers:\n  app:\n    probes: {liveness: broken}\n",
        ("enum", "containers.app.probes.liveness", 22, 24),
        id="probe-health-not-healthy-or-failing",
    ),
    pytest.param(
        "containers:\n  app:\n    probes: {livenes: failing}\n",
        ("unknown_field_suggest", "containers.app.probes.livenes", 22, 14),
        id="misspelt-probe-name",
    ),
    pytest.param(
        "containers:\n  ap: {}\n",
        ("unknown_container", "containers.ap", 21, 3),
        id="entry-for-missing-container",
    ),
    pytest.param(
        "script:\n- {at: 5, action: crash, container: db}\n",
        ("unknown_container", "script[0].container", 21, 37),
        id="script-names-missing-container",
    ),
    pytest.param(
        "script:\n- {at: 5, action: explode}\n",
        ("enum", "script[0].action", 21, 19),
        id="unknown-action",
    ),
    pytest.param(
        "script:\n- {at: 5, action: {crash: app}}\n",
        ("wrong_type", "script[0].action", 21, 19),
        id="action-not-a-string",
    ),
    pytest.param(
        "script:\n- {action: oom, container: app}\n",
        ("required", "script[0].at", 21, 3),
        id="step-without-at",
    ),
    pytest.param(
        "script:\n- {at: 1, action: delete, grace: 3}\n",
        ("unknown_field_suggest", "script[0].grace", 21, 27),
        id="delete-with-misspelt-parameter",
    ),
    pytest.param(
        "script:\n- {at: 1, action: delete, gracePeriodSeconds: -1}\n",
        ("minimum", "script[0].gracePeriodSeconds", 21, 47),
        id="delete-negative-grace",
    ),
    pytest.param(
        "script:\n- {at: 1, action: delete, force: 'yes'}\n",
        ("wrong_type", "script[0].force", 21, 34),
        id="delete-force-not-boolean",
    ),
    pytest.param(
        "script:\n- {at: 1, action: set-probe, container: app, probe: liveness}\n",
        ("required", "script[0].healthy", 21, 3),
        id="set-probe-without-healthy",
    ),
    pytest.param(
        "script:\n- {at: 1, action: set-probe, container: app, probe: alive, healthy: true}\n",
        ("enum", "script[0].probe", 21, 53),
        id="set-probe-unknown-probe",
    ),
    pytest.param(
        "script:\n- {at: 1, action: crash, container: app, exitCode: one}\n",
        ("wrong_type", "script[0].exitCode", 21, 52),
        id="crash-exitCode-not-integer",
    ),
    pytest.param(
        "script:\n- {at: 1, action: oom, node: node-1}\n",
        ("unknown_field", "script[0].node", 21, 24),
        id="oom-with-node",
    ),
    pytest.param(
        "script:\n- {at: 1, action: node-down}\n",
        ("required", "script[0].node", 21, 3),
        id="node-down-without-node",
    ),
    pytest.param(
        "script:\n- {at: 1, action: apply}\n",
        ("required", "script[0].yaml", 21, 3),
        id="apply-without-yaml",
    ),
    pytest.param(
        "script:\n- at: 1\n  action: apply\n  yaml: |\n    kind: ConfigMap\n",
        ("apply_yaml_invalid", "script[0].yaml", 23, 9),
        id="apply-with-invalid-yaml",
    ),
    pytest.param(
        "script: {at: 1}\n",
        ("wrong_type", "script", 20, 9),
        id="script-not-a-list",
    ),
    pytest.param(
        "lesson:\n- {at: 1, when: Running, text: hi}\n",
        ("lesson_timing", "lesson[0]", 21, 3),
        id="lesson-step-with-at-and-when",
    ),
    pytest.param(
        "lesson:\n- {text: hi}\n",
        ("lesson_timing", "lesson[0]", 21, 3),
        id="lesson-step-with-neither",
    ),
    pytest.param(
        "lesson:\n- {when: Running}\n",
        ("required", "lesson[0].text", 21, 3),
        id="lesson-step-without-text",
    ),
    pytest.param(
        "lesson:\n- {when: Running, text: {fr: salut}}\n",
        ("unknown_field", "lesson[0].text.fr", 21, 26),
        id="lesson-text-unknown-language",
    ),
    pytest.param(
        "title: {}\n",
        ("text_language", "title", 20, 8),
        id="title-empty-mapping",
    ),
    pytest.param(
        "title: 42\n",
        ("wrong_type", "title", 20, 8),
        id="title-number",
    ),
]


@pytest.mark.parametrize(("body", "expected"), SIMULATION_ERRORS)
def test_simulation_error_is_located(body: str, expected: tuple) -> None:
    assert expected in located(scenario(body))


def test_simulation_without_metadata_name_is_an_error() -> None:
    text = POD + "apiVersion: playground/v1\nkind: Simulation\nmetadata: {}\n"
    assert ("required", "metadata.name", 18, 1) in located(text)


def test_second_simulation_document_is_an_error() -> None:
    text = scenario("---\n" + HEADER)
    assert ("extra_simulation", "kind", 22, 7) in located(text)


def test_unknown_container_message_lists_the_pod_containers() -> None:
    error = error_of(scenario("containers:\n  ap: {}\n"), "unknown_container")
    assert error["message"] == (
        'the Pod has no container named "ap"; its containers are: init, sidecar, app'
    )


def test_did_you_mean_suggests_the_nearest_field() -> None:
    error = error_of(scenario("scripts: []\n"), "unknown_field_suggest")
    assert error["message"] == 'unknown field "scripts" (did you mean "script"?)'


def test_invalid_apply_yaml_reports_its_first_error() -> None:
    body = "script:\n- at: 1\n  action: apply\n  yaml: |\n    kind: ConfigMap\n"
    error = error_of(scenario(body), "apply_yaml_invalid")
    assert error["params"]["count"] == 2
    assert error["message"].startswith("the yaml to apply has 2 error(s)")
    assert 'required field "apiVersion" is missing' in error["message"]


FULL = """\
title: Probes at work
description:
  zh: 只有中文
containers:
  init: {exitAfterSeconds: 2}
  app:
    startSeconds: 5
    sigtermSeconds: 3.5
    sigtermExitCode: 0
    memoryMiB: 64
    probes: {readiness: failing}
    hooks:
      preStop: {seconds: 2}
      postStart: {seconds: 1, fails: true}
images:
  nginx:1.27: {pullSeconds: 12, exists: false}
script:
- {at: 30, action: delete, gracePeriodSeconds: 10}
- {at: 10, action: set-probe, container: app, probe: readiness, healthy: true}
- {at: 10, action: crash, container: app, exitCode: 2}
- at: 40
  action: apply
  yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings}
lesson:
- {when: Running, text: {en: It runs, zh: 运行了}}
- {at: 12, text: Look at READY}
"""


def test_normalised_simulation_fills_every_default() -> None:
    simulation = parse_scenario(scenario(FULL)).simulation
    assert simulation["name"] == "demo"
    assert simulation["title"] == {"en": "Probes at work", "zh": "Probes at work"}
    assert simulation["description"] == {"en": "只有中文", "zh": "只有中文"}
    assert list(simulation["containers"]) == ["init", "sidecar", "app"]
    assert simulation["containers"]["init"] == {
        "startSeconds": 0.0,
        "exitAfterSeconds": 2.0,
        "exitCode": 0,
        "sigtermSeconds": 0.0,
        "sigtermExitCode": 143,
        "ignoreSigterm": False,
        "memoryMiB": None,
        "probes": {"liveness": "healthy", "readiness": "healthy", "startup": "healthy"},
        "hooks": {"postStart": None, "preStop": None},
        "explicit": ["exitAfterSeconds"],  # only these override the derived behaviour
    }
    assert simulation["containers"]["sidecar"]["explicit"] == []
    app = simulation["containers"]["app"]
    assert app["explicit"] == [
        "hooks.postStart", "hooks.preStop", "memoryMiB", "probes.readiness", "sigtermExitCode",
        "sigtermSeconds", "startSeconds",
    ]  # fmt: skip
    assert (app["startSeconds"], app["sigtermSeconds"], app["memoryMiB"]) == (5.0, 3.5, 64)
    assert app["sigtermExitCode"] == 0
    assert app["probes"]["readiness"] == "failing"
    assert app["hooks"] == {
        "postStart": {"seconds": 1.0, "fails": True},
        "preStop": {"seconds": 2.0, "fails": False},
    }
    assert simulation["images"]["nginx:1.27"]["exists"] is False
    assert simulation["images"]["nginx:1.27"]["pullSeconds"] == 12.0


def test_script_is_sorted_by_time_keeping_the_written_order_of_ties() -> None:
    script = parse_scenario(scenario(FULL)).simulation["script"]
    assert [(step["at"], step["action"]) for step in script] == [
        (10.0, "set-probe"),
        (10.0, "crash"),
        (30.0, "delete"),
        (40.0, "apply"),
    ]
    assert all(isinstance(step["at"], float) for step in script)


def test_lesson_steps_have_at_when_and_text_in_both_languages() -> None:
    lesson = parse_scenario(scenario(FULL)).simulation["lesson"]
    assert lesson == [
        {"at": None, "when": "Running", "text": {"en": "It runs", "zh": "运行了"}},
        {"at": 12.0, "when": None, "text": {"en": "Look at READY", "zh": "Look at READY"}},
    ]


def test_without_a_simulation_document_every_container_gets_defaults() -> None:
    simulation = parse_scenario(POD.removesuffix("---\n")).simulation
    assert simulation["name"] == "web"
    assert list(simulation["containers"]) == ["init", "sidecar", "app"]
    assert {c["sigtermSeconds"] for c in simulation["containers"].values()} == {0.0}
    assert (simulation["images"], simulation["script"], simulation["lesson"]) == ({}, [], [])
