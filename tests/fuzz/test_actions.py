"""(c) The action schema: Simulation.act with every action word and hostile field values
(gracePeriodSeconds 1e12, 2**63, 1e300, nan; exit codes of 300 digits; lone surrogates;
nested values), on Pods that are starting, running, terminating or on a lost node.

An accepted action keeps the run JSON-safe and replays from the action log to the same
state; a refused one raises ActionError, says why in en and zh, and leaves the simulation
exactly as it was: the same state now and the same future (compared with a twin that never
saw the action)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import corpus
from tests.fuzz.oracles import ACTION_BASES, check_action
from tests.fuzz.settings import fuzz
from tests.fuzz.strategies import BEFORE, MOMENTS, live_action

pytestmark = pytest.mark.fuzz


@fuzz(2400)
@given(
    base=st.sampled_from(ACTION_BASES),
    at=st.sampled_from(MOMENTS),
    before=st.sampled_from(BEFORE),
    action=live_action(),
)
def test_any_action_is_applied_or_refused_without_a_trace(
    base: str, at: float, before: list[dict[str, Any]], action: Any
) -> None:
    check_action(base, at, before, action)


@pytest.mark.parametrize("case", corpus.ACTIONS, ids=corpus.ids)
def test_action_regressions(case: corpus.Case) -> None:
    check_action(**case.value)
