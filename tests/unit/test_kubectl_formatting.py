"""The building blocks: Go's tabwriter and resource quantities."""

from __future__ import annotations

import pytest

from webapp.kubectl.quantity import canonical_quantity
from webapp.kubectl.tabwriter import TabWriter


def test_tabwriter_pads_columns_and_leaves_the_last_cell_alone() -> None:
    writer = TabWriter(minwidth=0, padding=2)
    writer.write("Name:\tweb\nService Account:\tdefault\n")
    assert writer.flush() == "Name:             web\nService Account:  default\n"


def test_tabwriter_line_without_tab_ends_a_column_block() -> None:
    writer = TabWriter(minwidth=0, padding=2)
    writer.write("a:\t1\nIPs:\n  IP:\t10.0.0.1\nlonger key:\t2\n")
    assert writer.flush() == "a:  1\nIPs:\n  IP:        10.0.0.1\nlonger key:  2\n"


def test_tabwriter_empty_trailing_cell_is_still_padded_column() -> None:
    writer = TabWriter(minwidth=0, padding=2)
    writer.write("IP:\t\nIPs:\t<none>\n")
    assert writer.flush() == "IP:   \nIPs:  <none>\n"


def test_tabwriter_remember_widths_keeps_columns_from_earlier_flushes() -> None:
    writer = TabWriter(minwidth=6, padding=3, remember_widths=True)
    writer.write("NAME\tSTATUS\tAGE\nweb\tContainerCreating\t1s\n")
    assert writer.flush() == "NAME   STATUS              AGE\nweb    ContainerCreating   1s\n"
    writer.write("web\tRunning\t5s\n")
    assert writer.flush() == "web    Running             5s\n"


def test_tabwriter_minimum_width() -> None:
    writer = TabWriter(minwidth=6, padding=3)
    writer.write("a\tb\n")
    assert writer.flush() == "a     b\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500m", "500m"),
        ("0.5", "500m"),
        ("1000m", "1"),
        ("2000", "2k"),
        ("1500", "1500"),
        ("128Mi", "128Mi"),
        ("2048Mi", "2Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Ki", "512"),
        ("1e3", "1e3"),
        ("0", "0"),
        (2, "2"),
    ],
)
def test_canonical_quantity(text: str | int, expected: str) -> None:
    assert canonical_quantity(text) == expected
