"""Token buckets: at most `rate` requests a second on average, `burst` at once.

Flask-Limiter does not see Socket.IO events (TECH-NOTES, "Load and input limits"), so the
Socket.IO handlers (per client sid) and the share API (per remote address) use these.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from webapp.redis_client import bounded_redis

log = logging.getLogger(__name__)


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


# -- limits every worker and host shares (Redis) ----------------------------------------------

# One token bucket in a Redis hash, taken atomically with Redis's own clock (every process
# and host sees the same time): KEYS[1] the bucket; ARGV rate, burst, take (1 or 0: only
# look), the key's lifetime in ms (long enough to refill completely; a full bucket is the
# same as none).
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst, take = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens, updated = tonumber(b[1]), tonumber(b[2])
if tokens == nil or updated == nil then tokens, updated = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - updated) * rate)
if tokens < 1 then return 0 end
if take == 1 then
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens - 1),
             'updated', string.format('%.6f', now))
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 1
"""


class SharedRateLimiter:
    """A RateLimiter whose buckets live in Redis: the limit holds for every worker and
    host together (`PLAYGROUND_REDIS_URL`), not once per process. The same interface.

    While Redis cannot be reached each process falls back to its own buckets (`local`):
    the limit then holds per process, as without Redis, rather than not at all; the first
    failure is logged, and Redis is tried again after RETRY_SECONDS."""

    RETRY_SECONDS = 5.0

    def __init__(
        self,
        client: Any,
        name: str,
        rate: float,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.name = name
        self.local = RateLimiter(rate, burst, clock=clock)
        self.rate, self.burst = self.local.rate, self.local.burst
        self.clock = clock
        refill = self.burst / self.rate if self.rate > 0 else 86400.0
        self.ttl_ms = int(min(refill, 86400.0) * 1000) + 1000
        self._script = client.register_script(_TAKE)
        self._down_until = float("-inf")

    def _key(self, key: Hashable) -> str:
        return f"playground:rate:{self.name}:{key}"

    def _ask(self, key: Hashable, take: bool) -> bool | None:
        if self.clock() < self._down_until:
            return None
        try:
            answer = self._script(
                keys=[self._key(key)], args=[self.rate, self.burst, 1 if take else 0, self.ttl_ms]
            )
        except Exception as error:  # redis' errors: its connection, memory, read-only
            if self._down_until == float("-inf"):
                log.warning("rate limit %s: Redis cannot be used (%s): per process", self.name,
                            type(error).__name__)  # fmt: skip
            self._down_until = self.clock() + self.RETRY_SECONDS
            return None
        return bool(answer)

    def allow(self, key: Hashable) -> bool:
        shared = self._ask(key, True)
        return self.local.allow(key) if shared is None else shared

    def available(self, key: Hashable) -> bool:
        shared = self._ask(key, False)
        return self.local.available(key) if shared is None else shared

    def forget(self, key: Hashable) -> None:
        self.local.forget(key)

    def __len__(self) -> int:
        return len(self.local)


def shared_limiter(
    config: Any, name: str, rate: float, burst: float | None = None
) -> RateLimiter | SharedRateLimiter:
    """A limit per client address or for everyone: in Redis when REDIS_URL is set (every
    worker and host together), else in this process."""
    url = config.get("REDIS_URL")
    if not url:
        return RateLimiter(rate, burst)
    return SharedRateLimiter(_redis_for(str(url)), name, rate, burst)


_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def _redis_for(url: str) -> Any:
    """One small client per URL and process for the limits (a few connections: each use
    is one short script call)."""
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = bounded_redis(url, 20)
        return client
