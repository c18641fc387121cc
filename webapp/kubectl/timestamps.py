"""Timestamps as the API carries them (RFC 3339) and as kubectl prints them."""

from __future__ import annotations

from datetime import UTC, datetime

from webapp.kubectl.duration import human_duration

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def parse_time(value: str | None) -> datetime | None:
    """An RFC 3339 API timestamp (`metav1.Time` or `MicroTime`) as an aware datetime."""
    if not value:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def human_duration_since(moment: datetime, now: datetime) -> str:
    """HumanDuration(now - moment)."""
    return human_duration(_aware(now) - _aware(moment))


def translate_timestamp_since(value: str | None, now: datetime) -> str:
    """translateTimestampSince: HumanDuration(now - timestamp), `<unknown>` when unset."""
    moment = parse_time(value)
    if moment is None:
        return "<unknown>"
    return human_duration_since(moment, now)


def format_rfc1123z(value: str | None) -> str:
    """Go's time.RFC1123Z layout, e.g. `Thu, 01 Jan 2026 00:00:00 +0000`.

    An unset timestamp prints Go's zero time, as kubectl does for a zero `metav1.Time`.
    """
    moment = parse_time(value)
    if moment is None:
        return "Mon, 01 Jan 0001 00:00:00 +0000"
    offset = moment.strftime("%z") or "+0000"
    return (
        f"{_WEEKDAYS[moment.weekday()]}, {moment.day:02d} {_MONTHS[moment.month - 1]} "
        f"{moment.year:04d} {moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} {offset}"
    )
