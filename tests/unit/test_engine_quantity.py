"""resource.Quantity parsing and canonical form."""

from __future__ import annotations

from fractions import Fraction

import pytest

from webapp.engine.api.quantity import (
    canonical_quantity,
    cpu_millis,
    format_cpu_millis,
    format_memory_bytes,
    memory_bytes,
    parse_quantity,
)


@pytest.mark.parametrize(
    ("quantity", "millis"),
    [
        ("100m", 100),
        ("0.5", 500),
        ("2", 2000),
        (1, 1000),
        (0.25, 250),
        ("1.5", 1500),
        ("1n", 1),
        ("0", 0),
    ],
)
def test_cpu_millis(quantity, millis):
    assert cpu_millis(quantity) == millis


@pytest.mark.parametrize(
    ("quantity", "value"),
    [
        ("128Mi", 128 * 2**20),
        ("1Gi", 2**30),
        ("1G", 10**9),
        ("500M", 500 * 10**6),
        ("1e3", 1000),
        ("1E3", 1000),
        ("64Ki", 65536),
        ("1.5Gi", 3 * 2**29),
        ("100", 100),
        ("1k", 1000),
        (".5Ki", 512),
    ],
)
def test_memory_bytes(quantity, value):
    assert memory_bytes(quantity) == value


def test_parse_quantity_is_exact():
    assert parse_quantity("100m") == Fraction(1, 10)
    assert parse_quantity("-1") == -1


@pytest.mark.parametrize(
    "bad", ["", "abc", "1.2.3", "10 Mi", "1Ki2", "Mi", "1KB", "1kb", "--1", None, True]
)
def test_bad_quantities_raise_value_error(bad):
    with pytest.raises(ValueError):
        parse_quantity(bad)


@pytest.mark.parametrize(
    ("quantity", "canonical"),
    [
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("2", "2"),
        ("1000m", "1"),
        ("100m", "100m"),
        ("128Mi", "128Mi"),
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Ki", "512"),
        ("1000M", "1G"),
        ("500M", "500M"),
        ("1e3", "1e3"),
        ("1000", "1k"),
        ("0", "0"),
        (1, "1"),
    ],
)
def test_canonical_quantity(quantity, canonical):
    assert canonical_quantity(quantity) == canonical


def test_formatters():
    assert format_cpu_millis(1500) == "1500m"
    assert format_cpu_millis(2000) == "2"
    assert format_memory_bytes(128 * 2**20) == "128Mi"
    assert format_memory_bytes(100) == "100"
