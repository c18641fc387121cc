"""All sessions of one server process, and the one scheduler loop that paces them.

manager = SessionManager(emit=send, max_sessions=1000, ...)
session = manager.create(sim)          # TooManySessions at the limit
manager.get(session_id)                # None for an unknown id
scheduler = Scheduler(manager)
scheduler.tick(wall_now)               # pace what is due (and what changed); tests call it
scheduler.next_wake()                  # ... and when the loop would call it next
scheduler.start(start_background_task, sleep)   # the server's loop: at each due time, and
                                                # a round every TICK_SECONDS for changes

`emit(event, payload, to)` is how payloads leave (Socket.IO in the server, a list in a unit
test). The scheduler emits under each session's lock, as the handlers do, so a session's
messages leave in sequence order.

Isolation: nothing here ever *waits* for a session's lock. The scheduler try-locks each
session it paces and skips one a handler is working on (it catches up next round, and the
handler's taking of the lock has caught it up already: `Session.catch_up`); the reaper and
tab bookkeeping (`attach`, `detach`) need only the manager's own lock, which is never held
while a session does work. A session that has used up its CPU budget (`Session.cpu`) is not
paced until the budget recovers, so its cost stays on its own clock, not everyone's.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Collection
from typing import Any

from webapp.sessions import memory
from webapp.sessions.budget import CpuBudget, CpuBudgets, charged
from webapp.sessions.session import MIN_TICK_INTERVAL, Session

log = logging.getLogger(__name__)

# A session whose pacing once took this much thread CPU time (one slice's worth is 0.05 s)
# is heavy: from then on the heavy pacer paces it, so that it never delays anyone's tick.
HEAVY_PACE_SECONDS = 0.02
# A heavy pacer's visit that cost less than this did nothing much (paused, nothing due):
# the client's turn goes on to its next session in the same pass.
IDLE_VISIT_SECONDS = 0.002

Emit = Callable[[str, dict[str, Any], str], None]


class TooManySessions(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the server already runs {limit} sessions")
        self.limit = limit


class TooManyForClient(Exception):
    """One client (an address) already has `limit` sessions, each with a tab open."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"this client already has {limit} sessions")
        self.limit = limit


class SessionGone(Exception):
    """The session was freed between looking it up and joining it."""


