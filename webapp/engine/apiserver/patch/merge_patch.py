"""JSON merge patch (RFC 7386): ``application/merge-patch+json``."""

from __future__ import annotations

import copy
from typing import Any


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 section 2, MergePatch(Target, Patch): a new value; neither input changes."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = apply_merge_patch(result.get(name), value)
    return result


def create_merge_patch(original: Any, modified: Any) -> Any:
    """The merge patch that turns ``original`` into ``modified`` (jsonpatch.CreateMergePatch):
    changed and added members, ``null`` for removed ones, arrays whole."""
    if not isinstance(original, dict) or not isinstance(modified, dict):
        return copy.deepcopy(modified)
    patch: dict[str, Any] = {}
    for name, value in modified.items():
        if name not in original:
            patch[name] = copy.deepcopy(value)
        elif isinstance(value, dict) and isinstance(original[name], dict):
            inner = create_merge_patch(original[name], value)
            if inner:
                patch[name] = inner
        elif not same(original[name], value):
            patch[name] = copy.deepcopy(value)
    for name in original:
        if name not in modified:
            patch[name] = None
    return patch


def same(left: Any, right: Any) -> bool:
    """Deep equality of JSON values where true is not 1 (Go's reflect.DeepEqual on decoded
    JSON, where every number is a float64)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and left.keys() == right.keys()
            and all(same(v, right[k]) for k, v in left.items())
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(same(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, (int, float)):
        return isinstance(right, (int, float)) and left == right
    return type(left) is type(right) and left == right
