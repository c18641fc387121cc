"""The transition log: every change the page animates, with its stage and step.

See docs/internals.md for the format and the step vocabulary.
"""

from __future__ import annotations

import bisect
import pickle
import sys
import zlib
from array import array
from collections.abc import Iterator
from typing import Any

STAGE_OF_STEP = {
    "submitted": 1, "scheduling": 1, "scheduled": 1, "kubelet": 1, "pull": 1, "volumes": 1,
    "init": 2, "sidecar": 2,
    "start": 3, "postStart": 3, "startupProbe": 3,
    "running": 4, "liveness": 4, "readiness": 4, "exit": 4, "backoff": 4,
    "endpoints": 5, "preStop": 5, "sigterm": 5, "grace": 5, "sigkill": 5, "removed": 5,
    "outcome": 5,
}  # fmt: skip


def container_place(
    step: str, kind: str, *, deleting: bool, stopping: bool
) -> tuple[str, int | None]:
    """(step, stage) of a transition about one container of the given kind.

    Init containers and sidecars have their place in stage 2 (step ``init`` / ``sidecar``):
    their start, exit, back-off, probes and readiness. Stage-1 steps (image pull, config)
    stay in stage 1; a sidecar stopped because the Pod is shutting down (``stopping``) is
    stage 5, and so is everything once the Pod is being deleted. ``None``: the step's stage.
    """
    if deleting:
        return step, 5
    if kind not in ("init", "sidecar") or STAGE_OF_STEP[step] == 1:
        return step, None
    if kind == "sidecar" and stopping:
        return step, 5
    return kind, 2


REPEATABLE_PREFIX = "probe."  # only probe runs repeat unchanged, tick after tick


class TransitionLog:
    """An append-only log of transition dicts (``sim.transitions``, a :class:`RecordLog`),
    with runs.

    A probe run that repeats the previous run of the same probe unchanged, one period later,
    does not add an item: it extends that item's ``repeat``
    ``{"every": seconds, "count": n, "until": t}`` (``count`` runs in all, at ``t``,
    ``t + every`` ... ``until``; docs/internals.md). ``revision`` counts changes and
    ``extended`` maps the seq of each extended item of an open run to the revision of its
    last extension, oldest first; closed runs' pairs go to two compact arrays (by revision),
    and :meth:`extended_since` reads both, so a reader can send only what changed since it
    last looked.
    """

    __slots__ = ("_closed_revisions", "_closed_seqs", "_runs", "_values", "extended", "items", "revision")  # fmt: skip

    def __init__(self) -> None:
        self.items = RecordLog()
        # Small values that recur (a container state summary, {"state": "running", ...}),
        # each kept once: items never change their before / after (docs/limits.md, memory).
        self._values: dict[tuple, dict] = {}
        # (object, field) -> [item, last ms, every ms or None]: the run a repeat may extend
        self._runs: dict[tuple[str, str], list] = {}
        self.revision = 0
        self.extended: dict[int, int] = {}
        # (seq, revision of its last extension) of closed runs, by revision (docs/limits.md)
        self._closed_seqs = array("q")
        self._closed_revisions = array("q")

    def extended_since(self, revision: int) -> list[int]:
        """The seqs of the items whose ``repeat`` grew after ``revision`` (any order)."""
        found = []
        for seq, extended_at in reversed(self.extended.items()):
            if extended_at <= revision:
                break
            found.append(seq)
        start = bisect.bisect_right(self._closed_revisions, revision)
        found.extend(self._closed_seqs[start:])
        return found

    def _close(self, run: list | None) -> None:
        """``run`` will never grow again: its pair leaves ``extended`` for the arrays."""
        if run is None:
            return
        seq = run[0]["seq"]
        extended_at = self.extended.pop(seq, None)
        if extended_at is not None:
            at = bisect.bisect_right(self._closed_revisions, extended_at)
            self._closed_revisions.insert(at, extended_at)
            self._closed_seqs.insert(at, seq)

    def record(
        self,
        ms: int,
        step: str,
        obj: str,
        field: str,
        before: Any,
        after: Any,
        cause: str,
        *,
        container: str | None = None,
        stage: int | None = None,
        seconds: float | None = None,
    ) -> None:
        stage = stage if stage is not None else STAGE_OF_STEP[step]
        if field.startswith(REPEATABLE_PREFIX) and seconds is None:
            key = (obj, field)
            if before == after:
                run = self._runs.get(key)
                if run is not None and _same(run[0], stage, step, container, after, cause):
                    every = run[2]
                    if (every is None and ms > run[1]) or (
                        every is not None and ms - run[1] == every
                    ):
                        self._extend(run, ms, 1, ms - run[1])
                        return
                item = self._append(
                    ms, step, obj, field, before, after, cause, container, stage, None
                )
                self._close(self._runs.get(key))
                self._runs[key] = [item, ms, None]
                return
            self._close(self._runs.pop(key, None))
        self._append(ms, step, obj, field, before, after, cause, container, stage, seconds)

    def run_of(self, obj: str, field: str) -> list | None:
        """The open run of a probe: ``[item, last ms, every ms or None]``, or None."""
        return self._runs.get((obj, field))

    def extend_run(self, obj: str, field: str, count: int, last_ms: int) -> None:
        """``count`` more runs of an open run whose period is known, the last at ``last_ms``
        (what ``count`` calls of :meth:`record`, one period apart, would do)."""
        run = self._runs[(obj, field)]
        assert run[2] is not None and last_ms == run[1] + count * run[2]
        self._extend(run, last_ms, count, run[2])

    def _extend(self, run: list, ms: int, count: int, every_ms: int) -> None:
        item = run[0]
        repeat = item.get("repeat")
        if repeat is None:
            item["repeat"] = {"every": every_ms / 1000, "count": 1 + count, "until": ms / 1000}
        else:
            repeat["count"] += count
            repeat["until"] = ms / 1000
        run[1], run[2] = ms, every_ms
        self.revision += 1
        seq = item["seq"]
        self.extended.pop(seq, None)
        self.extended[seq] = self.revision

    def _shared(self, value: Any) -> Any:
        """``value``, or an equal one this log already holds (a flat dict of scalars)."""
        if type(value) is not dict or len(value) > 8 or not all(map(_scalar, value.values())):
            return sys.intern(value) if type(value) is str else value
        key = tuple((k, type(v), v) for k, v in value.items())  # True is not 1, nor 1.0
        shared = self._values.get(key)
        if shared is None and len(self._values) < 1024:
            shared = self._values[key] = value
        return value if shared is None else shared

    def _append(self, ms, step, obj, field, before, after, cause, container, stage, seconds) -> dict:  # fmt: skip
        # Names and messages repeat thousands of times in a long run: one string each.
        intern = sys.intern
        item = {
            "seq": len(self.items),
            "t": ms / 1000,
            "stage": stage,
            "step": intern(step),
            "object": intern(obj),
            "container": container if container is None else intern(container),
            "field": intern(field),
            "before": self._shared(before),
            "after": self._shared(after),
            "cause": intern(cause),
        }
        if seconds is not None:
            item["seconds"] = seconds  # a back-off wait starts: its length (docs/internals.md)
        self.items.append(item, self._runs)
        self.revision += 1
        return item


