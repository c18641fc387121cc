"""The collector and the allocator with many sessions (issue 26, F1).

A full (generation 2) collection of CPython's cyclic garbage collector walks every object
the process holds, with the GIL held: with thirty heavy cluster runs (about 20,000 objects
each, 680,000 in all) one took 2 s, and every thread (the scheduler's pacing of every other
player) waited for it. So:

- `settle()` (the scheduler calls it once a second): after a full collection has run,
  what survived it is frozen (`gc.freeze`): later full collections walk only what is newer,
  so their pauses follow what was made since, not everything every session holds.
- `release()` (when sessions were freed, `freed()`: at most once per RELEASE_SECONDS):
  frozen objects are never collected, and a session's objects refer to each other in
  cycles, so a freed session's memory comes back only once they are unfrozen and
  collected: `release` does that (one full collection: a pause), then hands the freed
  pages back to the system (`malloc_trim`, glibc) so the process's RSS goes down.
- `dropped()`: a session or a history was let go some other way than the reaper (evicted to
  make room, handed to another worker, a new scenario applied, a seek back replaying the
  history): marked for the next release, without one at once (the caller is a handler).
  Without it, sessions evicted or restarted after they were frozen stayed in memory for
  good (bench/freeze.py: 13 of 15 evicted heavy runs alive after 5 rounds, +60 MB). (No
  release on the frozen count growing: it grows with every live session too, and a release
  with thirty heavy runs alive is a 2 s full collection: tests/dos/test_pacing.py.)
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import threading
import time

log = logging.getLogger(__name__)

# At most one release this often: on a busy server sessions are freed every few seconds,
# and each release is a full collection; the sessions freed in between wait for the next.
RELEASE_SECONDS = 30.0

_lock = threading.Lock()
_full_collections = 0
_released_at = float("-inf")
_pending = False
_freezes = 0  # how many times objects were frozen (`freezes()`)


def _trim() -> None:
    with contextlib.suppress(Exception):  # not glibc: nothing to hand back this way
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def settle() -> bool:
    """Freeze what survived the last full collection, once after each; True if it did."""
    global _full_collections, _freezes
    full = gc.get_stats()[2]["collections"]
    with _lock:
        if full == _full_collections:
            return False
        _full_collections = full
        _freezes += 1
    gc.freeze()
    return True


def freed(now: float | None = None) -> float | None:
    """Sessions were freed: `release` now, or at the first call (of this or `settle`) at
    least RELEASE_SECONDS after the last one. Returns the seconds a release took, if one
    ran."""
    global _pending
    _pending = True
    return _due(time.monotonic() if now is None else now)


def freezes() -> int:
    """A mark to pass to `dropped` later: objects made after it were not frozen unless a
    freeze ran since."""
    return _freezes


def dropped(made_at: int | None = None) -> None:
    """A session or a run was let go outside the reaper: collect it at the next release
    (within RELEASE_SECONDS; the scheduler's `settle_or_release` runs it). With `made_at`
    (`freezes()` when it was made), only if a freeze ran since: else nothing of it is
    frozen, and the collector frees it as any other garbage (a seek storm's replays)."""
    global _pending
    if made_at is None or made_at != _freezes:
        _pending = True


def _due(now: float) -> float | None:
    global _released_at, _pending
    if not _pending or now - _released_at < RELEASE_SECONDS:
        return None
    _pending = False
    _released_at = now
    return release()


def settle_or_release(now: float | None = None) -> None:
    """Once a second: a release that waited for its turn, else `settle`."""
    if _due(time.monotonic() if now is None else now) is None:
        settle()


def release() -> float:
    """Collect what freed sessions left (unfreezing first) and return the pages to the
    system; returns the seconds it took."""
    global _full_collections, _freezes
    started = time.perf_counter()
    with _lock:
        gc.unfreeze()
        gc.collect()
        _full_collections = gc.get_stats()[2]["collections"]
        _freezes += 1
        gc.freeze()
    _trim()
    took = time.perf_counter() - started
    log.info("freed sessions collected in %.2f s", took)
    return took
