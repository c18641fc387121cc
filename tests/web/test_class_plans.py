"""Lesson plans (issue 21, item 3): authored as YAML in scenarios/plans (validated with
located errors), three built-in 45-minute plans, a plan picked when a class starts, and the
teacher's "Next step" (class:plan, class:next) doing each step on the real engine: open,
play to t, hand out, ask, reveal, free exploration with a timer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.web.test_class_bounds import make_app
from tests.web.test_classroom import connect, errors, of, received
from webapp.classes import classes_of
from webapp.classes.plans import validate
from webapp.manifest import ScenarioError, localize_errors
from webapp.realtime import realtime_of


def start(app: Flask, plan: str | None = "five-stages", **body: Any) -> tuple[Any, Any, str]:
    made = app.test_client().post("/api/classes", json={**({"plan": plan} if plan else {}), **body})
    assert made.status_code == 201, made.json
    teacher = connect(app)
    teacher.emit("class:teach", {"code": made.json["code"], "key": made.json["teacherKey"]})
    student = connect(app)
    student.emit("class:join", {"code": made.json["code"], "name": "Ann"})
    received(teacher), received(student)
    return teacher, student, made.json["code"]


def next_step(teacher: Any, **payload: Any) -> list[tuple[str, dict[str, Any]]]:
    teacher.emit("class:next", payload)
    got = received(teacher)
    assert not of(got, "error"), of(got, "error")
    return got


def test_the_built_in_plans_are_listed_in_both_languages(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    listing = app.test_client().get("/api/plans").json
    assert [p["name"] for p in listing] == ["five-stages", "rolling-updates", "troubleshooting"]
    for plan in listing:
        assert plan["minutes"] == 45 and plan["steps"] >= 10
        assert (
            plan["title"]["en"]
            and plan["title"]["zh"]
            and plan["title"]["en"] != plan["title"]["zh"]
        )


def test_a_class_started_with_a_plan_opens_its_first_scenario(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    made = app.test_client().post("/api/classes", json={"plan": "troubleshooting"}).json
    tab = connect(app)
    tab.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    got = received(tab)
    [state] = of(got, "class:state")
    assert state["plan"]["name"] == "troubleshooting" and state["plan"]["step"] == -1
    assert state["plan"]["steps"][0] == {
        "kind": "open",
        "scenario": "crash-loop-backoff",
        "say": state["plan"]["steps"][0]["say"],
    }
    assert of(got, "snapshot")[0]["scenario"]["name"] == "crash-loop-backoff"
    bad = app.test_client().post("/api/classes", json={"plan": "nope"})
    assert bad.status_code == 400 and bad.json["code"] == "class_unknown_plan"


@pytest.mark.parametrize("name", ["five-stages", "troubleshooting", "rolling-updates"])
def test_every_built_in_plan_runs_step_by_step_to_its_end(tmp_path: Path, name: str) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    teacher, student, code = start(app, name)
    plan = classes_of(app).plans.get(name)
    kinds = []
    for index, step in enumerate(plan["steps"]):
        got = next_step(teacher)
        state = of(got, "class:state")[-1]
        assert state["plan"]["step"] == index and state["plan"]["current"]["kind"] == step["kind"]
        kinds.append(step["kind"])
        if step["kind"] == "ask":
            roster = of(got, "class:roster")[-1]
            asked = roster["questions"][-1]
            assert asked["kind"] == step["question"]["kind"]
        if step["kind"] == "explore":
            assert state["mode"] == "free" and state["plan"]["timer"]["minutes"] == step["minutes"]
    if name == "troubleshooting":  # a plan with every kind of step
        assert set(kinds) == {"open", "play", "handout", "ask", "reveal", "explore"}
    teacher.emit("class:next", {})
    assert errors(teacher)[0]["code"] == "class_plan_done"
    # The student saw every step's words, never an answer before its reveal.
    seen = of(received(student), "class:state")
    assert any((s.get("plan") or {}).get("current") for s in seen)
    assert all("steps" not in (s.get("plan") or {}) for s in seen)  # the list is the teacher's
    cls = classes_of(app).get(code)
    assert set(cls.questions) == cls.revealed  # every question asked was revealed


def test_play_to_t_pauses_the_class_run_there(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    teacher, student, code = start(app)
    next_step(teacher)  # open init-containers
    next_step(teacher)  # ask (stage in 5 s)
    next_step(teacher)  # reveal
    next_step(teacher)  # play: 20
    cls = classes_of(app).get(code)
    session = classes_of(app).teacher_session(cls)
    assert session.clock.playing and session.pause_at == 20
    scheduler = realtime_of(app).scheduler
    for second in range(1, 40):
        scheduler.tick(5000.0 + second)  # one wall second at 1x: one virtual second
        if not session.clock.playing:
            break
    assert not session.clock.playing and session.sim.now == 20 and session.pause_at is None
    ticks = of(received(student), "tick")
    assert ticks and ticks[-1]["now"] == 20 and ticks[-1]["clock"]["playing"] is False
    # A seek past t (the teacher's own) leaves the stop behind: playing on plays on.
    next_step(teacher)  # ask: which event comes next
    session.pause_at = 25.0  # as a play to 25 would
    teacher.emit("clock", {"op": "seek", "value": 30})
    teacher.emit("clock", {"op": "play"})
    received(teacher)
    for second in range(1, 5):
        scheduler.tick(6000.0 + second)
    assert session.clock.playing and session.sim.now > 30 and session.pause_at is None
    teacher.emit("clock", {"op": "pause"})
    received(teacher)
    # A run already past t goes back to it.
    teacher.emit("clock", {"op": "seek", "value": 30})
    received(teacher)
    from webapp.classes.teaching import play_to

    play_to(classes_of(app), realtime_of(app), cls, 20.0)
    assert session.sim.now == 20 and not session.clock.playing


def test_free_exploration_has_a_timer_and_ends_in_follow(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    teacher, student, code = start(app)
    classes = classes_of(app)
    wall = [1_000_000.0]
    classes.clock = lambda: wall[0]
    for _ in range(6):
        next_step(teacher)
    got = next_step(teacher)  # explore: 5 minutes
    state = of(got, "class:state")[-1]
    assert state["mode"] == "free"
    assert state["plan"]["timer"] == {"remaining": 300, "minutes": 5}
    mine = of(received(student), "class:state")[-1]
    assert mine["mode"] == "free" and mine["plan"]["timer"]["remaining"] == 300
    assert mine["plan"]["current"]["say"]["zh"]
    student.emit("class:fork", {})  # the student explores on a run of their own
    assert of(received(student), "class:state")[-1]["following"] is False
    wall[0] += 299
    classes.round()
    assert classes.get(code).mode == "free"
    wall[0] += 2
    classes.round()
    after = of(received(student), "class:state")[-1]
    assert (
        after["mode"] == "follow" and after["following"] is True and after["plan"]["timer"] is None
    )


def test_plan_events_are_the_teachers_and_refusals_are_located(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    teacher, student, _ = start(app, None)
    teacher.emit("class:next", {})
    assert errors(teacher)[0]["code"] == "class_no_plan"
    student.emit("class:plan", {"plan": "five-stages"})
    assert errors(student)[0]["code"] == "class_teacher_only"
    teacher.emit("class:plan", {"plan": "nope"})
    assert errors(teacher)[0]["code"] == "class_unknown_plan"
    teacher.emit("class:plan", {"plan": "rolling-updates"})
    state = of(received(teacher), "class:state")[-1]
    assert state["plan"]["name"] == "rolling-updates" and state["plan"]["step"] == -1
    teacher.emit("class:next", {"skip": "yes"})
    assert '"skip"' in errors(teacher)[0]["message"]
    got = next_step(teacher, skip=True)  # passed by: the run stays as it was
    assert of(got, "class:state")[-1]["plan"]["step"] == 0 and not of(got, "snapshot")
    teacher.emit("class:plan", {"plan": None})
    assert of(received(teacher), "class:state")[-1]["plan"] is None


def test_the_plan_and_its_step_survive_a_restart(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3")
    made = app.test_client().post("/api/classes", json={"plan": "five-stages"}).json
    teacher = connect(app)
    teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    received(teacher)
    next_step(teacher)
    next_step(teacher)
    again = make_app(tmp_path / "db.sqlite3")
    tab = connect(again)
    tab.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    state = of(received(tab), "class:state")[-1]
    assert state["plan"]["name"] == "five-stages" and state["plan"]["step"] == 1


PLAN = """\
name: mine
title: {en: Mine, zh: 我的}
minutes: 45
steps:
- open: crash-loop-backoff
- reveal: true
- play: -3
- handout: no-such-scenario
- ask: {kind: colour}
- explore: 5
  colour: red
