"""`kubectl get pod -o yaml`: go-yaml v2 layout, and it reads back to the same object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from webapp.kubectl import pod_yaml

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["running", "crashloop"])
def test_pod_yaml_round_trips(name: str) -> None:
    pod = json.loads((DATA / f"kubectl_describe_{name}.json").read_text())["pod"]
    assert yaml.safe_load(pod_yaml(pod)) == pod


def test_keys_are_sorted_and_sequences_not_indented() -> None:
    pod = {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {"name": "web", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }
    assert pod_yaml(pod) == (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        '  creationTimestamp: "2026-01-01T00:00:00Z"\n'
        "  name: web\n"
        "spec:\n"
        "  containers:\n"
        "  - image: nginx\n"
        "    name: app\n"
    )


def test_strings_that_read_as_other_types_are_double_quoted() -> None:
    text = pod_yaml({"a": "True", "b": "8080", "c": "", "d": "y", "e": "null", "f": "plain"})
    assert text == 'a: "True"\nb: "8080"\nc: ""\nd: "y"\ne: "null"\nf: plain\n'


def test_multiline_strings_are_literal_blocks() -> None:
    assert pod_yaml({"message": "line one\nline two\n"}) == "message: |\n  line one\n  line two\n"


def test_go_yaml_key_order_puts_non_letters_first_and_numbers_in_value_order() -> None:
    labels = {"app": "1", "app.kubernetes.io/name": "2", "a10": "3", "a9": "4", "B": "5"}
    keys = [line.split(":")[0] for line in pod_yaml(labels).splitlines()]
    assert keys == ["B", "a9", "a10", "app", "app.kubernetes.io/name"]


def test_empty_collections_and_null() -> None:
    assert pod_yaml({"items": [], "map": {}, "none": None, "n": 0, "t": True}) == (
        'items: []\nmap: {}\n"n": 0\nnone: null\nt: true\n'
    )


def test_api_field_order_on_request() -> None:
    pod = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "web", "labels": {}}}
    assert pod_yaml(pod, sort_keys=False) == (
        "kind: Pod\napiVersion: v1\nmetadata:\n  name: web\n  labels: {}\n"
    )
