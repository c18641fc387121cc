"""One browser session: a Simulation, its clock, its action log and its message sequence.

A Session is not thread-safe by itself: whoever calls its methods holds `session.lock`
(the Socket.IO handlers for commands, the scheduler for pacing) and emits the returned
payloads before releasing it, so messages leave in sequence-number order.

The action log is a timeline. `sim.actions` holds what has happened up to `sim.now`;
`future` holds actions later than `now`, kept after a seek back so that playing on replays
them; acting anywhere discards that old future.

Who reads the timeline takes only what changed (issue 26, F9: an action's cost must not
grow with the history): `TimelineMarks` keeps, for the tabs (`wire`: ticks carry
`actionsDelta`) and the session record (`record`: webapp/records.py appends rows), how
many first actions each already has as they are now. The timeline's text is bounded:
`max_action_bytes` (SESSION_ACTION_BYTES, docs/limits.md).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from webapp.engine.checkpoint import CheckpointStore
from webapp.sessions import memory
from webapp.sessions.budget import CpuBudget, charged, held, slice_stop
from webapp.sessions.clock import SessionClock
from webapp.sessions.derived import derived_payload
from webapp.sessions.tasks import tasks_of
from webapp.sessions.views import CACHED_KEYS, StateCache
from webapp.sessions.wire import WirePayload

log = logging.getLogger(__name__)

# Checkpoints of a session's history (webapp.engine.checkpoint): one per this many virtual
# seconds, at most this many bytes in all (past it they thin out to every other one).
CHECKPOINT_INTERVAL = 60.0
CHECKPOINT_BUDGET = 3_000_000

# A paced tick waits at least this long after the session's previous message: at most ten
# a second. The scheduler lengthens it when many sessions play (see Scheduler.interval).
MIN_TICK_INTERVAL = 0.1
# With nothing new but the time, a playing session's tabs hear from it this often: the page
# moves its clock itself in between (issue 13: updates scale with what changes).
RESYNC_SECONDS = 1.0


WIRE = "wire"  # the tabs, through ticks
RECORD = "record"  # the session record (webapp/records.py)


class ActionTextFull(Exception):
    """An action that would take the timeline's text past `max_action_bytes` (refused
    before anything changed; the realtime layer answers `action_refused`)."""

    code = "too_much_action_text"

    def __init__(self, limit: int) -> None:
        super().__init__(f"This run's actions already hold about {limit // 1024} KiB of text")
        self.params = {"limit": limit // 1024}


def action_bytes(action: dict[str, Any]) -> int:
    """About the bytes of `action` as JSON: its keys and string values in UTF-8 (ASCII
    text measured by its length, without encoding it), 8 per other value and field."""
    size = 2
    for key, value in action.items():
        size += len(key) + 8
        if isinstance(value, str):
            size += len(value) if value.isascii() else len(value.encode("utf-8", "replace"))
    return size


class TimelineMarks:
    """How much of a session's timeline (past and kept future, in order) each reader already
    has: `(kept, taken)`, the reader took `taken` actions and the first `kept` of them are
    still as they are now. `changed(i)`: actions from index i on may differ from what any
    reader took. A reader never seen has nothing (it takes the whole)."""

    def __init__(self) -> None:
        self._marks: dict[str, tuple[int, int]] = {}

    def delta(self, reader: str, length: int) -> int | None:
        """How many first actions `reader` keeps of what it has, when the timeline (now
        `length` long) changed since it took it; None when it has it all as it is."""
        kept, taken = self._marks.get(reader, (0, -1))
        if kept == taken == length:
            return None
        return min(kept, length)

    def take(self, reader: str, length: int) -> None:
        self._marks[reader] = (length, length)

    def forget(self, reader: str) -> None:
        self._marks.pop(reader, None)

    def changed(self, index: int) -> None:
        for reader, (kept, taken) in self._marks.items():
            if kept > index:
                self._marks[reader] = (index, taken)


class PacingLock:
    """A session's re-entrant lock. Whoever takes it first (a handler, a class, the record
    writer) finds the engine at its clock's time: the scheduler runs a playing session only
    when something is due (its next engine event or kept future action, its end, a resync),
    so in between the engine may be behind the clock, and `Session.catch_up` closes that gap
    on the way in. The scheduler, which paces the session itself, takes it with
    `catch_up=False`."""

    def __init__(self, session: Session) -> None:
        self._lock = threading.RLock()
        self._session = session
        self._depth = 0  # changed only by the thread that holds the lock

    def acquire(self, blocking: bool = True, timeout: float = -1, *, catch_up: bool = True) -> bool:
        if not self._lock.acquire(blocking, timeout):
            return False
        self._depth += 1
        if catch_up and self._depth == 1:
            self._session.catch_up()
        return True

    def release(self) -> None:
        self._depth -= 1
        self._lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *_: object) -> None:
        self.release()


def new_session_id() -> str:
    """192 random bits: nobody reaches a session without being given its id."""
    return secrets.token_urlsafe(24)


def public_id_of(session_id: str) -> str:
    """A class run's public id: the same on every worker, not reversible to its id."""
    return "class-" + hashlib.sha256(session_id.encode()).hexdigest()[:32]


