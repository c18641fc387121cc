"""``perl -Mbignum=bpi -wle 'print bpi(N)'``: the docs' Job example (controllers/job.yaml).

Only this invocation is modelled: :func:`perl_bpi_digits` reads the argv, and
:func:`bpi` is Math::BigFloat's ``bpi(N)``: pi to N significant digits, rounded half to
even (Math::BigFloat's default ``round_mode``), printed as Perl prints the number (``3`` for
N = 1, else ``3.`` and N - 1 decimals). The digits come from Machin's formula in integers,
computed once per N (2000 digits take about 10 ms).
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_DIGITS = 5000  # bounded cost: 5000 digits take about 60 ms, once
# The compute time of the real run is an estimate (the docs say the Job "takes around 10s
# to complete", pull included): 5 s for 2000 digits, growing with the square of N.
SECONDS_AT_2000 = 5.0
_SCRIPT = re.compile(r"\s*print\s+bpi\s*\(\s*(\d{1,5})\s*\)\s*;?\s*")
_FLAGS = (("-Mbignum=bpi", "-wle"), ("-Mbignum=bpi", "-lwe"), ("-Mbignum=bpi", "-wl", "-e"))


def perl_bpi_digits(args: list[str] | tuple[str, ...]) -> int | None:
    """N when ``args`` (perl's arguments) are the docs' ``-Mbignum=bpi -wle 'print bpi(N)'``
    with 1 <= N <= MAX_DIGITS, else None (any other perl program is not modelled)."""
    args = tuple(args)
    for flags in _FLAGS:
        if len(args) == len(flags) + 1 and args[:-1] == flags:
            match = _SCRIPT.fullmatch(args[-1])
            if match and 1 <= int(match.group(1)) <= MAX_DIGITS:
                return int(match.group(1))
    return None


def _arctan_inverse(x: int, unity: int) -> int:
    """arctan(1/x) * unity, by its Taylor series in integers."""
    total = term = unity // x
    x2 = x * x
    n = 1
    while term:
        term //= x2
        total += (-1) ** n * (term // (2 * n + 1))
        n += 1
    return total


@lru_cache(maxsize=8)
def bpi(digits: int) -> str:
    """Math::BigFloat ``bpi(digits)`` as ``print`` shows it."""
    digits = max(1, min(int(digits), MAX_DIGITS))
    guard = 12
    unity = 10 ** (digits - 1 + guard)
    scaled = 4 * (4 * _arctan_inverse(5, unity) - _arctan_inverse(239, unity))
    kept, rest = divmod(scaled, 10**guard)
    half = 5 * 10 ** (guard - 1)
    if rest > half or (rest == half and kept % 2):
        kept += 1
    text = str(kept)
    return text if digits == 1 else text[0] + "." + text[1:]


def compute_ms(digits: int) -> int:
    """How long the run takes in virtual milliseconds (an estimate, see SECONDS_AT_2000)."""
    return max(100, round(SECONDS_AT_2000 * 1000 * (digits / 2000) ** 2))
