"""Token buckets: at most `rate` requests a second on average, `burst` at once.

Flask-Limiter does not see Socket.IO events (TECH-NOTES, "Load and input limits"), so the
Socket.IO handlers (per client sid) and the share API (per remote address) use these.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass


@dataclass
class TokenBucket:
    rate: float  # tokens added per second
    burst: float  # the most tokens the bucket holds
    tokens: float
    updated: float

    def take(self, now: float) -> bool:
        """Take one token if there is one; refill for the time since the last call first."""
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def full_at(self, now: float) -> bool:
        return self.tokens + max(0.0, now - self.updated) * self.rate >= self.burst


class RateLimiter:
    """One token bucket per key (a client sid, a remote address), safe across threads.

    Buckets that have refilled completely are dropped now and then, so keys that come once
    do not accumulate; `forget(key)` drops one at once (a disconnected client).
    """

    def __init__(
        self,
        rate: float,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        self.rate = float(rate)
        self.burst = float(burst if burst is not None else max(1.0, rate))
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[Hashable, TokenBucket] = {}
        self._lock = threading.Lock()

    def allow(self, key: Hashable) -> bool:
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.max_keys:
                    self._prune(now)
                bucket = TokenBucket(self.rate, self.burst, self.burst, now)
                self._buckets[key] = bucket
            return bucket.take(now)

    def available(self, key: Hashable) -> bool:
        """Whether `allow(key)` would let one more through now, taking nothing."""
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                return self.burst >= 1.0
            return bucket.tokens + max(0.0, now - bucket.updated) * bucket.rate >= 1.0

    def forget(self, key: Hashable) -> None:
        with self._lock:
            self._buckets.pop(key, None)

    def __len__(self) -> int:
        return len(self._buckets)

    def _prune(self, now: float) -> None:
        full = [key for key, bucket in self._buckets.items() if bucket.full_at(now)]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self.max_keys:
            # Every key is busy: forget the stalest half rather than grow without bound.
            stale = sorted(self._buckets, key=lambda k: self._buckets[k].updated)
            for key in stale[: len(stale) // 2]:
                del self._buckets[key]
