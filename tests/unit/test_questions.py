"""Prediction questions of the built-in scenarios (`lesson.questions`): at least 12 scenarios
carry one, every question has exactly one right choice in its scenario's run, computed
from the engine's state (webapp/classes/quiz.py), and that answer does not depend on the
page pausing a moment late (a tick's lateness)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp.classes import quiz
from webapp.engine import Simulation
from webapp.manifest import ScenarioError, parse_scenario
from webapp.manifest.simulation_doc import QUESTION_CHECKS

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {
    p.stem: parse_scenario(p.read_text(encoding="utf-8"))
    for p in sorted((ROOT / "scenarios").glob("*.yaml"))
}
WITH_QUESTIONS = [name for name, s in SCENARIOS.items() if s.simulation.get("questions")]


def replay(scenario, actions, until):  # type: ignore[no-untyped-def]
    return Simulation.replay(scenario, actions, until=until, seed=0)


def test_at_least_twelve_scenarios_ask_a_question() -> None:
    assert len(WITH_QUESTIONS) >= 12, WITH_QUESTIONS


@pytest.mark.parametrize("name", WITH_QUESTIONS)
def test_each_question_has_exactly_one_right_choice(name: str) -> None:
    scenario = SCENARIOS[name]
    for question in scenario.simulation["questions"]:
        assert 2 <= len(question["choices"]) <= 5
        for choice in question["choices"]:
            assert choice["text"]["en"] and choice["text"]["zh"]
            assert any(k in choice for k in QUESTION_CHECKS)
        assert question["question"]["zh"] != question["question"]["en"]
        assert question["why"]["en"] and question["why"]["zh"]
        asked = question["at"]
        answers = set()
        for late in (0.0, 0.5, 1.0, 2.0):
            right, check_at, seen = quiz.answer(replay, scenario, [], asked + late, question)
            assert right is not None, (question["id"], late, seen)
            answers.add(right)
            # The right choice is the one whose checks hold in the engine's state then.
            sim = replay(scenario, [], check_at)
            assert quiz.holds(question["choices"][right], quiz.facts(sim))
        assert len(answers) == 1, (question["id"], answers)


def test_a_question_needs_checks_and_two_choices() -> None:
    base = (ROOT / "scenarios" / "crash-loop-backoff.yaml").read_text(encoding="utf-8")
    broken = base.replace('      status: "CrashLoopBackOff"\n', "", 1)
    with pytest.raises(ScenarioError) as error:
        parse_scenario(broken)
    assert any("check on the run" in e["message"] for e in error.value.errors)


def test_quiz_facts_read_the_engine() -> None:
    scenario = SCENARIOS["readiness-endpoints"]
    early = quiz.facts(replay(scenario, [], 20))
    late = quiz.facts(replay(scenario, [], 50))
    assert early["inEndpoints"] is True and early["ready"] is True
    assert late["inEndpoints"] is False and late["ready"] is False
    assert late["status"] == "Running" and late["phase"] == "Running"


def test_the_crash_loop_question_names_the_crash_and_the_back_off_the_run_has_then() -> None:
    """issue 20: asked at the third crash, with a 20 s back-off, it said "second" and "10 s"."""
    scenario = SCENARIOS["crash-loop-backoff"]
    (question,) = scenario.simulation["questions"]
    sim = replay(scenario, [], question["at"])
    exits = [t for t in sim.transitions if t["field"] == "runtime" and t["after"] == "exited"]
    ordinal = {1: ("first", "第一次"), 2: ("second", "第二次"), 3: ("third", "第三次")}[len(exits)]
    later = replay(scenario, [], question["at"] + question["after"])
    backoff = next(
        t["seconds"]
        for t in later.transitions
        if t["t"] > exits[-1]["t"] and (t["after"] or {}).get("reason") == "CrashLoopBackOff"
    )
    assert backoff == 20
    for lang, word in zip(("en", "zh"), ordinal, strict=True):
        text = question["question"][lang]
        assert word in text, (lang, text)
        seconds = f"{backoff:g} s" if lang == "en" else f"{backoff:g} 秒"
        assert seconds in text and seconds in question["why"][lang], (lang, text)
