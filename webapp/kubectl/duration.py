"""Go's `k8s.io/apimachinery/pkg/util/duration`: HumanDuration and ShortHumanDuration.

Both take a duration the way Go does (whole nanoseconds, truncated toward zero when
converted to seconds) so boundary values print exactly as kubectl prints them.
"""

from __future__ import annotations

from datetime import timedelta

_NANOS_PER_SECOND = 1_000_000_000
_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
_YEAR = 365 * _DAY


def _to_nanoseconds(duration: float | timedelta) -> int:
    if isinstance(duration, timedelta):
        return (duration // timedelta(microseconds=1)) * 1000
    return round(duration * _NANOS_PER_SECOND)


def _whole_seconds(nanoseconds: int) -> int:
    """int(d.Seconds()) in Go: truncation toward zero."""
    if nanoseconds < 0:
        return -(-nanoseconds // _NANOS_PER_SECOND)
    return nanoseconds // _NANOS_PER_SECOND


def human_duration(seconds: float | timedelta) -> str:
    """duration.HumanDuration: about 2-3 significant figures, e.g. `2m10s`, `7d23h`, `2y1d`.

    Durations just below zero (down to -1 s) print `0s`, to tolerate clock skew; further
    below zero print `<invalid>`.
    """
    nanoseconds = _to_nanoseconds(seconds)
    whole = _whole_seconds(nanoseconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 2 * _MINUTE:
        return f"{whole}s"
    minutes = whole // _MINUTE
    if minutes < 10:
        rest = whole % _MINUTE
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 3 * 60:
        return f"{minutes}m"
    hours = whole // _HOUR
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


def short_human_duration(seconds: float | timedelta) -> str:
    """duration.ShortHumanDuration: one unit only, e.g. `59s`, `1m`, `23h`, `364d`, `2y`."""
    nanoseconds = _to_nanoseconds(seconds)
    whole = _whole_seconds(nanoseconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < _MINUTE:
        return f"{whole}s"
    if whole < _HOUR:
        return f"{whole // _MINUTE}m"
    if whole < _DAY:
        return f"{whole // _HOUR}h"
    if whole < _YEAR:
        return f"{whole // _DAY}d"
    return f"{whole // _YEAR}y"
