"""JSON merge patch (RFC 7386, Appendix A's examples) and JSON patch (RFC 6902, Appendix
A's examples), as the API server applies them."""

from __future__ import annotations

import pytest

from webapp.engine.apiserver.patch import PatchError, apply_json_patch, apply_merge_patch
from webapp.engine.apiserver.patch.merge_patch import create_merge_patch

RFC7386_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "result"), RFC7386_EXAMPLES)
def test_rfc7386_appendix_a(target, patch, result):
    assert apply_merge_patch(target, patch) == result


def test_create_merge_patch_round_trips():
    original = {"a": 1, "b": {"c": [1, 2], "d": True}, "e": "x"}
    modified = {"a": 1, "b": {"c": [2], "d": 1}, "f": None}
    patch = create_merge_patch(original, modified)
    assert patch == {"b": {"c": [2], "d": 1}, "e": None, "f": None}
    assert create_merge_patch(original, original) == {}


RFC6902_EXAMPLES = [
    ("A.1 adding an object member", {"foo": "bar"},
     [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    ("A.2 adding an array element", {"foo": ["bar", "baz"]},
     [{"op": "add", "path": "/foo/1", "value": "qux"}], {"foo": ["bar", "qux", "baz"]}),
    ("A.3 removing an object member", {"baz": "qux", "foo": "bar"},
     [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ("A.4 removing an array element", {"foo": ["bar", "qux", "baz"]},
     [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    ("A.5 replacing a value", {"baz": "qux", "foo": "bar"},
     [{"op": "replace", "path": "/baz", "value": "boo"}], {"baz": "boo", "foo": "bar"}),
    ("A.6 moving a value", {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ("A.7 moving an array element", {"foo": ["all", "grass", "cows", "eat"]},
     [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
     {"foo": ["all", "cows", "eat", "grass"]}),
    ("A.8 testing a value: success", {"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
     {"baz": "qux", "foo": ["a", 2, "c"]}),
    ("A.10 adding a nested member object", {"foo": "bar"},
     [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
     {"foo": "bar", "child": {"grandchild": {}}}),
    ("A.14 ~ escape ordering", {"/": 9, "~1": 10},
     [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    ("A.16 adding an array value", {"foo": ["bar"]},
     [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}], {"foo": ["bar", ["abc", "def"]]}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "doc", "patch", "result"),
    RFC6902_EXAMPLES,
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_rfc6902_appendix_a(name, doc, patch, result):
    before = repr(doc)
    assert apply_json_patch(doc, patch) == result
    assert repr(doc) == before


RFC6902_ERRORS = [
    ("A.9 testing a value: error", {"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}],
     "testing value /baz failed: test failed"),
    ("A.12 adding to a nonexistent target", {"foo": "bar"},
     [{"op": "add", "path": "/baz/bat", "value": "qux"}],
     'add operation does not apply: doc is missing path: "/baz/bat": missing value'),
    ("A.15 comparing strings and numbers", {"/": 9, "~1": 10},
     [{"op": "test", "path": "/~01", "value": "10"}], "testing value /~01 failed: test failed"),
    ("replace of a missing member", {"a": 1}, [{"op": "replace", "path": "/b", "value": 2}],
     "replace operation does not apply: doc is missing key: /b: missing value"),
    ("remove of a missing member", {"a": 1}, [{"op": "remove", "path": "/b"}],
     "Unable to remove nonexistent key: b: missing value"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "doc", "patch", "message"),
    RFC6902_ERRORS,
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_rfc6902_errors(name, doc, patch, message):
    with pytest.raises(PatchError) as raised:
        apply_json_patch(doc, patch)
    assert str(raised.value) == message


def test_a_failed_operation_changes_nothing():
    doc = {"a": [1, 2]}
    with pytest.raises(PatchError):
        apply_json_patch(
            doc, [{"op": "add", "path": "/a/0", "value": 0}, {"op": "remove", "path": "/x"}]
        )
    assert doc == {"a": [1, 2]}
