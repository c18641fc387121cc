"""A class following a lesson plan (webapp/classes/plans.py): the teacher picks a plan
(`class:plan`) and does its steps in order with "Next step" (`class:next`).

Each step does what the teacher could do by hand, with the same code:
    open      the class's run restarts with a built-in scenario; every student follows
    play      the class's run plays to second t and pauses there (Session.pause_at; a run
              already past t goes back to it)
    handout   class:handout {scenario, at}
    ask       class:ask {question} (a why question with the plan's text in both languages)
    reveal    class:reveal of the last question asked
    explore   class:mode free, and a timer of N minutes on every page; when it runs out
              (Classes.round) everyone follows again
A step that is refused (a question too costly, say) is not counted as done: "Next step"
tries it again, or `class:next {skip: true}` passes it by.
"""

from __future__ import annotations

from typing import Any

from webapp.classes.room import Classes, Classroom
from webapp.realtime.state import Realtime, Refusal
from webapp.sessions import payloads as check
from webapp.sessions import slices


def choose_plan(classes: Classes, cls: Classroom, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["plan"])
    name = payload.get("plan")
    if name is None:
        cls.plan = None
    else:
        name = check.text(payload, "plan", limit=64)
        if classes.plans is None or classes.plans.get(name) is None:
            raise Refusal("class_unknown_plan", name=check.shown_name(name))
        cls.plan = {"name": name, "step": -1, "timer": None}
    classes.broadcast_state(cls)
    classes.save(cls, force=True)


def next_step(classes: Classes, rt: Realtime, cls: Classroom, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["skip"])
    skip = payload.get("skip", False)
    if not isinstance(skip, bool):
        raise check.PayloadProblem("not_boolean", field="skip")
    plan = cls.plan
    found = classes.plans.get(plan["name"]) if plan and classes.plans is not None else None
    if plan is None or found is None:
        raise Refusal("class_no_plan")
    index = int(plan.get("step", -1)) + 1
    if index >= len(found["steps"]):
        raise Refusal("class_plan_done", steps=len(found["steps"]))
    step = found["steps"][index]
    if plan.get("timer") and step["kind"] != "explore":
        plan["timer"] = None  # the exploration ends early: everyone follows again
        classes.set_mode(cls, "follow")
    if not skip:
        do_step(classes, rt, cls, step)
    plan["step"] = index
    classes.broadcast_state(cls)
    classes.save(cls, force=True)
    classes.send_roster(cls)


def do_step(classes: Classes, rt: Realtime, cls: Classroom, step: dict[str, Any]) -> None:
    from webapp.classes import asking
    from webapp.classes.handout import hand_out

    kind = step["kind"]
    if kind == "open":
        open_scenario(classes, rt, cls, step["scenario"])
        if cls.mode != "follow" or any(not s.following for s in cls.students.values()):
            classes.set_mode(cls, "follow")
    elif kind == "play":
        play_to(classes, rt, cls, float(step["to"]))
    elif kind == "handout":
        hand_out(classes, rt, cls, {"scenario": step["scenario"], "at": step.get("at", 0)})
    elif kind == "ask":
        question = step["question"]
        if question["kind"] == "why":
            if len(cls.questions) >= asking.MAX_QUESTIONS:
                raise Refusal("class_too_many_questions", limit=asking.MAX_QUESTIONS)
            teacher = classes.teacher_session(cls)
            with teacher.lock:
                now = asking.ahead.moment(teacher)
            asking.publish(
                classes,
                cls,
                {"kind": "why", "question": dict(question["text"]), "choices": [], "at": now},
            )
        else:
            asking.ask(classes, rt, cls, {"question": dict(question)})
    elif kind == "reveal":
        open_ones = [q for q in cls.questions if q not in cls.revealed]
        if open_ones:
            asking.reveal(classes, cls, {"id": open_ones[-1]})
    elif kind == "explore":
        plan = cls.plan
        assert plan is not None
        minutes = float(step["minutes"])
        plan["timer"] = {"until": classes.clock() + minutes * 60.0, "minutes": minutes}
        classes.set_mode(cls, "free")


def play_to(classes: Classes, rt: Realtime, cls: Classroom, t: float) -> None:
    """The class's run plays on to virtual second `t` and pauses there; a run past `t`
    seeks back to it (the class sees that moment)."""
    teacher = classes.teacher_session(cls)
    with rt.working(teacher), teacher.lock:
        t = min(t, teacher.clock.end)
        now = teacher.seek_target if teacher.seek_target is not None else teacher.sim.now
        teacher.used = True
        if now < t:
            teacher.pause_at = t
            teacher.clock.play()
            rt.send_tick(teacher)
            return
        teacher.pause_at = None
        teacher.clock.pause()
        slices.begin_seek(teacher, t)
        slices.run_slice(teacher)
        rt.send_snapshot(teacher, to_room=True)
        if teacher.seek_target is not None and rt.run_scheduler:
            rt.seeker.start(rt.socketio.start_background_task, rt.socketio.sleep)


def open_scenario(classes: Classes, rt: Realtime, cls: Classroom, name: str) -> None:
    """The class's run restarts with the built-in scenario `name` (followers get the new
    snapshot)."""
    from webapp.realtime.state import engine_class

    scenario = rt.catalog.get(name)
    if scenario is None:
        raise Refusal("unknown_scenario", name=name)
    teacher = classes.teacher_session(cls)
    with rt.working(teacher):
        sim = engine_class().from_scenario(scenario, seed=teacher.seed)
        with teacher.lock:
            teacher.restart(sim)
            teacher.pause_at = None
            teacher.used = True
            rt.send_snapshot(teacher, to_room=True)
    classes.save(cls)
