"""`class:handout {scenario? | yaml? | share?, at?}`: every student gets a session of their
own of that scenario, paused at virtual second `at` (default 0; a share's own `at`).

The teacher's tab pays for building it once (it is checked fully there: a refused source
changes nothing); each student's session is then a replay of the same timeline, so that
it is exactly the same run. Students not connected get theirs when they come back.
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from webapp import shares, storage
from webapp.classes.room import Classes, Classroom, Student
from webapp.realtime.state import Realtime, Refusal, parse, scenario_text
from webapp.sessions import PayloadProblem, Session
from webapp.sessions import payloads as check

SOURCES = ("scenario", "yaml", "share")


def hand_out(classes: Classes, rt: Realtime, cls: Classroom, payload: dict[str, Any]) -> None:
    check.only_fields(payload, [*SOURCES, "at"])
    sources = [k for k in SOURCES if k in payload]
    if len(sources) != 1:
        raise (
            PayloadProblem("one_source") if sources else PayloadProblem("missing", field="scenario")
        )
    source = sources[0]
    actions: list[dict[str, Any]] = []
    at = None
    if source == "scenario":
        name = check.text(payload, "scenario")
        scenario = rt.catalog.get(name)
        if scenario is None:
            raise Refusal("unknown_scenario", name=name)
        text = scenario.text
    elif source == "yaml":
        text = scenario_text(rt, payload)
        parse(text)
    else:
        link = storage.store_of(current_app).get(check.text(payload, "share"))
        if link is None:
            raise Refusal("share_not_found")
        text, actions, at = link["yaml"], list(link.get("actions", [])), float(link.get("at", 0))
    if "at" in payload:
        at = check.number(payload, "at")
        if at < 0:
            raise PayloadProblem("negative", field="at")
        if at > rt.manager.end_seconds:
            raise PayloadProblem("after_end", field="at", end=f"{rt.manager.end_seconds:g}")
    handout = {"yaml": text, "actions": actions, "at": at or 0.0}
    teacher = classes.teacher_session(cls)
    with rt.working(teacher):
        build(classes, handout)  # refused here, before any student's run changes
    with cls.lock:
        cls.handout = handout
        cls.mode = "free"
        students = list(cls.students.values())
        for student in students:
            student.following = False
            student.own = "handout"
            student.session_id = None
    for student in students:
        if student.sid:
            session = handout_session(classes, cls, student)
            classes.send_state(cls, student.sid)
            classes.attach(student.sid, session)
    classes.broadcast_state(cls)
    classes.save(cls)
    classes.send_roster(cls)


def build(classes: Classes, handout: dict[str, Any]) -> Any:
    scenario = parse(handout["yaml"])
    at = float(handout["at"])
    past = [a for a in handout["actions"] if float(a.get("at", 0)) <= at]
    try:
        return classes.replay(scenario, past, at)
    except Exception as error:
        if not isinstance(getattr(error, "code", None), str):
            raise
        raise Refusal("share_unopenable", problem=("malformed", {})) from None


def handout_session(classes: Classes, cls: Classroom, student: Student) -> Session:
    assert cls.handout is not None
    sim = build(classes, cls.handout)
    return classes.own_session(cls, student, sim, "handout")


__all__ = ["hand_out", "handout_session", "shares"]