"""


def test_a_plan_is_validated_with_located_errors() -> None:
    from webapp.paths import resource_dir
    from webapp.sessions.catalog import ScenarioCatalog

    scenarios = ScenarioCatalog(resource_dir("scenarios"))
    with pytest.raises(ScenarioError) as caught:
        validate(PLAN, "mine", scenarios)
    found = {(e["code"], e["line"], e["column"]) for e in caught.value.errors}
    assert ("plan_reveal_first", 6, 3) in found
    assert ("plan_bad_number", 7, 9) in found
    assert ("plan_unknown_scenario", 8, 12) in found
    assert ("plan_bad_ask", 9, 8) in found
    assert ("plan_unknown_field", 11, 3) in found  # at the key
    zh = localize_errors(caught.value.errors, "zh")
    assert any("no-such-scenario" in e["message"] and "内置场景" in e["message"] for e in zh)
    with pytest.raises(ScenarioError) as caught:
        validate("name: other\ntitle: x\nminutes: 500\nsteps: []\nextra: 1\n", "mine", scenarios)
    codes = [(e["code"], e["line"]) for e in caught.value.errors]
    assert codes == [
        ("plan_bad_name", 1),
        ("plan_bad_number", 3),
        ("plan_no_steps", 4),
        ("plan_unknown_field", 5),
    ]
    with pytest.raises(ScenarioError) as caught:
        validate("steps: [\n", "mine", scenarios)
    assert caught.value.errors[0]["line"] >= 1  # YAML syntax errors are located too
