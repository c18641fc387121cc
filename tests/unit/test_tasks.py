"""Lesson tasks' rules (webapp/sessions/tasks.py) and their schema (webapp/manifest/
simulation_doc.py): how a typed line is compared with a `ran` check, and the located
errors of a badly written task."""

from __future__ import annotations

import pytest

from tests.samples import POD
from webapp.manifest import ScenarioError, parse_scenario
from webapp.sessions.tasks import TaskProgress, command_words, ran_matches


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("logs web -p", ("logs", "web", "--previous")),
        ("logs web --previous=true", ("logs", "web", "--previous")),
        ("logs -c app web --previous", ("logs", "--container", "app", "web", "--previous")),
        ("describe po/web", ("describe", "pod", "web")),
        ("describe pods web", ("describe", "pod", "web")),
        ("get deploy -o wide", ("get", "deployment", "--output", "wide")),
        ("exec -it web -- sh -c 'ls -p'", ("exec", "--stdin", "--tty", "web")),
        ("patch pod x -p {}", ("patch", "pod", "x", "--patch", "{}")),
        ("get svc,po", ("get", "svc,po")),
    ],
)
def test_command_words(typed: str, words: tuple[str, ...]) -> None:
    assert command_words(typed.split()) == words


@pytest.mark.parametrize(
    ("pattern", "typed", "matches"),
    [
        ("logs --previous", "logs api-1 --previous", True),
        ("logs --previous", "logs -p api-1", True),
        ("logs --previous", "logs api-1", False),
        ("logs --previous", "describe pod api-1 --previous", False),  # the verb comes first
        ("describe pod", "describe po web", True),
        ("describe pod", "describe deploy web", False),
        ("get event", "get events", True),
        ("events", "events --for pod/web", True),
        ("drain", "drain node-1 --timeout=5s", True),
        ("get pod --output", "get pod x -o jsonpath={.spec}", True),
        ("get pod --output", "get pod x", False),
    ],
)
def test_ran_matches(pattern: str, typed: str, matches: bool) -> None:
    assert ran_matches(pattern, command_words(typed.split())) is matches


def test_tasks_are_done_in_order_and_stay_done() -> None:
    progress = TaskProgress([None, {"ran": "describe pod"}, {"ran": "logs --previous"}])
    assert progress.current() == 1
    progress.ran(["logs", "x", "-p"])  # the second task's command, before the first's
    progress.restore([2])  # what a record says comes back as it was
    assert progress.done == [2] and progress.current() == 1
    progress.restore([1, 7, 0])
    assert progress.done == [1]  # only real tasks' steps


LESSON = """\
apiVersion: playground/v1
kind: Simulation
metadata:
  name: t
lesson:
  steps:
  - task: {{en: Do it, zh: 做}}
{rest}
---
""" + POD.replace("{", "{{").replace("}", "}}")


@pytest.mark.parametrize(
    ("rest", "code"),
    [
        ("", "required"),  # no check
        ("    check: {pod: web}", "task_check"),  # says which Pod, checks nothing
        ("    check: {status: Running, colour: red}", "unknown_field"),
        ("    check: {ran: [1, 2]}", "wrong_type"),
        ("    check: {ready: yes please}", "wrong_type"),
        ("    check: {status: Running}\n    hints: [{en: a}, {en: b}, {en: c}, {en: d}, {en: e}, {en: f}]",
         "too_many_items"),
    ],
)  # fmt: skip
def test_a_badly_written_task_is_a_located_error(rest: str, code: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        parse_scenario(LESSON.format(rest=rest))
    assert code in {e["code"] for e in raised.value.errors}, raised.value.errors
    assert all(e["line"] >= 6 for e in raised.value.errors if e["code"] == code)


def test_a_task_keeps_its_check_on_the_server() -> None:
    scenario = parse_scenario(
        LESSON.format(rest="    hints: [{en: look, zh: 看}]\n    check: {status: Running}")
    )
    step = scenario.simulation["lesson"][0]
    assert step == {"at": None, "when": None, "task": True, "text": {"en": "Do it", "zh": "做"},
                    "hints": [{"en": "look", "zh": "看"}]}  # fmt: skip
    assert scenario.simulation["taskChecks"] == [{"status": "Running"}]


def test_a_remembered_line_is_bounded() -> None:
    progress = TaskProgress([{"ran": "describe pod"}])
    for _ in range(1000):
        progress.ran(["describe", "pod", "x" * 16_000, *(["-l"] * 5000)])
    assert len(progress.commands) == 200
    assert all(len(c) <= 24 and all(len(w) <= 64 for w in c) for c in progress.commands)
    assert ran_matches("describe pod", progress.commands[-1])
