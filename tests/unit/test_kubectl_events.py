"""`kubectl get events` (printEvent) rows and table."""

from __future__ import annotations

import json
from pathlib import Path

from webapp.kubectl import get_events
from webapp.kubectl.events import format_event_source, print_event
from webapp.kubectl.timestamps import parse_time

FIXTURE = json.loads(
    (Path(__file__).parent / "data" / "kubectl_describe_crashloop.json").read_text()
)
NOW = parse_time(FIXTURE["now"])
EVENTS = FIXTURE["events"]


def test_get_events_table() -> None:
    assert get_events(EVENTS, NOW) == (
        "LAST SEEN   TYPE      REASON      OBJECT          MESSAGE\n"
        "2m45s       Normal    Scheduled   pod/crashloop   "
        "Successfully assigned default/crashloop to node-2\n"
        "39s         Normal    Pulled      pod/crashloop   "
        'Container image "busybox:1.36" already present on machine\n'
        "39s         Normal    Created     pod/crashloop   Container created\n"
        "39s         Normal    Started     pod/crashloop   Container started\n"
        "5s          Warning   BackOff     pod/crashloop   "
        "Back-off restarting failed container app in pod "
        "crashloop_default(7d3c2a10-4b5e-4f6a-9c1d-2e3f4a5b6c7d)\n"
    )


def test_get_events_wide_row_has_subobject_source_first_seen_count_name() -> None:
    assert print_event(EVENTS[-1], NOW, wide=True) == [
        "5s",
        "Warning",
        "BackOff",
        "pod/crashloop",
        "spec.containers{app}",
        "kubelet, node-2",
        "Back-off restarting failed container app in pod "
        "crashloop_default(7d3c2a10-4b5e-4f6a-9c1d-2e3f4a5b6c7d)",
        "2m33s",
        "9",
        "crashloop.a5",
    ]


def test_event_without_last_timestamp_uses_first_seen_and_count_one() -> None:
    event = {
        "type": "Normal",
        "reason": "Scheduled",
        "message": " assigned \n",
        "involvedObject": {"kind": "Pod", "name": "web"},
        "eventTime": "2026-01-01T00:02:00.000000Z",
    }
    assert print_event(event, NOW) == ["45s", "Normal", "Scheduled", "pod/web", "assigned"]
    assert print_event(event, NOW, wide=True)[8] == "1"


def test_event_source_falls_back_to_reporting_fields() -> None:
    assert format_event_source({"source": {"component": "kubelet", "host": "node-1"}}) == (
        "kubelet, node-1"
    )
    assert format_event_source({"source": {}, "reportingComponent": "default-scheduler"}) == (
        "default-scheduler"
    )


def test_no_events_prints_nothing() -> None:
    assert get_events([], NOW) == ""
