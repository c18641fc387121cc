"""The Redis client of the processes that share Redis (records, leases, limits)."""

from __future__ import annotations

from typing import Any


def bounded_redis(url: str, max_connections: int) -> Any:
    """A Redis client on at most `max_connections` connections; a thread that finds them
    all busy waits for one (up to 5 s) instead of failing: redis-py's default pool raises
    past 100, and a burst of hundreds of joins or class events answered internal_error
    (bench/sessions.py, bench/class_workers.py)."""
    import redis

    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=5.0,
        socket_timeout=5.0,
        socket_connect_timeout=5.0,
    )
    return redis.Redis(connection_pool=pool)
