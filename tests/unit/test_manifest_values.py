"""Every value is checked once, at the door (issue 12): numbers are finite, short enough to
convert, within the Go integer type of their Kubernetes field and within the run's horizon;
strings are valid Unicode. Each refusal is a located error in English and Chinese."""

from __future__ import annotations

import pytest
import yaml

from tests.samples import POD
from webapp.manifest import ScenarioError, localize_errors, parse_objects, parse_scenario
from webapp.manifest.messages import MESSAGES
from webapp.manifest.simulation_doc import MAX_SCRIPT_STEPS
from webapp.manifest.yaml_reader import _scalar

SIMULATION = "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: x}\n"


def errors_of(text: str, **kwargs: object) -> list[dict]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, **kwargs)  # type: ignore[arg-type]
    return caught.value.errors


def one(errors: list[dict]) -> tuple:
    assert len(errors) == 1, errors
    error = errors[0]
    return error["path"], error["code"], error["line"], error["column"]


def pod_with(spec_line: str) -> str:
    return POD.replace("spec:\n", f"spec:\n  {spec_line}\n")


def test_a_lone_surrogate_in_the_text_is_located() -> None:
    text = POD.replace("name: web", "name: w\ud800b")
    error = errors_of(text)[0]
    assert (error["code"], error["line"], error["column"]) == ("lone_surrogate", 4, 10)
    assert "U+D800" in error["message"]
    assert "U+D800" in localize_errors([error], "zh")[0]["message"]


def test_a_lone_surrogate_escape_read_by_a_pure_python_loader_is_refused() -> None:
    node = yaml.compose('"a\\udc80b"', Loader=yaml.SafeLoader)
    assert _scalar(node) == (None, ("lone_surrogate", {"code_point": "U+DC80"}))


@pytest.mark.parametrize(
    "digits", [pytest.param("9" * 5000, id="5000-digits"), pytest.param("9" * 400, id="400")]
)
def test_an_integer_too_long_to_convert_is_refused_where_it_is_written(digits: str) -> None:
    path, code, line, column = one(errors_of(pod_with(f"terminationGracePeriodSeconds: {digits}")))
    assert (path, code, line, column) == (
        "spec.terminationGracePeriodSeconds",
        "number_too_long",
        6,
        34,
    )


def test_a_huge_hexadecimal_integer_is_refused_too() -> None:
    errors = errors_of(pod_with("terminationGracePeriodSeconds: 0x" + "f" * 3000))
    assert [e["code"] for e in errors] == ["number_too_long"]
    assert len(errors[0]["message"]) < 200  # the number is shortened in the message


@pytest.mark.parametrize(
    ("simulation", "path"),
    [
        pytest.param("script:\n- {at: .nan, action: delete}\n", "script[0].at", id="at-nan"),
        pytest.param("script:\n- {at: .inf, action: delete}\n", "script[0].at", id="at-inf"),
        pytest.param(
            "images:\n  nginx:1.27: {pullSeconds: .inf}\n",
            'images["nginx:1.27"].pullSeconds',
            id="pull",
        ),
        pytest.param(
            "containers:\n  app: {sigtermSeconds: -.inf}\n",
            "containers.app.sigtermSeconds",
            id="sigterm",
        ),
        pytest.param(
            "containers:\n  app: {startSeconds: .NaN}\n", "containers.app.startSeconds", id="start"
        ),
    ],
)
def test_nan_and_infinity_are_refused(simulation: str, path: str) -> None:
    errors = errors_of(POD + SIMULATION + simulation)
    assert [(e["path"], e["code"]) for e in errors] == [(path, "not_finite")]


def test_nan_in_a_kubernetes_object_is_refused_once() -> None:
    errors = errors_of(pod_with("activeDeadlineSeconds: .nan"))
    assert [(e["path"], e["code"]) for e in errors] == [
        ("spec.activeDeadlineSeconds", "not_finite")
    ]


def test_int64_fields_take_the_whole_int64_range_and_no_more() -> None:
    parse_scenario(pod_with("terminationGracePeriodSeconds: 9223372036854775807"))
    errors = errors_of(pod_with("terminationGracePeriodSeconds: 9223372036854775808"))
    assert [(e["path"], e["code"]) for e in errors] == [
        ("spec.terminationGracePeriodSeconds", "integer_range")
    ]
    assert "9223372036854775807" in errors[0]["message"]
    errors = errors_of(pod_with("terminationGracePeriodSeconds: 1.0e+300"))
    assert [e["code"] for e in errors] == ["integer_range"]


def test_int32_fields_are_checked_against_int32() -> None:
    text = POD + "    readinessProbe: {exec: {command: [x]}, periodSeconds: 2147483648}\n"
    errors = errors_of(text)
    assert [(e["path"], e["code"]) for e in errors] == [
        ("spec.containers[0].readinessProbe.periodSeconds", "integer_range")
    ]


def test_apply_objects_are_checked_the_same_way() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_objects(pod_with("terminationGracePeriodSeconds: .inf"))
    assert [e["code"] for e in caught.value.errors] == ["not_finite"]


