"""Prediction questions in a class.

class:ask    {question: {kind: "status", seconds: N}}   teacher: "What will STATUS be in N
             seconds?" (1 <= N <= MAX_SECONDS) The answer is computed by running a copy
             of the teacher's run (a checkpoint of it, the kept future included) N virtual
             seconds on, within a bound (webapp/classes/ahead.py; `question_too_costly`
             past it), charged to the teacher's CPU budgets; the choices are that STATUS
             and plausible others. The teacher's clock pauses; while a seek of the
             run goes on, "now" is the moment it goes to.
class:answer {id, choice}                               student: one answer per question,
             changeable until the reveal
class:reveal {id}                                       teacher: everyone sees the answer

Students receive `class:question` (never the answer) and, on reveal, `class:results`
(counts, the answer and why). The teacher's roster carries the live counts per question
(no names) and each student's own answers.
"""

from __future__ import annotations

from typing import Any

from webapp import kubectl
from webapp.classes import ahead
from webapp.classes.room import Classes, Classroom, Student
from webapp.realtime.state import Realtime, Refusal
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check

MAX_SECONDS = 600.0
MAX_QUESTIONS = 100
KINDS = ("status", "event", "restarts", "endpoints", "stage", "gone", "why")
WHY_QUESTION_LIMIT = 200  # characters of a free-text question
WHY_ANSWER_LIMIT = 500  # ... and of each answer to it
GONE = {"en": "(the Pod is gone)", "zh": "（Pod 已不存在）"}
# STATUS values a learner meets most; the distractors come from here.
USUAL_STATUSES = (
    "Pending",
    "ContainerCreating",
    "Running",
    "Terminating",
    "Completed",
    "Error",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "Init:0/1",
    "PodInitializing",
    "OOMKilled",
)


def status_at(classes: Classes, session: Any, seconds: float) -> tuple[str | None, float]:
    """STATUS of the focus Pod `seconds` after the session's moment (`ahead.moment`: its
    now, or where a running seek goes to; None: the Pod is gone),
    and the virtual second that is: a copy of the session's run (a checkpoint of it as it
    is) played on to there, never its own run; bounded (webapp/classes/ahead.py), refused
    with `question_too_costly` past ASK_EVENTS engine events. The caller charges the CPU
    to the session's budgets."""
    with session.lock:
        target = min(ahead.moment(session) + seconds, session.clock.end)
        look = ahead.capture(session, target)
    sim = ahead.run(look)
    pod = sim.pod()
    if pod is None:
        return None, target
    return str(kubectl.pod_columns(pod, sim.wall_time())["STATUS"]), target


def status_question(
    status: str | None, current: str | None, seconds: float, now: float
) -> dict[str, Any]:
    """The question, its choices (the answer among 4, in a fixed order) and why."""
    answer_text = status or ""
    pool = [answer_text]
    if current and current not in pool:
        pool.append(current)
    for candidate in USUAL_STATUSES:
        if len(pool) >= 4:
            break
        if candidate not in pool:
            pool.append(candidate)
    ordered = sorted(pool, key=lambda s: (s == "", s))
    choices = [GONE if s == "" else {"en": s, "zh": s} for s in ordered]
    n = f"{seconds:g}"
    then = f"{round(now + seconds, 1):g}"
    return {
        "kind": "status",
        "question": {
            "en": f"What will STATUS be in {n} seconds?",
            "zh": f"{n} 秒后 STATUS 会是什么？",
        },
        "choices": choices,
        "answer": ordered.index(answer_text),
        "why": {
            "en": f"At second {then} the run shows STATUS {status or 'nothing: the Pod is gone'}.",
            "zh": f"在第 {then} 秒，运行显示的 STATUS 是 {status or '空：Pod 已不存在'}。",
        },
        "at": now,
    }


def ask(classes: Classes, rt: Realtime, cls: Classroom, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["question"])
    spec = check.require_object(payload.get("question"))
    if "id" in spec:
        ask_scenario_question(classes, rt, cls, spec)
        return
    from webapp.classes import kinds

    kind = spec.get("kind", "status")
    if kind == "why":
        ask_why(classes, cls, spec)
        return
    check.only_fields(spec, ["kind", "seconds"])
    if kind != "status" and kind not in kinds.BUILDERS:
        raise PayloadProblem("bad_question_kind", kinds=", ".join(KINDS))
    seconds = (
        check.number(spec, "seconds")
        if "seconds" in spec or kind == "status"
        else kinds.DEFAULT_SECONDS.get(kind, 10.0)
    )
    if not 1 <= seconds <= MAX_SECONDS:
        raise PayloadProblem("bad_question")
    if len(cls.questions) >= MAX_QUESTIONS:
        raise Refusal("class_too_many_questions", limit=MAX_QUESTIONS)
    teacher = classes.teacher_session(cls)
    if kind != "status":
        with rt.working(teacher):
            with teacher.lock:
                teacher.clock.pause()  # as for every question: the class looks at one moment
                rt.send_tick(teacher)
            question = kinds.BUILDERS[kind](teacher, seconds)
        publish(classes, cls, question)
        return
    with rt.working(teacher):
        with teacher.lock:
            # The clock pauses when a question is asked. A running seek (a rebuilt teacher
            # session) goes on: the question is about the moment it goes to.
            teacher.clock.pause()
            current_pod = teacher.sim.pod()
            current = (
                str(kubectl.pod_columns(current_pod, teacher.sim.wall_time())["STATUS"])
                if current_pod is not None
                else None
            )
            now = ahead.moment(teacher)
            rt.send_tick(teacher)
        status, _ = status_at(classes, teacher, seconds)
    question = status_question(status, current, seconds, now)
    publish(classes, cls, question)


