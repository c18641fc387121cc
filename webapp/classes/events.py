"""The classroom's Socket.IO events (ARCHITECTURE.md, "Classroom").

client -> server
    class:teach   {code, key} | {code, pin} the teacher's tab: class:state, snapshot, roster;
                                            the key is the teacher link's, the PIN (six
                                            digits, tries rate-limited) a projector PC's
    class:link    {key}                     teacher: a QR code (SVG) of the teacher link
    class:join    {code, name, token?}      a student's tab: class:state, snapshot (following);
                                            `token` (given in the first class:state) takes a
                                            name back after a dropped connection or reload
    class:follow  {}  class:fork {}         student: mirror the teacher / a private copy
    class:mode    {mode: follow|free}       teacher: follow brings every student back
    class:lock    {editor: bool}            teacher: students may act, not apply YAML
    class:handout {scenario?|yaml?|share?, at?}  teacher: each student's own session, paused
    class:ask     {question}                teacher: a prediction question (questions.py)
    class:reveal  {id}                      teacher
    class:answer  {id, choice}              student
    class:watch   {name}                    teacher: a read-only look at one student's run
    class:export  {}                        teacher: the roster and answers as CSV text
    class:hand    {up: bool}                student: raise or lower their hand
    class:lower   {name}                    teacher: lower a student's raised hand
    class:remove  {name}                    teacher: a student leaves the class, their name
                                            free again; their tab gets `class_removed`
    class:scenario {scenario}               teacher: restart the class's run with a built-in
    class:plan    {plan: name | null}       teacher: follow a lesson plan from its start (plans.py)
    class:next    {skip?: bool}             teacher: do (or skip) the plan's next step
    quiz:ask      {id}                      any tab but a student's: the answer to one of
                                            the scenario's questions on its own run (quiz.py)
    class:end     {}                        teacher
server -> client: class:state, class:roster (teacher), class:question, class:results,
class:watch, class:export, and the ordinary snapshot / tick / error.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from webapp.classes import codes
from webapp.classes.room import Classes, Classroom, Student, check_name
from webapp.clients import current_client
from webapp.realtime.state import Realtime, Refusal, scenario_text
from webapp.sessions import payloads as check


def register(classes: Classes) -> dict[str, Any]:
    """The event table: name -> handler(rt, sid, payload)."""

    def find(code: str) -> Classroom:
        """The live class of `code`, within the client's budget of unknown codes (F4)."""
        client = current_client()
        classes.may_look_up(client)
        cls = classes.get(code)
        if cls is None:
            classes.missed(client)
            raise Refusal("class_not_found", class_code=check.shown_name(code)[:16])
        return cls

    def on_teach(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["code", "key", "pin"])
        code = check.text(payload, "code")
        cls = find(code)
        classes.check_teacher(cls, payload, current_client())
        _leave_other_class(classes, sid, cls)
        session = classes.teacher_session(cls)
        with cls.lock:
            cls.teachers.add(sid)
            classes.members[sid] = (cls.code, "teacher", "")
        classes.send_state(cls, sid)
        classes.attach(sid, session)
        classes.send_roster(cls)
        for qid, question in cls.questions.items():
            if qid not in cls.revealed:
                classes.emit("class:question", _public(question), sid)

    def on_link(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        """`class:link {key, pin?}`: a QR code of the teacher link, for the teacher's phone.
        Drawn here as the join QR is, over the socket: the key never travels in a URL a
        server could log. Only a teacher tab that holds the key itself gets it."""
        from flask import request

        from webapp.classes.routes import qr_svg, teacher_path

        check.only_fields(payload, ["key", "pin"])
        cls = classes.teacher_of(sid)
        key = payload.get("key")
        if not codes.secret_matches(key, cls.key_hash):
            raise Refusal("class_bad_key", class_code=cls.code)
        pin = payload.get("pin")
        if not codes.pin_matches(cls.code, pin, cls.pin_hash):
            raise Refusal("class_bad_pin", class_code=cls.code)
        url = request.host_url.rstrip("/") + teacher_path(cls.code, str(key), str(pin))
        classes.emit("class:link", {"code": cls.code, "qr": qr_svg(url)}, sid)

    def on_join(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["code", "name", "token"])
        code = check.text(payload, "code")
        cls = find(code)
        name = check_name(payload.get("name"))
        key = name.casefold()
        token = payload.get("token")
        new_token = None
        with cls.lock:
            student = cls.students.get(key)
            if student is not None:
                if not codes.secret_matches(token, student.token_hash):
                    raise Refusal("class_name_taken", name=name)
                if student.sid is not None and student.sid != sid:
                    classes.members.pop(student.sid, None)  # the older tab of theirs leaves
            else:
                if len(cls.students) >= classes.max_students:
                    raise Refusal("class_full", limit=classes.max_students)
                classes.may_add_name(sid, current_client())
                new_token = codes.new_key()
                student = Student(name=name, token_hash=codes.hash_secret(new_token))
                cls.students[key] = student
                classes.store.add_student(cls.code, name, student.token_hash)
            _leave_other_class(classes, sid, cls)
            student.sid = sid
            student.client = current_client()
            student.last_activity = classes.clock()
            classes.members[sid] = (cls.code, "student", key)
        state = classes.state_for(cls, "student", student)
        if new_token is not None:
            state["token"] = new_token
        session = _student_session(classes, cls, student)
        state = {**state, **classes.state_for(cls, "student", student)}
        classes.emit("class:state", state, sid)
        classes.attach(sid, session)
        classes.send_roster(cls)
        for qid, question in cls.questions.items():
            if qid not in cls.revealed and key not in cls.answers.get(qid, {}):
                classes.emit("class:question", _public(question), sid)

    def on_follow(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, [])
        cls, student = classes.student_of(sid)
        student.following = True
        classes.send_state(cls, sid)
        classes.attach(sid, classes.teacher_session(cls))
        classes.send_roster(cls)

    def on_fork(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, [])
        cls, student = classes.student_of(sid)
        session = classes.fork(cls, student)
        student.following = False
        classes.send_state(cls, sid)
        classes.attach(sid, session)
        classes.send_roster(cls)

    def on_mode(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["mode"])
        cls = classes.teacher_of(sid)
        mode = payload.get("mode")
        if mode not in ("follow", "free"):
            raise check.PayloadProblem("bad_mode")
        classes.set_mode(cls, mode)

    def on_lock(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["editor"])
        cls = classes.teacher_of(sid)
        if not isinstance(payload.get("editor"), bool):
            raise check.PayloadProblem("not_boolean", field="editor")
        cls.locked = payload["editor"]
        classes.broadcast_state(cls)
        classes.save(cls)

    def on_end(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, [])
        classes.end(classes.teacher_of(sid))

    def on_watch(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["name"])
        cls = classes.teacher_of(sid)
        name = check.text(payload, "name", limit=256)
        student = cls.students.get(name.casefold())
        if student is None:
            raise Refusal("class_unknown_student", name=check.shown_name(name)[:40])
        session = (
            rt.manager.get(student.session_id)
            if student.session_id and not student.following
            else None
        ) or classes.teacher_session(cls)
        with session.lock:
            state = session.cache.state()
        views = state.get("views") or {}
        classes.emit(
            "class:watch",
            {
                "name": student.name,
                "following": student.following,
                "own": None if student.following else student.own,
                "now": state.get("now"),
                "status": (views.get("columns") or {}).get("STATUS", ""),
                "stage": (state.get("stage") or {}).get("stage", ""),
                "yaml": session.scenario.text,
                "get": views.get("watch", ""),
                "describe": views.get("describe", ""),
                "events": views.get("events", ""),
            },
            sid,
        )

    def on_remove(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        """`class:remove {name}`: the teacher removes a student (their name is free again)."""
        check.only_fields(payload, ["name"])
        cls = classes.teacher_of(sid)
        name = check.text(payload, "name", limit=256)
        if name.casefold() not in cls.students:
            raise Refusal("class_unknown_student", name=check.shown_name(name)[:40])
        classes.remove(cls, name)

    def on_hand(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        """`class:hand {up}`: the student raises (or lowers) their hand; the roster shows it."""
        check.only_fields(payload, ["up"])
        cls, student = classes.student_of(sid)
        if not isinstance(payload.get("up"), bool):
            raise check.PayloadProblem("not_boolean", field="up")
        student.hand_up = payload["up"]
        classes.send_state(cls, sid)
        classes.send_roster(cls)

    def on_lower(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        """`class:lower {name}`: the teacher lowers a student's raised hand."""
        check.only_fields(payload, ["name"])
        cls = classes.teacher_of(sid)
        name = check.text(payload, "name", limit=256)
        student = cls.students.get(name.casefold())
        if student is None:
            raise Refusal("class_unknown_student", name=check.shown_name(name)[:40])
        student.hand_up = False
        if student.sid:
            classes.send_state(cls, student.sid)
        classes.send_roster(cls)

    def on_export(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, [])
        cls = classes.teacher_of(sid)
        classes.emit("class:export", {"code": cls.code, "csv": roster_csv(classes, cls)}, sid)

    def on_handout(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        from webapp.classes.handout import hand_out

        hand_out(classes, rt, classes.teacher_of(sid), payload)

    def on_ask(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        from webapp.classes.asking import ask

        ask(classes, rt, classes.teacher_of(sid), payload)

    def on_reveal(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        from webapp.classes.asking import reveal

        reveal(classes, classes.teacher_of(sid), payload)

    def on_answer(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        from webapp.classes.asking import answer

        cls, student = classes.student_of(sid)
        answer(classes, cls, student, payload)

    def on_quiz(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        """`quiz:ask {id}`: the answer to one of the scenario's questions, now, on this tab's
        own run (alone, it is a quiz; a student in a class waits for the reveal)."""
        from webapp.classes import ahead, quiz

        check.only_fields(payload, ["id"])
        entry = classes.members.get(sid)
        if entry is not None and entry[1] == "student":
            raise Refusal("quiz_in_class")
        wanted = check.text(payload, "id", limit=64)
        session = rt.joined_session(sid)
        found = [q for q in session.scenario.simulation.get("questions") or [] if q["id"] == wanted]
        if not found:
            raise Refusal("class_unknown_question", id=check.shown_name(wanted))
        with rt.working(session):
            with session.lock:
                scenario, actions, now = (
                    session.scenario,
                    [dict(a) for a in session.actions],
                    ahead.moment(session),
                )
                look = ahead.capture(session, now + float(found[0]["after"]))
            right, check_at, _ = quiz.answer(ahead.replayer(look), scenario, actions, now, found[0])
        if right is None:
            raise Refusal("quiz_unanswerable", id=check.shown_name(wanted))
        classes.emit(
            "quiz:answer",
            {
                "id": wanted,
                "answer": right,
                "why": found[0]["why"],
                "askedAt": now,
                "checkAt": check_at,
            },
            sid,
        )

    def on_scenario(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        """`class:scenario {scenario}`: the teacher picks a built-in scenario; the class's
        run restarts with it (followers get the new snapshot)."""
        check.only_fields(payload, ["scenario"])
        from webapp.classes.teaching import open_scenario

        open_scenario(classes, rt, classes.teacher_of(sid), check.text(payload, "scenario"))

    def on_plan(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        from webapp.classes.teaching import choose_plan

        choose_plan(classes, classes.teacher_of(sid), payload)

    def on_next(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
        from webapp.classes.teaching import next_step

        next_step(classes, rt, classes.teacher_of(sid), payload)

    return {
        "class:plan": on_plan,
        "class:next": on_next,
        "class:scenario": on_scenario,
        "quiz:ask": on_quiz,
        "class:teach": on_teach,
        "class:link": on_link,
        "class:join": on_join,
        "class:follow": on_follow,
        "class:fork": on_fork,
        "class:mode": on_mode,
        "class:lock": on_lock,
        "class:end": on_end,
        "class:watch": on_watch,
        "class:export": on_export,
        "class:hand": on_hand,
        "class:lower": on_lower,
        "class:remove": on_remove,
        "class:handout": on_handout,
        "class:ask": on_ask,
        "class:reveal": on_reveal,
        "class:answer": on_answer,
    }


def _public(question: dict[str, Any]) -> dict[str, Any]:
    """A question as students see it: never its answer."""
    return {k: v for k, v in question.items() if k not in ("answer", "why")}


def _leave_other_class(classes: Classes, sid: str, cls: Classroom) -> None:
    """A tab that was in another class (or another role here) leaves it first."""
    entry = classes.members.get(sid)
    if entry is not None and (entry[0] != cls.code or entry[1] == "teacher"):
        classes.leave(sid)


def _student_session(classes: Classes, cls: Classroom, student: Student) -> Any:
    """Where a (re)joining student goes: their own session if they have one and the class
    lets them keep it, a pending hand-out, or the teacher's run."""
    rt = classes.rt
    if not student.following:
        own = rt.manager.get(student.session_id) if student.session_id else None
        if own is None and student.session_id:  # from its record, on a new home
            own = classes.resume_own(cls, student)
        if own is not None:
            return own
        if cls.handout is not None and student.own == "handout":
            from webapp.classes.handout import handout_or_follow

            return handout_or_follow(classes, cls, student)
    student.following = True
    return classes.teacher_session(cls)


def roster_csv(classes: Classes, cls: Classroom) -> str:
    roster = classes.roster(cls)
    qids = list(cls.questions)
    out = io.StringIO()
    writer = csv.writer(out)
    row_of = _csv_row(writer)
    row_of(
        [
            "name",
            "connected",
            "following",
            "own",
            "scenario",
            "virtual_second",
            "status",
            "stage",
            "lesson_steps",
            "tasks_done",
            "may_be_stuck",
            *[f"answer {n}: {_question_text(cls, q)}" for n, q in enumerate(qids, 1)],
            *[f"correct {n}: {_question_text(cls, q)}" for n, q in enumerate(qids, 1)],
        ]
    )
    for row in roster["students"]:
        answers = row["answers"]
        why = {q for q in qids if cls.questions[q].get("kind") == "why"}
        correct = [
            ""
            if q not in answers or q in why
            else str(answers[q] == cls.questions[q].get("answer")).lower()
            for q in qids
        ]
        row_of(
            [
                row["name"],
                str(row["connected"]).lower(),
                str(row["following"]).lower(),
                row["own"] or "",
                row["scenario"],
                f"{row['now']:g}",
                row["status"],
                row["stage"],
                row["lessonSteps"],
                row.get("tasks") or "",
                " ".join(row["stuck"]),
                # a free-text answer is read without names: the CSV says only who wrote one
                *[
                    ("answered" if q in answers else "")
                    if q in why
                    else _choice_text(cls, q, answers.get(q))
                    for q in qids
                ],
                *correct,
            ]
        )
    return out.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(value: Any) -> str:
    """Any value as a CSV cell a spreadsheet will not run as a formula (OWASP, "CSV
    Injection"): a cell starting with = + - @, a tab or a line break (or their fullwidth
    forms, which some spreadsheets read as the same) gets a leading apostrophe. Every cell
    of the export goes through here, names, scenario names, statuses and answers alike."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _csv_row(writer: Any) -> Any:
    """writer.writerow with every cell through csv_cell."""

    def write(cells: list[Any]) -> None:
        writer.writerow([csv_cell(cell) for cell in cells])

    return write


def _question_text(cls: Classroom, qid: str) -> str:
    """A question as asked, in the class's language (the CSV's column heads)."""
    text = cls.questions[qid].get("question")
    if isinstance(text, dict):
        return str(text.get(cls.lang) or text.get("en") or qid)
    return str(text or qid)


def _choice_text(cls: Classroom, qid: str, choice: int | None) -> str:
    if choice is None:
        return ""
    choices = cls.questions[qid].get("choices") or []
    if 0 <= choice < len(choices):
        text = choices[choice]
        return text.get("en", "") if isinstance(text, dict) else str(text)
    return str(choice)


__all__ = ["csv_cell", "register", "roster_csv", "scenario_text"]
