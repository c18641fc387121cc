"""A SimPy-like discrete-event core: integer virtual milliseconds and one heap.

The heap is keyed by ``(time_ms, priority, sequence)`` so events due at the same instant run
by priority and then in the order they were scheduled, because of the data structure and not
by luck. Nothing here knows about Kubernetes; real-time pacing lives far above this module.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

# Priorities for events due at the same millisecond: the API side (actions, controllers)
# acts before the kubelet reacts, and probes tick last so they see the newest state.
URGENT = 0
NORMAL = 1
LATE = 2


@dataclass(eq=False, slots=True)
class Timer:
    """A scheduled callback. ``cancel()`` leaves it in the heap but makes it a no-op.

    ``seq`` is its place among timers due at the same time and priority (scheduling order);
    ``tag`` is whatever its owner wants to recognise it by (a probe worker's periodic tick)."""

    at_ms: int
    callback: Callable[[], None] | None
    cancelled: bool = field(default=False)
    seq: int = 0
    tag: object = None

    def cancel(self) -> None:
        self.cancelled = True
        self.callback = None


class Clock:
    """Virtual time in integer milliseconds with ``schedule``, ``peek``, ``step`` and ``run``."""

    __slots__ = ("_heap", "_sequence", "now_ms", "processed", "processes", "steps")

    def __init__(self) -> None:
        self.now_ms = 0
        self.processed = 0
        self.processes = 0  # live core.process.Process objects on this clock
        self.steps = 0  # events run one by one (``processed`` also counts coasted ticks)
        self._heap: list[tuple[int, int, int, Timer]] = []
        self._sequence = 0

    def schedule(
        self, at_ms: int, callback: Callable[[], None], priority: int = NORMAL, tag: object = None
    ) -> Timer:
        """Run ``callback`` at ``at_ms`` (never earlier than now)."""
        at_ms = max(int(at_ms), self.now_ms)
        self._sequence += 1
        timer = Timer(at_ms, callback, seq=self._sequence, tag=tag)
        heapq.heappush(self._heap, (at_ms, priority, self._sequence, timer))
        return timer

    def after(
        self,
        delay_ms: int,
        callback: Callable[[], None],
        priority: int = NORMAL,
        tag: object = None,
    ) -> Timer:
        return self.schedule(self.now_ms + int(delay_ms), callback, priority, tag)

    def peek_timer(self) -> Timer | None:
        """The next live timer (the one ``step`` would run), or None."""
        return self._heap[0][3] if self.peek() is not None else None

    def earliest_untagged(self, tag_type: type) -> int | None:
        """Time of the earliest live timer whose tag is not a ``tag_type``, or None."""
        earliest = None
        for at_ms, _, _, timer in self._heap:
            other = not timer.cancelled and not isinstance(timer.tag, tag_type)
            if other and (earliest is None or at_ms < earliest):
                earliest = at_ms
        return earliest

    def peek(self) -> int | None:
        """Time of the next live event, or None when nothing is queued."""
        heap = self._heap
        while heap and heap[0][3].cancelled:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def due_by(self, until_ms: int) -> bool:
        """Whether a live event is queued at or before `until_ms` (a run at `now` that has
        not yet run what is due then: only one that was never advanced)."""
        next_ms = self.peek()
        return next_ms is not None and next_ms <= until_ms

    def step(self) -> bool:
        """Run the next live event; False when the queue is empty."""
        if self.peek() is None:
            return False
        at_ms, _, _, timer = heapq.heappop(self._heap)
        self.now_ms = at_ms
        callback = timer.callback
        timer.cancel()
        self.processed += 1
        self.steps += 1
        callback()
        return True

    def run(self, until_ms: int) -> None:
        """Run every event due at or before ``until_ms``, then set the clock to it."""
        while True:
            next_ms = self.peek()
            if next_ms is None or next_ms > until_ms:
                break
            self.step()
        self.now_ms = max(self.now_ms, int(until_ms))
