"""(a) The YAML reader and the scenario parser: any text whatsoever is either a scenario
that runs or a ScenarioError whose every error is located and localized."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import corpus
from tests.fuzz.oracles import check_objects_text, check_scenario_text
from tests.fuzz.settings import fuzz
from tests.fuzz.strategies import (
    APPLY_TEXTS,
    mutated_scenario,
    scenario_text,
    token_soup,
    yaml_soup,
)

pytestmark = pytest.mark.fuzz


@fuzz(2500)
@given(st.one_of(mutated_scenario(), mutated_scenario(), scenario_text(), yaml_soup, token_soup))
def test_any_scenario_text_runs_or_is_refused_with_located_errors(text: str) -> None:
    check_scenario_text(text)


@fuzz(1000)
@given(st.one_of(mutated_scenario(APPLY_TEXTS), yaml_soup, token_soup))
def test_any_apply_text_gives_objects_or_located_errors(text: str) -> None:
    check_objects_text(text)


@pytest.mark.parametrize("case", corpus.SCENARIO_TEXTS, ids=corpus.ids)
def test_scenario_text_regressions(case: corpus.Case) -> None:
    check_scenario_text(case.value)


@pytest.mark.parametrize("case", corpus.OBJECT_TEXTS, ids=corpus.ids)
def test_apply_text_regressions(case: corpus.Case) -> None:
    check_objects_text(case.value)
