"""Reading untrusted YAML: limits, hostile input, syntax errors, duplicate keys, locations."""

from __future__ import annotations

import pytest

from tests.samples import POD
from webapp.manifest import ScenarioError, parse_objects, parse_scenario
from webapp.manifest.yaml_reader import MAX_DEPTH, MAX_NODES, Mark, read_documents

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def scenario_errors(text: object) -> list[dict]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)  # type: ignore[arg-type]
    return caught.value.errors


def codes(errors: list[dict]) -> set[str]:
    return {e["code"] for e in errors}


HOSTILE = [
    pytest.param(BILLION_LAUGHS, "yaml_anchor", id="billion-laughs"),
    pytest.param("a: " + "x" * 300 * 1024, "too_large", id="300-KiB-text"),
    pytest.param("a: " + "[" * 100 + "]" * 100, "too_deep", id="100-deep-flow-nesting"),
    pytest.param(
        "".join("  " * i + f"k{i}:\n" for i in range(100)) + "  " * 100 + "v\n",
        "too_deep",
        id="100-deep-block-nesting",
    ),
    pytest.param("[" + ",".join(["1"] * (MAX_NODES + 1)) + "]", "too_many_nodes", id="many-nodes"),
    pytest.param("---\na: 1\n" * 21, "too_many_documents", id="21-documents"),
    pytest.param("a: !!python/object/apply:os.system ['ls']\n", "yaml_tag", id="python-tag"),
    pytest.param("a: !!python/name:os.system\n", "yaml_tag", id="python-name-tag"),
    pytest.param("a: !foo 1\n", "yaml_tag", id="custom-tag"),
    pytest.param("a: !!binary aGVsbG8=\n", "yaml_tag", id="binary-tag"),
    pytest.param("a: !!set {x}\n", "yaml_tag", id="set-tag"),
    pytest.param("x: 1\ny: *undefined\n", "yaml_alias", id="alias-without-anchor"),
    pytest.param("x: &keep 1\n", "yaml_anchor", id="anchor-without-alias"),
    pytest.param("\x00\x01\x02", "yaml_syntax", id="control-characters"),
    pytest.param("{{{{]]]:::", "yaml_syntax", id="brackets"),
    pytest.param("key: 'unterminated\n", "yaml_syntax", id="unterminated-quote"),
    pytest.param("\t- a\n:\n", "yaml_syntax", id="tab-indent"),
    pytest.param("%YAML 9.9\n--- a\n", "yaml_syntax", id="bad-directive"),
    pytest.param(b"apiVersion: v1", "not_text", id="bytes-not-text"),
    pytest.param(None, "not_text", id="none-not-text"),
]


@pytest.mark.parametrize(("text", "code"), HOSTILE)
def test_hostile_input_is_refused_with_a_located_error(text: object, code: str) -> None:
    errors = scenario_errors(text)
    assert code in codes(errors)
    for error in errors:
        assert error["line"] >= 1 and error["column"] >= 1
        assert error["message"]


@pytest.mark.parametrize(
    "text",
    [BILLION_LAUGHS, "x: 1\ny: *a\n", "a: &x 1\n"],
    ids=["billion-laughs", "alias", "anchor"],
)
def test_apply_refuses_aliases_and_anchors_too(text: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_objects(text)
    assert codes(caught.value.errors) <= {"yaml_anchor", "yaml_alias"}


def test_nesting_at_the_limit_is_read() -> None:
    text = "a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    documents, errors = read_documents(text)
    assert errors == []
    assert isinstance(documents[0].data["a"], list)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("", ("empty", 0, 1, 1), id="empty-text"),
        pytest.param("# just a comment\n\n", ("empty", 0, 1, 1), id="only-comments"),
        pytest.param("~\n", ("empty", 0, 1, 1), id="null-document"),
        pytest.param("- a\n- b\n", ("not_a_mapping", 0, 1, 1), id="list-document"),
        pytest.param("hello\n", ("not_a_mapping", 0, 1, 1), id="scalar-document"),
        pytest.param(POD + "---\n42\n", ("not_a_mapping", 1, 10, 1), id="number-second-document"),
    ],
)
def test_document_that_is_not_a_mapping_is_an_error(text: str, expected: tuple) -> None:
    errors = scenario_errors(text)
    assert [(e["code"], e["doc"], e["line"], e["column"]) for e in errors] == [expected]


