"""The parts of an API object dict every rule reads; absent parts read as empty."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def metadata(obj: Obj | None) -> Obj:
    return (obj or {}).get("metadata") or {}


def spec(obj: Obj | None) -> Obj:
    return (obj or {}).get("spec") or {}


def status(obj: Obj | None) -> Obj:
    return (obj or {}).get("status") or {}
