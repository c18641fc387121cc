"""Virtual time as the API shows it: RFC 3339 timestamps and Go duration strings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# Virtual second 0 (the Pod's creation) is this instant in every API timestamp.
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
EPOCH_UNIX_S = int(EPOCH.timestamp())

_rfc3339_cache: dict[int, str] = {}


def rfc3339(ms: int) -> str:
    """``metav1.Time`` as JSON: whole seconds, UTC, ``Z`` suffix."""
    seconds = ms // 1000
    text = _rfc3339_cache.get(seconds)
    if text is None:
        text = (EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
        if len(_rfc3339_cache) < 100_000:
            _rfc3339_cache[seconds] = text
    return text


def wall_time(ms: int) -> datetime:
    return EPOCH + timedelta(milliseconds=ms)


def unix_nano(ms: int) -> int:
    return (EPOCH_UNIX_S * 1000 + ms) * 1_000_000


def go_duration(ms: int) -> str:
    """``time.Duration.String()`` of a duration truncated to milliseconds.

    ``512ms``, ``1.234s``, ``2s``, ``1m2.5s``, ``1h0m0s``, ``0s``.
    """
    if ms == 0:
        return "0s"
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    if ms < 1000:
        return f"{sign}{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    text = f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    if minutes:
        return f"{sign}{minutes}m{text}"
    return sign + text


def seconds(ms: int) -> float:
    """Virtual milliseconds as the float seconds the public API uses."""
    return ms / 1000


def to_ms(value: float) -> int:
    """Seconds (from a document or an action) to integer milliseconds."""
    return round(float(value) * 1000)
