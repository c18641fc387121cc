"""describe.go's PrefixWriter: text at indentation levels of two spaces, into a tabwriter."""

from __future__ import annotations

from webapp.kubectl.tabwriter import describe_writer

LEVEL_0, LEVEL_1, LEVEL_2, LEVEL_3 = 0, 1, 2, 3


class PrefixWriter:
    """Collects describe output; `text()` returns it aligned as tabbedString does."""

    def __init__(self) -> None:
        self._out = describe_writer()

    def write(self, level: int, text: str) -> None:
        self._out.write("  " * level + text)

    def text(self) -> str:
        return self._out.flush()


def bool_text(value: bool) -> str:
    """printBool: `True` / `False`."""
    return "True" if value else "False"


def go_bool(value: bool) -> str:
    """Go's %t / %v of a bool: `true` / `false`."""
    return "true" if value else "false"


def string_or_none(value: str) -> str:
    return value or "<none>"
