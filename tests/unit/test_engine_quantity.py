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


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("1e400", 2**63 - 1, id="1e400-capped"),
        pytest.param("9" * 5000, 2**63 - 1, id="5000-digits-capped"),
        pytest.param("1E999999999", 2**63 - 1, id="int32-exponent-capped"),
        pytest.param("-" + "9" * 400 + "Ei", -(2**63 - 1), id="negative-capped"),
        pytest.param("1e-400", Fraction(1, 10**9), id="tiny-rounded-up-to-1n"),
        pytest.param("0." + "0" * 5000 + "1", Fraction(1, 10**9), id="5000-zeros-1n"),
        pytest.param("1." + "0" * 5000, Fraction(1), id="5000-trailing-zeros"),
        pytest.param("0." + "0" * 5000, Fraction(0), id="zero"),
    ],
)
def test_parse_quantity_bounds_as_kubernetes_caps_them(text, value):
    """ParseQuantity caps at the largest int64 (maxAllowed) and rounds a non-zero amount up
    to 1n; none of these builds a huge number (FINDINGS-style hostile quantities)."""
    assert parse_quantity(text) == value


def test_a_longer_than_int32_exponent_is_not_a_quantity():
    with pytest.raises(ValueError):
        parse_quantity("1e9999999999")
    assert canonical_quantity("1." + "1" * 5000) == "1111111112n"
