"""Issue 21, item 1: the teacher's link and PIN. The teacher moves to another computer with
the teacher link (its key in the fragment) or, on a projector PC, with a six-digit PIN whose
tries are rate-limited per address and per class; neither ever reaches a student's page,
socket messages or the CSV, nor the server's log."""

from __future__ import annotations

import json
import logging
import re
import sqlite3

import pytest
from flask import Flask

from tests.web.test_class_hardening import connect_from
from tests.web.test_classroom import connect, errors, join, new_class, of, received, teach
from webapp import storage
from webapp.classes import codes


def test_a_class_has_a_six_digit_pin_stored_only_as_a_salted_hash(app: Flask) -> None:
    made = new_class(app)
    pin = made["teacherPin"]
    assert re.fullmatch(r"[0-9]{6}", pin)
    assert made["teacherUrl"] == f"/c/{made['code']}/teach#key={made['teacherKey']}&pin={pin}"
    db = sqlite3.connect(storage.database_path(app))
    (stored,) = db.execute("SELECT pin_hash FROM classes WHERE code = ?", (made["code"],))
    assert stored[0] == codes.pin_hash(made["code"], pin) and pin not in stored[0]
    (row,) = db.execute("SELECT key_hash, yaml, state, lang FROM classes")
    assert not any(pin in str(cell) for cell in row)


def test_the_pin_opens_the_teachers_view_and_a_wrong_one_is_refused_in_its_language(
    app: Flask,
) -> None:
    made = new_class(app)
    projector = connect(app, "zh")
    projector.emit("lang", {"lang": "zh"})
    wrong = "000000" if made["teacherPin"] != "000000" else "111111"
    projector.emit("class:teach", {"code": made["code"], "pin": wrong})
    (error,) = errors(projector)
    assert error["code"] == "class_bad_pin" and "教师 PIN" in error["message"]
    projector.emit("class:teach", {"code": made["code"], "pin": made["teacherPin"]})
    messages = received(projector)
    assert [m[0] for m in messages][:2] == ["class:state", "snapshot"], messages
    assert of(messages, "class:state")[0]["role"] == "teacher"
    # It drives the class: a question is asked from there.
    projector.emit("class:ask", {"question": {"kind": "status", "seconds": 5}})
    assert not errors(projector)


def test_pin_tries_are_limited_per_address_and_per_class(app: Flask) -> None:
    made = new_class(app)
    wrong = "000000" if made["teacherPin"] != "000000" else "111111"
    tab = connect_from(app, "198.51.100.20")
    seen: dict[str, int] = {}
    for _ in range(12):
        tab.emit("class:teach", {"code": made["code"], "pin": wrong})
        code = errors(tab)[0]["code"]
        seen[code] = seen.get(code, 0) + 1
    print(f"\nissue 21: 12 wrong PINs from one address: {seen}")
    assert seen == {"class_bad_pin": 5, "class_pin_rate_limited": 7}
    # Spent: the right PIN is refused too, so that a hit tells nothing.
    tab.emit("class:teach", {"code": made["code"], "pin": made["teacherPin"]})
    (error,) = errors(tab)
    assert error["code"] == "class_pin_rate_limited" and "5" in error["message"]
    # The class's budget is spent as well: another address is held back for this class ...
    other = connect_from(app, "203.0.113.30", "zh")
    other.emit("lang", {"lang": "zh"})
    other.emit("class:teach", {"code": made["code"], "pin": made["teacherPin"]})
    (error,) = errors(other)
    assert error["code"] == "class_pin_rate_limited" and "每分钟最多 5 次" in error["message"]
    # ... but the teacher link (the key) still opens it.
    other.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    assert of(received(other), "class:state")[0]["role"] == "teacher"
    # And a fresh class from the same second address takes its PIN at once.
    fresh = new_class(app)
    other.emit("class:teach", {"code": fresh["code"], "pin": fresh["teacherPin"]})
    assert of(received(other), "class:state")[0]["role"] == "teacher"


def test_the_teacher_link_qr_is_drawn_for_the_keys_holder_only(app: Flask) -> None:
    made = new_class(app)
    teacher, _ = teach(app, made)
    received(teacher)
    teacher.emit("class:link", {"key": made["teacherKey"], "pin": made["teacherPin"]})
    (link,) = of(received(teacher), "class:link")
    assert link["qr"].startswith("<svg") and "<path" in link["qr"]
    teacher.emit("class:link", {"key": "not-the-key", "pin": made["teacherPin"]})
    assert errors(teacher)[0]["code"] == "class_bad_key"
    teacher.emit("class:link", {"key": made["teacherKey"], "pin": "999999x"})
    assert errors(teacher)[0]["code"] == "class_bad_pin"
    student, _ = join(app, made["code"], "Ann")
    student.emit("class:link", {"key": made["teacherKey"], "pin": made["teacherPin"]})
    assert errors(student)[0]["code"] == "class_teacher_only"


def test_the_key_and_pin_never_reach_a_student_or_the_log(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    made = new_class(app)
    key, pin = made["teacherKey"], made["teacherPin"]
    teacher, _ = teach(app, made)
    projector = connect(app)
    projector.emit("class:teach", {"code": made["code"], "pin": pin})
    student, messages = join(app, made["code"], "Ann")
    teacher.emit("class:link", {"key": key, "pin": pin})
    teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 5}})
    messages += received(student)
    student.emit("class:answer", {"id": "q1", "choice": 0})
    teacher.emit("class:reveal", {"id": "q1"})
    messages += received(student)
    page = app.test_client().get(f"/c/{made['code']}").get_data(as_text=True)
    teacher.emit("class:export", {})
    csv_text = of(received(teacher), "class:export")[0]["csv"]
    wire = json.dumps(messages, ensure_ascii=False)
    assert of(messages, "class:question") and of(messages, "class:results")
    for secret in (key, pin):
        assert secret not in page
        assert secret not in wire
        assert secret not in csv_text
        assert secret not in caplog.text
