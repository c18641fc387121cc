"""The kinds of class question computed from the engine (issue 21, item 4): which event
comes next, restarts at t, in the Service's endpoints at t, stage at t, how long until the
Pod is gone; and free-text "why" questions read by the teacher without names. Each right
answer is checked against the engine run on its own, outside the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.web.test_classroom_questions import connect, make_app, received
from webapp import kubectl
from webapp.classes import quiz
from webapp.engine import Simulation
from webapp.paths import resource_dir


def scenario_text(name: str) -> str:
    return (resource_dir("scenarios") / f"{name}.yaml").read_text(encoding="utf-8")


def start(
    app: Flask, scenario: str, *names: str
) -> tuple[SocketIOTestClient, list[SocketIOTestClient], dict[str, Any]]:
    made = app.test_client().post("/api/classes", json={"scenario": scenario}).json
    teacher = connect(app)
    teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    teacher.get_received()
    students = []
    for name in names:
        student = connect(app)
        student.emit("class:join", {"code": made["code"], "name": name})
        student.get_received()
        students.append(student)
    return teacher, students, made


def ask(teacher: SocketIOTestClient, question: dict[str, Any]) -> dict[str, Any]:
    """Ask; the question as the teacher's roster holds it (with the right answer)."""
    teacher.emit("class:ask", {"question": question})
    got = teacher.get_received()
    errors = [m["args"][0] for m in got if m["name"] == "error"]
    assert not errors, errors
    rosters = [m["args"][0] for m in got if m["name"] == "class:roster"]
    return rosters[-1]["questions"][-1]


def right_text(question: dict[str, Any]) -> str:
    return question["choices"][question["correct"]]["en"]


def engine_at(name: str, t: float, actions: list[dict[str, Any]] | None = None) -> Simulation:
    sim = Simulation.from_yaml(scenario_text(name))
    for action in actions or []:
        sim.advance(action["at"] - sim.now)
        sim.act({k: v for k, v in action.items() if k != "at"})
    sim.advance(t - sim.now)
    return sim


