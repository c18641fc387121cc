"""A class whose teacher and students sit on different workers (webapp/classes/span.py):
real Redis, real nginx in front of two workers, all started by the test
(tests/integration/stack.py).

The teacher's connection is made while the second worker is frozen (SIGSTOP: it does not
accept, so the kernel gives the connection to the first), the students' while the first is:
nginx opens a new upstream connection for each WebSocket, so the teacher is on one worker
and every student on the other. Nothing here asserts on wall-clock time; waits only stop a
hung test.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio

from tests.integration.stack import ROOT, WAIT, Nginx, Playground, Redis, need_binaries

pytestmark = pytest.mark.slow

SCENARIO = "crash-loop-backoff"
STUDENTS = 3


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[dict[str, Any]]:
    need_binaries()
    parts: dict[str, Any] = {}
    try:
        parts["redis"] = Redis(tmp_path / "redis")
        parts["playground"] = Playground(tmp_path / "playground", parts["redis"].url)
        parts["nginx"] = Nginx(tmp_path / "nginx", parts["playground"].port)
        yield parts
    finally:
        for name in ("nginx", "playground", "redis"):
            part = parts.get(name)
            if part is not None:
                part.stop()


class Member:
    """A class page as it behaves: on every (re)connect after the first it joins the class
    again (as the same student, with its token); keeps what it was sent. `ticks` maps each
    tick's sequence number to the (virtual second, STATUS) it showed."""

    def __init__(self, url: str, code: str, *, key: str = "", name: str = "") -> None:
        self.code, self.key, self.name = code, key, name
        self.token: str | None = None
        self.entered = False
        self.state: dict[str, Any] = {}
        self.session: str | None = None
        self.seq = -1
        self.now = 0.0
        self.status = ""
        self.clock: dict[str, Any] = {}
        self.actions: list[Any] = []
        self.snapshots: list[dict[str, Any]] = []
        self.ticks: dict[int, tuple[float, str]] = {}
        self.roster: dict[str, Any] = {}
        self.questions: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.connects = 0
        self.changed = threading.Condition()
        self.client = socketio.Client(
            reconnection=True, reconnection_delay=0.5, reconnection_delay_max=2.0
        )
        on = self.client.on
        on("connect", self._connected)
        on("class:state", self._state)
        on("snapshot", self._snapshot)
        on("tick", self._tick)
        on("class:roster", lambda m: self._set("roster", m))
        on("class:question", lambda m: self._add(self.questions, m))
        on("class:results", lambda m: self._add(self.results, m))
        on("error", lambda m: self._add(self.errors, m))
        self.client.connect(url, transports=["websocket"], wait_timeout=WAIT)

    def enter(self) -> None:
        self.entered = True
        if self.key:
            self.client.emit("class:teach", {"code": self.code, "key": self.key})
        else:
            token = {"token": self.token} if self.token else {}
            self.client.emit("class:join", {"code": self.code, "name": self.name, **token})

    def _connected(self) -> None:
        with self.changed:
            self.connects += 1
        if self.entered:
            self.enter()

    def _set(self, name: str, value: Any) -> None:
        with self.changed:
            setattr(self, name, value)
            self.changed.notify_all()

    def _add(self, items: list[Any], value: Any) -> None:
        with self.changed:
            items.append(value)
            self.changed.notify_all()

    def _state(self, msg: dict[str, Any]) -> None:
        with self.changed:
            self.state = msg
            if msg.get("token"):
                self.token = msg["token"]
            self.changed.notify_all()

    def _snapshot(self, msg: dict[str, Any]) -> None:
        with self.changed:
            self.session = msg["session"]
            self.seq = msg["seq"]
            self._take(msg)
            self.actions = list(msg["actions"])
            self.snapshots.append({k: msg[k] for k in ("session", "now", "seq", "clock")})
            self.changed.notify_all()

    def _tick(self, msg: dict[str, Any]) -> None:
        with self.changed:
            if msg["seq"] != self.seq + 1:  # as the page does: a fresh snapshot
                self.client.emit("join", {"session": self.session})
                return
            self.seq = msg["seq"]
            self._take(msg)
            delta = msg.get("actionsDelta")
            if delta is not None:  # as the page does (static/js/state.js applyTick)
                self.actions = self.actions[: delta["keep"]] + list(delta["add"])
            self.ticks[self.seq] = (self.now, self.status)
            self.changed.notify_all()

    def _take(self, msg: dict[str, Any]) -> None:
        self.now = msg["now"]
        self.clock = msg["clock"]
        columns = (msg.get("views") or {}).get("columns") or {}
        if "STATUS" in columns:
            self.status = columns["STATUS"]

    def wait(self, predicate: Any, what: str = "", timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"{self.name or 'teacher'}: {what}; now={self.now} seq={self.seq} "
                        f"state={self.state} errors={self.errors[-3:]}"
                    )
                self.changed.wait(min(left, 0.5))

    def emit(self, event: str, payload: dict[str, Any]) -> None:
        self.client.emit(event, payload)

    def close(self) -> None:
        self.client.disconnect()


