"""Hypothesis settings of the fuzz suite: reproducible in CI, sized for about 3 minutes.

Every test is derandomized (its examples depend only on the test, not on a random seed or
a database), has no deadline (the machine is shared), and runs `examples(n)` examples.
`FUZZ_SCALE=0.1` makes a quick local run, `FUZZ_SCALE=10` a long one; `FUZZ_RANDOM=1`
draws fresh random examples (with Hypothesis' database) to look for new failures; keep
what it finds in tests/fuzz/corpus.py.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

SCALE = float(os.environ.get("FUZZ_SCALE", "1"))
RANDOM = os.environ.get("FUZZ_RANDOM", "") not in ("", "0")

FUZZ = settings(
    derandomize=not RANDOM,
    database=settings.default.database if RANDOM else None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)


def examples(n: int) -> int:
    """The number of examples for a test sized `n` at scale 1."""
    return max(1, round(n * SCALE))


# The examples each property test asks for at scale 1 (tests/fuzz/test_budget.py sums them).
DECLARED: dict[str, int] = {}


def fuzz(n: int) -> Any:
    """Settings for a test of `n` examples at scale 1."""

    def decorate(test: Any) -> Any:
        DECLARED[f"{test.__module__}.{test.__name__}"] = n
        return settings(FUZZ, max_examples=examples(n))(test)

    return decorate
