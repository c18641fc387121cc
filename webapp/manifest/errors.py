"""Errors as values: an unlocated `Finding`, the located error dict, and `ScenarioError`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from webapp.manifest.messages import render

PathPart = str | int
Path = tuple[PathPart, ...]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Finding:
    """An error at a path inside one document, before it is given a line and column.

    `point` says which node to show: the value at `path` (wrong type, bad value) or its key
    (unknown field, duplicate key). A path that does not exist (a missing required field) is
    shown at its nearest existing parent.
    """

    path: Path
    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    point: Literal["key", "value"] = "value"


def format_path(path: Iterable[PathPart]) -> str:
    """`("spec", "containers", 0, "image")` -> `"spec.containers[0].image"`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f'["{part}"]'
    return text


def located_error(
    doc: int, path: Path, line: int, column: int, code: str, params: Mapping[str, Any]
) -> dict[str, Any]:
    """The located error dict of docs/internals.md, message in English."""
    return {
        "doc": doc,
        "path": format_path(path),
        "line": line,
        "column": column,
        "code": code,
        "params": dict(params),
        "message": render(code, params),
    }


def sort_errors(errors: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Errors in reading order: by document, line, column (then path and code, for stability)."""
    return sorted(errors, key=lambda e: (e["doc"], e["line"], e["column"], e["path"], e["code"]))


class ScenarioError(Exception):
    """The scenario text is not valid; `errors` lists every located error, sorted."""

    def __init__(self, errors: Iterable[dict[str, Any]]) -> None:
        self.errors: list[dict[str, Any]] = sort_errors(errors)
        first = self.errors[0] if self.errors else None
        summary = (
            f"{len(self.errors)} error(s); first at document {first['doc']} line "
            f"{first['line']} column {first['column']}: {first['message']}"
            if first
            else "invalid scenario"
        )
        super().__init__(summary)
