"""A port of the parts of Go's text/tabwriter that kubectl uses.

Cells are tab-terminated; the text after a line's last tab is not part of any column.
A column block is a run of consecutive lines that have a cell in that column; its width
is the widest cell plus padding (at least `minwidth`). `remember_widths` is the
`RememberWidths` flag of github.com/liggitt/tabwriter, which kubectl's table printer sets:
widths seen in earlier flushes are kept, so later lines never get narrower columns.
"""

from __future__ import annotations


class TabWriter:
    """Buffer text with `write`, get the aligned text back from `flush`."""

    def __init__(
        self, minwidth: int, padding: int, padchar: str = " ", *, remember_widths: bool = False
    ) -> None:
        self._minwidth = minwidth
        self._padding = padding
        self._padchar = padchar
        self._remember_widths = remember_widths
        self._max_widths: list[int] = []
        self._widths: list[int] = []
        self._buffer: list[str] = []

    def write(self, text: str) -> None:
        self._buffer.append(text)

    def flush(self) -> str:
        text = "".join(self._buffer)
        self._buffer = []
        lines = [line.split("\t") for line in text.split("\n")]
        if lines[-1] == [""]:
            lines[-1] = []  # text ended with a newline: the last buffered line is empty
        out: list[str] = []
        self._widths = []
        self._format(lines, 0, len(lines), out)
        return "".join(out)

    def _format(self, lines: list[list[str]], line0: int, line1: int, out: list[str]) -> None:
        column = len(self._widths)
        this = line0
        while this < line1:
            if column >= len(lines[this]) - 1:
                this += 1
                continue
            self._write_lines(lines, line0, this, out)
            line0 = this
            width = self._minwidth
            while this < line1 and column < len(lines[this]) - 1:
                width = max(width, len(lines[this][column]) + self._padding)
                this += 1
            width = self._remembered(width)
            self._widths.append(width)
            self._format(lines, line0, this, out)
            self._widths.pop()
            line0 = this
        self._write_lines(lines, line0, line1, out)

    def _remembered(self, width: int) -> int:
        if not self._remember_widths:
            return width
        column = len(self._widths)
        if len(self._max_widths) < column:
            self._max_widths.extend(self._widths[len(self._max_widths) :])
        if len(self._max_widths) == column:
            self._max_widths.append(width)
        elif self._max_widths[column] > width:
            width = self._max_widths[column]
        else:
            self._max_widths[column] = width
        return width

    def _write_lines(self, lines: list[list[str]], line0: int, line1: int, out: list[str]) -> None:
        for index in range(line0, line1):
            for j, cell in enumerate(lines[index]):
                out.append(cell)
                if j < len(self._widths):
                    out.append(self._padchar * (self._widths[j] - len(cell)))
            if index + 1 < len(lines):
                out.append("\n")


def kubectl_table_writer() -> TabWriter:
    """printers.GetNewTabWriter: minwidth 6, padding 3, RememberWidths."""
    return TabWriter(minwidth=6, padding=3, remember_widths=True)


def describe_writer() -> TabWriter:
    """describe.tabbedString: minwidth 0, padding 2."""
    return TabWriter(minwidth=0, padding=2)
