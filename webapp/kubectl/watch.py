"""`kubectl get pods -w`: one line per watch event, printed as it arrives.

kubectl prints the header together with the first row, then flushes its tabwriter after
every event. The tabwriter has the RememberWidths flag, so each new line uses the widest
column seen so far (never narrower than before) and lines already printed never move:
when a wider STATUS such as `Init:CrashLoopBackOff` arrives, only it and the lines after
it are padded to the new width. We reproduce that exactly rather than re-aligning the
whole history, because a learner comparing with a real terminal sees the same jumps.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from webapp.kubectl.columns import POD_COLUMNS, POD_WIDE_COLUMNS, print_pod
from webapp.kubectl.tables import table_line
from webapp.kubectl.tabwriter import kubectl_table_writer

WatchEvent = tuple[datetime, str, dict[str, Any]]


def watch_lines(
    versions: Iterable[WatchEvent], *, wide: bool = False, output_watch_events: bool = False
) -> list[str]:
    """The header line plus one line per `(now, event_type, pod)` watch event.

    `event_type` is ADDED, MODIFIED or DELETED; a DELETED event prints the object's last
    state, as kubectl does. AGE and RESTARTS are computed at each event's `now`. With output_watch_events=True an EVENT column comes first
    (`--output-watch-events`). Lines carry no trailing newline.
    """
    columns = POD_WIDE_COLUMNS if wide else POD_COLUMNS
    header = ("EVENT", *columns) if output_watch_events else columns
    writer = kubectl_table_writer()
    writer.write(table_line(header))
    lines: list[str] = []
    for now, event_type, pod in versions:
        cells = list(print_pod(pod, now, wide=wide).values())
        writer.write(table_line([event_type, *cells] if output_watch_events else cells))
        lines.extend(writer.flush().splitlines())
    # With no event at all kubectl prints nothing; we still return the header so a view
    # has its column titles.
    return lines or writer.flush().splitlines()


def watch_writer(*, wide: bool = False) -> Any:
    """The tabwriter of a `kubectl get pods -w` fed one event at a time (``watch_event_lines``),
    its header written: the same output as ``watch_lines`` over the same events."""
    writer = kubectl_table_writer()
    writer.write(table_line(POD_WIDE_COLUMNS if wide else POD_COLUMNS))
    return writer


def watch_event_lines(
    writer: Any, now: datetime, pod: dict[str, Any], *, wide: bool = False
) -> list[str]:
    """The lines one watch event prints (the header too, with the first event)."""
    writer.write(table_line(list(print_pod(pod, now, wide=wide).values())))
    return writer.flush().splitlines()