class Session:
    def __init__(
        self,
        sim: Any,
        *,
        end: float,
        seed: int = 0,
        view_refresh_seconds: float = 1.0,
        session_id: str | None = None,
        cpu: CpuBudget | None = None,
    ) -> None:
        self.id = session_id or new_session_id()
        self.lock = PacingLock(self)
        # The scheduler's wall clock (None while no scheduler paces it, or once it stopped):
        # what `catch_up` brings the engine to.
        self.wall: Callable[[], float | None] | None = None
        self.seed = seed
        self.clock = SessionClock(end=end)
        self.seq = 0
        # Socket.IO sids currently joined. Replaced, never mutated, and only under the
        # manager's lock, so the scheduler and the reaper read it without the session lock.
        self.tabs: frozenset[str] = frozenset()
        self.idle_since: float | None = None  # scheduler wall time when the last tab left
        self.client = ""  # the address that created it (per-client limits)
        # "class:<code>" for a class's run (the teacher's, a fork, a hand-out): never joined
        # by id (webapp/classes/room.py), and its tabs see only `public_id`, never `id`.
        self.owner: str | None = None
        self.used = False  # set by the first command that plays, steps, seeks, acts or applies
        # A virtual second where a playing clock pauses by itself (a lesson plan's "play to
        # t", webapp/classes/plans.py); None: it plays on to the end.
        self.pause_at: float | None = None
        self.left_at = 0.0  # manager clock when it was created or its last tab left
        # CPU time this session may still spend (commands and pacing); unlimited if None.
        self.cpu = cpu if cpu is not None else CpuBudget(rate=1.0, burst=float("inf"))
        # CPU time all sessions of its client may still spend (shared), if any; and all
        # sessions of the server together (SessionManager sets both).
        self.client_cpu: CpuBudget | None = None
        self.server_cpu: CpuBudget | None = None
        # Paced by the scheduler's heavy pacer, in slices, instead of its own thread (a
        # cluster run from the start; any run whose pacing once cost HEAVY_PACE_SECONDS).
        self.heavy = _is_cluster(sim)
        self._view_refresh_seconds = view_refresh_seconds
        self.checkpoints = CheckpointStore(CHECKPOINT_INTERVAL, CHECKPOINT_BUDGET)
        # What each reader has of the timeline; `history` counts restarts (a new scenario:
        # a record writes its base again).
        self.marks = TimelineMarks()
        self.history = 0
        # The timeline's text may hold at most this many bytes (action_bytes); None: no bound.
        self.max_action_bytes: int | None = None
        self._install(sim, future=[])

    def _install(self, sim: Any, future: list[dict[str, Any]], made_at: int | None = None) -> None:
        """`made_at`: `memory.freezes()` before `sim` was built (None: not known)."""
        if getattr(self, "sim", None) is not None:  # the old run, if frozen since: collected
            memory.dropped(self._installed_at)  # at the next release (memory.py)
        self._installed_at = made_at
        if hasattr(sim, "checkpoints"):  # the engine keeps this history's checkpoints here
            sim.checkpoints = self.checkpoints
        self.sim = sim
        self._future = future  # the timeline is the same (a seek) or new (restart marks it)
        self.cache = StateCache(sim, self._view_refresh_seconds)
        self._sent_transitions = 0
        self._sent_revision = -1
        self._sent_now: float | None = None
        self._sent_clock: dict[str, object] | None = None
        self._sent_wall = float("-inf")
        self._sent_seeking: dict[str, float] | None = None
        # A forward seek still being computed in slices (webapp/sessions/slices.py): the
        # virtual second it goes to, None when there is none.
        self.seek_target: float | None = None
        self.clock.reanchor()

    @property
    def public_id(self) -> str:
        """The id the session's tabs are shown (`session` in a snapshot): its id, or for a
        class's run a digest of it, from which its id cannot be found, that nobody can
        join by (a follower would otherwise hold the teacher's run's id: issue 26, F3)."""
        if self.owner is None:
            return self.id
        return public_id_of(self.id)

    @property
    def room(self) -> str:
        """The Socket.IO room of this session's tabs (a class will later be a room too)."""
        return self.id

    @property
    def scenario(self) -> Any:
        return self.sim.scenario

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The whole timeline of user actions: the past and any kept future."""
        return [*self.sim.actions, *self.future]

    @property
    def future(self) -> list[dict[str, Any]]:
        return self._future

    @future.setter
    def future(self, future: list[dict[str, Any]]) -> None:
        """A new kept future (a link opened at an earlier moment, a class hand-out)."""
        self._future = future
        self.marks.changed(len(self.sim.actions))

    def timeline_length(self) -> int:
        return len(self.sim.actions) + len(self._future)

    def timeline_from(self, index: int) -> list[dict[str, Any]]:
        """The timeline's actions from `index` on (what a reader that keeps `index` lacks)."""
        past = self.sim.actions
        if index >= len(past):
            return list(self._future[index - len(past) :])
        return [*past[index:], *self._future]

    # -- time ---------------------------------------------------------------------------

    def run_until(self, t: float, stop: Any = None) -> bool:
        """Move forward to virtual second `t`, applying kept future actions on the way.
        With `stop` (a callable), return False as soon as it says so (the engine asks it
        between instants); call again to go on: the run is the same as in one go."""
        t = min(t, self.clock.end)
        while self.future and self.future[0]["at"] <= t:
            if not self._advance_to(self.future[0]["at"], stop):
                return False
            action = self.future.pop(0)
            index = len(self.sim.actions)
            try:
                self.sim.act({k: v for k, v in action.items() if k != "at"})
                if self.sim.actions[-1] != action:  # its `at` as the engine rounds it
                    self.marks.changed(index)
            except Exception as error:
                if not isinstance(getattr(error, "code", None), str):
                    raise
                self.marks.changed(index)
                # Refused now (a link stored before links were checked): the run goes on
                # without it rather than stopping; the action is dropped from the timeline.
                log.info("a kept future action was refused (%s); dropped", error.code)
        if not self._advance_to(t, stop):
            return False
        if self.sim.now >= self.clock.end and self.clock.playing:
            self.clock.pause()
        return True

    def _advance_to(self, t: float, stop: Any = None) -> bool:
        # Even a zero advance runs what is due now (the engine queues work at second 0).
        advance_to = getattr(self.sim, "advance_to", None)
        if advance_to is not None:
            return bool(advance_to(t, stop))
        self.sim.advance(max(0.0, t - self.sim.now))
        return True

    def seeking(self) -> dict[str, float] | None:
        """`{target, reached}` while a seek is computed in slices, else None (the wire)."""
        if self.seek_target is None:
            return None
        return {"target": self.seek_target, "reached": self.sim.now}

    def budgets(self) -> list[CpuBudget]:
        """The budgets its work is charged to: its own, its client's, the server's."""
        return [b for b in (self.cpu, self.client_cpu, self.server_cpu) if b is not None]

    def held(self) -> bool:
        """Whether its work (pacing, seek slices) must wait for its budgets (budget.held)."""
        return held(self.cpu, self.client_cpu, self.server_cpu)

    def pace(self, wall_now: float, stop: Any = None) -> bool:
        """Bring the engine to the clock's time at `wall_now`, within one slice (`stop`, by
        default `slice_stop`: SLICE_CPU_SECONDS or SLICE_EVENTS): a run that cannot keep up
        stops where the slice ends and its clock takes a new anchor there, so it plays
        slower, never in jumps, and never makes its pacer late for anyone else (issue 26,
        F1). False when it stopped short."""
        if self.seek_target is not None:  # the seek loop moves it until the target is reached
            self.clock.reanchor()
            return True
        target = self.clock.target(wall_now, self.sim.now)
        if target is None:
            return True
        pause_at = self.pause_at
        if pause_at is not None and pause_at < self.sim.now:  # passed by (a seek beyond it)
            self.pause_at = pause_at = None
        if pause_at is not None:
            target = min(target, pause_at)
        if not self.run_until(target, slice_stop(self.sim) if stop is None else stop):
            self.clock.reanchor()
            return False
        if pause_at is not None and self.sim.now >= pause_at:
            self.pause_at = None
            self.clock.pause()
        return True

    def catch_up(self) -> None:
        """Under the lock: bring a playing session's engine to its clock's time now, as the
        scheduler's next visit would (so a pause, an action or a join happens at the moment
        the page shows). Nothing for a session the scheduler holds still (no tab, CPU share
        used up, a seek running) or has not anchored yet."""
        wall = self.wall
        clock = self.clock
        if wall is None or not clock.playing or not clock.anchored or not self.tabs:
            return
        if self.seek_target is not None:
            return
        wall_now = wall()
        if wall_now is None or self.held():
            return
        try:
            with charged(self.budgets()):
                self.pace(wall_now)
        except Exception:  # as the scheduler does: one broken session must not break callers
            log.exception("catching a session up failed; pausing it")
            clock.pause()

    def next_due(self, interval: float) -> float | None:
        """The scheduler's wall time at which this session next needs pacing: when its clock
        reaches its next engine event, kept future action or end, or its next resync
        (`interval` or RESYNC_SECONDS after the previous message), whichever comes first.
        None when nothing comes by itself (paused, no tab, a seek running, not anchored):
        a change to any of those changes `schedule_key`."""
        clock = self.clock
        if not self.tabs or self.seek_target is not None:
            return None
        moments = [clock.end]
        if self.pause_at is not None:
            moments.append(self.pause_at)
        event = self.sim.next_event_time()
        if event is not None:
            moments.append(event)
        if self.future:
            moments.append(self.future[0]["at"])
        due = clock.wall_at(min(moments))
        if due is None:
            return None
        if self._sent_clock is not None:  # before any snapshot, ticks wait for one
            due = min(due, self._sent_wall + max(interval, RESYNC_SECONDS))
        return due

    def schedule_key(self) -> tuple[Any, ...]:
        """What the scheduler compares, without the lock, to see whether anything but the
        wall clock changed since it last paced this session (a command, a join, a seek, an
        action, a catch-up that found a transition): then it paces it at once."""
        sim = self.sim
        return (
            sim,
            self.seq,
            self._sent_wall,
            self._sent_clock is None,
            _revision(sim),
            len(sim.actions),
            len(self.future),
            self.seek_target,
            self.tabs,
            self.clock.key(),
            self.pause_at,
        )

    def step(self) -> None:
        """Run to the next event (an engine event or a kept future action), then pause."""
        self.clock.pause()
        self.seek_target = None  # a step during a seek steps on from where it got to
        candidates = [self.sim.next_event_time()]
        if self.future:
            candidates.append(self.future[0]["at"])
        due = [t for t in candidates if t is not None]
        if due and min(due) <= self.clock.end:
            self.run_until(min(due))

    def seek(self, t: float) -> None:
        """Jump to virtual second `t`: forward by running, back by deterministic replay; with
        the engine's checkpoints, from the latest one before `t` when that is nearer."""
        if t >= self.sim.now and not self._checkpoint_ahead(t):
            self.run_until(t)
        else:
            made_at = memory.freezes()
            timeline = self.actions
            past = [a for a in timeline if a["at"] <= t]
            future = [a for a in timeline if a["at"] > t]
            engine = type(self.sim)
            if hasattr(self.sim, "checkpoints"):  # resume from the nearest checkpoint
                sim = engine.replay(self.scenario, past, until=t, seed=self.seed,
                                    horizon=self.sim.horizon, checkpoints=self.checkpoints)  # fmt: skip
            else:
                sim = engine.replay(self.scenario, past, until=t, seed=self.seed)
            self._install(sim, future, made_at)
        self.clock.reanchor()

    def _checkpoint_ahead(self, t: float) -> bool:
        """Is there a checkpoint of this history between now and `t` (so resuming from it
        beats running on)?"""
        sim = self.sim
        if not hasattr(sim, "checkpoints") or t > sim.horizon:
            return False
        past = [a for a in self.actions if a["at"] <= t]
        best = self.checkpoints.best(
            self.scenario, past, round(t * 1000), self.seed, sim.horizon_ms
        )
        return best is not None and best.at_ms > sim.now_ms

    # -- history changes ------------------------------------------------------------------

    def act(self, action: dict[str, Any]) -> Any:
        """A user action now; raises the engine's ActionError if refused (or ActionTextFull
        past `max_action_bytes`). Discards the old future only once the action is accepted.
        Returns what the engine's `act` answers (`exec`: its output), else None."""
        past = self.sim.actions
        if self.max_action_bytes is not None:
            # what the timeline holds after it: the past and this one (the future goes)
            total = action_bytes(action) + 16 + sum(action_bytes(a) for a in past)
            if total > self.max_action_bytes:
                raise ActionTextFull(self.max_action_bytes)
        index = len(past)
        answer = self.sim.act(action)
        self.future = []
        self.marks.changed(index)
        self.seek_target = None  # acting during a seek: it stops where it got to
        if hasattr(self.sim, "checkpoints"):
            # History changed here: later checkpoints no longer fit; earlier ones share its logs.
            self.checkpoints.discard_after(self.sim.now_ms)
            self.checkpoints.adopt(self.sim)
        return answer

    def restart(self, sim: Any) -> None:
        """A new scenario applied from the editor: a new history from second 0."""
        self.checkpoints = CheckpointStore(CHECKPOINT_INTERVAL, CHECKPOINT_BUDGET)
        self.heavy = _is_cluster(sim)
        self._install(sim, future=[])
        self.history += 1
        self.marks.changed(0)

    # -- payloads -------------------------------------------------------------------------

    def snapshot(self, *, advance_seq: bool) -> dict[str, Any]:
        """The full state. A snapshot to the whole room (history changed) takes a new
        sequence number; one sent to a single joining tab keeps the current one, so the
        other tabs see no gap."""
        if advance_seq:
            self.seq += 1
        self.cache.refresh()
        sim = self.sim
        self._mark_sent(float("-inf"))
        simulation = self.scenario.simulation
        return {
            "session": self.public_id,
            "seq": self.seq,
            "clock": self.clock.as_wire(),
            "seeking": self.seeking(),
            **self.cache.state(),
            "transitions": list(sim.transitions),
            "scenario": {
                "name": simulation.get("name")
                or (self.scenario.pod or {}).get("metadata", {}).get("name", ""),
                "title": simulation.get("title"),
                "description": simulation.get("description"),
                "lesson": simulation.get("lesson", []),
                # Prediction questions as a learner sees them: never which choice is right
                # (webapp/classes/quiz.py computes that from the run when asked).
                "questions": [
                    {
                        "id": q["id"],
                        "at": q["at"],
                        "when": q["when"],
                        "after": q["after"],
                        "question": q["question"],
                        "choices": [c["text"] for c in q["choices"]],
                    }
                    for q in simulation.get("questions") or []
                ],
                "yaml": self.scenario.text,
                "containers": derived_payload(sim, self.scenario.text),
            },
            "actions": self.actions,
            **self._tasks_payload(),
        }

    def _tasks_payload(self, *, checked: bool = False) -> dict[str, Any]:
        """`tasks: {done, count}` for a lesson with tasks (checked first unless `checked`:
        webapp/sessions/tasks.py), else nothing; remembers what was sent."""
        progress = tasks_of(self)
        if progress is None:
            return {}
        if not checked:
            progress.update(self)
        self._sent_tasks = progress.version
        return {"tasks": progress.wire()}

    def _tasks_changed(self) -> bool:
        progress = tasks_of(self)
        if progress is None:
            return False
        progress.update(self)
        return progress.version != getattr(self, "_sent_tasks", -1)

    def tick(
        self, wall_now: float | None = None, interval: float = MIN_TICK_INTERVAL
    ) -> dict[str, Any] | None:
        """What changed since the last message, or None when nothing did.

        `wall_now=None` asks for an exact tick now (after a command); with a wall time (the
        scheduler's), a tick with a new transition, clock or timeline leaves at once, and
        one with nothing new but the time waits RESYNC_SECONDS (or `interval`, when the
        scheduler stretches it under load) after the previous message.
        """
        if wall_now is not None and self.seek_target is not None:
            return None  # while a seek runs in slices, the seek loop reports its progress
        if wall_now is not None and self._sent_clock is None:
            # No tab has had this history's snapshot yet: a joining tab may not be in the
            # room yet (it joins it under this lock, after the manager listed the session),
            # and its snapshot will carry all of it. A tick now would go to nobody and
            # skip a sequence number (ci13: the step after join came as seq 2).
            return None
        sim = self.sim
        transitions = sim.transitions
        clock = self.clock.as_wire()
        kept = self.marks.delta(WIRE, self.timeline_length())
        actions_changed = kept is not None
        seeking = self.seeking()
        tasks_changed = self._tasks_changed()
        if (
            _revision(sim) == self._sent_revision
            and clock == self._sent_clock
            and sim.now == self._sent_now
            and not actions_changed
            and seeking == self._sent_seeking
            and not tasks_changed
        ):
            return None
        urgent = (
            len(transitions) > self._sent_transitions or clock != self._sent_clock or tasks_changed
        )
        if (
            wall_now is not None
            and not (urgent or actions_changed)
            and wall_now - self._sent_wall < max(interval, RESYNC_SECONDS)
        ):
            # Only time moved (and probe runs grew, which the page draws up to `now`): the
            # page runs its clock itself (static/js/state.js localNow), so this waits for the
            # resync. A new transition, a clock or a timeline change leaves in this round,
            # close to its due time (bench/sessions.py --workers: staleness).
            return None
        self.cache.refresh(wall_now)
        fresh = transitions[self._sent_transitions :]
        # Probe runs sent before that grew since: their seq and new `repeat` (internals.md).
        runs = [
            {"seq": item["seq"], "repeat": item["repeat"]}
            for item in _runs_extended_since(sim, self._sent_revision)
            if item["seq"] < self._sent_transitions
        ]
        self.seq += 1
        was_seeking = self._sent_seeking
        self._mark_sent(wall_now if wall_now is not None else self._sent_wall)
        payload = {
            "seq": self.seq,
            "clock": clock,
            **self.cache.state(),
            "transitions": fresh,
            "runs": runs,
            "sentAt": time.time(),  # wall time of the emit, for latency figures (bench/)
        }
        if seeking is not None or was_seeking is not None:
            payload["seeking"] = seeking  # progress, or null once the seek is over
        if tasks_changed:  # just checked by _tasks_changed: not again
            payload.update(self._tasks_payload(checked=True))
        if kept is not None:
            # The action log as the engine accepted it (its own `at`), so that what a tab
            # shares is what the server ran, never what the tab asked for: the first `keep`
            # actions the tabs have, then `add` (never the whole log again: issue 26, F9).
            payload["actionsDelta"] = {"keep": kept, "add": self.timeline_from(kept)}
        return WirePayload(payload, self.cache.fragments, CACHED_KEYS)

    def progress_tick(
        self, wall_now: float, interval: float = MIN_TICK_INTERVAL
    ) -> dict[str, Any] | None:
        """While a seek runs in slices: a light tick with only `seeking` (how far it got),
        at most one per `interval`; the state it reaches rides in the tick at its end (or
        after "stop here"), so no slice pays for rendering views nobody looks at."""
        seeking = self.seeking()
        if seeking is None or seeking == self._sent_seeking:
            return None
        if wall_now - self._sent_wall < interval:
            return None
        self.seq += 1
        self._sent_seeking = seeking
        self._sent_wall = wall_now
        return {"seq": self.seq, "seeking": seeking, "sentAt": time.time()}

    def _mark_sent(self, wall_now: float) -> None:
        self.marks.take(WIRE, self.timeline_length())
        self._sent_transitions = len(self.sim.transitions)
        self._sent_revision = _revision(self.sim)
        self._sent_now = self.sim.now
        self._sent_clock = self.clock.as_wire()
        self._sent_wall = wall_now
        self._sent_seeking = self.seeking()


def _is_cluster(sim: Any) -> bool:
    """A run of workloads (engine/cluster.py): many Pods, whose one instant can cost tenths
    of a second (100 Pods crashing together), so it is paced by the heavy pacer."""
    return hasattr(sim, "deployments")


def _revision(sim: Any) -> int:
    """The engine's transition revision (a new item or a longer probe run moves it)."""
    revision = getattr(sim, "revision", None)
    return len(sim.transitions) if revision is None else int(revision)


def _runs_extended_since(sim: Any, revision: int) -> list[dict[str, Any]]:
    extended = getattr(sim, "runs_extended_since", None)
    return [] if extended is None or revision < 0 else extended(revision)
