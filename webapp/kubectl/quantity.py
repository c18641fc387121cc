"""Resource quantities (`k8s.io/apimachinery/pkg/api/resource`): parse and print canonically.

The API server stores quantities in canonical form (`0.5` becomes `500m`, `2048Mi` becomes
`2Gi`); `kubectl describe` prints Quantity.String(), which is that form.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {power: suffix for suffix, power in _BINARY.items()}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(.*)$")


def parse_quantity(text: str | int | float) -> tuple[Fraction, str]:
    """The value and the format (`BinarySI`, `DecimalSI` or `DecimalExponent`) of a quantity."""
    match = _QUANTITY.match(str(text).strip())
    if not match:
        raise ValueError(f"quantities must match the regular expression: {text!r}")
    number, suffix = Fraction(match.group(1)), match.group(2)
    if suffix in _BINARY:
        return number * 1024 ** _BINARY[suffix], "BinarySI"
    if suffix in _DECIMAL:
        return number * Fraction(10) ** _DECIMAL[suffix], "DecimalSI"
    exponent = re.fullmatch(r"[eE]([+-]?\d+)", suffix)
    if exponent:
        return number * Fraction(10) ** int(exponent.group(1)), "DecimalExponent"
    raise ValueError(f"unable to parse quantity's suffix: {text!r}")


def quantity_value(text: str | int | float) -> Fraction:
    return parse_quantity(text)[0]


def _canonical_decimal(value: Fraction, exponential: bool) -> str:
    nanos = math.ceil(value * 10**9)  # precision below nano is rounded up
    exponent = -9
    while exponent < 18 and nanos % 1000 == 0:
        nanos //= 1000
        exponent += 3
    if exponential:
        return f"{nanos}e{exponent}" if exponent else str(nanos)
    return f"{nanos}{_DECIMAL_SUFFIX[exponent]}"


def _canonical_binary(value: int) -> str:
    power = 0
    while power < 6 and value % 1024 == 0:
        value //= 1024
        power += 1
    return f"{value}{_BINARY_SUFFIX.get(power, '')}"


def canonical_quantity(text: str | int | float) -> str:
    """Quantity.String(): `0.5` -> `500m`, `2048Mi` -> `2Gi`, `1500` -> `1500`, `2000` -> `2k`."""
    value, fmt = parse_quantity(text)
    if value == 0:
        return "0"
    sign, value = ("-", -value) if value < 0 else ("", value)
    if fmt == "BinarySI" and value >= 1024 and value.denominator == 1:
        return sign + _canonical_binary(int(value))
    return sign + _canonical_decimal(value, fmt == "DecimalExponent")
