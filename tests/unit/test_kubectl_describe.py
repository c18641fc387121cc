"""`kubectl describe pod` against golden text.

Regenerate on purpose with `KUBECTL_REGENERATE_GOLDEN=1 pytest tests/unit -k kubectl_describe`
and read the diff: the golden files are what a learner sees.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from webapp.kubectl import describe_pod, events_of_pod
from webapp.kubectl.containers import describe_probe
from webapp.kubectl.qos import compute_pod_qos
from webapp.kubectl.timestamps import format_rfc1123z, parse_time

DATA = Path(__file__).parent / "data"
REGENERATE = os.environ.get("KUBECTL_REGENERATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", ["running", "crashloop"])
def test_describe_pod_matches_golden_text(name: str) -> None:
    fixture = json.loads((DATA / f"kubectl_describe_{name}.json").read_text())
    text = describe_pod(fixture["pod"], fixture["events"], parse_time(fixture["now"]))
    golden = DATA / f"kubectl_describe_{name}.txt"
    if REGENERATE:
        golden.write_text(text)
    assert text == golden.read_text()


NOW = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)


def _pod(**extra: Any) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        "status": {"phase": "Running"},
    }
    for key, value in extra.items():
        pod[key] = pod[key] | value
    return pod


def _line(text: str, prefix: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(prefix))


def test_terminating_status_during_grace_period_lasts_invalid() -> None:
    # deletionTimestamp is in the future during the grace period, so kubectl's
    # translateTimestampSince prints <invalid>.
    pod = _pod(
        metadata={"deletionTimestamp": "2026-01-01T00:01:25Z", "deletionGracePeriodSeconds": 30}
    )
    text = describe_pod(pod, [], NOW)
    assert _line(text, "Status:") == "Status:                    Terminating (lasts <invalid>)"
    assert _line(text, "Termination Grace Period:") == "Termination Grace Period:  30s"


def test_terminating_status_after_deadline_shows_how_long() -> None:
    pod = _pod(
        metadata={"deletionTimestamp": "2026-01-01T00:00:20Z", "deletionGracePeriodSeconds": 30}
    )
    assert "Terminating (lasts 40s)" in describe_pod(pod, [], NOW)


def test_finished_pod_being_deleted_shows_its_phase() -> None:
    pod = _pod(metadata={"deletionTimestamp": "2026-01-01T00:00:20Z"}, status={"phase": "Failed"})
    assert _line(describe_pod(pod, [], NOW), "Status:").split() == ["Status:", "Failed"]


def test_no_events_prints_none() -> None:
    assert describe_pod(_pod(), [], NOW).endswith("Events:           <none>\n")


def test_single_event_age_has_no_aggregation() -> None:
    event = {
        "type": "Normal",
        "reason": "Scheduled",
        "message": "Successfully assigned default/web to node-1",
        "source": {"component": "default-scheduler"},
        "count": 1,
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:00Z",
    }
    lines = describe_pod(_pod(), [event], NOW).splitlines()
    assert lines[-1] == (
        "  Normal  Scheduled  60s   default-scheduler  Successfully assigned default/web to node-1"
    )


def test_events_without_source_use_the_reporting_component() -> None:
    event = {
        "type": "Warning",
        "reason": "NodeNotReady",
        "message": "Node is not ready",
        "reportingComponent": "node-controller",
        "count": 1,
        "firstTimestamp": "2026-01-01T00:00:30Z",
        "lastTimestamp": "2026-01-01T00:00:30Z",
    }
    assert "node-controller" in describe_pod(_pod(), [event], NOW).splitlines()[-1]


@pytest.mark.parametrize(
    ("probe", "expected"),
    [
        (
            {"httpGet": {"path": "/healthz", "port": 8080}},
            "http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3",
        ),
        (
            {"httpGet": {"path": "/", "port": "http", "scheme": "HTTPS"}, "periodSeconds": 5},
            "http-get https://:http/ delay=0s timeout=1s period=5s #success=1 #failure=3",
        ),
        (
            {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5},
            "exec [cat /tmp/healthy] delay=5s timeout=1s period=10s #success=1 #failure=3",
        ),
        (
            {"tcpSocket": {"port": 6379}, "failureThreshold": 30},
            "tcp-socket :6379 delay=0s timeout=1s period=10s #success=1 #failure=30",
        ),
        (
            {"grpc": {"port": 2379, "service": "etcd"}},
            "grpc <pod>:2379 etcd delay=0s timeout=1s period=10s #success=1 #failure=3",
        ),
    ],
)
def test_describe_probe(probe: dict[str, Any], expected: str) -> None:
    assert describe_probe(probe) == expected


def _resources(
    limits: dict[str, str] | None = None, requests: dict[str, str] | None = None
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if limits:
        resources["limits"] = limits
    if requests:
        resources["requests"] = requests
    return {"name": "c", "resources": resources}


@pytest.mark.parametrize(
    ("containers", "expected"),
    [
        ([_resources()], "BestEffort"),
        ([_resources(limits={"cpu": "500m", "memory": "128Mi"})], "Guaranteed"),
        (
            [_resources({"cpu": "0.5", "memory": "128Mi"}, {"cpu": "500m", "memory": "128Mi"})],
            "Guaranteed",
        ),
        ([_resources(requests={"cpu": "100m"})], "Burstable"),
        ([_resources(limits={"cpu": "1"})], "Burstable"),
        (
            [_resources({"cpu": "1", "memory": "1Gi"}, {"cpu": "500m", "memory": "1Gi"})],
            "Burstable",
        ),
        ([_resources(limits={"cpu": "1", "memory": "1Gi"}), _resources()], "Burstable"),
        ([_resources(requests={"ephemeral-storage": "1Gi"})], "BestEffort"),
    ],
)
def test_qos_class(containers: list[dict[str, Any]], expected: str) -> None:
    assert compute_pod_qos({"spec": {"containers": containers}}) == expected


def test_dates_print_as_rfc1123z() -> None:
    assert format_rfc1123z("2026-01-01T00:00:00Z") == "Thu, 01 Jan 2026 00:00:00 +0000"
    assert format_rfc1123z("2026-03-15T13:04:05.123456Z") == "Sun, 15 Mar 2026 13:04:05 +0000"


def test_describe_finds_events_by_involved_object_uid_as_kubectl_does() -> None:
    pod = _pod(metadata={"uid": "u-1"})

    def event(reason: str, involved: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "Normal",
            "reason": reason,
            "message": reason,
            "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default", **involved},
            "count": 1,
            "firstTimestamp": "2026-01-01T00:00:00Z",
            "lastTimestamp": "2026-01-01T00:00:00Z",
        }

    events = [
        event("Scheduled", {"uid": "u-1"}),
        event("TaintManagerEviction", {}),  # the taint-eviction controller records no uid
        event("Killing", {"uid": "u-1", "fieldPath": "spec.containers{app}"}),
        event("Other", {"uid": "u-2"}),  # an earlier Pod of the same name
    ]
    assert [e["reason"] for e in events_of_pod(pod, events)] == ["Scheduled", "Killing"]