def pinned(pid: int, other: int, make: Any) -> Any:
    """`make()` while worker `other` is frozen: the connections it opens go to `pid`."""
    assert pid != other
    os.kill(other, signal.SIGSTOP)
    try:
        return make()
    finally:
        os.kill(other, signal.SIGCONT)


def new_class(playground: Playground) -> dict[str, Any]:
    # Straight to the playground: nginx keeps no upstream connection from it (a kept one
    # could carry a WebSocket to the frozen worker).
    request = urllib.request.Request(
        f"http://127.0.0.1:{playground.port}/api/classes",
        data=json.dumps({"scenario": SCENARIO}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        made: dict[str, Any] = json.load(answer)
    return made


def open_class(
    stack: dict[str, Any], *, students_first: bool = False
) -> tuple[Member, list[Member], tuple[int, int]]:
    """A class whose teacher is on the first worker and whose students are on the second,
    the teacher playing at 10x and every student following. Its home is the worker of
    whoever enters first: the teacher's, or with `students_first` the students' (then the
    teacher's own clock and actions are the forwarded events)."""
    playground: Playground = stack["playground"]
    url = stack["nginx"].url
    first, second = playground.worker_pids()
    made = new_class(playground)
    code = made["code"]
    teacher = pinned(first, second, lambda: Member(url, code, key=made["teacherKey"]))
    students = pinned(
        second, first, lambda: [Member(url, code, name=f"student {i}") for i in range(STUDENTS)]
    )
    if students_first:
        for student in students:
            student.enter()
            student.wait(lambda m: m.session is not None and m.state.get("following"), "join")
    teacher.enter()
    teacher.wait(lambda m: m.session is not None and m.state.get("role") == "teacher", "teach")
    if not students_first:
        for student in students:
            student.enter()
    for student in students:
        student.wait(
            lambda m: m.session == teacher.session and m.state.get("following"), "following"
        )
    teacher.emit("clock", {"op": "speed", "value": 10})
    teacher.emit("clock", {"op": "play"})
    return teacher, students, (first, second)


def close(members: list[Member]) -> None:
    for member in members:
        member.close()


def roster_of(teacher: Member) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in teacher.roster.get("students", [])}


def assert_same_ticks(teacher: Member, students: list[Member]) -> None:
    """Every tick a follower got shows the teacher's second and STATUS of the same tick."""
    for student in students:
        with student.changed, teacher.changed:
            common = set(student.ticks) & set(teacher.ticks)
            assert len(common) >= 3, (sorted(student.ticks), sorted(teacher.ticks))
            for seq in common:
                assert student.ticks[seq] == teacher.ticks[seq], seq


@pytest.mark.parametrize("students_first", [False, True], ids=["home-teacher", "home-students"])
def test_a_class_whose_teacher_and_students_are_on_different_workers(
    stack: dict[str, Any], students_first: bool
) -> None:
    teacher, students, _ = open_class(stack, students_first=students_first)
    members = [teacher, *students]
    try:
        # Follow: the teacher's run reaches every follower, tick for tick.
        for student in students:
            student.wait(lambda m: m.now >= 6 and m.status, "ticks")
        teacher.emit("clock", {"op": "pause"})
        teacher.wait(lambda m: not m.clock.get("playing"), "paused")
        for student in students:
            student.wait(lambda m: m.seq == teacher.seq and not m.clock.get("playing"), "pause")
            assert (student.now, student.status) == (teacher.now, teacher.status)
        assert_same_ticks(teacher, students)

        # Roster: every student, connected and following, on the teacher's worker, with
        # the run's second and STATUS (the roster is sent once a second).
        teacher.wait(
            lambda m: (
                len(roster_of(m)) == STUDENTS
                and all(
                    s["connected"]
                    and s["following"]
                    and (s["now"], s["status"]) == (m.now, m.status)
                    for s in roster_of(m).values()
                )
            ),
            "roster",
        )

        # A question: the answers from the other worker count on the teacher's chart.
        teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 5}})
        for student in students:
            student.wait(lambda m: m.questions, "question")
        question = students[0].questions[-1]
        assert "answer" not in question
        for i, student in enumerate(students):
            student.emit("class:answer", {"id": question["id"], "choice": i % 2})
        teacher.wait(
            lambda m: any(
                q["id"] == question["id"] and q["answered"] == STUDENTS
                for q in m.roster.get("questions", [])
            ),
            "answers counted",
        )
        chart = next(q for q in teacher.roster["questions"] if q["id"] == question["id"])
        assert chart["counts"][:2] == [2, 1]
        assert roster_of(teacher)["student 1"]["answers"] == {question["id"]: 1}
        teacher.emit("class:reveal", {"id": question["id"]})
        for i, student in enumerate(students):
            student.wait(lambda m: m.results, "results")
            assert student.results[-1]["mine"] == i % 2
            assert student.results[-1]["answer"] == chart["correct"]

        # Fork: a private run at the teacher's exact moment, driven by the student.
        forker = students[0]
        forker.emit("class:fork", {})
        forker.wait(lambda m: m.session not in (None, teacher.session), "fork")
        assert not forker.state["following"] and forker.state["own"] == "fork"
        forker.wait(lambda m: m.now == teacher.now, "the teacher's moment")  # a sliced seek
        assert forker.actions == teacher.actions
        teacher.wait(
            lambda m: (
                roster_of(m)["student 0"]["own"] == "fork"
                and not roster_of(m)["student 0"]["following"]
            ),
            "roster shows the fork",
        )
        # The editor lock reaches the student's own run on the other worker.
        yaml = (ROOT / "scenarios" / "plain-pod.yaml").read_text()
        teacher.emit("class:lock", {"editor": True})
        forker.wait(lambda m: m.state.get("locked"), "locked")
        forker.emit("apply", {"yaml": yaml})
        forker.wait(lambda m: any(e["code"] == "class_editor_locked" for e in m.errors), "lock")
        teacher.emit("class:lock", {"editor": False})
        forker.wait(lambda m: not m.state.get("locked"), "unlocked")
        forker.emit("clock", {"op": "speed", "value": 10})
        forker.emit("clock", {"op": "play"})
        forker.wait(lambda m: m.now >= teacher.now + 3, "the fork plays")
        assert not teacher.clock.get("playing")  # the teacher's run did not move
        # Follow again: back on the teacher's run.
        forker.emit("class:follow", {})
        forker.wait(lambda m: m.session == teacher.session and m.state.get("following"), "back")
        assert forker.now == teacher.now

        # Hand-out: each student gets a run of their own, paused at the chosen second.
        teacher.emit("class:handout", {"scenario": "plain-pod", "at": 4})
        sessions = set()
        for student in students:
            student.wait(
                lambda m: (
                    m.state.get("own") == "handout" and m.session != teacher.session and m.now == 4
                ),
                "hand-out",
            )
            assert not student.clock.get("playing")
            sessions.add(student.session)
        assert len(sessions) == STUDENTS
        teacher.wait(lambda m: all(s["own"] == "handout" for s in roster_of(m).values()), "roster")
        assert all(s["connected"] for s in roster_of(teacher).values())
        # A student who leaves shows as not connected, with the run they had.
        students[2].close()
        teacher.wait(
            lambda m: (
                not roster_of(m)["student 2"]["connected"]
                and roster_of(m)["student 1"]["connected"]
            ),
            "a student left",
        )
        assert roster_of(teacher)["student 2"]["own"] == "handout"
    finally:
        close(members)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_the_class_survives_the_end_of_its_home(stack: dict[str, Any], sig: int) -> None:
    """kill -9 (its tabs come back when its lease and liveness run out) or SIGTERM (it
    writes the class and the runs, lets them go and hangs the tabs up at once): the new
    home takes the teacher's run and a student's fork back from their records."""
    playground: Playground = stack["playground"]
    teacher, students, (home, _other) = open_class(stack)
    members = [teacher, *students]
    forker, followers = students[0], students[1:]
    try:
        for student in students:
            student.wait(lambda m: m.now >= 4, "ticks")
        teacher.emit("clock", {"op": "pause"})
        teacher.wait(lambda m: not m.clock.get("playing"), "paused")
        paused_at = teacher.now
        session = teacher.session
        for student in students:
            student.wait(lambda m: m.seq == teacher.seq, "paused")
        # One student has a run of their own, with an action of theirs in it.
        forker.emit("class:fork", {})
        forker.wait(lambda m: m.session not in (None, session) and m.now == paused_at, "fork")
        fork = forker.session
        forker.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
        forker.wait(lambda m: len(m.actions) == 1, "the fork's own action")
        time.sleep(1.5)  # a round of records and of the class's state
        before = {id(m): len(m.snapshots) for m in members}
        os.kill(home, sig)
        # Everyone is back in the class: the teacher's run where it stopped, the followers
        # on it, the student who forked on the same fork, all shown on the roster.
        teacher.wait(lambda m: len(m.snapshots) > before[id(m)], "teacher back")
        assert teacher.session == session, "\n".join(playground.lines[-60:])
        teacher.wait(lambda m: m.now == paused_at, "at the moment it stopped")  # a sliced seek
        assert not teacher.clock.get("playing")
        for student in followers:
            student.wait(
                lambda m: len(m.snapshots) > before[id(m)] and m.session == session, "back"
            )
            student.wait(lambda m: m.now == paused_at, "at the teacher's moment")
            assert student.connects == 2
        forker.wait(lambda m: len(m.snapshots) > before[id(m)], "back")
        assert forker.session == fork and len(forker.actions) == 1
        assert forker.state.get("own") == "fork" and not forker.state.get("following")
        teacher.wait(
            lambda m: (
                len(roster_of(m)) == STUDENTS
                and all(s["connected"] for s in roster_of(m).values())
                and roster_of(m)["student 0"]["own"] == "fork"
            ),
            "roster after the crash",
        )
        # ... and the class goes on.
        teacher.emit("clock", {"op": "play"})
        for student in followers:
            student.wait(lambda m: m.now >= paused_at + 3, "plays on")
        assert home not in playground.worker_pids()
        if sig == signal.SIGTERM:
            assert re.search(rf"worker {home} drained: \d+ sessions", "\n".join(playground.lines))
    finally:
        close(members)


