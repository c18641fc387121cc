"""Classes in memory: who is in which class, which sessions belong to it, and what each tab
may do.

One `Classes` per app (`classes_of(app)`). A class has one *teacher session* (an ordinary
Session, driven by the teacher's tabs with the ordinary `clock`, `act` and `apply`). A
student who follows is simply one more tab of that session: it is in the session's room,
so the scheduler's one `tick` emit per round (framed once, `socketio` encodes a room emit
once) reaches every follower unchanged, each tab's backlog metered on its own by the
outbox. A student who forks or gets a hand-out has a session of their own.

`gate(event, sid, payload)` runs before every Socket.IO handler (webapp/realtime/dispatch):
- a tab on a class's teacher session that is not that class's teacher tab cannot `clock`,
  `act` or `apply` (a following student), nor can any tab `join` a class's session by id
  unless it is already on it (a resync);
- a student's own session is reached only by that student's tabs; `apply` is refused
  there while the teacher has locked the editor;
- every event of a student counts against a per-student rate limit (over all their tabs).

A class's runs carry `owner = "class:<code>"` (kept in their records): their tabs are shown
`public_id`, a digest of the id, never the id, and `join {session}` refuses them on every
worker (webapp/realtime/join.py), so no tab outside the class reaches them (issue 26, F3).
Forks and hand-outs are sessions of the student's address (`Student.client`), within its
caps and new-session rate as any visitor's (F2).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp.classes import codes
from webapp.classes.store import ClassStore
from webapp.ratelimit import RateLimiter
from webapp.realtime.state import Realtime, Refusal, parse
from webapp.sessions import Session, SessionGone, TooManyForClient, TooManySessions, slices
from webapp.sessions.tasks import tasks_of

log = logging.getLogger(__name__)

NAME_LIMIT = 40
# A Pod showing one of these STATUS values for STUCK_STATUS_SECONDS (virtual) on a
# student's own run is marked "may be stuck".
FAILING_STATUSES = frozenset(
    {
        "CrashLoopBackOff",
        "Error",
        "ErrImagePull",
        "ImagePullBackOff",
        "CreateContainerConfigError",
        "OOMKilled",
        "RunContainerError",
        "InvalidImageName",
    }
)
STUCK_STATUS_SECONDS = 120.0
# ... and a Pod not Ready for STUCK_STATUS_SECONDS of the run: brief Running stretches of a
# crash loop do not reset that timer; only READY_STABLE_SECONDS (virtual) of all containers
# Ready with no restart in between do (issue 21, item 5: "stuck means stuck").
READY_STABLE_SECONDS = 30.0
# STATUS values of a Pod that is done (or gone), which is not stuck for being not Ready.
DONE_STATUSES = frozenset({"Completed", "Gone", "Succeeded", ""})
# A playing class's virtual second is written to the store at most this often (wall s).
NOW_SAVE_SECONDS = 10.0


def check_name(value: Any) -> str:
    """A display name: 1–NAME_LIMIT characters once trimmed, no control or format characters."""
    if not isinstance(value, str):
        raise Refusal("class_name_invalid", limit=NAME_LIMIT)
    name = " ".join(value.split())
    if not 1 <= len(name) <= NAME_LIMIT or any(
        unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name
    ):
        raise Refusal("class_name_invalid", limit=NAME_LIMIT)
    return name


@dataclass
class Student:
    name: str
    token_hash: str
    sid: str | None = None
    following: bool = True
    own: str | None = None  # "fork" or "handout": what their own session is
    session_id: str | None = None
    # The address of their last tab (webapp/clients.py): their own runs (fork, hand-out)
    # count against its session caps and new-session rate, as any visitor's (issue 26, F2).
    client: str = ""
    last_activity: float = field(default_factory=time.time)
    apply_errors: int = 0  # `apply` refused in a row (invalid YAML)
    applying: bool = False  # their last event was an `apply` not (yet) refused
    progress: tuple[float, float] = (0.0, 0.0)  # (virtual second, wall time it last moved)
    failing_since: float | None = None  # virtual second a failing STATUS was first seen
    # The health of their own run's Pod (see Classes._not_ready): the virtual second it was
    # last seen (to notice time going back), since when it has not been Ready, since when it
    # has been Ready without a restart, and its restart count then.
    seen_at: float = 0.0
    unready_since: float | None = None
    ready_since: float | None = None
    restarts: int = 0
    hand_up: bool = False  # "raise hand": shown in the teacher's roster until cleared


@dataclass
class Classroom:
    code: str
    key_hash: str
    yaml: str
    lang: str
    pin_hash: str | None = None  # the teacher PIN's (codes.pin_hash); None: no PIN
    timeline: dict[str, Any] = field(default_factory=dict)  # {actions, now} as last saved
    teacher_session_id: str | None = None
    teachers: set[str] = field(default_factory=set)
    students: dict[str, Student] = field(default_factory=dict)  # casefolded name -> Student
    mode: str = "follow"
    locked: bool = False
    ended: bool = False
    last_active: float = field(default_factory=time.time)
    # Questions (webapp/classes/questions.py): id -> question as asked; answers id -> {key: i}
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    answers: dict[str, dict[str, int]] = field(default_factory=dict)
    revealed: set[str] = field(default_factory=set)
    # Answers to free-text ("why") questions: id -> {student key: text}; the teacher reads
    # them without names (questions.tally), the CSV says only who answered.
    texts: dict[str, dict[str, str]] = field(default_factory=dict)
    handout: dict[str, Any] | None = None
    handouts: int = 0  # hand-outs so far: a student's page drops the questions of before
    # The lesson plan the class follows (webapp/classes/plans.py): {name, step, timer}, step
    # the index of the step done last (-1: none yet), timer {until (wall), minutes} while a
    # free exploration runs; None: no plan.
    plan: dict[str, Any] | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    saved: str = ""  # the last state written to the store
    saved_without_now: str = ""  # ... with its virtual second left out
    saved_at: float = float("-inf")  # wall time of that write

    def connected(self) -> bool:
        return bool(self.teachers) or any(s.sid for s in self.students.values())


Emit = Callable[[str, Any, str], None]


class Classes:
    def __init__(
        self,
        rt: Realtime,
        store: ClassStore,
        *,
        engine: Callable[[], Any],
        max_students: int = 200,
        idle_seconds: float = 2 * 3600.0,
        student_events_per_second: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rt = rt
        self.store = store
        self.engine = engine  # () -> the Simulation class sessions run
        self.max_students = max_students
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.per_student = RateLimiter(
            student_events_per_second, burst=max(1.0, 2 * student_events_per_second)
        )
        # New names (issue 26, F4): per client address and per connection (init_app sets
        # them from the configuration); unknown codes looked up, per client address.
        self.names_per_client = RateLimiter(30 / 60.0, burst=60)
        self.names_per_tab = RateLimiter(3 / 60.0, burst=3)
        self.code_misses = RateLimiter(10 / 60.0, burst=20)
        # Teacher PIN tries (issue 21), per client address and per class.
        self.pin_tries_per_client = RateLimiter(5 / 60.0, burst=5)
        self.pin_tries_per_class = RateLimiter(5 / 60.0, burst=5)
        self._classes: dict[str, Classroom] = {}
        # sid -> (code, "teacher" | "student", student key)
        self.members: dict[str, tuple[str, str, str]] = {}
        # session id -> (code, "teacher" | "student", student key)
        self.owners: dict[str, tuple[str, str, str]] = {}
        self._lock = threading.RLock()
        self._loop_started = False
        # The built-in lesson plans (webapp/classes/plans.PlanCatalog; init_app sets it).
        self.plans: Any = None
        # webapp.classes.span.Span when classes span several workers (Redis): this worker
        # keeps in memory only the classes it is the home of.
        self.span: Any = None

    # -- finding classes -------------------------------------------------------------------

    def get(self, code: Any) -> Classroom | None:
        """The live class with this code (loaded from the store after a restart); None if
        unknown, ended, or idle past `idle_seconds`."""
        normalized = codes.normalize_code(code)
        if normalized is None:
            return None
        with self._lock:
            cls = self._classes.get(normalized)
            if cls is not None:
                return None if cls.ended else cls
            row = self.store.load(normalized)
            if row is None or row["ended_at"] is not None:
                return None
            if self.clock() - float(row["last_active"]) > self.idle_seconds:
                self.store.end(normalized)
                return None
            if self.span is not None and not self.span.claim(normalized):
                raise Refusal("class_moved", class_code=normalized)  # another home meanwhile
            cls = self._restore(row)
            self._classes[normalized] = cls
            return cls

    # -- probing codes, new names (issue 26, F4) ------------------------------------------

    def may_look_up(self, client: str) -> None:
        """Refused (class_codes_rate_limited) while `client` has no unknown-code lookups
        left: then every lookup is refused, a live code's too, so that the answers tell
        nothing until the budget refills."""
        if not self.code_misses.available(client):
            raise Refusal("class_codes_rate_limited", limit=int(self.code_misses.rate * 60))

    def missed(self, client: str) -> None:
        """`client` looked up a code that is no live class."""
        self.code_misses.allow(client)

    def may_add_name(self, sid: str, client: str) -> None:
        """A new name in a class from tab `sid` of `client`: within both names budgets."""
        if not self.names_per_client.available(client) or not self.names_per_tab.available(sid):
            raise Refusal("class_names_rate_limited")
        self.names_per_client.allow(client)
        self.names_per_tab.allow(sid)

    def lookup(self, code: Any) -> str | None:
        """The code of a live class (normalized), without loading it here: for pages,
        which any worker serves."""
        normalized = codes.normalize_code(code)
        if normalized is None:
            return None
        with self._lock:
            cls = self._classes.get(normalized)
        if cls is not None:
            return None if cls.ended else cls.code
        row = self.store.load(normalized)
        if row is None or row["ended_at"] is not None:
            return None
        if self.clock() - float(row["last_active"]) > self.idle_seconds:
            return None
        return normalized

    def held_codes(self) -> list[str]:
        """The classes this worker holds in memory (with a span: is the home of)."""
        with self._lock:
            return [code for code, cls in self._classes.items() if not cls.ended]

    def drop(self, code: str) -> None:
        """Another worker became the home of class `code`: forget it here and hang up its
        tabs, which rejoin it there."""
        with self._lock:
            cls = self._classes.pop(code, None)
        if cls is None:
            return
        with cls.lock:
            sids = list(cls.teachers) + [s.sid for s in cls.students.values() if s.sid]
        for sid in sids:
            self.members.pop(sid, None)
        for session_id, owner in list(self.owners.items()):
            if owner[0] == code:
                self.owners.pop(session_id, None)
        self.rt.hang_up(sids)

    def save_all(self) -> None:
        """Write every class held here (SIGTERM, before the sessions are let go)."""
        for code in self.held_codes():
            cls = self._classes.get(code)
            if cls is not None:
                with contextlib.suppress(Exception):
                    self.save(cls, force=True)

    def _restore(self, row: dict[str, Any]) -> Classroom:
        state = row["state"]
        cls = Classroom(
            code=row["code"],
            key_hash=row["key_hash"],
            yaml=row["yaml"],
            lang=row["lang"],
            pin_hash=row.get("pin_hash"),
            timeline={"actions": state.get("actions", []), "now": state.get("now", 0.0)},
            mode=state.get("mode", "follow"),
            locked=bool(state.get("locked", False)),
            last_active=float(row["last_active"]),
        )
        cls.questions = dict(state.get("questions", {}))
        cls.revealed = set(state.get("revealed", []))
        cls.texts = {q: dict(t) for q, t in (state.get("texts") or {}).items()}
        cls.handout = state.get("handout")
        cls.plan = state.get("plan")
        runs = (state.get("runs") or {}) if self.span is not None else {}
        if self.span is not None:  # taken back from its record (webapp/records.py)
            cls.teacher_session_id = state.get("teacherSession")
        for name, token_hash in row["students"].items():
            student = Student(name=name, token_hash=token_hash)
            run = runs.get(name.casefold())
            if isinstance(run, dict) and run.get("session") and run.get("own"):
                # A fork or hand-out of theirs, taken back from its record when they rejoin.
                student.following = False
                student.own = str(run["own"])
                student.session_id = str(run["session"])
            cls.students[name.casefold()] = student
        for qid, name, choice in row["answers"]:
            cls.answers.setdefault(qid, {})[name.casefold()] = int(choice)
        return cls

    def create(
        self,
        yaml: str,
        lang: str,
        timeline: dict[str, Any] | None = None,
        plan: str | None = None,
    ) -> tuple[str, str, str]:
        """A new class of scenario text `yaml`; returns (code, teacher key, teacher PIN)."""
        key = codes.new_key()
        pin = codes.new_pin()
        for _ in range(20):
            code = codes.new_code()
            pin_hash = codes.pin_hash(code, pin)
            if self.store.create(code, codes.hash_secret(key), yaml, lang, pin_hash):
                break
        else:  # pragma: no cover - 31**6 codes
            raise RuntimeError("no free class code")
        cls = Classroom(
            code=code, key_hash=codes.hash_secret(key), yaml=yaml, lang=lang, pin_hash=pin_hash
        )
        if timeline:
            cls.timeline = timeline
        if plan is not None:
            cls.plan = {"name": plan, "step": -1, "timer": None}
        with self._lock:
            self._classes[code] = cls
        self.save(cls, force=True)
        if self.span is not None:  # its home is the worker its first tab reaches
            with self._lock:
                self._classes.pop(code, None)
        return code, key, pin

    def check_teacher(self, cls: Classroom, payload: dict[str, Any], client: str) -> None:
        """`class:teach` carries the teacher key (the teacher link) or the teacher PIN (a
        projector PC): refused unless it matches. PIN tries are counted per client address
        and per class before they are checked, so that guessing six digits takes months."""
        if "key" in payload:
            if not codes.secret_matches(payload.get("key"), cls.key_hash):
                raise Refusal("class_bad_key", class_code=cls.code)
            return
        if not self.pin_tries_per_client.allow(client) or not self.pin_tries_per_class.allow(
            cls.code
        ):
            raise Refusal("class_pin_rate_limited", limit=int(self.pin_tries_per_class.burst))
        if not codes.pin_matches(cls.code, payload.get("pin"), cls.pin_hash):
            raise Refusal("class_bad_pin", class_code=cls.code)

    def member(self, sid: str) -> tuple[Classroom, str, Student | None] | None:
        entry = self.members.get(sid)
        if entry is None:
            return None
        code, role, key = entry
        cls = self._classes.get(code)
        if cls is None:
            return None
        return cls, role, cls.students.get(key) if role == "student" else None

    def terminal_mirror(self, sid: str) -> str | None:
        """The room a teacher's terminal is shown in: their class's run (followers and the
        teacher's other tabs); None for any other tab."""
        found = self.member(sid)
        if found is None or found[1] != "teacher":
            return None
        session = self.rt.manager.session_of(sid)
        if session is None or self.owners.get(session.id, (None, None))[:2] != (
            found[0].code,
            "teacher",
        ):
            return None
        room: str = session.room
        return room

    def teacher_of(self, sid: str) -> Classroom:
        found = self.member(sid)
        if found is None or found[1] != "teacher":
            raise Refusal("class_teacher_only")
        if found[0].ended:
            raise Refusal("class_not_found", class_code=found[0].code)
        return found[0]

    def student_of(self, sid: str) -> tuple[Classroom, Student]:
        found = self.member(sid)
        if found is None or found[1] != "student" or found[2] is None:
            raise Refusal("class_student_only")
        if found[0].ended:
            raise Refusal("class_not_found", class_code=found[0].code)
        return found[0], found[2]

    # -- the gate ---------------------------------------------------------------------------

    def gate(self, event: str, sid: str, payload: dict[str, Any]) -> None:
        entry = self.members.get(sid)
        if entry is not None and entry[1] == "student":
            if not self.per_student.allow((entry[0], entry[2])):
                raise Refusal("class_rate_limited", limit=int(self.per_student.rate))
            cls = self._classes.get(entry[0])
            student = cls.students.get(entry[2]) if cls else None
            if student is not None:
                student.last_activity = self.clock()
                if student.applying:  # their last `apply` was not refused
                    student.apply_errors = 0
                student.applying = event == "apply"
        if event.startswith(("class:", "quiz:")) or event == "lang":
            return
        session = self.rt.manager.session_of(sid)
        if event == "join":
            target = payload.get("session")
            resync = (
                session is not None
                and target in (session.id, session.public_id)
                and set(payload) <= {"session", "lang", "transitions"}
            )
            if entry is not None and not resync:
                raise Refusal("class_in_class")
            if not resync and isinstance(target, str) and target in self.owners:
                raise Refusal("class_session_private")
            return
        if session is None:
            return
        owner = self.owners.get(session.id)
        if owner is None:
            return
        code, role, key = owner
        if role == "teacher":
            if entry is None or entry[:2] != (code, "teacher"):
                raise Refusal("class_following")
            return
        if entry is None or entry != (code, "student", key):
            raise Refusal("class_session_private")
        cls = self._classes.get(code)
        if event == "apply" and cls is not None and cls.locked:
            raise Refusal("class_editor_locked")

    def refused(self, event: str, sid: str, refusal: Refusal) -> None:
        """An event of tab `sid` was refused: a student's invalid YAML counts towards "may be
        stuck"."""
        if event != "apply" or refusal.code != "invalid_scenario":
            return
        found = self.member(sid)
        if found is not None and found[2] is not None:
            found[2].applying = False
            found[2].apply_errors += 1

    def leave(self, sid: str) -> None:
        """Tab `sid` disconnected."""
        self.names_per_tab.forget(sid)
        entry = self.members.pop(sid, None)
        if entry is None:
            return
        cls = self._classes.get(entry[0])
        if cls is None:
            return
        with cls.lock:
            cls.last_active = self.clock()
            if entry[1] == "teacher":
                cls.teachers.discard(sid)
            else:
                student = cls.students.get(entry[2])
                if student is not None and student.sid == sid:
                    student.sid = None
        self.send_roster(cls)

    def remove(self, cls: Classroom, name: str) -> None:
        """The teacher removes student `name`: their name is free again (with their answers),
        their own run is no longer the class's, and their tab, if connected, is told in its
        language and leaves the class's run."""
        key = name.casefold()
        with cls.lock:
            student = cls.students.pop(key, None)
            if student is None:
                raise Refusal("class_unknown_student", name=name[:NAME_LIMIT])
            for answers in cls.answers.values():
                answers.pop(key, None)
            sid = student.sid
            if sid is not None and self.members.get(sid) == (cls.code, "student", key):
                self.members.pop(sid, None)
            else:
                sid = None
        if student.session_id:
            self.owners.pop(student.session_id, None)
        self.store.remove_student(cls.code, student.name)
        if sid is not None:
            rt = self.rt
            session = rt.manager.session_of(sid)
            if session is not None:
                rt.leave_room(sid, session.room)
            rt.manager.detach(sid)
            rt.refuse(sid, Refusal("class_removed", class_code=cls.code))
        self.save(cls, force=True)
        self.send_roster(cls)

    # -- sessions ---------------------------------------------------------------------------

    def teacher_session(self, cls: Classroom) -> Session:
        """The class's teacher session; rebuilt from the saved timeline when it is gone
        (a restart, or reaped while nobody was in the class)."""
        session = self.rt.manager.get(cls.teacher_session_id) if cls.teacher_session_id else None
        if session is not None:
            return session
        session = self._resume_teacher(cls)
        if session is not None:
            return session
        from webapp.classes import ahead

        scenario = parse(cls.yaml)
        # Not a replay here: from second 0, the saved actions as the kept future, and a
        # sliced seek to the saved moment (issue 12).
        sim, future, seek_to = ahead.start_at(
            self.engine(),
            scenario,
            list(cls.timeline.get("actions", [])),
            float(cls.timeline.get("now", 0.0)),
        )
        session = self._create(sim, client=f"class:{cls.code}", owner=cls.code)
        cls.teacher_session_id = session.id
        self.owners[session.id] = (cls.code, "teacher", "")
        self.seek_to(session, future, seek_to)
        return session

    @staticmethod
    def _runs(cls: Classroom) -> dict[str, Any]:
        """With a span: which runs are the class's, so that a new home takes them back from
        their records (the teacher's run, each student's fork or hand-out)."""
        runs = {
            key: {"own": student.own, "session": student.session_id}
            for key, student in cls.students.items()
            if not student.following and student.session_id
        }
        return {"teacherSession": cls.teacher_session_id, "runs": runs}

    def resume_own(self, cls: Classroom, student: Student) -> Session | None:
        """With a span, a student's own run (fork, hand-out) from its record, when the
        class's previous home is gone; None when there is none."""
        from webapp import records

        keeper = self.rt.keeper
        session_id = student.session_id
        if self.span is None or keeper is None or not session_id:
            return None
        key = student.name.casefold()
        try:
            session = keeper.resume(session_id, sid=None, client=student.client)
        except (records.SessionElsewhere, TooManyForClient, TooManySessions):
            return None
        if session is not None:
            session.owner = f"class:{cls.code}"
            self.owners[session.id] = (cls.code, "student", key)
            if self.rt.run_scheduler:
                self.rt.seeker.start(self.rt.socketio.start_background_task, self.rt.socketio.sleep)
        return session

    def _resume_teacher(self, cls: Classroom) -> Session | None:
        """With a span, the teacher's run as its last record left it (a second at most),
        when the class's previous home is gone or let it go; None when there is no record."""
        from webapp import records

        keeper = self.rt.keeper
        session_id = cls.teacher_session_id
        if self.span is None or keeper is None or not session_id:
            return None
        try:
            session = keeper.resume(session_id, sid=None, client=f"class:{cls.code}")
        except (records.SessionElsewhere, TooManyForClient, TooManySessions):
            return None
        if session is not None:
            session.owner = f"class:{cls.code}"
            self.owners[session.id] = (cls.code, "teacher", "")
            if self.rt.run_scheduler:
                self.rt.seeker.start(self.rt.socketio.start_background_task, self.rt.socketio.sleep)
        return session

    def seek_to(self, session: Session, future: list[dict[str, Any]], at: float | None) -> None:
        """Give a new `session` its kept future and, with `at`, a pending seek there that
        the seek loop runs in slices, charged to the session's CPU budgets."""
        with session.lock:
            session.future = list(future)
            if at is not None:
                slices.begin_seek(session, at)
        if at is not None and self.rt.run_scheduler:
            self.rt.seeker.start(self.rt.socketio.start_background_task, self.rt.socketio.sleep)

    def _create(self, sim: Any, *, client: str, owner: str, tab: str | None = None) -> Session:
        """A new run of class `owner` (a code) for `client`, within the manager's caps."""
        try:
            session = self.rt.manager.create(sim, client=client, tab=tab)
        except TooManyForClient as error:
            raise Refusal("client_session_limit", limit=error.limit) from None
        except TooManySessions as error:
            raise Refusal("too_many_sessions", limit=error.limit) from None
        session.owner = f"class:{owner}"
        return session

    def own_session(
        self,
        cls: Classroom,
        student: Student,
        sim: Any,
        own: str,
        future: list[dict[str, Any]] | None = None,
        seek_to: float | None = None,
    ) -> Session:
        """A new session of the student's own (fork or hand-out), given its kept `future`
        and, with `seek_to`, a sliced seek there; the previous one is left to the reaper."""
        session = self._create(sim, client=student.client, owner=cls.code)
        session.clock.pause()
        self.seek_to(session, future or [], seek_to)
        self.owners[session.id] = (cls.code, "student", student.name.casefold())
        if student.session_id and student.session_id != session.id:
            self.owners.pop(student.session_id, None)
        student.session_id = session.id
        student.own = own
        student.progress = (sim.now, self.clock())
        student.failing_since = None
        student.unready_since = student.ready_since = None
        student.seen_at, student.restarts = sim.now, 0
        return session

    def attach(self, sid: str, session: Session) -> None:
        """Move tab `sid` onto `session` (its room) and send it a snapshot."""
        rt = self.rt
        previous = rt.manager.session_of(sid)
        try:
            rt.manager.attach(sid, session)
        except SessionGone:
            raise Refusal("unknown_session") from None
        if previous is not None and previous is not session:
            rt.leave_room(sid, previous.room)
        with rt.working(session, refusable=False), session.lock:
            if not rt.enter_room(sid, session):
                return  # the tab hung up while this was handled
            rt.send_snapshot(session, to_room=False, sid=sid)
        if rt.run_scheduler:
            rt.scheduler.start(rt.socketio.start_background_task, rt.socketio.sleep)
            self.start_loop()
            if rt.keeper is not None:  # a worker whose tabs are all in classes keeps records
                rt.keeper.start(rt.socketio.start_background_task, rt.socketio.sleep)

    def admit(self, student: Student) -> None:
        """A new run for `student` (fork, hand-out) is one more new session of their address:
        refused past its rate (NEW_SESSIONS_PER_MINUTE), as a visitor's `join` is; the
        session cap per address (MAX_SESSIONS_PER_CLIENT) is the manager's, in `_create`."""
        creations = self.rt.creations
        if not creations.allow(student.client):
            raise Refusal("new_sessions_rate_limited", limit=int(creations.burst))

    def fork(self, cls: Classroom, student: Student) -> Session:
        """A private copy of the teacher's run at its exact current moment (the moment a
        seek of it is going to, if one runs): the same scenario, the same actions, the same
        virtual second. Restored from a checkpoint of the teacher's run (or its nearest
        stored one, or second 0) and taken the rest of the way by a sliced seek, so the
        request never replays; the state is the deterministic replay's, event for event."""
        from webapp.classes import ahead

        self.admit(student)
        teacher = self.teacher_session(cls)
        with teacher.lock:
            sim = teacher.sim
            now = teacher.seek_target if teacher.seek_target is not None else sim.now
            actions = [dict(a) for a in teacher.actions if a["at"] <= now]
            start = ahead.start_at(
                self.engine(),
                sim.scenario,
                actions,
                now,
                live=sim,
                store=teacher.checkpoints if hasattr(sim, "checkpoints") else None,
                seed=teacher.seed,
            )
        sim, future, seek_to = start
        return self.own_session(cls, student, sim, "fork", future, seek_to)

    # -- what tabs are told -----------------------------------------------------------------

    def emit(self, event: str, payload: Any, to: str) -> None:
        self.rt.outbox.emit(event, payload, to=to)

    def state_for(self, cls: Classroom, role: str, student: Student | None) -> dict[str, Any]:
        state: dict[str, Any] = {
            "code": cls.code,
            "role": role,
            "mode": cls.mode,
            "locked": cls.locked,
            "ended": cls.ended,
            "joinUrl": f"/c/{cls.code}",
            "following": role == "student" and student is not None and student.following,
            "handouts": cls.handouts,
        }
        if student is not None:
            state["name"] = student.name
            state["own"] = None if student.following else student.own
            state["handUp"] = student.hand_up
        if role == "teacher":
            state["students"] = len(cls.students)
            state["maxStudents"] = self.max_students
        state["plan"] = self.plan_view(cls, role)
        return state

    def plan_view(self, cls: Classroom, role: str) -> dict[str, Any] | None:
        """What a tab is told of the class's lesson plan: its title, the step it is at (with
        what that step says) and the exploration timer's seconds left; the teacher's tab
        also gets every step, to show what comes next."""
        plan = cls.plan
        found = self.plans.get(plan["name"]) if plan and self.plans is not None else None
        if plan is None or found is None:
            return None
        steps = found["steps"]
        index = int(plan.get("step", -1))
        timer = plan.get("timer")
        view: dict[str, Any] = {
            "name": found["name"],
            "title": found["title"],
            "minutes": found["minutes"],
            "step": index,
            "total": len(steps),
            "current": _step_view(steps[index]) if 0 <= index < len(steps) else None,
            "timer": None
            if not timer
            else {
                "remaining": max(0, round(float(timer["until"]) - self.clock())),
                "minutes": timer["minutes"],
            },
        }
        if role == "teacher":
            view["steps"] = [_step_view(step) for step in steps]
        return view

    def set_mode(self, cls: Classroom, mode: str) -> None:
        """The class's mode: "follow" brings every student back to the teacher's run."""
        cls.mode = mode
        if mode == "follow":
            teacher = self.teacher_session(cls)
            for student in list(cls.students.values()):
                if not student.following:
                    student.following = True
                    if student.sid:
                        self.send_state(cls, student.sid)
                        self.attach(student.sid, teacher)
        self.broadcast_state(cls)
        self.save(cls)
        self.send_roster(cls)

    def send_state(self, cls: Classroom, sid: str) -> None:
        entry = self.members.get(sid)
        if entry is None or entry[0] != cls.code:
            return
        student = cls.students.get(entry[2]) if entry[1] == "student" else None
        self.emit("class:state", self.state_for(cls, entry[1], student), sid)

    def broadcast_state(self, cls: Classroom) -> None:
        for sid in list(cls.teachers) + [s.sid for s in cls.students.values() if s.sid]:
            self.send_state(cls, sid)

    def roster(self, cls: Classroom) -> dict[str, Any]:
        from webapp.classes.questions import tally

        now_wall = self.clock()
        teacher = self.rt.manager.get(cls.teacher_session_id) if cls.teacher_session_id else None
        teacher_view = _session_view(teacher)
        students = []
        # A copy: a student joining in another thread adds to the dict meanwhile.
        for key, student in list(cls.students.items()):
            own = (
                self.rt.manager.get(student.session_id)
                if student.session_id and not student.following
                else None
            )
            view = _session_view(own) if own is not None else teacher_view
            stuck = self._stuck(student, own, view, now_wall)
            students.append(
                {
                    "name": student.name,
                    "connected": student.sid is not None and not cls.ended,
                    "following": student.following,
                    "own": None if student.following else student.own,
                    "session": own.public_id if own is not None else None,
                    "scenario": view["scenario"],
                    "now": view["now"],
                    "status": view["status"],
                    "stage": view["stage"],
                    "lessonSteps": view["lessonSteps"],
                    "tasks": view.get("tasks", ""),  # "done/count" of the lesson's tasks
                    "answers": {
                        **{q: a[key] for q, a in list(cls.answers.items()) if key in a},
                        # a free-text answer: only that they wrote one (no text by name)
                        **{q: None for q, t in list(cls.texts.items()) if key in t},
                    },
                    "lastActivity": round(max(0.0, now_wall - student.last_activity)),
                    "stuck": stuck,
                    "handUp": student.hand_up,
                }
            )
        return {
            "code": cls.code,
            "students": students,
            "teacher": teacher_view,
            "questions": [tally(cls, qid) for qid in list(cls.questions)],
        }

    def _stuck(
        self, student: Student, own: Session | None, view: dict[str, Any], now_wall: float
    ) -> list[str]:
        """Why a student may be stuck (empty: not stuck). Only their own run counts: a
        follower's run is the teacher's."""
        if own is None:
            return []
        reasons = []
        now_virtual, moved_at = student.progress
        if view["now"] != now_virtual:
            student.progress = (view["now"], now_wall)
        elif now_wall - moved_at >= 180:
            reasons.append("no_progress")
        if student.apply_errors >= 3:
            reasons.append("yaml_errors")
        if view["status"] in FAILING_STATUSES:
            if student.failing_since is None:
                student.failing_since = view["now"]
        else:
            student.failing_since = None
        failing = (
            student.failing_since is not None
            and view["now"] - student.failing_since >= STUCK_STATUS_SECONDS
        )
        if failing or self._not_ready(student, view):
            reasons.append("failing")
        return reasons

    @staticmethod
    def _not_ready(student: Student, view: dict[str, Any]) -> bool:
        """Whether the student's Pod has not been Ready for STUCK_STATUS_SECONDS of their
        run. Sampled (each roster), so a restart between two samples counts as a moment not
        Ready; a crash loop's brief Running stretches never add up to READY_STABLE_SECONDS
        without a restart, so they do not reset the timer."""
        now = float(view["now"])
        restarts = int(view.get("restarts", 0))
        if now < student.seen_at or restarts < student.restarts:  # a new history (seek, apply)
            student.unready_since = student.ready_since = None
            student.restarts = restarts
        previous = student.seen_at
        student.seen_at = now
        ready, total = view.get("ready", (0, 0))
        if view["status"] in DONE_STATUSES or total == 0:
            student.unready_since = student.ready_since = None
            student.restarts = restarts
            return False
        restarted = restarts > student.restarts
        student.restarts = restarts
        if ready >= total and not restarted:
            if student.ready_since is None:
                student.ready_since = now
            if now - student.ready_since >= READY_STABLE_SECONDS:
                student.unready_since = None
        else:
            student.ready_since = now if ready >= total else None
            if student.unready_since is None:
                student.unready_since = previous if restarted else now
        return (
            student.unready_since is not None
            and now - student.unready_since >= STUCK_STATUS_SECONDS
        )

    def send_roster(self, cls: Classroom) -> None:
        if not cls.teachers:
            return
        payload = self.roster(cls)
        for sid in list(cls.teachers):
            self.emit("class:roster", payload, sid)

    # -- persistence and the loop -----------------------------------------------------------

    def save(self, cls: Classroom, *, force: bool = False) -> None:
        """Write the class's state (the teacher's timeline, settings, questions) if it
        changed since the last write."""
        import json

        session = self.rt.manager.get(cls.teacher_session_id) if cls.teacher_session_id else None
        if session is not None and session.lock.acquire(blocking=False):
            try:
                # While a seek runs (a rebuilt teacher session), the moment it goes to.
                now = session.seek_target
                if now is None:
                    now = session.sim.now
                actions = [dict(a) for a in session.actions if a["at"] <= now]
                cls.timeline = {"actions": actions, "now": now}
                yaml = session.scenario.text
            finally:
                session.lock.release()
            if yaml != cls.yaml:
                cls.yaml = yaml
                force = True
        state = {
            **cls.timeline,
            **(self._runs(cls) if self.span is not None else {}),
            "mode": cls.mode,
            "locked": cls.locked,
            "questions": cls.questions,
            "revealed": sorted(cls.revealed),
            "texts": cls.texts,
            "handout": cls.handout,
            "plan": cls.plan,
        }
        text = json.dumps(state, sort_keys=True, default=str)
        if not force and text != cls.saved and self.clock() - cls.saved_at < NOW_SAVE_SECONDS:
            # Only the virtual second moved (a playing run): written at most every
            # NOW_SAVE_SECONDS, each write being an fsync; anything else is written at once.
            without_now = json.dumps({**state, "now": None}, sort_keys=True, default=str)
            if without_now == cls.saved_without_now:
                return
        if force or text != cls.saved:
            cls.saved = text
            cls.saved_without_now = json.dumps({**state, "now": None}, sort_keys=True, default=str)
            cls.saved_at = self.clock()
            self.store.save_state(cls.code, state, yaml=cls.yaml)

    def end(self, cls: Classroom) -> None:
        with cls.lock:
            cls.ended = True
        self.save(cls, force=True)
        self.store.end(cls.code)
        self.broadcast_state(cls)
        self.send_roster(cls)  # nobody is in the class any more

    def round(self) -> None:
        """Once a second: rosters to teachers, state to the store, idle classes ended."""
        with self._lock:
            classes = list(self._classes.values())
        now = self.clock()
        for cls in classes:
            if cls.ended:
                with self._lock:
                    self._classes.pop(cls.code, None)
                continue
            if cls.connected():
                cls.last_active = now
            elif now - cls.last_active > self.idle_seconds:
                self.end(cls)
                continue
            try:
                timer = (cls.plan or {}).get("timer")
                if timer and now >= float(timer["until"]):
                    # The plan's free exploration is over: everyone follows again.
                    assert cls.plan is not None
                    cls.plan["timer"] = None
                    self.set_mode(cls, "follow")
                self.save(cls)
                self.send_roster(cls)
            except Exception:
                log.exception("class round failed")
        for session_id, owner in list(self.owners.items()):
            if self.rt.manager.get(session_id) is None:
                code, role, _ = owner
                held = self._classes.get(code)
                if role == "student" or held is None or held.teacher_session_id != session_id:
                    self.owners.pop(session_id, None)

    def start_loop(self) -> None:
        if self._loop_started:
            return
        self._loop_started = True
        socketio = self.rt.socketio

        def loop() -> None:
            while not self.rt.scheduler.stopped.is_set():
                socketio.sleep(1.0)
                try:
                    self.round()
                except Exception:
                    log.exception("class loop failed")

        socketio.start_background_task(loop)


def _step_view(step: dict[str, Any]) -> dict[str, Any]:
    """A plan's step as the page shows it: never a question's answer (none is stored in a
    plan: questions are computed when asked)."""
    view = {k: v for k, v in step.items() if k != "question"}
    if "question" in step:
        view["question"] = {"kind": step["question"].get("kind")}
        if step["question"].get("kind") == "why":
            view["question"]["text"] = step["question"].get("text")
        elif "seconds" in step["question"]:
            view["question"]["seconds"] = step["question"]["seconds"]
    return view


_WORDS: dict[str, tuple[int, set[str]]] = {}  # session id -> (transitions seen, words)


def _seen_words(session: Session) -> set[str]:
    """Words that have appeared in the run (steps, reasons, states), as the page's lesson
    panel reads them (static/js/state.js, seenWords); kept up to date incrementally."""
    transitions = session.sim.transitions
    seen, words = _WORDS.get(session.id, (0, set()))
    if seen > len(transitions):  # a new history (seek back, apply)
        seen, words = 0, set()
    for tr in transitions[seen:]:
        words.add(str(tr.get("step")))
        after = tr.get("after")
        if isinstance(after, str):
            words.add(after)
        elif isinstance(after, dict):
            words.update(str(after[k]) for k in ("reason", "state") if after.get(k))
    _WORDS[session.id] = (len(transitions), words)
    if len(_WORDS) > 10_000:
        _WORDS.clear()
    return words


_VIEWS: dict[str, dict[str, Any]] = {}  # session id -> the last view read under its lock


def _session_view(session: Session | None) -> dict[str, Any]:
    """The few facts the roster shows of a run: virtual second, STATUS, stage, lesson steps
    reached. Never waits for the session's lock: while a command, a pacing round or a seek
    slice holds it (the run's logs change under it), the last view read is shown again."""
    if session is None:
        return {"now": 0.0, "status": "", "stage": "", "lessonSteps": 0, "scenario": "",
                "ready": (0, 0), "restarts": 0}  # fmt: skip
    if not session.lock.acquire(blocking=False):
        last = _VIEWS.get(session.id)
        if last is not None:
            return last
        columns = (getattr(session.cache, "views", {}) or {}).get("columns") or {}
        simulation = session.scenario.simulation
        return {"scenario": simulation.get("name") or "", "now": session.sim.now,
                "status": columns.get("STATUS", ""), "stage": "", "lessonSteps": 0,
                **_health(columns)}  # fmt: skip
    try:
        view = _locked_session_view(session)
    finally:
        session.lock.release()
    if len(_VIEWS) > 10_000:
        _VIEWS.clear()
    _VIEWS[session.id] = view
    return view


def _locked_session_view(session: Session) -> dict[str, Any]:
    cache = session.cache
    views = getattr(cache, "views", {}) or {}
    columns = views.get("columns") or {}
    sim = session.sim
    transitions = sim.transitions
    stage = transitions[-1].get("stage") if transitions else None
    steps = session.scenario.simulation.get("lesson") or []
    if isinstance(steps, dict):
        steps = steps.get("steps") or []
    status = columns.get("STATUS", "")
    words = _seen_words(session) | {status}
    reached = 0
    for step in steps:
        if not isinstance(step, dict):
            continue
        at = step.get("at")
        if (isinstance(at, int | float) and sim.now >= at) or step.get("when") in words:
            reached += 1
    pod = sim.pod() if hasattr(sim, "pod") else None
    simulation = session.scenario.simulation
    progress = tasks_of(session)
    if progress is not None:
        progress.update(session)
        done = set(progress.done)  # a step after a task not done is not reached yet
        reached = 0
        for index, step in enumerate(steps):
            if isinstance(step, dict) and step.get("task"):
                reached += 1  # shown: it comes when the steps before it have
                if index not in done:
                    break
            elif isinstance(step, dict) and (
                (isinstance(step.get("at"), int | float) and sim.now >= step["at"])
                or step.get("when") in words
            ):
                reached += 1
    return {
        "scenario": simulation.get("name") or "",
        "now": sim.now,
        "status": status if pod is not None else "Gone",
        "stage": stage or "",
        "lessonSteps": reached,
        "tasks": f"{len(progress.done)}/{progress.wire()['count']}" if progress else "",
        **(_health(columns) if pod is not None else {"ready": (0, 0), "restarts": 0}),
    }


def _health(columns: dict[str, Any]) -> dict[str, Any]:
    """READY ("1/2") and RESTARTS ("3 (5s ago)") of the Pod's `kubectl get` row as numbers."""
    try:
        ready, total = (int(x) for x in str(columns.get("READY", "0/0")).split("/", 1))
    except ValueError:
        ready, total = 0, 0
    try:
        restarts = int(str(columns.get("RESTARTS", "0")).split(" ", 1)[0])
    except ValueError:
        restarts = 0
    return {"ready": (ready, total), "restarts": restarts}