PACK_CHUNK = 64  # closed records packed per compressed chunk (docs/limits.md, memory)


class RecordLog:
    """The items of a :class:`TransitionLog` (``sim.transitions``), kept compactly.

    A sequence of transition dicts (``len``, indexing, slicing to a list, iteration) like
    the pod watch history (core/versions.py): the newest ``2 * PACK_CHUNK`` items are kept as
    they are; older ones are packed, ``PACK_CHUNK`` at a time, into one compressed pickle each
    (their names, causes and state summaries stored once per chunk). Only closed items never
    change again; an item that is the open run of a probe may still grow its ``repeat``, so
    when its chunk is packed it stays out, *pinned* as it is (a placeholder in the chunk),
    until a chunk's worth of pinned items are closed: then they are packed into their chunks.
    Reading a packed item unpacks its chunk: a copy, as good as the original since it never
    changes. :meth:`head` is a log of the first items sharing the packed chunks (a
    checkpoint's restore); assigning an item (``log[seq] = item``) pins it.
    """

    __slots__ = ("_packed", "_pinned", "_recent")

    def __init__(self) -> None:
        self._packed: list[bytes] = []  # PACK_CHUNK items each, oldest first
        self._pinned: dict[int, dict] = {}  # seq -> an item kept out of its packed chunk
        self._recent: list[dict] = []

    def __len__(self) -> int:
        return len(self._packed) * PACK_CHUNK + len(self._recent)

    def __bool__(self) -> bool:
        return bool(self._recent) or bool(self._packed)

    def append(self, item: dict, runs: dict | None = None) -> None:
        """Add ``item``; the items of open ``runs`` (``[item, ...]`` each) stay unpacked."""
        recent = self._recent
        recent.append(item)
        if len(recent) >= 2 * PACK_CHUNK:
            base = len(self._packed) * PACK_CHUNK
            chunk: list[dict | None] = recent[:PACK_CHUNK]
            open_items = {id(run[0]) for run in (runs or {}).values()}
            for i, value in enumerate(chunk):
                if id(value) in open_items:
                    self._pinned[base + i] = value
                    chunk[i] = None
            self._packed.append(_pack(chunk))
            del recent[:PACK_CHUNK]
            # Runs close (a container restarts): their pinned items never change again.
            # Once there are a chunk's worth, put them in their chunks (packed anew).
            closed = [seq for seq, value in self._pinned.items() if id(value) not in open_items]
            if len(closed) >= PACK_CHUNK:
                self._repack(closed)

    def _repack(self, seqs: list[int]) -> None:
        """Pack the pinned items ``seqs`` into their chunks (the others stay pinned)."""
        pinned = self._pinned
        for number in sorted({seq // PACK_CHUNK for seq in seqs}):
            chunk: list[dict | None] = self._chunk(number)
            base = number * PACK_CHUNK
            leaving = [seq for seq in seqs if seq // PACK_CHUNK == number]
            for i in range(PACK_CHUNK):
                if base + i in pinned and base + i not in leaving:
                    chunk[i] = None
            # The new chunk first, then the pinned items go: a reader in between finds each
            # item in one place or the other, never a hole.
            self._packed[number] = _pack(chunk)  # heads keep their own list of chunks
            for seq in leaving:
                del pinned[seq]

    def _chunk(self, number: int) -> list[dict]:
        items: list[Any] = pickle.loads(zlib.decompress(self._packed[number]))
        pinned = self._pinned
        if pinned:
            base = number * PACK_CHUNK
            for i in range(PACK_CHUNK):
                value = pinned.get(base + i)
                if value is not None:
                    items[i] = value
        return items

    def __iter__(self) -> Iterator[dict]:
        for number in range(len(self._packed)):
            yield from self._chunk(number)
        yield from list(self._recent)

    def _index(self, index: int) -> int:
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("transition index out of range")
        return index

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return list(self._range(start, stop))
            return list(self)[index]
        index = self._index(index)
        packed_items = len(self._packed) * PACK_CHUNK
        if index >= packed_items:
            return self._recent[index - packed_items]
        pinned = self._pinned.get(index)
        if pinned is not None:
            return pinned
        return self._chunk(index // PACK_CHUNK)[index % PACK_CHUNK]

    def pick(self, seqs: list[int]) -> list[dict]:
        """The items at the (sorted, valid) indexes ``seqs``, each packed chunk unpacked once."""
        packed_items = len(self._packed) * PACK_CHUNK
        found, number, chunk = [], -1, []
        for seq in seqs:
            if seq >= packed_items:
                found.append(self._recent[seq - packed_items])
                continue
            if seq // PACK_CHUNK != number:
                number = seq // PACK_CHUNK
                chunk = self._chunk(number)
            found.append(chunk[seq % PACK_CHUNK])
        return found

    def __setitem__(self, index: int, item: dict) -> None:
        index = self._index(index)
        packed_items = len(self._packed) * PACK_CHUNK
        if index >= packed_items:
            self._recent[index - packed_items] = item
        else:
            self._pinned[index] = item

    def _range(self, start: int, stop: int) -> Iterator[dict]:
        packed_items = len(self._packed) * PACK_CHUNK
        for number in range(start // PACK_CHUNK, min(len(self._packed), -(-stop // PACK_CHUNK))):
            first = number * PACK_CHUNK
            yield from self._chunk(number)[max(start - first, 0) : stop - first]
        yield from self._recent[max(start - packed_items, 0) : max(stop - packed_items, 0)]

    def head(self, count: int) -> RecordLog:
        """The first ``count`` items, as a log sharing the packed chunks."""
        head = RecordLog()
        full = min(count // PACK_CHUNK, len(self._packed))
        head._packed = self._packed[:full]
        head._pinned = {seq: v for seq, v in self._pinned.items() if seq < full * PACK_CHUNK}
        rest = count - full * PACK_CHUNK
        if full < len(self._packed):
            head._recent = self._chunk(full)[:rest]
        else:
            head._recent = self._recent[:rest]
        return head

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordLog | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RecordLog({len(self)} items, {len(self._packed)} packed chunks)"


def _pack(chunk: list[dict | None]) -> bytes:
    return zlib.compress(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL), 1)


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _same(item: dict, stage: int, step: str, container: str | None, after: Any, cause: str) -> bool:
    return (
        item["after"] == after
        and item["before"] == after
        and item["cause"] == cause
        and item["step"] == step
        and item["stage"] == stage
        and item["container"] == container
    )


def expand_runs(items: list[dict]) -> list[dict]:
    """Every transition as if none were compacted: a run becomes ``count`` items (each
    without ``repeat``), ordered by time (stable). For tests and readers that want each."""
    out: list[dict] = []
    for item in items:
        repeat = item.get("repeat")
        if repeat is None:
            out.append(item)
            continue
        plain = {k: v for k, v in item.items() if k != "repeat"}
        every_ms = round(repeat["every"] * 1000)
        first_ms = round(item["t"] * 1000)
        out.extend({**plain, "t": (first_ms + i * every_ms) / 1000} for i in range(repeat["count"]))
    return sorted(out, key=lambda item: item["t"])