def test_a_forked_student_whose_worker_dies_gets_the_fork_back(stack: dict[str, Any]) -> None:
    """The students' worker is killed: their runs live on the class's home, so a student
    who forked comes back to the same fork, and the roster shows them all again."""
    teacher, students, (_home, other) = open_class(stack)
    members = [teacher, *students]
    try:
        for student in students:
            student.wait(lambda m: m.now >= 3, "ticks")
        forker = students[0]
        forker.emit("class:fork", {})
        forker.wait(lambda m: m.session not in (None, teacher.session), "fork")
        fork = forker.session
        forker.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
        forker.wait(lambda m: len(m.actions) == 1, "the fork's own action")
        before = {id(m): len(m.snapshots) for m in students}
        os.kill(other, signal.SIGKILL)
        for student in students:
            student.wait(lambda m: len(m.snapshots) > before[id(m)], "back")
        assert forker.session == fork and len(forker.actions) == 1
        assert not forker.state.get("following") and forker.state.get("own") == "fork"
        for student in students[1:]:
            assert student.session == teacher.session
            student.wait(lambda m: m.now > teacher.now - 1 and m.seq == teacher.seq, "following")
        teacher.wait(
            lambda m: (
                len(roster_of(m)) == STUDENTS
                and all(s["connected"] for s in roster_of(m).values())
                and roster_of(m)["student 0"]["own"] == "fork"
            ),
            "roster after the crash",
        )
        assert teacher.connects == 1  # the teacher's worker was not touched
    finally:
        close(members)


