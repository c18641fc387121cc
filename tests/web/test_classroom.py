"""The classroom's contract (ARCHITECTURE.md, "Classroom"), with Flask-SocketIO's test client
and the scheduler stepped by hand, on the fake engine of tests/web/fake_engine.py."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app, socketio_of
from webapp.classes import classes_of
from webapp.classes.codes import ALPHABET
from webapp.realtime import realtime_of


def make_app(db: Path, **config: Any) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(db),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            "CLASS_STUDENT_EVENTS_PER_SECOND": 1000,
            **config,
        }
    )


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield make_app(tmp_path / "db.sqlite3")


def connect(app: Flask, lang: str = "en") -> SocketIOTestClient:
    client = socketio_of(app).test_client(app, headers={"Accept-Language": lang})
    client.get_received()
    return client


def received(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


def of(messages: list[tuple[str, dict[str, Any]]], name: str) -> list[dict[str, Any]]:
    return [payload for event, payload in messages if event == name]


def shown_run(app: Flask, shown: str) -> Any:
    """The session a snapshot's `session` names: a class's run shows a digest of its id."""
    found = [s for s in realtime_of(app).manager.sessions() if s.public_id == shown]
    return found[0] if found else None


def new_class(app: Flask, **body: Any) -> dict[str, Any]:
    response = app.test_client().post("/api/classes", json=body or {"yaml": POD})
    assert response.status_code == 201, response.json
    result: dict[str, Any] = response.json
    return result


def teach(app: Flask, made: dict[str, Any]) -> tuple[SocketIOTestClient, dict[str, Any]]:
    teacher = connect(app)
    teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    messages = received(teacher)
    assert [m[0] for m in messages][:2] == ["class:state", "snapshot"], messages
    return teacher, of(messages, "snapshot")[0]


def join(
    app: Flask, code: str, name: str, lang: str = "en", **extra: Any
) -> tuple[SocketIOTestClient, list[tuple[str, dict[str, Any]]]]:
    student = connect(app, lang)
    student.emit("lang", {"lang": lang})
    student.emit("class:join", {"code": code, "name": name, **extra})
    return student, received(student)


def run(app: Flask, seconds: float, rounds: int = 20, start: float = 1000.0) -> None:
    scheduler = realtime_of(app).scheduler
    for i in range(rounds + 1):
        scheduler.tick(start + seconds * i / rounds)


def errors(client: SocketIOTestClient) -> list[dict[str, Any]]:
    return of(received(client), "error")


# -- HTTP ---------------------------------------------------------------------------------


def test_create_gives_a_readable_code_and_a_secret_key_only_hashed_in_the_store(
    app: Flask, tmp_path: Path
) -> None:
    made = new_class(app, scenario="plain-pod", lang="zh")
    assert 6 <= len(made["code"]) <= 8 and set(made["code"]) <= set(ALPHABET)
    assert not set("0O1IL") & set(made["code"])
    assert len(made["teacherKey"]) >= 22  # ≥ 128 bits in URL-safe base64
    assert made["joinUrl"].endswith(f"/c/{made['code']}")
    assert made["teacherUrl"] == (
        f"/c/{made['code']}/teach#key={made['teacherKey']}&pin={made['teacherPin']}"
    )
    dump = "\n".join(sqlite3.connect(tmp_path / "db.sqlite3").iterdump())
    assert made["code"] in dump and made["teacherKey"] not in dump


def test_student_page_and_404_in_the_readers_language(app: Flask) -> None:
    made = new_class(app)
    page = app.test_client().get(f"/c/{made['code']}")
    assert page.status_code == 200 and f'data-class="{made["code"]}"' in page.text
    missing = app.test_client().get("/c/ZZZZZZ", headers={"Accept-Language": "zh-CN"})
    assert missing.status_code == 404 and "没有这个代码的课堂" in missing.text
    assert app.test_client().get("/c/ZZZZZZ").text.count("There is no class with this code")


def test_create_refuses_bad_yaml_with_located_errors(app: Flask) -> None:
    response = app.test_client().post("/api/classes", json={"yaml": "kind: Pod\n"})
    assert response.status_code == 400 and response.json["code"] == "invalid_scenario"
    both = app.test_client().post("/api/classes", json={"yaml": POD, "scenario": "plain-pod"})
    assert both.status_code == 400 and both.json["code"] == "class_invalid"


def test_qr_code_is_drawn_locally(app: Flask) -> None:
    made = new_class(app)
    svg = app.test_client().get(f"/c/{made['code']}/qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    assert svg.text.startswith("<svg") and '<path d="M' in svg.text


# -- teacher and students -----------------------------------------------------------------


def test_wrong_key_is_refused(app: Flask) -> None:
    made = new_class(app)
    tab = connect(app, "zh")
    tab.emit("lang", {"lang": "zh"})
    tab.emit("class:teach", {"code": made["code"], "key": "x" * 32})
    [error] = errors(tab)
    assert error["code"] == "class_bad_key" and "教师密钥" in error["message"]


def test_bad_code_is_a_clear_localized_error(app: Flask) -> None:
    _, messages = join(app, "QQQQQQ", "Ann", lang="zh")
    [error] = of(messages, "error")
    assert error["code"] == "class_not_found" and "请和老师核对代码" in error["message"]
    assert not of(messages, "snapshot")


def test_following_student_gets_the_teachers_payloads_unchanged(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    student, messages = join(app, made["code"], "Ann")
    state = of(messages, "class:state")[0]
    assert state["role"] == "student" and state["following"] is True and state["name"] == "Ann"
    assert "teacherKey" not in str(messages) and made["teacherKey"] not in str(messages)
    assert of(messages, "snapshot")[0]["session"] == snap["session"]
    received(teacher)
    teacher.emit("clock", {"op": "play"})
    run(app, 3.0)
    theirs = [p for e, p in received(teacher) if e == "tick"]
    mine = [p for e, p in received(student) if e == "tick"]
    assert mine and [(p["seq"], p["now"], p["pod"]) for p in mine] == [
        (p["seq"], p["now"], p["pod"]) for p in theirs
    ]


def test_following_student_cannot_drive_the_teachers_run(app: Flask) -> None:
    made = new_class(app)
    _teacher, snap = teach(app, made)
    student, _ = join(app, made["code"], "Ann", lang="zh")
    session = shown_run(app, snap["session"])
    assert session is not None
    before = (session.seq, session.sim.now, session.clock.playing, list(session.sim.actions))
    for event, payload in [
        ("clock", {"op": "play"}),
        ("clock", {"op": "seek", "value": 5}),
        ("act", {"action": "delete"}),
        ("apply", {"yaml": POD}),
        ("join", {"session": snap["session"], "yaml": POD}),
    ]:
        student.emit(event, payload)
        [error] = errors(student)
        assert error["code"] in ("class_following", "class_in_class"), (event, error)
        assert "老师" in error["message"] or "课堂" in error["message"]
    after = (session.seq, session.sim.now, session.clock.playing, list(session.sim.actions))
    assert after == before
    # Nor from a tab outside the class: the id its tabs are shown joins nothing, and the
    # run's own id, which no tab is shown, is refused.
    assert snap["session"] != session.id
    outsider = connect(app)
    outsider.emit("join", {"session": snap["session"]})
    assert errors(outsider)[0]["code"] == "unknown_session"
    outsider.emit("join", {"session": session.id})
    assert errors(outsider)[0]["code"] == "class_session_private"
    # A resync (join naming the session it is on) is allowed, as for any tab.
    student.emit("join", {"session": snap["session"]})
    assert of(received(student), "snapshot")[0]["session"] == snap["session"]


def test_teacher_only_events_are_refused_for_students(app: Flask) -> None:
    made = new_class(app)
    teach(app, made)
    student, _ = join(app, made["code"], "Ann")
    for event, payload in [
        ("class:mode", {"mode": "free"}),
        ("class:lock", {"editor": True}),
        ("class:end", {}),
        ("class:watch", {"name": "Ann"}),
        ("class:export", {}),
        ("class:handout", {"scenario": "plain-pod"}),
    ]:
        student.emit(event, payload)
        assert [e["code"] for e in errors(student)] == ["class_teacher_only"], event


def test_roster_goes_to_the_teacher_only_and_shows_names_as_sent(app: Flask) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    name = '<img src=x onerror="alert(1)">'
    ann, _ = join(app, made["code"], name)
    bob, bob_messages = join(app, made["code"], "Bob")
    assert not of(bob_messages, "class:roster")
    rosters = of(received(teacher), "class:roster")
    names = [s["name"] for s in rosters[-1]["students"]]
    assert names == [name, "Bob"]
    row = rosters[-1]["students"][0]
    assert row["connected"] and row["following"] and row["session"] is None
    assert {"now", "status", "stage", "lastActivity", "stuck", "answers"} <= set(row)
    assert row["scenario"] == "web"  # no Simulation document: named after its Pod
    assert not of(received(ann), "class:roster") and not of(received(bob), "class:roster")


def test_names_are_checked_and_unique(app: Flask) -> None:
    made = new_class(app)
    teach(app, made)
    for bad in ["", "   ", "x" * 41, "a\x00b", 12]:
        _, messages = join(app, made["code"], bad)  # type: ignore[arg-type]
        assert of(messages, "error")[0]["code"] == "class_name_invalid", bad
    join(app, made["code"], "Ann")
    _, messages = join(app, made["code"], "ann", lang="zh")
    error = of(messages, "error")[0]
    assert error["code"] == "class_name_taken" and "换一个名字" in error["message"]
    _, messages = join(app, made["code"], "x" * 40)
    assert of(messages, "class:state")


def test_fork_is_the_teachers_exact_moment_and_follow_again_returns(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    teacher.emit("clock", {"op": "play"})
    run(app, 4.0)
    teacher.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    teacher.emit("clock", {"op": "pause"})
    teacher_session = shown_run(app, snap["session"])
    assert teacher_session is not None
    student, _ = join(app, made["code"], "Ann")
    student.emit("class:fork", {})
    messages = received(student)
    assert of(messages, "class:state")[-1]["following"] is False
    fork = of(messages, "snapshot")[-1]
    assert fork["session"] != snap["session"]
    assert fork["now"] == teacher_session.sim.now
    assert fork["actions"] == teacher_session.actions
    assert fork["pod"] == teacher_session.sim.pod()
    # The fork is theirs to drive; the teacher's run does not move.
    student.emit("clock", {"op": "seek", "value": 30})
    assert not errors(student)
    assert teacher_session.sim.now == fork["now"]
    # Nobody else reaches it, even with its id.
    other, _ = join(app, made["code"], "Bob")
    other.emit("join", {"session": fork["session"]})
    assert errors(other)[0]["code"] == "class_in_class"
    outsider = connect(app)
    outsider.emit("join", {"session": fork["session"]})
    assert errors(outsider)[0]["code"] == "unknown_session"
    outsider.emit("join", {"session": shown_run(app, fork["session"]).id})
    assert errors(outsider)[0]["code"] == "class_session_private"
    roster = of(received(teacher), "class:roster")[-1]["students"]
    assert roster[0]["following"] is False and roster[0]["session"] == fork["session"]
    student.emit("class:follow", {})
    messages = received(student)
    assert of(messages, "class:state")[-1]["following"] is True
    assert of(messages, "snapshot")[-1]["session"] == snap["session"]


def test_students_do_not_see_each_others_answers_or_sessions(app: Flask) -> None:
    made = new_class(app)
    teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    bob, _ = join(app, made["code"], "Bob")
    ann.emit("class:fork", {})
    ann_session = of(received(ann), "snapshot")[-1]["session"]
    assert ann_session not in str(received(bob))


def test_mode_follow_brings_everyone_back_and_lock_stops_apply(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    ann.emit("class:fork", {})
    received(ann)
    teacher.emit("class:lock", {"editor": True})
    assert of(received(ann), "class:state")[-1]["locked"] is True
    ann.emit("apply", {"yaml": POD})
    assert errors(ann)[0]["code"] == "class_editor_locked"
    ann.emit("act", {"action": "delete"})
    assert not errors(ann)
    teacher.emit("class:mode", {"mode": "follow"})
    messages = received(ann)
    assert of(messages, "snapshot")[-1]["session"] == snap["session"]
    assert of(messages, "class:state")[-1]["following"] is True


def test_class_caps_its_students(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", CLASS_MAX_STUDENTS=2)
    made = new_class(app)
    teach(app, made)
    join(app, made["code"], "Ann")
    join(app, made["code"], "Bob")
    _, messages = join(app, made["code"], "Cy", lang="zh")
    [error] = of(messages, "error")
    assert error["code"] == "class_full" and "最多 2 名学生" in error["message"]


def test_rate_limit_per_student(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", CLASS_STUDENT_EVENTS_PER_SECOND=1)
    made = new_class(app)
    teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    codes = []
    for _ in range(6):
        ann.emit("class:follow", {})
        codes += [e["code"] for e in errors(ann)]
    assert "class_rate_limited" in codes


def test_dropped_student_takes_their_name_back_with_the_token(app: Flask) -> None:
    made = new_class(app)
    teach(app, made)
    ann, messages = join(app, made["code"], "Ann")
    token = of(messages, "class:state")[0]["token"]
    ann.disconnect()
    _, messages = join(app, made["code"], "Ann")
    assert of(messages, "error")[0]["code"] == "class_name_taken"
    _, messages = join(app, made["code"], "Ann", token=token)
    assert of(messages, "class:state")[0]["following"] is True
    assert of(messages, "snapshot")


def test_a_restart_keeps_the_class(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    app = make_app(db)
    made = new_class(app)
    teacher, _ = teach(app, made)
    teacher.emit("clock", {"op": "play"})
    run(app, 5.0)
    teacher.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    teacher.emit("clock", {"op": "pause"})
    _, messages = join(app, made["code"], "Ann")
    token = of(messages, "class:state")[0]["token"]
    classes = classes_of(app)
    cls = classes.get(made["code"])
    assert cls is not None
    classes.save(cls)
    session = realtime_of(app).manager.get(cls.teacher_session_id)
    assert session is not None
    now, actions = session.sim.now, session.actions

    restarted = make_app(db)
    assert restarted.test_client().get(f"/c/{made['code']}").status_code == 200
    _teacher2, snap = teach(restarted, made)
    assert snap["now"] == now and snap["actions"] == actions
    _, messages = join(restarted, made["code"], "Ann", token=token)
    assert of(messages, "snapshot")[0]["session"] == snap["session"]


def test_end_closes_the_class(app: Flask) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    teacher.emit("class:end", {})
    assert of(received(ann), "class:state")[-1]["ended"] is True
    assert app.test_client().get(f"/c/{made['code']}").status_code == 404
    _, messages = join(app, made["code"], "Bob")
    assert of(messages, "error")[0]["code"] == "class_not_found"


def test_watch_and_export(app: Flask) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    ann, _ = join(app, made["code"], "=cmd|' /C calc'!A0")
    ann.emit("class:fork", {})
    received(teacher)
    teacher.emit("class:watch", {"name": "=cmd|' /C calc'!A0"})
    watch = of(received(teacher), "class:watch")[0]
    assert watch["own"] == "fork" and "yaml" in watch
    teacher.emit("class:export", {})
    text = of(received(teacher), "class:export")[0]["csv"]
    lines = text.splitlines()
    assert lines[0].startswith("name,connected,following,own,scenario,virtual_second")
    assert lines[1].startswith("'=cmd")  # never a formula in a spreadsheet


def test_handout_gives_each_student_their_own_paused_session(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    bob, _ = join(app, made["code"], "Bob")
    bob.disconnect()
    teacher.emit("class:handout", {"yaml": "kind: Pod\n"})
    assert errors(teacher)[0]["code"] == "invalid_scenario"
    assert of(received(ann), "snapshot") == []  # a refused hand-out changes nothing
    teacher.emit("class:handout", {"scenario": "plain-pod", "at": 4})
    messages = received(ann)
    handed = of(messages, "snapshot")[-1]
    assert handed["session"] != snap["session"] and handed["now"] == 4
    assert handed["clock"]["playing"] is False
    assert of(messages, "class:state")[-1]["own"] == "handout"
    ann.emit("clock", {"op": "play"})
    assert not errors(ann)
    # Bob was away: he gets his own copy when he comes back.
    cls = classes_of(app).get(made["code"])
    assert cls is not None
    token_bob = None
    for student in cls.students.values():
        if student.name == "Bob":
            assert student.own == "handout" and student.session_id is None
            token_bob = student
    assert token_bob is not None


def test_adhoc_status_question_is_computed_answered_counted_and_revealed(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    bob, _ = join(app, made["code"], "Bob")
    teacher.emit("clock", {"op": "play"})
    run(app, 0.5, rounds=2)
    received(teacher)
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 5}})
    messages = received(teacher)
    assert not of(messages, "error"), messages
    session = shown_run(app, snap["session"])
    assert session is not None and session.clock.playing is False  # the clock pauses
    [question] = of(received(ann), "class:question")
    assert "answer" not in question and "why" not in question
    assert question["question"]["zh"] == "5 秒后 STATUS 会是什么？"
    assert 2 <= len(question["choices"]) <= 5
    # The answer is what the run shows 5 s on: play it and read STATUS.
    cls = classes_of(app).get(made["code"])
    assert cls is not None
    correct = cls.questions[question["id"]]["answer"]
    expected_at = session.sim.now + 5
    session.run_until(expected_at)
    from webapp import kubectl

    status = kubectl.pod_columns(session.sim.pod(), session.sim.wall_time())["STATUS"]
    assert question["choices"][correct]["en"] == status
    ann.emit("class:answer", {"id": question["id"], "choice": correct})
    bob.emit(
        "class:answer", {"id": question["id"], "choice": (correct + 1) % len(question["choices"])}
    )
    bob.emit("class:answer", {"id": question["id"], "choice": 99})
    assert errors(bob)[0]["code"] == "class_bad_choice"
    roster = of(received(teacher), "class:roster")[-1]
    [tallied] = roster["questions"]
    assert tallied["answered"] == 2 and tallied["counts"][correct] == 1
    assert {s["name"]: s["answers"] for s in roster["students"]} == {
        "Ann": {question["id"]: correct},
        "Bob": {question["id"]: (correct + 1) % len(question["choices"])},
    }
    # Students never get the roster (nor each other's answers) before or after the reveal.
    assert not of(received(ann), "class:roster")
    teacher.emit("class:reveal", {"id": question["id"]})
    results = of(received(ann), "class:results")[0]
    assert results["answer"] == correct and results["mine"] == correct
    assert "Bob" not in str(results)
    ann.emit("class:answer", {"id": question["id"], "choice": 0})
    assert errors(ann)[0]["code"] == "class_unknown_question"


def test_repeated_yaml_errors_mark_a_student_as_maybe_stuck(app: Flask) -> None:
    made = new_class(app)
    _teacher, _ = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    ann.emit("class:fork", {})
    for _ in range(3):
        ann.emit("apply", {"yaml": "kind: Pod\n"})
    assert [e["code"] for e in errors(ann)] == ["invalid_scenario"] * 3
    cls = classes_of(app).get(made["code"])
    assert cls is not None
    [row] = classes_of(app).roster(cls)["students"]
    assert "yaml_errors" in row["stuck"]
    ann.emit("apply", {"yaml": POD})
    ann.emit("class:follow", {})
    ann.emit("class:fork", {})
    [row] = classes_of(app).roster(cls)["students"]
    assert "yaml_errors" not in row["stuck"]


def test_teacher_picks_a_builtin_for_the_class(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    ann.emit("class:scenario", {"scenario": "plain-pod"})
    assert errors(ann)[0]["code"] == "class_teacher_only"
    teacher.emit("class:scenario", {"scenario": "plain-pod"})
    fresh = of(received(ann), "snapshot")[-1]
    assert fresh["session"] == snap["session"] and fresh["scenario"]["name"] == "plain-pod"
    teacher.emit("class:scenario", {"scenario": "nope"})
    assert errors(teacher)[0]["code"] == "unknown_scenario"
