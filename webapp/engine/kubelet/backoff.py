"""Per-key exponential backoff: a port of client-go ``flowcontrol.Backoff``.

Source: ``staging/src/k8s.io/client-go/util/flowcontrol/backoff.go``. The kubelet uses one
instance for container restarts (CrashLoopBackOff, keyed by container) and one for image
pulls (ImagePullBackOff, keyed by pod UID and image). Times are integer virtual
milliseconds and there is no jitter: the kubelet builds both with ``NewBackOff``.

How the kubelet uses it (``kuberuntime_manager.go`` doBackOff):

    if restart_backoff.is_in_backoff_since(key, finished_at_ms, now_ms):
        ...  # CrashLoopBackOff, do not start
    else:
        restart_backoff.next(key, now_ms, finished_at_ms)
        ...  # start the container now

so the first restart is immediate and the gaps after each crash are 0, 10, 20, 40 … 300 s,
measured from the crash's finishedAt (KUBERNETES-SEMANTICS §4).
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field

# pkg/kubelet/kubelet.go: initialCrashLoopBackOff, MaxCrashLoopBackOff (= MaxContainerBackOff).
CRASH_LOOP_INITIAL_MS = 10_000
CRASH_LOOP_MAX_MS = 300_000
# pkg/kubelet/kubelet.go: backOffPeriod, MaxImageBackOff.
IMAGE_BACKOFF_INITIAL_MS = 10_000
IMAGE_BACKOFF_MAX_MS = 300_000


@dataclass
class BackoffEntry:
    """``backoffEntry``: the current window and when ``Next`` last moved it."""

    backoff_ms: int
    last_update_ms: int


@dataclass
class Backoff:
    """``flowcontrol.Backoff`` without a clock: every call takes the virtual time."""

    initial_ms: int
    max_ms: int
    per_item_backoff: dict[str, BackoffEntry] = field(default_factory=dict)

    def get(self, key: str) -> int:
        """``Get``: the current backoff window of ``key`` in ms, 0 when there is none."""
        entry = self.per_item_backoff.get(key)
        return entry.backoff_ms if entry else 0

    def next(self, key: str, now_ms: int, event_time_ms: int | None = None) -> None:
        """``Next(id, eventTime)``: start at ``initial_ms`` or double, capped at ``max_ms``.

        Expiry is judged against ``event_time_ms`` (the kubelet passes the crash's
        finishedAt; defaults to ``now_ms``); lastUpdate becomes ``now_ms`` (Clock.Now()).
        """
        event_ms = now_ms if event_time_ms is None else event_time_ms
        entry = self.per_item_backoff.get(key)
        if entry is None or self._has_expired(event_ms, entry.last_update_ms):
            entry = BackoffEntry(backoff_ms=self.initial_ms, last_update_ms=now_ms)
            self.per_item_backoff[key] = entry
        else:
            entry.backoff_ms = min(entry.backoff_ms * 2, self.max_ms)
        entry.last_update_ms = now_ms

    def reset(self, key: str) -> None:
        """``Reset`` / ``DeleteEntry``: forget ``key``."""
        self.per_item_backoff.pop(key, None)

    def is_in_backoff_since(self, key: str, event_time_ms: int, now_ms: int) -> bool:
        """``IsInBackOffSince``: ``now - eventTime`` is still inside the current window."""
        entry = self.per_item_backoff.get(key)
        if entry is None or self._has_expired(event_time_ms, entry.last_update_ms):
            return False
        return now_ms - event_time_ms < entry.backoff_ms

    def is_in_backoff_since_update(self, key: str, now_ms: int) -> bool:
        """``IsInBackOffSinceUpdate``: ``now - lastUpdate`` is inside the current window.

        The image manager checks pulls this way, so the window runs from the failed pull.
        """
        entry = self.per_item_backoff.get(key)
        if entry is None or self._has_expired(now_ms, entry.last_update_ms):
            return False
        return now_ms - entry.last_update_ms < entry.backoff_ms

    def gc(self, now_ms: int) -> None:
        """``GC``: drop entries not updated for more than ``2 * max_ms``."""
        for key in [k for k, e in self.per_item_backoff.items() if self._stale(e, now_ms)]:
            del self.per_item_backoff[key]

    def copy(self) -> Backoff:
        """An independent copy (for snapshots and replay)."""
        return _copy.deepcopy(self)

    def _stale(self, entry: BackoffEntry, now_ms: int) -> bool:
        return now_ms - entry.last_update_ms > self.max_ms * 2

    def _has_expired(self, event_time_ms: int, last_update_ms: int) -> bool:
        """``hasExpired``: stable when nothing happened for more than twice the max."""
        return event_time_ms - last_update_ms > self.max_ms * 2


def new_crash_loop_backoff() -> Backoff:
    """``newCrashLoopBackOff`` with default kubelet config: 10 s doubling to 300 s."""
    return Backoff(CRASH_LOOP_INITIAL_MS, CRASH_LOOP_MAX_MS)


def new_image_backoff() -> Backoff:
    """The image manager's pull backoff: 10 s doubling to 300 s."""
    return Backoff(IMAGE_BACKOFF_INITIAL_MS, IMAGE_BACKOFF_MAX_MS)