class SessionManager:
    def __init__(
        self,
        *,
        emit: Emit,
        max_sessions: int = 1000,
        max_per_client: int = 0,
        idle_seconds: float = 1800.0,
        unused_idle_seconds: float = 45.0,
        end_seconds: float = 7200.0,
        view_refresh_seconds: float = 1.0,
        cpu_rate: float = 0.25,
        cpu_burst: float = 2.0,
        client_cpu_rate: float | None = None,
        client_cpu_burst: float = 5.0,
        server_cpu_rate: float | None = None,
        server_cpu_burst: float = 5.0,
        idle_per_client: int = 0,
        max_action_bytes: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.emit = emit
        # The text a session's timeline may hold (Session.max_action_bytes); None: no bound.
        self.max_action_bytes = max_action_bytes
        self.cpu_rate = cpu_rate  # CPU seconds a session may use per wall second
        self.cpu_burst = cpu_burst  # ... and at once
        # Commands of all sessions of one client share a second budget (None: no such
        # budget), so that making new sessions does not make new CPU time.
        self.client_cpu = (
            CpuBudgets(client_cpu_rate, client_cpu_burst, clock=clock)
            if client_cpu_rate is not None
            else None
        )
        # All sessions of the server together (None: no such budget); past it only the
        # sessions of light clients are paced (budget.held).
        self.server_cpu = (
            CpuBudget(server_cpu_rate, server_cpu_burst, clock=clock)
            if server_cpu_rate is not None
            else None
        )
        self.clock = clock
        self.max_sessions = max_sessions
        self.max_per_client = max_per_client  # 0: no limit per client
        self.idle_seconds = idle_seconds
        # Sessions without a tab one client keeps (0: no limit); past it the ones whose
        # last tab left first are freed at once, and their memory goes back (issue 26, F1).
        self.idle_per_client = idle_per_client
        self.unused_idle_seconds = unused_idle_seconds
        self.end_seconds = end_seconds
        self.view_refresh_seconds = view_refresh_seconds
        self._sessions: dict[str, Session] = {}
        self._tab_session: dict[str, str] = {}  # sid -> session id
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def sessions(self) -> list[Session]:
        with self._lock:
            return list(self._sessions.values())

    def get(self, session_id: Any) -> Session | None:
        if not isinstance(session_id, str):
            return None
        with self._lock:
            return self._sessions.get(session_id)

    def create(
        self,
        sim: Any,
        future: list[dict[str, Any]] | None = None,
        *,
        client: str = "",
        tab: str | None = None,
        session_id: str | None = None,
    ) -> Session:
        """A new session around `sim` for `client` (its address); `future` are timed actions
        still to come (a share link opened at an earlier moment than its last action).
        `tab` joins it at once, so that no other creation can take it for an idle one.

        Capacity is shared fairly: when `client` already has `max_per_client` sessions, or
        the server `max_sessions`, the idlest session without a tab (of that client, or of
        anyone) is freed to make room; only when every one of them has a tab open is the
        new one refused (TooManyForClient, TooManySessions). `session_id` keeps the id of a
        session rebuilt from its record (webapp/records.py).
        """
        session = Session(
            sim,
            session_id=session_id,
            end=self.end_seconds,
            view_refresh_seconds=self.view_refresh_seconds,
            cpu=CpuBudget(self.cpu_rate, self.cpu_burst, clock=self.clock),
        )
        session.future = list(future or [])
        session.max_action_bytes = self.max_action_bytes
        session.client = client
        if client and self.client_cpu is not None:
            session.client_cpu = self.client_cpu.of(client)
        session.server_cpu = self.server_cpu
        session.left_at = self.clock()
        with self._lock:
            if client and self.max_per_client:
                theirs = [s for s in self._sessions.values() if s.client == client]
                if len(theirs) >= self.max_per_client and not self._evict_idlest(theirs):
                    raise TooManyForClient(self.max_per_client)
            if len(self._sessions) >= self.max_sessions and not self._evict_idlest(
                list(self._sessions.values())
            ):
                raise TooManySessions(self.max_sessions)
            self._sessions[session.id] = session
            if tab is not None:
                self._attach(tab, session)
        return session

    def remove(self, session_id: str) -> Session | None:
        """Let a session go without reaping it (another worker took it over, or this one is
        draining); its tabs are forgotten. Returns it, or None if it was not here."""
        with self._lock:
            session = self._sessions.pop(session_id, None)
            if session is not None:
                memory.dropped()  # collected at the next release (memory.py)
                for sid in session.tabs:
                    if self._tab_session.get(sid) == session_id:
                        del self._tab_session[sid]
        return session

    def _evict_idlest(self, candidates: list[Session]) -> bool:
        """Under the lock: free the session without a tab that matters least (never used
        before used, then the one whose last tab left first). False if every one has a tab."""
        idle = [s for s in candidates if not s.tabs]
        if not idle:
            return False
        victim = min(idle, key=lambda s: (s.used, s.left_at))
        del self._sessions[victim.id]
        memory.dropped()  # collected at the next release (memory.py)
        log.info("session limit reached: freed an idle session to make room")
        return True

    # -- tabs -----------------------------------------------------------------------------

    def attach(self, sid: str, session: Session) -> Session | None:
        """Join tab `sid` to `session`; returns the session it left, if another.

        Raises SessionGone if `session` was freed in the meantime (the reaper got there
        first): the caller answers as for an unknown id.
        """
        with self._lock:
            if self._sessions.get(session.id) is not session:
                raise SessionGone(session.id)
            return self._attach(sid, session)

    def _attach(self, sid: str, session: Session) -> Session | None:
        previous_id = self._tab_session.get(sid)
        self._tab_session[sid] = session.id
        previous = self._sessions.get(previous_id) if previous_id else None
        if previous is not None and previous is not session:
            previous.tabs = previous.tabs - {sid}
            previous.left_at = self.clock()
        session.tabs = session.tabs | {sid}
        session.idle_since = None
        return previous if previous is not session else None

    def detach(self, sid: str) -> None:
        """Tab `sid` disconnected; its session starts idling when it was the last."""
        with self._lock:
            session = self._sessions.get(self._tab_session.pop(sid, ""))
            if session is not None:
                session.tabs = session.tabs - {sid}
                session.left_at = self.clock()

    def session_of(self, sid: str) -> Session | None:
        with self._lock:
            return self._sessions.get(self._tab_session.get(sid, ""))

    def reap(self, wall_now: float) -> list[str]:
        """Free sessions that have had no tab for `idle_seconds` (`unused_idle_seconds` for a
        session nobody ever played, stepped, sought or acted in); returns their ids.

        Idle time is measured on the scheduler's clock: the first round that sees a session
        without tabs starts its idle period. Only the manager's lock is taken (tabs and
        idle times are kept under it), never a session's: a session busy in a long seek
        must not hold up the scheduler that calls this.
        """
        freed = []
        with self._lock:
            idle: dict[str, list[Session]] = {}
            for session in list(self._sessions.values()):
                if session.tabs:
                    continue
                if session.idle_since is None:
                    session.idle_since = wall_now
                elif wall_now - session.idle_since >= (
                    self.idle_seconds
                    if session.used
                    else min(self.idle_seconds, self.unused_idle_seconds)
                ):
                    freed.append(session.id)
                    del self._sessions[session.id]
                    continue
                if session.client:
                    idle.setdefault(session.client, []).append(session)
            for sessions in idle.values():
                if not self.idle_per_client or len(sessions) <= self.idle_per_client:
                    continue
                sessions.sort(key=lambda s: s.left_at)  # the last tab left first: first out
                for session in sessions[: len(sessions) - self.idle_per_client]:
                    freed.append(session.id)
                    del self._sessions[session.id]
        return freed


class BackgroundLoop:
    """A loop `run(sleep)` started at most once on a background task and ended by `stop()`
    (the scheduler's and the seek loop's)."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self._started = False
        self._start_lock = threading.Lock()

    def run(self, sleep: Callable[[float], None]) -> None:
        raise NotImplementedError

    def start(
        self, start_background_task: Callable[..., Any], sleep: Callable[[float], None]
    ) -> bool:
        """Start the loop once (idempotent). True if this call started it."""
        with self._start_lock:
            if self._started:
                return False
            self._started = True
        start_background_task(self.run, sleep)
        return True

    def stop(self) -> None:
        self.stopped.set()


class Scheduler(BackgroundLoop):
    """Paces every playing session against the wall clock and emits their ticks.

    A session is paced when something is due for it, not every round: when its clock
    reaches its next engine event, kept future action or end (`Session.next_due`, kept in a
    heap of due wall times), or its next resync. The loop sleeps until the earliest of those
    and paces that session then, so a transition leaves when it is due instead of up to a
    round later (bench/sessions.py --workers measures that staleness). Every `period` a
    round also compares each session's `schedule_key` with the one it had after its last
    pacing, and paces at once those a command, a join or a class changed; a session with
    nothing due costs that comparison only. Whoever takes a session's lock in between finds
    its engine brought up to the clock (`Session.catch_up`).
    """

    def __init__(
        self,
        manager: SessionManager,
        period: float = 0.05,
        ticks_per_second: float = 1000.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.manager = manager
        self.clock = clock  # the wall clock of run() (tests call tick() with their own)
        self.period = period
        self.ticks_per_second = ticks_per_second  # the budget for all sessions together
        super().__init__()
        self._next_reap = float("-inf")
        self._next_round = float("-inf")
        self._interval = MIN_TICK_INTERVAL
        # session id -> (session, its schedule_key after its last pacing, heap token)
        self._plans: dict[str, tuple[Session, tuple[Any, ...], int]] = {}
        self._due: list[tuple[float, int, Session]] = []  # heap of (wall time, token, session)
        self._tokens = itertools.count()
        self._live = False  # run() is pacing against self.clock
        self._last_wall: float | None = None  # the wall time of the last round run by hand
        # Hooks for the transport: `tend(session)` runs under each session's lock before it
        # is paced, `after_round()` once per round, `lagging()` the tabs that wait for
        # `tend` (webapp.realtime sets them).
        self.tend: Callable[[Session], None] | None = None
        self.after_round: Callable[[], Any] | None = None
        self.lagging: Callable[[], Collection[str]] | None = None
        # `lateness(seconds)` for every paced tick with new transitions: from the moment
        # the clock reached the first of them to the emit (webapp.metrics observes it).
        self.lateness: Callable[[float], None] | None = None
        self.pacer = HeavyPacer(self)
        # While the loop runs: freeze what survives full collections, and collect and
        # hand back what freed sessions leave (webapp/sessions/memory.py).
        self.manage_memory = False

    def wall(self) -> float | None:
        """The wall clock sessions are paced against: `clock()` while the loop runs, the
        last round's wall time when rounds are run by hand, None once stopped."""
        if self.stopped.is_set():
            return None
        return self.clock() if self._live else self._last_wall

    def tick(self, wall_now: float) -> int:
        """Pace what is due at `wall_now`, and (every `period`, or at every call when rounds
        are run by hand) every session that changed; emit what changed, free idle sessions.
        Returns ticks sent."""
        sent = 0
        if not self._live:
            self._last_wall = wall_now
        if not self._live or wall_now >= self._next_round:
            self._next_round = wall_now + self.period
            sent += self._round(wall_now)
            if self.after_round is not None:
                self.after_round()
            if wall_now >= self._next_reap:
                self._next_reap = wall_now + 1.0
                freed = self.manager.reap(wall_now)
                if self._live and self.manage_memory:
                    if freed:
                        memory.freed()
                    else:
                        memory.settle_or_release()
        return sent + self._run_due(wall_now)

    def _round(self, wall_now: float) -> int:
        sessions = self.manager.sessions()
        self._interval = self.interval(sum(1 for s in sessions if s.clock.playing and s.tabs))
        lagging = self.lagging() if self.lagging is not None else ()
        plans = self._plans
        if len(plans) > len(sessions):  # forget sessions that are gone
            alive = {s.id for s in sessions}
            for session_id in [i for i in plans if i not in alive]:
                del plans[session_id]
        sent = 0
        for session in sessions:
            plan = plans.get(session.id)
            if (
                plan is not None
                and plan[0] is session
                and plan[1] == session.schedule_key()
                and not (lagging and not lagging.isdisjoint(session.tabs))
            ):
                continue  # nothing changed since its last pacing: its due time stands
            sent += self._visit(session, wall_now)
        return sent

    def _run_due(self, wall_now: float) -> int:
        """Pace every session whose due time has come, earliest first."""
        sent = 0
        due = self._due
        while due and due[0][0] <= wall_now:
            _, token, session = heapq.heappop(due)
            plan = self._plans.get(session.id)
            if plan is None or plan[2] != token or plan[0] is not session:
                continue  # paced since, or gone
            if self._live:
                wall_now = max(wall_now, self.clock())
            sent += self._visit(session, wall_now)
        return sent

    def due_at(self, session: Session) -> float | None:
        """The wall time at which the scheduler will next pace `session` by itself (None:
        only once something changes it)."""
        plan = self._plans.get(session.id)
        if plan is None or plan[0] is not session:
            return None
        times = [due for due, token, _ in self._due if token == plan[2]]
        return min(times) if times else None

    def next_wake(self) -> float:
        """When the loop next has something to do: a due time, or the next round."""
        return min(self._next_round, self._due[0][0]) if self._due else self._next_round

    def _visit(self, session: Session, wall_now: float, *, by_pacer: bool = False) -> int:
        if session.heavy and self.pacer.running and not by_pacer:
            # The heavy pacer paces it, on its own thread: nothing is due here.
            self._plans[session.id] = (session, session.schedule_key(), next(self._tokens))
            return 0
        if not session.lock.acquire(blocking=False, catch_up=False):
            # A handler is working on it (and catches it up); the next round paces it.
            if not by_pacer:
                self._plans.pop(session.id, None)
            return 0
        try:
            session.wall = self.wall
            anchored = session.clock.anchored
            with charged(session.budgets()):  # a lagging tab's snapshot, pacing, the tick
                if self.tend is not None and session.tabs:
                    self.tend(session)
                sent = self._pace(session, wall_now, self._interval)
            if by_pacer:
                return sent
            due = self._next_due(session, wall_now, just_anchored=not anchored)
            token = next(self._tokens)
            self._plans[session.id] = (session, session.schedule_key(), token)
            if due is not None:
                heapq.heappush(self._due, (due, token, session))
        finally:
            session.lock.release()
        return sent

    def _next_due(
        self, session: Session, wall_now: float, *, just_anchored: bool = False
    ) -> float | None:
        if session.tabs and session.clock.playing and session.held():
            return wall_now + self.period  # held still: looked at again every round
        due = session.next_due(self._interval)
        if due is None or due > wall_now:
            return due
        if just_anchored and session.clock.anchored:
            # This visit took the clock's anchor (which paces nothing): what is due at the
            # anchor (the work of second 0 after play) is paced right away, in this round.
            return wall_now
        return wall_now + self.period  # due but not run (never in a loop): the next round

    def interval(self, playing: int) -> float:
        """Seconds between two paced ticks of one session: ten a second while the server is
        quiet, fewer when many sessions play, so that all of them together stay within
        `ticks_per_second` (a tick carries every transition since the previous one, so a
        longer interval loses nothing; commands are still answered at once)."""
        return max(MIN_TICK_INTERVAL, playing / self.ticks_per_second)

    def _pace(self, session: Session, wall_now: float, interval: float) -> int:
        """Under the session's lock, charged by the caller: pace it within one slice, and
        emit its tick."""
        if not session.tabs or session.held():
            # Nobody is watching, or the session (or its client, or the server for a heavy
            # client) has used its CPU share: hold still, and take a fresh anchor when it
            # may move again (it plays slower, never in jumps).
            session.clock.reanchor()
            return 0
        started = time.thread_time()
        try:
            session.pace(wall_now)  # within one slice
            payload = session.tick(wall_now, interval)
        except Exception:  # one broken session must not stop every other one
            log.exception("pacing session failed; pausing it")
            session.clock.pause()
            return 0
        finally:
            if time.thread_time() - started >= HEAVY_PACE_SECONDS:
                session.heavy = True  # from now on, on the heavy pacer's thread
        if payload is None:
            return 0
        self.manager.emit("tick", payload, session.room)
        if self.lateness is not None and payload["transitions"]:
            due = session.clock.wall_at(payload["transitions"][0]["t"])
            if due is not None:
                self.lateness(max(0.0, (self.clock() if self._live else wall_now) - due))
        return 1

    def start(
        self, start_background_task: Callable[..., Any], sleep: Callable[[float], None]
    ) -> bool:
        """Start the loop and the heavy pacer once (idempotent)."""
        started = super().start(start_background_task, sleep)
        if started:
            self.pacer.start(start_background_task, sleep)
        return started

    def stop(self) -> None:
        super().stop()
        self.pacer.stop()

    def run(self, sleep: Callable[[float], None]) -> None:
        """The loop body of the background task; returns when `stop()` is called."""
        self._live = True
        try:
            while not self.stopped.is_set():
                try:
                    self.tick(self.clock())
                except Exception:
                    log.exception("scheduler round failed")
                sleep(max(0.0, self.next_wake() - self.clock()))
        finally:
            self._live = False


class HeavyPacer(BackgroundLoop):
    """Paces the heavy sessions (`Session.heavy`: cluster runs, and any run whose pacing
    once cost HEAVY_PACE_SECONDS) on a thread of its own, so the scheduler's thread, which
    paces every other session, never waits for one of them (issue 26, F1).

    A pass gives every client one visit that works (pacing within one slice, the tick,
    a lagging tab's snapshot), round-robin over that client's heavy sessions; visits that
    found nothing to do do not use up the turn. Every visit is charged to the session's,
    its client's and the server's budgets, and a session held by them holds still (a
    cheap visit, which takes a fresh anchor for when it may move again): a client
    with thirty heavy runs gets one slice per pass like a client with one, and past its
    budget none until it recovers. Until it is started (tests run rounds by hand), the
    scheduler paces heavy sessions itself.
    """

    def __init__(self, scheduler: Scheduler, period: float = 0.05) -> None:
        self.scheduler = scheduler
        self.period = period
        self.running = False
        self._turns: dict[str, int] = {}
        super().__init__()

    def round(self) -> int:
        """One pass; returns the visits that did work."""
        scheduler = self.scheduler
        wall = scheduler.clock() if scheduler._live else scheduler._last_wall
        if wall is None:
            return 0
        clients: dict[str, list[Session]] = {}
        for session in scheduler.manager.sessions():
            if session.heavy and session.tabs:
                clients.setdefault(session.client, []).append(session)
        if len(self._turns) > 4 * len(clients) + 64:
            self._turns = {c: t for c, t in self._turns.items() if c in clients}
        worked = 0
        for client, sessions in clients.items():
            turn = self._turns.get(client, 0)
            for k in range(len(sessions)):
                session = sessions[(turn + k) % len(sessions)]
                started = time.thread_time()
                scheduler._visit(session, max(wall, scheduler.clock()) if scheduler._live
                                 else wall, by_pacer=True)  # fmt: skip
                if time.thread_time() - started >= IDLE_VISIT_SECONDS:
                    self._turns[client] = turn + k + 1
                    worked += 1
                    break
        return worked

    def run(self, sleep: Callable[[float], None]) -> None:
        self.running = True
        try:
            while not self.stopped.is_set():
                try:
                    worked = self.round()
                except Exception:
                    log.exception("heavy pacing round failed")
                    worked = 0
                # Between passes the GIL goes to the scheduler and the handlers.
                sleep(0.002 if worked else self.period)
        finally:
            self.running = False
