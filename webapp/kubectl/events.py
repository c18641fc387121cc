"""Events: `kubectl get events` (printEvent) and the Events table of describe (DescribeEvents)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from webapp.kubectl.prefix_writer import LEVEL_0, LEVEL_1, PrefixWriter
from webapp.kubectl.tables import format_table
from webapp.kubectl.timestamps import parse_time, translate_timestamp_since

EVENT_COLUMNS = ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
EVENT_WIDE_COLUMNS = (
    "LAST SEEN",
    "TYPE",
    "REASON",
    "OBJECT",
    "SUBOBJECT",
    "SOURCE",
    "MESSAGE",
    "FIRST SEEN",
    "COUNT",
    "NAME",
)


def _first_seen(event: dict[str, Any], now: datetime) -> str:
    if event.get("firstTimestamp"):
        return translate_timestamp_since(event["firstTimestamp"], now)
    return translate_timestamp_since(event.get("eventTime"), now)


def format_event_source(event: dict[str, Any]) -> str:
    """formatEventSource: `component, host`, falling back to the reporting controller."""
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent", "")
    host = source.get("host") or event.get("reportingInstance", "")
    return f"{component}, {host}" if host else component


def print_event(event: dict[str, Any], now: datetime, *, wide: bool = False) -> list[str]:
    """printEvent: the cells of one `kubectl get events` row."""
    first_seen = _first_seen(event, now)
    last_seen = (
        translate_timestamp_since(event["lastTimestamp"], now)
        if event.get("lastTimestamp")
        else first_seen
    )
    count = event.get("count") or 1  # singleton events of the new API have no count
    if event.get("series"):
        last_seen = translate_timestamp_since(event["series"].get("lastObservedTime"), now)
        count = event["series"].get("count", count)
    involved = event.get("involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    message = str(event.get("message", "")).strip()
    if not wide:
        return [last_seen, event.get("type", ""), event.get("reason", ""), target, message]
    return [
        last_seen,
        event.get("type", ""),
        event.get("reason", ""),
        target,
        involved.get("fieldPath", ""),
        format_event_source(event),
        message,
        first_seen,
        str(count),
        (event.get("metadata") or {}).get("name", ""),
    ]


def get_events(events: Iterable[dict[str, Any]], now: datetime, *, wide: bool = False) -> str:
    """`kubectl get events`: rows in the order given.

    The API server lists events by name, and client-go names an event after its object
    and the creation time, so the engine's oldest-first list is the order kubectl shows.
    With no events kubectl prints nothing on stdout (`No resources found` goes to stderr).
    """
    rows = [print_event(event, now, wide=wide) for event in events]
    if not rows:
        return ""
    return format_table(EVENT_WIDE_COLUMNS if wide else EVENT_COLUMNS, rows)


def _event_age(event: dict[str, Any], now: datetime) -> str:
    """The Age cell of describe: `10s`, or `4s (x3 over 2m)` for a repeated event."""
    if event.get("eventTime"):
        first_seen = translate_timestamp_since(event["eventTime"], now)
    else:
        first_seen = translate_timestamp_since(event.get("firstTimestamp"), now)
    if event.get("series"):
        series = event["series"]
        last_seen = translate_timestamp_since(series.get("lastObservedTime"), now)
        return f"{last_seen} (x{series.get('count', 0)} over {first_seen})"
    if (event.get("count") or 0) > 1:
        last_seen = translate_timestamp_since(event.get("lastTimestamp"), now)
        return f"{last_seen} (x{event['count']} over {first_seen})"
    return first_seen


_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


def _last_timestamp_key(event: dict[str, Any]) -> datetime:
    return parse_time(event.get("lastTimestamp")) or _ZERO_TIME


def describe_events(w: PrefixWriter, events: list[dict[str, Any]], now: datetime) -> None:
    """DescribeEvents: sorted by lastTimestamp, `<none>` when there are none."""
    if not events:
        w.write(LEVEL_0, "Events:\t<none>\n")
        return
    w.write(LEVEL_0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(LEVEL_1, "----\t------\t----\t----\t-------\n")
    for event in sorted(events, key=_last_timestamp_key):
        source = (event.get("source") or {}).get("component") or event.get("reportingComponent", "")
        message = str(event.get("message", "")).strip()
        age = _event_age(event, now)
        w.write(
            LEVEL_1,
            f"{event.get('type', '')}\t{event.get('reason', '')}\t{age}\t{source}\t{message}\n",
        )


EVENTS_COLUMNS = ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")


def _event_time_key(event: dict[str, Any]) -> datetime:
    """eventTime (events.go): the series' last observation, else lastTimestamp, else
    eventTime, what `kubectl events` sorts by."""
    series = event.get("series") or {}
    moment = parse_time(series.get("lastObservedTime")) if series else None
    return (
        moment
        or parse_time(event.get("lastTimestamp"))
        or parse_time(event.get("eventTime"))
        or _ZERO_TIME
    )


def kubectl_events(events: Iterable[dict[str, Any]], now: datetime, *, all_namespaces: bool = False,
                   headers: bool = True) -> str:  # fmt: skip
    """`kubectl events` (events_printer.go printOneEvent): sorted by time, LAST SEEN as
    getInterval words it (`4s (x3 over 2m)`), OBJECT as `Kind/name`."""
    from webapp.kubectl.gosort import go_sort

    ordered = list(events)  # as the API server lists them, then sort.Sort (not stable)
    go_sort(ordered, lambda x, y: _event_time_key(x) < _event_time_key(y))
    rows = []
    for event in ordered:
        involved = event.get("involvedObject") or {}
        row = [_event_age(event, now), event.get("type", ""), event.get("reason", ""),
               f"{involved.get('kind', '')}/{involved.get('name', '')}",
               str(event.get("message", "")).strip()]  # fmt: skip
        if all_namespaces:
            row.insert(0, (event.get("metadata") or {}).get("namespace", ""))
        rows.append(row)
    header = ("NAMESPACE", *EVENTS_COLUMNS) if all_namespaces else EVENTS_COLUMNS
    text = format_table(header, rows)
    return text if headers else text.split("\n", 1)[1]
