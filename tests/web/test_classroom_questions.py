"""Scenario prediction questions over Socket.IO, on the real engine: alone (`quiz:ask`) and
in a class (`class:ask {question: {id}}`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIOTestClient

from webapp import create_app, socketio_of
from webapp.realtime import realtime_of


def make_app(tmp_path: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "db.sqlite3"),
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            "CLASS_STUDENT_EVENTS_PER_SECOND": 1000,
        }
    )


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def received(client: SocketIOTestClient, name: str) -> list[dict[str, Any]]:
    return [m["args"][0] for m in client.get_received() if m["name"] == name]


def shown_run(app: Flask, shown: str) -> Any:
    """The session a snapshot's `session` names: a class's run shows a digest of its id."""
    found = [s for s in realtime_of(app).manager.sessions() if s.public_id == shown]
    return found[0] if found else None


def test_quiz_alone_answers_from_the_run(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    tab = connect(app)
    tab.emit("join", {"scenario": "crash-loop-backoff"})
    [snapshot] = received(tab, "snapshot")
    tab.emit("clock", {"op": "seek", "value": 30})
    tab.get_received()
    tab.emit("quiz:ask", {"id": "status-after-second-crash"})
    [answer] = received(tab, "quiz:answer")
    assert answer["askedAt"] == 30 and answer["checkAt"] == 40
    session = shown_run(app, snapshot["session"])
    assert session is not None
    question = session.scenario.simulation["questions"][0]
    assert question["choices"][answer["answer"]]["status"] == "CrashLoopBackOff"
    assert answer["why"]["zh"]
    # Asking does not move the learner's run.
    assert session.sim.now == 30
    tab.emit("quiz:ask", {"id": "nope"})
    assert received(tab, "error")[0]["code"] == "class_unknown_question"


def test_scenario_question_in_class(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    made = app.test_client().post("/api/classes", json={"scenario": "readiness-endpoints"}).json
    teacher = connect(app)
    teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    teacher.get_received()
    student = connect(app)
    student.emit("class:join", {"code": made["code"], "name": "Ann"})
    student.get_received()
    teacher.emit("clock", {"op": "seek", "value": 20})
    teacher.emit("class:ask", {"question": {"id": "endpoint-when-unready"}})
    [question] = received(student, "class:question")
    assert question["id"] == "endpoint-when-unready" and "answer" not in question
    assert [c["en"] for c in question["choices"]][1].startswith("No")
    # A student cannot ask the server for the answer before the reveal.
    student.emit("quiz:ask", {"id": "endpoint-when-unready"})
    assert received(student, "error")[0]["code"] == "quiz_in_class"
    student.emit("class:answer", {"id": "endpoint-when-unready", "choice": 1})
    teacher.emit("class:reveal", {"id": "endpoint-when-unready"})
    [results] = received(student, "class:results")
    assert results["answer"] == 1 and results["mine"] == 1 and results["counts"] == [0, 1]