def test_trailing_separator_is_skipped_as_kubectl_does() -> None:
    assert parse_scenario(POD + "---\n").pod["metadata"]["name"]


def test_not_a_mapping_message_names_what_was_found() -> None:
    (error,) = scenario_errors("- a\n")
    assert error["message"].endswith("not a list")


@pytest.mark.parametrize(
    ("text", "line", "column", "problem"),
    [
        pytest.param("a: [1, 2\n", 2, 1, "did not find expected ',' or ']'", id="open-flow-list"),
        pytest.param("a: b: c\n", 1, 5, "mapping values are not allowed", id="two-colons"),
        pytest.param("a:\n  b: 1\n c: 2\n", 3, 2, "did not find expected key", id="bad-indent"),
    ],
)
def test_syntax_error_is_located_at_the_problem(
    text: str, line: int, column: int, problem: str
) -> None:
    (error,) = scenario_errors(text)
    assert (error["code"], error["line"], error["column"]) == ("yaml_syntax", line, column)
    assert problem in error["message"]


def test_syntax_error_in_second_document_names_that_document() -> None:
    (error,) = scenario_errors(POD + "---\nkind: [\n")
    assert (error["doc"], error["code"]) == (1, "yaml_syntax")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            POD.replace("kind: Pod\n", "kind: Pod\nkind: Pod\n"),
            ("kind", 3, 1, 2),
            id="top-level-key",
        ),
        pytest.param(
            POD + "    image: busybox\n",
            ("spec.containers[0].image", 9, 5, 8),
            id="container-key",
        ),
        pytest.param(
            POD.replace("  name: web\n", "  name: web\n  labels: {app: a, app: b}\n"),
            ("metadata.labels.app", 5, 20, 5),
            id="flow-mapping-key",
        ),
    ],
)
def test_duplicate_key_points_at_the_second_key(text: str, expected: tuple) -> None:
    errors = [e for e in scenario_errors(text) if e["code"] == "duplicate_key"]
    path, line, column, first_line = expected
    assert [(e["path"], e["line"], e["column"], e["params"]["first_line"]) for e in errors] == [
        (path, line, column, first_line)
    ]


def test_complex_key_is_an_error() -> None:
    errors = scenario_errors(POD + "? [a, b]\n: 1\n")
    assert ("complex_key", 9, 3) in {(e["code"], e["line"], e["column"]) for e in errors}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("80", 80),
        ('"80"', "80"),
        ("!!str 80", "80"),
        ("0.5", 0.5),
        ("true", True),
        ("~", None),
        ("2024-01-01", "2024-01-01"),
        ("=", "="),
        ("100m", "100m"),
    ],
)
def test_scalars_become_json_values(value: str, expected: object) -> None:
    documents, _ = read_documents(f"v: {value}\n")
    assert documents[0].data == {"v": expected}


def test_merge_key_is_kept_as_an_ordinary_key() -> None:
    documents, _ = read_documents("<<: {a: 1}\nb: 2\n")
    assert documents[0].data == {"<<": {"a": 1}, "b": 2}


def test_every_path_knows_its_key_and_value_marks() -> None:
    documents, _ = read_documents(POD)
    places = documents[0].places
    assert places[("metadata", "name")].key == Mark(4, 3)
    assert places[("metadata", "name")].value == Mark(4, 9)
    assert places[("spec", "containers", 0)].key is None
    assert places[("spec", "containers", 0)].value == Mark(7, 5)
    assert places[("spec", "containers", 0, "image")].value == Mark(8, 12)


def test_errors_are_sorted_by_document_line_and_column() -> None:
    text = "x: &a 1\ny: *a\n---\nz: &b 2\n"
    errors = scenario_errors(text)
    keys = [(e["doc"], e["line"], e["column"]) for e in errors]
    assert keys == sorted(keys)
    assert keys == [(0, 1, 4), (0, 2, 4), (1, 4, 4)]
