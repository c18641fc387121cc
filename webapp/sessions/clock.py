"""A session's play/pause/speed state and how it maps wall seconds to virtual seconds.

Pacing is anchored: while playing, virtual time is `anchor_virtual + (wall - anchor_wall) *
speed`, so rounding never accumulates. The anchor is taken lazily, by the first pacing tick
after a change, so handlers never need to read the wall clock (and tests can drive the
wall clock by hand).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_SPEED = 0.5
MAX_SPEED = 100.0


def valid_speed(value: float) -> bool:
    return math.isfinite(value) and MIN_SPEED <= value <= MAX_SPEED


@dataclass
class SessionClock:
    end: float  # the last virtual second a session can reach; it pauses there
    playing: bool = False
    speed: float = 1.0
    _anchor_wall: float | None = None
    _anchor_virtual: float = 0.0

    def play(self) -> None:
        self.playing = True
        self.reanchor()

    def pause(self) -> None:
        self.playing = False
        self.reanchor()

    def set_speed(self, speed: float) -> None:
        self.speed = float(speed)
        self.reanchor()

    def reanchor(self) -> None:
        """Forget the anchor: virtual time jumped or the rate changed."""
        self._anchor_wall = None

    @property
    def anchored(self) -> bool:
        return self._anchor_wall is not None

    def wall_at(self, t: float) -> float | None:
        """The wall time at which a playing, anchored clock reaches virtual second `t`
        (None when it is paused or has no anchor yet)."""
        if not self.playing or self._anchor_wall is None:
            return None
        return self._anchor_wall + (t - self._anchor_virtual) / self.speed

    def key(self) -> tuple[object, ...]:
        """Everything a change of which moves the wall times `wall_at` gives."""
        return (self.playing, self.speed, self._anchor_wall, self._anchor_virtual)

    def target(self, wall_now: float, virtual_now: float) -> float | None:
        """The virtual second the session should be at, or None when it should not move."""
        if not self.playing:
            return None
        if self._anchor_wall is None or wall_now < self._anchor_wall:
            self._anchor_wall, self._anchor_virtual = wall_now, virtual_now
            return None
        # To the microsecond: the wall time of a due event (`wall_at`) gives back its virtual
        # second exactly, not a hair before it.
        target = round(self._anchor_virtual + (wall_now - self._anchor_wall) * self.speed, 6)
        return min(max(target, virtual_now), self.end)

    def as_wire(self) -> dict[str, object]:
        return {"playing": self.playing, "speed": self.speed, "end": self.end}
