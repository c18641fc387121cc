"""`class:handout {scenario? | yaml? | share?, at?}`: every student gets a session of their
own of that scenario, paused at virtual second `at` (default 0; a share's own `at`).

The teacher's tab pays for checking it (within one slice: a refused source changes
nothing); each student's session then starts at second 0 with the timeline's actions as
its kept future and reaches `at` by a sliced seek (webapp/sessions/slices.py), so that it
is exactly the replay's run without replaying in the request. Students not connected get
theirs when they come back.
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from webapp import shares, storage
from webapp.classes.room import Classes, Classroom, Student
from webapp.realtime.state import Realtime, Refusal, parse, scenario_text
from webapp.sessions import PayloadProblem, Session, slices
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
        scenario = build(classes, handout, rt)  # refused here, before any student's run changes
    with cls.lock:
        cls.handout = handout
        cls.handouts += 1
        cls.mode = "free"
        students = list(cls.students.values())
        for student in students:
            student.following = False
            student.own = "handout"
            student.session_id = None
    for student in students:
        if student.sid:
            session = handout_or_follow(classes, cls, student, scenario)
            classes.send_state(cls, student.sid)
            classes.attach(student.sid, session)
    classes.broadcast_state(cls)
    classes.save(cls)
    classes.send_roster(cls)


def build(classes: Classes, handout: dict[str, Any], rt: Realtime | None = None) -> Any:
    """Check a hand-out in the teacher's request, within one slice's budget: its text
    parses and its actions apply (as far as one slice of replay gets; a later refused
    action is dropped when a student's seek meets it, as a share link's). Never the whole
    replay to a far `at` (issue 12): that is each student's sliced seek."""
    scenario = parse(handout["yaml"])
    at = float(handout["at"])
    end = rt.manager.end_seconds if rt is not None else max(at, 0.0)
    link = {"yaml": handout["yaml"], "actions": handout["actions"], "at": at}
    try:
        shares.open_link(classes.engine(), scenario, link, end=end, stop=slices.slice_stop(None))
    except shares.LinkBroken:
        raise Refusal("share_unopenable", problem=("malformed", {})) from None
    except PayloadProblem as problem:
        raise Refusal("share_unopenable", problem=(problem.code, problem.params)) from None
    except Exception as error:
        if not isinstance(getattr(error, "code", None), str):
            raise
        raise Refusal("share_unopenable", problem=("malformed", {})) from None
    return scenario


def handout_session(
    classes: Classes, cls: Classroom, student: Student, scenario: Any = None
) -> Session:
    """A student's session of the hand-out: at second 0 with the hand-out's actions up to
    `at` as its kept future, and a sliced seek to `at` (the same run as a replay there).
    `scenario`: the hand-out's text already parsed (once for all students)."""
    from webapp.classes import ahead

    assert cls.handout is not None
    classes.admit(student)  # one more new session of their address
    handout = cls.handout
    sim, future, seek_to = ahead.start_at(
        classes.engine(),
        scenario if scenario is not None else parse(handout["yaml"]),
        handout["actions"],
        float(handout["at"]),
    )
    return classes.own_session(cls, student, sim, "handout", future, seek_to)


def handout_or_follow(
    classes: Classes, cls: Classroom, student: Student, scenario: Any = None
) -> Session:
    """The student's hand-out session; or, when their address may not have one more (its
    session cap or new-session rate), the teacher's run, followed, and the refusal told to
    their tab in its language."""
    try:
        return handout_session(classes, cls, student, scenario)
    except Refusal as refusal:
        student.following = True
        student.own = None
        student.session_id = None
        if student.sid:
            classes.rt.refuse(student.sid, refusal)
        return classes.teacher_session(cls)


__all__ = ["hand_out", "handout_or_follow", "handout_session", "shares"]
