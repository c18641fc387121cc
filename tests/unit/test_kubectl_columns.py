"""printPod: READY, STATUS, RESTARTS, AGE (and -o wide) of `kubectl get pods`.

The cases live in data/kubectl_print_pod_cases.json: kubectl's own printers_test.go
tables re-expressed as API JSON, plus lifecycle cases from KUBERNETES-SEMANTICS.md §9.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from webapp.kubectl import get_pods, pod_columns, pod_columns_wide
from webapp.kubectl.timestamps import parse_time

DATA = json.loads((Path(__file__).parent / "data" / "kubectl_print_pod_cases.json").read_text())
NOW = parse_time(DATA["now"])
CASES = DATA["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_print_pod_case(case: dict[str, Any]) -> None:
    cells = pod_columns(case["pod"], NOW)
    assert cells == {"NAME": case["pod"]["metadata"]["name"], **case["expect"]}


WIDE_CASES = [c for c in CASES if "expectWide" in c]


@pytest.mark.parametrize("case", WIDE_CASES, ids=[c["name"] for c in WIDE_CASES])
def test_print_pod_wide_case(case: dict[str, Any]) -> None:
    cells = pod_columns_wide(case["pod"], NOW)
    expected = {"NAME": case["pod"]["metadata"]["name"], **case["expect"], **case["expectWide"]}
    assert cells == expected
    assert list(cells) == list(expected)


def test_pod_columns_has_exactly_the_public_keys() -> None:
    assert list(pod_columns(CASES[0]["pod"], NOW)) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]


def test_pod_columns_accepts_a_naive_now_as_utc() -> None:
    pod = {"metadata": {"name": "web", "creationTimestamp": "2026-01-01T00:00:00Z"}}
    assert pod_columns(pod, datetime(2026, 1, 1, 0, 2, 10))["AGE"] == "2m10s"


def test_get_pods_list_aligns_columns_like_kubectl() -> None:
    # TestPrintPodList: two pods in one table.
    now = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)
    created = (now - timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    running = {
        "metadata": {"name": "web", "creationTimestamp": created},
        "spec": {"containers": [{"name": "app"}]},
        "status": {
            "phase": "Running",
            "containerStatuses": [{"name": "app", "ready": True, "state": {"running": {}}}],
        },
    }
    looping = {
        "metadata": {"name": "crashloop-demo", "creationTimestamp": created},
        "spec": {"containers": [{"name": "app"}]},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "app",
                    "restartCount": 4,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {
                        "terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:09:50Z"}
                    },
                }
            ],
        },
    }
    assert get_pods([running, looping], now) == (
        "NAME             READY   STATUS             RESTARTS      AGE\n"
        "web              1/1     Running            0             10m\n"
        "crashloop-demo   0/1     CrashLoopBackOff   4 (10s ago)   10m\n"
    )


def test_get_pods_of_nothing_prints_nothing() -> None:
    assert get_pods([], NOW) == ""