def test_no_tab_outside_the_class_takes_its_run_over_on_any_worker(
    stack: dict[str, Any],
) -> None:
    """Issue 26, F3: a follower used to be shown the teacher's run's id, and a tab outside
    the class that sent `join {session: <it>}` to the worker that is not the class's home
    got the run (the home handed it over, hanging up the teacher and students) and could
    pause, delete and seek it. Now followers see a digest of the id, which joins nothing,
    and the id itself is refused on both workers, the run staying where it is."""
    import redis

    teacher, students, (home, other) = open_class(stack)
    url = stack["nginx"].url
    members: list[Any] = [teacher, *students]
    try:
        for student in students:
            student.wait(lambda m: m.now >= 2, "ticks")
        client = redis.Redis.from_url(stack["redis"].url)
        ids: list[str] = []
        deadline = time.monotonic() + WAIT
        while not ids and time.monotonic() < deadline:  # written within a keeper round
            ids = [k.decode().rsplit(":", 1)[-1] for k in client.scan_iter("playground:session:*")]
            time.sleep(0.1)
        assert ids, "no session record in Redis"
        shown = students[0].session
        assert shown not in ids  # no follower holds the id of a run
        tries: list[tuple[str, str]] = []
        for worker, frozen in ((other, home), (home, other)):
            for target in (shown, *ids):
                outsider = pinned(worker, frozen, lambda: Member(url, teacher.code))
                members.append(outsider)
                outsider.emit("join", {"session": target})
                outsider.wait(lambda m: m.errors or m.snapshots, "an answer")
                code = outsider.errors[0]["code"] if outsider.errors else "joined"
                tries.append(((target == shown and "shown") or "id", code))
                outsider.emit("clock", {"op": "pause"})
                outsider.emit("act", {"action": "delete"})
        print(f"\nF3: joins by a class run's id from outside the class: {tries}")
        assert all(code in ("unknown_session", "class_session_private") for _, code in tries)
        assert teacher.connects == 1 and all(s.connects == 1 for s in students)
        seq = teacher.seq
        teacher.wait(lambda m: m.seq > seq + 2 and m.clock.get("playing"), "still playing")
        assert not teacher.actions
    finally:
        close(members)
