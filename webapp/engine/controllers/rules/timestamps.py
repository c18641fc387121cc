"""API timestamps (RFC 3339, whole seconds) to and from virtual float seconds."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from webapp.engine.core.timefmt import EPOCH, rfc3339, to_ms


@lru_cache(maxsize=4096)
def to_seconds(value: str | None) -> float | None:
    """Virtual seconds of an API timestamp; None for an unset (zero) time. Cached: rules
    compare the same few timestamps many times (deletion ranking, sorting)."""
    if not value:
        return None
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return (moment - EPOCH).total_seconds()


def timestamp(seconds: float) -> str:
    """The API's ``metav1.Time`` text for virtual second ``seconds`` (truncated to 1 s)."""
    return rfc3339(to_ms(seconds))
