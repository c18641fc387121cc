"""`kubectl get pods -w`: header with the first event, one line per event after it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from webapp.kubectl import watch_lines

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _pod(**status: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "app"}]},
        "status": status,
    }


def _at(seconds: float) -> datetime:
    return EPOCH + timedelta(seconds=seconds)


PENDING = _pod(phase="Pending")
CREATING = _pod(
    phase="Pending",
    containerStatuses=[{"name": "app", "state": {"waiting": {"reason": "ContainerCreating"}}}],
)
RUNNING = _pod(
    phase="Running",
    conditions=[{"type": "Ready", "status": "True"}],
    containerStatuses=[{"name": "app", "ready": True, "state": {"running": {}}}],
)


def test_header_comes_with_the_first_event_and_ages_follow_each_event() -> None:
    lines = watch_lines([(_at(0), "ADDED", PENDING), (_at(0), "MODIFIED", PENDING)])
    assert lines == [
        "NAME   READY   STATUS    RESTARTS   AGE",
        "web    0/1     Pending   0          0s",
        "web    0/1     Pending   0          0s",
    ]


def test_a_wider_cell_widens_only_the_lines_after_it() -> None:
    # kubectl's tabwriter remembers column widths between flushes (RememberWidths):
    # earlier lines are already on the terminal and keep their alignment.
    lines = watch_lines(
        [
            (_at(0), "ADDED", PENDING),
            (_at(1), "MODIFIED", CREATING),
            (_at(4), "MODIFIED", RUNNING),
            (_at(30), "DELETED", RUNNING | {"metadata": RUNNING["metadata"] | {"x": 1}}),
        ]
    )
    assert lines == [
        "NAME   READY   STATUS    RESTARTS   AGE",
        "web    0/1     Pending   0          0s",
        "web    0/1     ContainerCreating   0          1s",
        "web    1/1     Running             0          4s",
        "web    1/1     Running             0          30s",
    ]


def test_deleted_event_prints_the_last_state() -> None:
    terminating = RUNNING | {
        "metadata": RUNNING["metadata"] | {"deletionTimestamp": "2026-01-01T00:01:00Z"}
    }
    lines = watch_lines([(_at(30), "MODIFIED", terminating), (_at(62), "DELETED", terminating)])
    assert [line.split()[2] for line in lines[1:]] == ["Terminating", "Terminating"]


def test_output_watch_events_adds_an_event_column() -> None:
    lines = watch_lines(
        [(_at(0), "ADDED", PENDING), (_at(2), "MODIFIED", PENDING)], output_watch_events=True
    )
    assert lines == [
        "EVENT   NAME   READY   STATUS    RESTARTS   AGE",
        "ADDED   web    0/1     Pending   0          0s",
        "MODIFIED   web    0/1     Pending   0          2s",
    ]


def test_no_events_gives_just_the_header() -> None:
    assert watch_lines([]) == ["NAME   READY   STATUS   RESTARTS   AGE"]


def test_wide_watch_lines_have_the_wide_columns() -> None:
    header = watch_lines([(_at(0), "ADDED", PENDING)], wide=True)[0]
    assert re.split(" {3,}", header)[-4:] == ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
