"""A class's teacher types for the class (issue 19 item 4): every line the teacher's terminal
prints reaches the class's followers as `terminal:mirror`, the same payload; a following
student cannot type into the teacher's run; nobody else sees anyone's terminal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from tests.samples import POD
from tests.web.test_classroom import connect, join, new_class, of, received, teach
from webapp import create_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "db.sqlite3"),
                      "SESSION_SCHEDULER": False, "ACTIONS_PER_SECOND": 1000,
                      "CLASS_STUDENT_EVENTS_PER_SECOND": 1000})  # fmt: skip


def test_the_teachers_terminal_is_mirrored_to_following_students(app: Flask) -> None:
    made = new_class(app, yaml=POD)
    teacher, _ = teach(app, made)
    ann, _ = join(app, made["code"], "Ann")
    bob, _ = join(app, made["code"], "Bob", lang="zh")
    outsider = connect(app)
    outsider.emit("join", {"yaml": POD})
    for client in (teacher, ann, bob, outsider):
        received(client)
    teacher.emit("terminal", {"line": "kubectl get pods -o name"})
    [mine] = of(received(teacher), "terminal:output")
    assert mine["stdout"].startswith("pod/") and mine["exitCode"] == 0
    assert of(received(ann), "terminal:mirror") == [mine]
    assert of(received(bob), "terminal:mirror") == [mine]  # the teacher's words, as typed
    assert not of(received(outsider), "terminal:mirror")
    # a student's own line is refused while following (the teacher's run is the teacher's)
    ann.emit("terminal", {"line": "kubectl delete pod web"})
    got = received(ann)
    assert [e["code"] for e in of(got, "error")] == ["class_following"]
    assert of(got, "error")[0]["event"] == "terminal"
    assert not of(received(teacher), "terminal:mirror")
    # a line that is not kubectl is mirrored too: the class sees what was typed and answered
    teacher.emit("terminal", {"line": "ls"})
    [answer] = of(received(teacher), "terminal:output")
    assert of(received(ann), "terminal:mirror") == [answer]


def test_a_tab_outside_a_class_mirrors_nothing(app: Flask) -> None:
    one, two = connect(app), connect(app)
    one.emit("join", {"yaml": POD})
    session = of(received(one), "snapshot")[0]["session"]
    two.emit("join", {"session": session})
    received(two)
    one.emit("terminal", {"line": "kubectl get pods -o name"})
    assert of(received(one), "terminal:output")
    assert not of(received(two), "terminal:mirror")
