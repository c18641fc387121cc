"""client-go's JSONPath as `kubectl get -o jsonpath` prints it (webapp/terminal/jsonpath.py).
The same templates against the real kubectl: tests/kubeapi/test_terminal.py (SAME)."""

from __future__ import annotations

import pytest

from webapp.terminal.jsonpath import JsonPathError, render

POD_LIST = {
    "kind": "List",
    "items": [
        {"metadata": {"name": "a", "labels": {"app": "web", "tier": "x"}},
         "spec": {"containers": [{"name": "c1", "image": "nginx:1.27"}, {"name": "c2", "image": "busybox"}]},
         "status": {"phase": "Running", "restartCount": 3, "ready": True,
                    "conditions": [{"type": "Ready", "status": "True"}, {"type": "Initialized", "status": "True"}]}},
        {"metadata": {"name": "b"}, "spec": {"containers": [{"name": "c1", "image": "nginx:1.28"}]},
         "status": {"phase": "Pending", "restartCount": 0, "ready": False, "conditions": []}},
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("template", "printed"),
    [
        ("{.items[*].metadata.name}", "a b"),
        ("{.items[0].metadata.labels}", '{"app":"web","tier":"x"}'),
        ("{.items[0].status.restartCount}", "3"),
        ("{.items[*].status.ready}", "true false"),
        ("{.items[-1].metadata.name}", "b"),
        ("{.items[0:1].metadata.name}", "a"),
        ("{.items[*].spec.containers[*].image}", "nginx:1.27 busybox nginx:1.28"),
        ('{.items[0].status.conditions[?(@.type=="Ready")].status}', "True"),
        ("{.items[?(@.status.restartCount > 1)].metadata.name}", "a"),
        ("{.items[?(@.metadata.labels)].metadata.name}", "a"),
        ('{range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}', "a\tRunning\nb\tPending\n"),
        ("{.items[0]['metadata']['name']}", "a"),
        ("{.nope}", ""),
        ("names: {.items[*].metadata.name}!", "names: a b!"),
        ("{..name}", "a b c1 c2 c1"),
    ],
)  # fmt: skip
def test_templates(template: str, printed: str) -> None:
    assert render(template, POD_LIST) == printed


@pytest.mark.parametrize("template", ["{.items[0]", "{.items[9].metadata}", "{end}", "{range .items[*]}x",
                                      "{.items[x]}"])  # fmt: skip
def test_what_it_cannot_read_is_an_error(template: str) -> None:
    with pytest.raises(JsonPathError):
        render(template, POD_LIST)


def test_a_template_s_work_is_bounded_whatever_its_nesting() -> None:
    big = {"items": [{"a": {"b": list(range(50))}} for _ in range(2000)]}
    with pytest.raises(JsonPathError, match="more than"):
        render("{range ..*}{range ..*}{range ..*}{.}{end}{end}{end}", big)
    with pytest.raises(JsonPathError, match="more than"):
        render("{..*}{..*}{..*}{..*}", big)
    assert render("{.items[0].a.b[2]}", big) == "2"


@pytest.mark.parametrize("template", ["{.items[::0]}", "{.items[1:2:3:4]}"])
def test_a_bad_slice_is_an_error_not_a_crash(template: str) -> None:
    with pytest.raises(JsonPathError):
        render(template, POD_LIST)
