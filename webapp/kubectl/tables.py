"""`kubectl get` tables: a header row of column names, then one row per object."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from webapp.kubectl.columns import POD_COLUMNS, POD_WIDE_COLUMNS, print_pod
from webapp.kubectl.tabwriter import kubectl_table_writer


def table_line(cells: Iterable[str]) -> str:
    """One tab-separated row as the table printer hands it to the tabwriter."""
    return "\t".join(cells) + "\n"


def format_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Header and rows in one flush of kubectl's tabwriter (3 spaces between columns)."""
    writer = kubectl_table_writer()
    writer.write(table_line(header))
    for row in rows:
        writer.write(table_line(row))
    return writer.flush()


def get_pods(pods: Iterable[dict[str, Any]], now: datetime, *, wide: bool = False) -> str:
    """`kubectl get pods` (`-o wide` with wide=True) for the given Pods at `now`."""
    columns = POD_WIDE_COLUMNS if wide else POD_COLUMNS
    rows = [list(print_pod(pod, now, wide=wide).values()) for pod in pods]
    if not rows:
        return ""
    return format_table(columns, rows)
