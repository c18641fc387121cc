"""(b) The Simulation document schema, and the numbers of the Pod it runs: huge and
400-digit integers, floats, nan/inf, negatives, lone surrogates, deep nesting, wrong types.
Each scenario is refused up front with located errors, or it runs to its last scripted
action (within the session's horizon) into a snapshot any JSON client can read."""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.fuzz import corpus
from tests.fuzz.oracles import check_scenario_text
from tests.fuzz.settings import fuzz
from tests.fuzz.strategies import scenario_text

pytestmark = pytest.mark.fuzz


@fuzz(2000)
@given(scenario_text())
def test_any_simulation_document_runs_or_is_refused_with_located_errors(text: str) -> None:
    check_scenario_text(text)


@pytest.mark.parametrize("case", corpus.SIMULATION_TEXTS, ids=corpus.ids)
def test_simulation_document_regressions(case: corpus.Case) -> None:
    check_scenario_text(case.value)