def publish(classes: Classes, cls: Classroom, question: dict[str, Any]) -> None:
    """Store a question (with its answer) and send it to every tab (without)."""
    qid = question.get("id") or f"q{len(cls.questions) + 1}"
    if qid in cls.questions:
        qid = f"{qid}-{len(cls.questions) + 1}"
    question["id"] = qid
    with cls.lock:
        cls.questions[qid] = question
    public = {k: v for k, v in question.items() if k not in ("answer", "why")}
    for student in cls.students.values():
        if student.sid:
            classes.emit("class:question", public, student.sid)
    for sid in list(cls.teachers):
        classes.emit("class:question", public, sid)
    classes.save(cls)
    classes.send_roster(cls)


def ask_why(classes: Classes, cls: Classroom, spec: dict[str, Any]) -> None:
    """A free-text question ("Why did the Pod restart?"): the teacher's text, at most
    WHY_QUESTION_LIMIT characters; no answer to compute, the teacher reads the class's."""
    check.only_fields(spec, ["kind", "text"])
    text = one_line(spec.get("text"), WHY_QUESTION_LIMIT, "class_why_invalid")
    if len(cls.questions) >= MAX_QUESTIONS:
        raise Refusal("class_too_many_questions", limit=MAX_QUESTIONS)
    teacher = classes.teacher_session(cls)
    with teacher.lock:
        now = ahead.moment(teacher)
    publish(
        classes,
        cls,
        {"kind": "why", "question": {"en": text, "zh": text}, "choices": [], "at": now},
    )


def one_line(value: Any, limit: int, code: str) -> str:
    """Text a person typed, as one line: 1 to `limit` characters once its white space is
    collapsed, no control or format characters (as display names: room.check_name)."""
    import unicodedata

    if not isinstance(value, str) or len(value) > 4 * limit:
        raise Refusal(code, limit=limit)
    text = " ".join(value.split())
    if not 1 <= len(text) <= limit or any(
        unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text
    ):
        raise Refusal(code, limit=limit)
    return text


def answer(classes: Classes, cls: Classroom, student: Student, payload: dict[str, Any]) -> None:
    qid = check.text(payload, "id", limit=64)
    question = cls.questions.get(qid)
    if question is None or qid in cls.revealed:
        raise Refusal("class_unknown_question", id=check.shown_name(qid))
    if question.get("kind") == "why":
        check.only_fields(payload, ["id", "text"])
        written = one_line(payload.get("text"), WHY_ANSWER_LIMIT, "class_why_answer_invalid")
        with cls.lock:
            cls.texts.setdefault(qid, {})[student.name.casefold()] = written
        classes.save(cls)
        classes.send_roster(cls)
        return
    check.only_fields(payload, ["id", "choice"])
    choice = payload.get("choice")
    count = len(question["choices"])
    if not isinstance(choice, int) or isinstance(choice, bool) or not 0 <= choice < count:
        raise Refusal("class_bad_choice", count=count)
    key = student.name.casefold()
    with cls.lock:
        cls.answers.setdefault(qid, {})[key] = choice
    classes.store.answer(cls.code, qid, student.name, choice)
    classes.send_roster(cls)


def reveal(classes: Classes, cls: Classroom, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["id"])
    qid = check.text(payload, "id", limit=64)
    if qid not in cls.questions:
        raise Refusal("class_unknown_question", id=check.shown_name(qid))
    with cls.lock:
        cls.revealed.add(qid)
    from webapp.classes.questions import tally

    results = tally(cls, qid)
    results["why"] = cls.questions[qid].get("why")
    public = {k: v for k, v in results.items() if k != "correct"}
    for sid in list(cls.teachers) + [s.sid for s in cls.students.values() if s.sid]:
        mine = dict(public)
        entry = classes.members.get(sid)
        if entry and entry[1] == "student":
            # A student sees their own answer; the class's free-text answers are the
            # teacher's to read out (without names).
            mine.pop("texts", None)
            if results.get("kind") == "why":
                mine["mine"] = cls.texts.get(qid, {}).get(entry[2])
            else:
                mine["mine"] = cls.answers.get(qid, {}).get(entry[2])
        classes.emit("class:results", mine, sid)
    classes.save(cls)
    classes.send_roster(cls)


def ask_scenario_question(
    classes: Classes, rt: Realtime, cls: Classroom, spec: dict[str, Any]
) -> None:
    """One of the scenario's own questions (`lesson.questions`), answered from the
    teacher's run at this moment."""
    from webapp.classes import quiz

    check.only_fields(spec, ["id"])
    wanted = check.text(spec, "id", limit=64)
    teacher = classes.teacher_session(cls)
    found = [q for q in teacher.scenario.simulation.get("questions") or [] if q["id"] == wanted]
    if not found:
        raise Refusal("class_unknown_question", id=check.shown_name(wanted))
    spec_question = found[0]
    with rt.working(teacher):
        with teacher.lock:
            teacher.clock.pause()
            rt.send_tick(teacher)
            scenario, actions, now = (
                teacher.scenario,
                [dict(a) for a in teacher.actions],
                ahead.moment(teacher),
            )
            look = ahead.capture(teacher, now + float(spec_question["after"]))
        right, _, _ = quiz.answer(ahead.replayer(look), scenario, actions, now, spec_question)
    if right is None:
        raise Refusal("quiz_unanswerable", id=check.shown_name(wanted))
    question = {
        **quiz.public(spec_question),
        "answer": right,
        "why": spec_question["why"],
        "at": now,
    }
    publish(classes, cls, question)
