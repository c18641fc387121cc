"""The fuzz suite's size: at least 10,000 generated examples per full run (issue 12)."""

from __future__ import annotations

import pytest

from tests.fuzz import test_actions, test_simulation_schema, test_socketio, test_yaml_reader
from tests.fuzz.settings import DECLARED

pytestmark = pytest.mark.fuzz

MODULES = (test_actions, test_simulation_schema, test_socketio, test_yaml_reader)


def test_a_full_run_generates_at_least_ten_thousand_examples() -> None:
    names = {m.__name__ for m in MODULES}
    counted = {k: v for k, v in DECLARED.items() if k.rsplit(".", 1)[0] in names}
    assert len(counted) == 6, counted
    assert sum(counted.values()) >= 10_000, counted
