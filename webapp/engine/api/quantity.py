"""Resource quantities: ``k8s.io/apimachinery/pkg/api/resource`` Quantity, exactly.

``parse_quantity`` returns the value in base units (cores, bytes) as a ``Fraction``;
``cpu_millis`` and ``memory_bytes`` round up like ``MilliValue()`` and ``Value()``;
``canonical_quantity`` is what the API server returns (``Quantity.String()``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction

BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_DECIMAL_BY_EXPONENT = {exp: suffix for suffix, exp in DECIMAL_SUFFIXES.items()}
_BINARY_BY_POWER = {power: suffix for suffix, power in BINARY_SUFFIXES.items()}

# <signedNumber><suffix>: suffix is a binary SI, decimal SI or decimal exponent (e3, E-2).
_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$"
)


# Parsed quantities by text (the same few strings are read on every sync and scheduling
# pass): the parse is pure and its result immutable. Short texts only, and bounded.
_PARSED: dict[str, tuple[Fraction, str]] = {}
_PARSED_MAX = 4096
_PARSED_TEXT_MAX = 64


def _split(quantity: str | int | float) -> tuple[Fraction, str]:
    """The value in base units and the format: "BinarySI", "DecimalSI" or "DecimalExponent"."""
    if type(quantity) is str:
        cached = _PARSED.get(quantity)
        if cached is not None:
            return cached
        parsed = _parse(quantity)
        if len(quantity) <= _PARSED_TEXT_MAX:
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[quantity] = parsed
        return parsed
    return _parse(quantity)


def _parse(quantity: str | int | float) -> tuple[Fraction, str]:
    if isinstance(quantity, bool):
        raise ValueError(f"quantities must match the regular expression: {quantity!r}")
    if isinstance(quantity, int | float):
        if isinstance(quantity, float) and not math.isfinite(quantity):
            raise ValueError(f"invalid quantity: {quantity!r}")
        text = str(quantity) if isinstance(quantity, int) else format(Decimal(repr(quantity)), "f")
        return _bounded(text, 10, 0), "DecimalSI"
    match = _QUANTITY.match(quantity.strip()) if isinstance(quantity, str) else None
    if match is None:
        raise ValueError(
            f"quantities must match the regular expression "
            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {quantity!r}"
        )
    suffix = match["suffix"] or ""
    if suffix in BINARY_SUFFIXES:
        fmt, base, power = "BinarySI", 2, 10 * BINARY_SUFFIXES[suffix]
    elif suffix in DECIMAL_SUFFIXES:
        fmt, base, power = "DecimalSI", 10, DECIMAL_SUFFIXES[suffix]
    else:
        power = int(suffix[1:]) if len(suffix) < 16 else MAX_EXPONENT + 1
        if abs(power) > MAX_EXPONENT:  # quantitySuffixer: strconv.ParseInt(exponent, 10, 32)
            raise ValueError(f"unable to parse quantity's suffix: {quantity!r}")
        fmt, base = "DecimalExponent", 10
    return _bounded(match["number"], base, power), fmt


# ParseQuantity caps every quantity at the largest int64 (maxAllowed) and rounds any
# non-zero amount up to at least 1n; a decimal exponent is parsed as an int32.
MAX_ALLOWED = 2**63 - 1
MAX_EXPONENT = 2**31 - 1
_NANO = Fraction(1, 10**9)
_KEEP_DIGITS = 60  # more significant digits than any nano-rounded int64 amount needs


def _bounded(number: str, base: int, power: int) -> Fraction:
    """``number * base**power`` as ParseQuantity keeps it: at most MAX_ALLOWED in
    magnitude, a non-zero amount at least 1n, computed without ever building the huge or
    tiny numbers that 256 KiB of digits or an exponent like e999999999 would make."""
    sign = -1 if number.startswith("-") else 1
    digits = number.lstrip("+-")
    whole, _, fraction = digits.partition(".")
    significant = (whole + fraction).lstrip("0")
    if not significant.rstrip("0"):
        return Fraction(0)
    # number = 0.significant... * 10**magnitude
    magnitude = (
        len(whole.lstrip("0"))
        if whole.lstrip("0")
        else -(len(fraction) - len(fraction.lstrip("0")))
    )
    scale = magnitude + (power if base == 10 else math.floor(power * math.log10(2)))
    if scale > 20:  # at least 10**20 > MAX_ALLOWED
        return sign * Fraction(MAX_ALLOWED)
    if scale < -12:  # below 1n (even after a binary suffix): rounded up to 1n
        return sign * _NANO
    kept = significant[:_KEEP_DIGITS].rstrip("0") or "0"
    value = Fraction(int(kept), 10 ** len(kept)) * Fraction(10) ** magnitude
    if significant[_KEEP_DIGITS:].strip("0"):
        value += Fraction(1, 10 ** (_KEEP_DIGITS - magnitude))  # a dropped tail: round up
    value *= Fraction(base) ** power
    if value > MAX_ALLOWED:
        value = Fraction(MAX_ALLOWED)
    elif value < _NANO:
        value = _NANO
    return sign * value


def parse_quantity(quantity: str | int | float) -> Fraction:
    """``resource.ParseQuantity``: the value in base units (cores, bytes) as a Fraction.

    Raises ValueError for text that is not a quantity ("1.2.3", "10 Mi", "abc", "1Ki2").
    """
    value, _ = _split(quantity)
    return value


def cpu_millis(quantity: str | int | float) -> int:
    """``Quantity.MilliValue()``: millicores, rounded up ("100m" → 100, "0.5" → 500)."""
    return math.ceil(parse_quantity(quantity) * 1000)


def memory_bytes(quantity: str | int | float) -> int:
    """``Quantity.Value()``: bytes, rounded up ("128Mi" → 134217728, "1G" → 10**9)."""
    return math.ceil(parse_quantity(quantity))


def canonical_quantity(quantity: str | int | float) -> str:
    """``Quantity.String()`` (CanonicalizeBytes): how the API server echoes a quantity.

    "0.5" → "500m", "1024Mi" → "1Gi", "1.5Gi" → "1536Mi", "1000M" → "1G", "1e3" → "1e3".
    Values finer than 1n are rounded up to nano units, as the API server stores them.
    """
    value, fmt = _split(quantity)
    value = Fraction(math.ceil(value * 10**9), 10**9)
    if fmt == "BinarySI" and (abs(value) < 1024 or value.denominator != 1):
        fmt = "DecimalSI"
    if fmt == "BinarySI":
        return format_binary(int(value))
    return format_decimal(value, exponent_form=fmt == "DecimalExponent")


def format_binary(value: int) -> str:
    """An integer with the largest binary suffix that keeps it whole: 1536Mi, 2Gi."""
    power = 0
    while power < 6 and value != 0 and value % 1024 == 0:
        value //= 1024
        power += 1
    return f"{value}{_BINARY_BY_POWER.get(power, '')}"


def format_decimal(value: Fraction, *, exponent_form: bool = False) -> str:
    """Integer mantissa with the largest exponent that is a multiple of 3 (from -9 to 18)."""
    if value == 0:
        return "0"
    exponent = -9
    mantissa = value * 10**9
    while exponent < 18 and mantissa % 1000 == 0:
        mantissa /= 1000
        exponent += 3
    number = str(int(mantissa))
    if exponent_form:
        return number if exponent == 0 else f"{number}e{exponent}"
    return number + _DECIMAL_BY_EXPONENT[exponent]


def format_cpu_millis(millis: int) -> str:
    """Millicores as the API writes them: 1500 → "1500m", 2000 → "2"."""
    return format_decimal(Fraction(millis, 1000))


def format_memory_bytes(value: int) -> str:
    """Bytes with the largest whole binary suffix: 134217728 → "128Mi"."""
    return format_binary(value) if abs(value) >= 1024 else str(value)
