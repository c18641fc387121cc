"""duration.HumanDuration / ShortHumanDuration, ported from duration_test.go."""

from __future__ import annotations

from datetime import timedelta

import pytest

from webapp.kubectl import human_duration, short_human_duration

MS = 0.001
MIN = 60
HOUR = 3600
DAY = 24 * HOUR
YEAR = 365 * DAY

HUMAN_DURATION = [
    # TestHumanDuration
    (1, "1s"),
    (70, "70s"),
    (190, "3m10s"),
    (70 * MIN, "70m"),
    (47 * HOUR, "47h"),
    (49 * HOUR, "2d1h"),
    ((8 * 24 + 2) * HOUR, "8d"),
    (367 * DAY, "367d"),
    ((365 * 2 * 24 + 25) * HOUR, "2y1d"),
    ((365 * 8 * 24 + 2) * HOUR, "8y"),
    # TestHumanDurationBoundaries
    (-2, "<invalid>"),
    (-2 + 1e-9, "0s"),
    (-1, "0s"),
    (0, "0s"),
    (1 - MS, "0s"),
    (2 * MIN - MS, "119s"),
    (119, "119s"),
    (2 * MIN, "2m"),
    (2 * MIN + 1, "2m1s"),
    (10 * MIN - MS, "9m59s"),
    (599, "9m59s"),
    (10 * MIN, "10m"),
    (10 * MIN + 1, "10m"),
    (3 * HOUR - MS, "179m"),
    (3 * HOUR, "3h"),
    (3 * HOUR + MIN, "3h1m"),
    (8 * HOUR - MS, "7h59m"),
    (8 * HOUR, "8h"),
    (8 * HOUR + 59 * MIN, "8h"),
    (2 * DAY - MS, "47h"),
    (2 * DAY, "2d"),
    (2 * DAY + HOUR, "2d1h"),
    (8 * DAY - MS, "7d23h"),
    (8 * DAY, "8d"),
    (8 * DAY + 23 * HOUR, "8d"),
    (2 * YEAR - MS, "729d"),
    (2 * YEAR, "2y"),
    (2 * YEAR + 23 * HOUR, "2y"),
    (2 * YEAR + 23 * HOUR + 59 * MIN, "2y"),
    (2 * YEAR + DAY - MS, "2y"),
    (2 * YEAR + DAY, "2y1d"),
    (3 * YEAR, "3y"),
    (4 * YEAR, "4y"),
    (5 * YEAR, "5y"),
    (6 * YEAR, "6y"),
    (7 * YEAR, "7y"),
    (8 * YEAR - MS, "7y364d"),
    (8 * YEAR, "8y"),
    (8 * YEAR + 364 * DAY, "8y"),
    (9 * YEAR, "9y"),
]

SHORT_HUMAN_DURATION = [
    (-2, "<invalid>"),
    (-2 + 1e-9, "0s"),
    (0, "0s"),
    (1 - MS, "0s"),
    (1, "1s"),
    (2 - MS, "1s"),
    (MIN - MS, "59s"),
    (MIN, "1m"),
    (2 * MIN - MS, "1m"),
    (HOUR - MS, "59m"),
    (HOUR, "1h"),
    (2 * HOUR - MS, "1h"),
    (DAY - MS, "23h"),
    (DAY, "1d"),
    (2 * DAY - MS, "1d"),
    (YEAR - MS, "364d"),
    (YEAR, "1y"),
    (2 * YEAR - MS, "1y"),
    (2 * YEAR, "2y"),
]


@pytest.mark.parametrize(("seconds", "expected"), HUMAN_DURATION)
def test_human_duration_matches_kubectl(seconds: float, expected: str) -> None:
    assert human_duration(seconds) == expected


@pytest.mark.parametrize(("seconds", "expected"), SHORT_HUMAN_DURATION)
def test_short_human_duration_matches_kubectl(seconds: float, expected: str) -> None:
    assert short_human_duration(seconds) == expected


def test_human_duration_accepts_a_timedelta() -> None:
    assert human_duration(timedelta(days=7, hours=23, minutes=59)) == "7d23h"
    assert human_duration(timedelta(seconds=-1, microseconds=-999_999)) == "0s"
