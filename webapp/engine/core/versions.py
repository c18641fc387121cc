"""The Pod's watch history, kept compactly (docs/limits.md, "Session memory").

Every change of the Pod object is one `(t, event type, Pod)` item: in a crash loop of 20
containers, 2,600 versions in two hours, about 5 MB of dicts even with unchanged parts
shared between neighbours (`simulation.share_unchanged`). Only the newest items are read
often (the Pod as last written, the watch view's new lines), so :class:`VersionLog` keeps
the newest ``2 * CHUNK`` items as they are and packs older ones, ``CHUNK`` at a time, into
one compressed pickle each: the parts the versions of a chunk share are stored once, and a
chunk is about a twentieth of its dicts' size. Reading an old item unpacks its chunk (a new
copy each time: items are never changed in place, so a copy is as good as the original).

A log is a sequence (`len`, indexing, slicing, iteration) with `append`; a slice is a log
that shares the packed chunks, so a checkpoint's restore (`versions[:count]`) is cheap.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterator
from typing import Any

CHUNK = 64


class VersionLog:
    __slots__ = ("_packed", "_recent")

    def __init__(self, items: list[Any] | None = None) -> None:
        self._packed: list[bytes] = []  # CHUNK items each, oldest first
        self._recent: list[Any] = []
        for item in items or []:
            self.append(item)

    def __len__(self) -> int:
        return len(self._packed) * CHUNK + len(self._recent)

    def append(self, item: Any) -> None:
        recent = self._recent
        recent.append(item)
        if len(recent) >= 2 * CHUNK:
            chunk = pickle.dumps(recent[:CHUNK], protocol=pickle.HIGHEST_PROTOCOL)
            self._packed.append(zlib.compress(chunk, 1))
            del recent[:CHUNK]

    @staticmethod
    def _unpack(packed: bytes) -> list[Any]:
        items: list[Any] = pickle.loads(zlib.decompress(packed))
        return items

    def __iter__(self) -> Iterator[Any]:
        for packed in self._packed:
            yield from self._unpack(packed)
        yield from list(self._recent)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if start == 0 and step == 1:
                return self._head(stop)
            if step == 1:
                return list(self._range(start, stop))
            return list(self)[index]
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("version index out of range")
        packed_items = len(self._packed) * CHUNK
        if index >= packed_items:
            return self._recent[index - packed_items]
        return self._unpack(self._packed[index // CHUNK])[index % CHUNK]

    def _range(self, start: int, stop: int) -> Iterator[Any]:
        """Items ``start`` to ``stop``, unpacking only the chunks they are in."""
        packed_items = len(self._packed) * CHUNK
        for number in range(start // CHUNK, min(len(self._packed), -(-stop // CHUNK))):
            first = number * CHUNK
            items = self._unpack(self._packed[number])
            yield from items[max(start - first, 0) : stop - first]
        yield from self._recent[max(start - packed_items, 0) : max(stop - packed_items, 0)]

    def _head(self, count: int) -> VersionLog:
        """The first ``count`` items, as a log sharing the packed chunks."""
        head = VersionLog()
        full = min(count // CHUNK, len(self._packed))
        head._packed = self._packed[:full]
        rest = count - full * CHUNK
        if full < len(self._packed):
            head._recent = self._unpack(self._packed[full])[:rest]
        else:
            head._recent = self._recent[:rest]
        return head

    def __eq__(self, other: object) -> bool:
        if isinstance(other, VersionLog | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"VersionLog({len(self)} items, {len(self._packed)} packed chunks)"