def test_restarts_at_t_is_the_restarts_cell_of_the_run_then(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    teacher, [ann], _ = start(app, "crash-loop-backoff", "Ann")
    teacher.emit("clock", {"op": "seek", "value": 5})
    teacher.get_received()
    q = ask(teacher, {"kind": "restarts", "seconds": 60})
    sim = engine_at("crash-loop-backoff", 65)
    cell = kubectl.pod_columns(sim.pod(), sim.wall_time())["RESTARTS"]
    assert right_text(q) == cell.split(" ", 1)[0]
    assert int(right_text(q)) >= 2  # the crash loop has restarted it by then
    [public] = received(ann, "class:question")
    assert public["kind"] == "restarts" and "answer" not in public and "why" not in public
    assert public["question"]["zh"].startswith("60 秒后")


def test_endpoints_at_t_follows_the_endpoint_slice(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    teacher, _, _ = start(app, "readiness-endpoints")
    for t in (2, 20):
        teacher.emit("clock", {"op": "seek", "value": t})
        teacher.get_received()
        q = ask(teacher, {"kind": "endpoints", "seconds": 10})
        inside = quiz.facts(engine_at("readiness-endpoints", t + 10))["inEndpoints"]
        assert q["correct"] == (0 if inside else 1)
    # A run with no Service: refused, in the tab's language, nothing asked.
    plain, _, _ = start(app, "plain-pod")
    plain.emit("lang", {"lang": "zh"})
    plain.get_received()
    plain.emit("class:ask", {"question": {"kind": "endpoints", "seconds": 10}})
    [error] = received(plain, "error")
    assert error["code"] == "class_question_no_service" and "Service" in error["message"]


def test_stage_at_t_is_the_diagram_stage_then(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    teacher, _, _ = start(app, "init-containers")
    teacher.emit("clock", {"op": "seek", "value": 1})
    teacher.get_received()
    q = ask(teacher, {"kind": "stage", "seconds": 5})
    sim = engine_at("init-containers", 6)
    assert q["correct"] == int(sim.transitions[-1]["stage"]) - 1
    assert [c["en"][0] for c in q["choices"]] == ["1", "2", "3", "4", "5"]
    assert q["choices"][1]["zh"] == "2 初始化容器"


def test_next_event_is_the_first_event_after_now(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    teacher, _, _ = start(app, "crash-loop-backoff")
    teacher.emit("clock", {"op": "seek", "value": 5})
    teacher.get_received()
    q = ask(teacher, {"kind": "event", "seconds": 60})
    # The engine alone: the Events at second 5, then the first new one (or a repeat).
    sim = engine_at("crash-loop-backoff", 5)
    before = {e["metadata"]["name"]: e["count"] for e in sim.events()}
    reason = None
    while reason is None and sim.now < 65:
        sim.advance(0.5)
        fresh = [e for e in sim.events() if e["count"] > before.get(e["metadata"]["name"], 0)]
        if fresh:
            reason = sorted(fresh, key=lambda e: e["lastTimestamp"])[0]["reason"]
    assert reason is not None and right_text(q) == reason
    assert q["choices"][-1]["en"] == "No new event within 60 s"
    assert len({c["en"] for c in q["choices"]}) == len(q["choices"])  # no choice twice


def test_how_long_until_the_pod_is_gone(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    plain, _, _ = start(app, "plain-pod")
    still = ask(plain, {"kind": "gone", "seconds": 120})
    assert right_text(still) == "Still there after 120 s"  # nobody deletes it
    # graceful-shutdown-prestop's own script deletes the Pod at second 30.
    teacher, [ann], _ = start(app, "graceful-shutdown-prestop", "Ann")
    teacher.emit("clock", {"op": "seek", "value": 10})
    teacher.get_received()
    q = ask(teacher, {"kind": "gone", "seconds": 120})
    sim = engine_at("graceful-shutdown-prestop", 10)
    gone_after = None
    while sim.now < 130:
        sim.advance(0.5)
        if sim.pod() is None:
            gone_after = sim.now - 10
            break
    assert gone_after is not None and gone_after > 20  # deleted at 30, then preStop, SIGTERM
    low, high = (float(x) for x in right_text(q)[3:-2].split("–"))
    assert low <= gone_after <= high
    # Asked and answered like every kind; the reveal tells why.
    ann.get_received()
    ann.emit("class:answer", {"id": q["id"], "choice": q["correct"]})
    teacher.emit("class:reveal", {"id": q["id"]})
    [results] = received(ann, "class:results")
    assert results["mine"] == results["answer"] == q["correct"]
    assert "gone" in results["why"]["en"] and results["why"]["zh"]


def test_why_questions_are_read_without_names(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    teacher, [ann, bob, cy], _ = start(app, "crash-loop-backoff", "Ann", "Bob", "Cy")
    q = ask(teacher, {"kind": "why", "text": "  Why does the   Pod restart? "})
    assert q["kind"] == "why" and q["question"]["en"] == "Why does the Pod restart?"
    [public] = received(ann, "class:question")
    assert public["kind"] == "why" and public["choices"] == []
    ann.emit("class:answer", {"id": q["id"], "text": "its process exits with 1"})
    bob.emit("class:answer", {"id": q["id"], "text": "<script>alert(1)</script>"})
    bob.emit("class:answer", {"id": q["id"], "text": '=HYPERLINK("x") the exit code'})
    # Bounded, and no control characters; a choice is no answer to a why question.
    cy.emit("class:answer", {"id": q["id"], "text": "x" * 501})
    assert received(cy, "error")[0]["code"] == "class_why_answer_invalid"
    cy.emit("class:answer", {"id": q["id"], "text": "a\u0000b"})
    assert received(cy, "error")[0]["code"] == "class_why_answer_invalid"
    cy.emit("class:answer", {"id": q["id"], "choice": 0})
    [error] = received(cy, "error")
    assert error["code"] == "invalid_payload" and "choice" in error["message"]
    teacher.get_received()
    teacher.emit("class:lower", {"name": "Ann"})  # any event: a fresh roster
    [roster] = received(teacher, "class:roster")
    tally = roster["questions"][-1]
    assert tally["answered"] == 2
    assert tally["texts"] == ['=HYPERLINK("x") the exit code', "its process exits with 1"]
    rows = {s["name"]: s for s in roster["students"]}
    assert rows["Ann"]["answers"] == {q["id"]: None}  # that Ann answered, not what
    assert rows["Cy"]["answers"] == {}
    # The CSV says who answered, never what (the answers are read without names).
    teacher.emit("class:export", {})
    [export] = received(teacher, "class:export")
    assert "exits with 1" not in export["csv"] and "HYPERLINK" not in export["csv"]
    assert "answer 1: Why does the Pod restart?" in export["csv"]
    assert "Ann,true,true,,crash-loop-backoff" in export["csv"].replace("\r\n", "\n")
    assert export["csv"].count("answered") == 2
    # The reveal: each student sees their own answer, not the others'.
    ann.get_received()
    teacher.emit("class:reveal", {"id": q["id"]})
    [results] = received(ann, "class:results")
    assert results["mine"] == "its process exits with 1" and "texts" not in results
    [mine] = received(teacher, "class:results")
    assert len(mine["texts"]) == 2
    # A question is bounded too.
    teacher.emit("class:ask", {"question": {"kind": "why", "text": "?" * 201}})
    assert received(teacher, "error")[0]["code"] == "class_why_invalid"
    teacher.emit("class:ask", {"question": {"kind": "nope"}})
    [error] = received(teacher, "error")
    assert error["code"] == "invalid_payload" and "kind" in error["message"]


def test_why_answers_survive_a_restart(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    teacher, [ann], made = start(app, "plain-pod", "Ann")
    q = ask(teacher, {"kind": "why", "text": "Why Pending first?"})
    ann.emit("class:answer", {"id": q["id"], "text": "the scheduler has not bound it"})
    teacher.get_received()
    again = make_app(tmp_path)  # the same database: a new process
    tab = connect(again)
    tab.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    [roster] = received(tab, "class:roster")
    assert roster["questions"][-1]["texts"] == ["the scheduler has not bound it"]