@pytest.mark.parametrize(
    ("simulation", "path", "code"),
    [
        pytest.param(
            "containers:\n  app: {exitAfterSeconds: 1, exitCode: 256}\n",
            "containers.app.exitCode",
            "maximum",
            id="exit-256",
        ),
        pytest.param(
            "containers:\n  app: {sigtermExitCode: 1000}\n",
            "containers.app.sigtermExitCode",
            "maximum",
            id="sigterm-code",
        ),
        pytest.param(
            "script:\n- {at: 1, action: crash, container: app, exitCode: 300}\n",
            "script[0].exitCode",
            "maximum",
            id="crash-code",
        ),
        pytest.param(
            "script:\n- {at: 7201, action: delete}\n",
            "script[0].at",
            "beyond_horizon",
            id="script-at",
        ),
        pytest.param(
            "lesson:\n- {at: 9000, text: late}\n", "lesson[0].at", "beyond_horizon", id="lesson-at"
        ),
        pytest.param(
            "containers:\n  app: {startSeconds: 100000}\n",
            "containers.app.startSeconds",
            "beyond_horizon",
            id="start",
        ),
        pytest.param(
            "images:\n  nginx:1.27: {pullSeconds: 1.0e+12}\n",
            'images["nginx:1.27"].pullSeconds',
            "beyond_horizon",
            id="pull-1e12",
        ),
        pytest.param(
            "script:\n- {at: 1, action: delete, gracePeriodSeconds: 9223372036854775808}\n",
            "script[0].gracePeriodSeconds",
            "maximum",
            id="grace-2^63",
        ),
        pytest.param(
            "containers:\n  app: {memoryMiB: 9223372036854775807}\n",
            "containers.app.memoryMiB",
            "maximum",
            id="memory",
        ),
    ],
)
def test_simulation_numbers_are_bounded(simulation: str, path: str, code: str) -> None:
    errors = errors_of(POD + SIMULATION + simulation)
    assert [(e["path"], e["code"]) for e in errors] == [(path, code)]
    assert localize_errors(errors, "zh")[0]["message"] != errors[0]["message"]


def test_legal_extremes_of_the_simulation_document_are_accepted() -> None:
    text = (
        POD
        + SIMULATION
        + (
            "containers:\n  app: {exitAfterSeconds: 7200, exitCode: 255, sigtermExitCode: 0}\n"
            "script:\n- {at: 7200, action: delete, gracePeriodSeconds: 9223372036854775807}\n"
            "lesson:\n- {at: 7200, text: the end}\n"
        )
    )
    simulation = parse_scenario(text).simulation
    assert simulation["containers"]["app"]["exitCode"] == 255
    assert simulation["script"][0]["gracePeriodSeconds"] == 2**63 - 1


def test_the_horizon_is_a_parameter() -> None:
    text = POD + SIMULATION + "script:\n- {at: 150, action: delete}\n"
    parse_scenario(text)
    path, code, line, column = one(errors_of(text, horizon=100))
    assert (path, code, line, column) == ("script[0].at", "beyond_horizon", 14, 8)


def test_the_script_length_is_limited() -> None:
    steps = "".join(
        f"- {{at: {i}, action: node-up, node: n}}\n" for i in range(MAX_SCRIPT_STEPS + 1)
    )
    errors = errors_of(POD + SIMULATION + "script:\n" + steps)
    assert [(e["path"], e["code"]) for e in errors] == [("script", "too_many_items")]


def test_every_new_code_has_both_languages() -> None:
    for code in ("lone_surrogate", "not_finite", "number_too_long", "integer_range",
                 "maximum", "beyond_horizon", "too_many_items"):  # fmt: skip
        assert set(MESSAGES[code]) == {"en", "zh"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        pytest.param("a: !!int abc\n", (1, 4), id="int-abc"),
        pytest.param("a: !!float abc\n", (1, 4), id="float-abc"),
        pytest.param("a: !!bool maybe\n", (1, 4), id="bool-maybe"),
        pytest.param("a: 1\nb: !!int 1.5\n", (2, 4), id="int-1.5"),
    ],
)
def test_a_tag_on_a_value_it_does_not_fit_is_located(text: str, where: tuple) -> None:
    """FINDINGS E2: PyYAML's constructors raise on these; the reader says where."""
    errors = [e for e in errors_of(text) if e["code"] == "tag_mismatch"]
    assert [(e["line"], e["column"]) for e in errors] == [where]


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])
def test_lines_are_counted_as_the_editor_counts_them(separator: str) -> None:
    """FINDINGS E10: YAML ends lines at NEL, LS and PS too; the editor does not."""
    text = f'a: "x{separator}y{separator}z"\nb: [\n'
    error = errors_of(text)[0]
    assert (error["code"], error["line"]) == ("yaml_syntax", 3)
    value = errors_of(
        pod_with(f'terminationGracePeriodSeconds: "x{separator}"\n  activeDeadlineSeconds: .nan')
    )
    assert [(e["code"], e["line"]) for e in value if e["code"] == "not_finite"] == [
        ("not_finite", 7)
    ]


def test_a_quantity_exponent_is_an_int32_and_huge_quantities_are_legal() -> None:
    text = POD + "    resources: {limits: {memory: '1e9999999999'}}\n"
    assert [e["code"] for e in errors_of(text)] == ["quantity"]
    parse_scenario(
        POD + "    resources: {limits: {memory: '" + "9" * 400 + "Ei', cpu: 1E999999999}}\n"
    )
