"""JSON for Socket.IO packets that reuses the text of unchanged parts of a tick.

Between two ticks of a playing session usually only `seq`, `now` and `sentAt` differ: the
Pod, its events, the Nodes and the rendered views are the same objects. A `WirePayload`
carries the JSON text of such parts, computed once when they changed, and `dumps` splices
it in instead of encoding them again. Given to Socket.IO as its `json` module, it encodes
every other packet exactly like the standard library.
"""

from __future__ import annotations

import json
from typing import Any

from webapp.sessions.payloads import loads as client_loads

_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


def encode(value: Any) -> str:
    """Compact JSON, as Socket.IO sends it."""
    return _encode(value)


# What tabs send is read with the client reader: a too-long integer is refused by the check
# of its field, by name (webapp/sessions/payloads.py `loads`).
loads = client_loads

# A snapshot's transitions as a table (`join {transitions: "table"}`; docs/limits.md,
# "Snapshot size"): the same records without their keys repeated, a third smaller. The
# columns are the keys in the order they first appear; a key some records lack is listed in
# `optional`, and its `null` means "absent" (the page drops it when it expands the rows).
_TABLE_COLUMNS = ("seq", "t", "stage", "step", "object", "container", "field", "before",
                  "after", "cause")  # fmt: skip


def transition_table(transitions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """`{columns, optional, rows}` for ``transitions``, or None when the table could not say
    the same (a record with an explicit null in a key other records lack)."""
    seen: dict[str, bool] = {}
    for item in transitions:
        for key in item:
            seen.setdefault(key, True)
    names = [key for key in _TABLE_COLUMNS if key in seen]
    names += [key for key in seen if key not in _TABLE_COLUMNS]
    optional = [key for key in names if any(key not in item for item in transitions)]
    for key in optional:
        if any(key in item and item[key] is None for item in transitions):
            return None
    rows = [[item.get(key) for key in names] for item in transitions]
    return {"columns": names, "optional": optional, "rows": rows}


class Fragments:
    """JSON texts of objects, valid only for the very object they were made from."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[Any, str]] = {}

    def put(self, key: str, value: Any, text: str) -> None:
        """`text` is the JSON of `value` (made by the caller, who had to encode it anyway)."""
        self._texts[key] = (value, text)

    def known(self, key: str) -> str | None:
        cached = self._texts.get(key)
        return cached[1] if cached is not None else None

    def text(self, key: str, value: Any) -> str:
        cached = self._texts.get(key)
        if cached is not None and cached[0] is value:
            return cached[1]
        text = _encode(value)
        self._texts[key] = (value, text)
        return text


class WirePayload(dict[str, Any]):
    """A payload dict whose listed keys are encoded through `fragments`."""

    __slots__ = ("cached_keys", "fragments")

    def __init__(self, data: dict[str, Any], fragments: Fragments, cached_keys: tuple[str, ...]):
        super().__init__(data)
        self.fragments = fragments
        self.cached_keys = cached_keys

    def to_json(self) -> str:
        parts = []
        for key, value in self.items():
            cached = key in self.cached_keys
            text = self.fragments.text(key, value) if cached else _encode(value)
            parts.append(f"{_encode(key)}:{text}")
        return "{" + ",".join(parts) + "}"


def dumps(obj: Any, *args: Any, **kwargs: Any) -> str:
    """`json.dumps`, except that a Socket.IO event `[name, WirePayload]` reuses fragments."""
    if (
        isinstance(obj, list)
        and len(obj) == 2
        and isinstance(obj[0], str)
        and isinstance(obj[1], WirePayload)
    ):
        return f"[{_encode(obj[0])},{obj[1].to_json()}]"
    return json.dumps(obj, *args, **kwargs)
