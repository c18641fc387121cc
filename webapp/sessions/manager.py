"""All sessions of one server process, and the one scheduler loop that paces them.

manager = SessionManager(emit=send, max_sessions=1000, ...)
session = manager.create(sim)          # TooManySessions at the limit
manager.get(session_id)                # None for an unknown id
scheduler = Scheduler(manager)
scheduler.tick(wall_now)               # one pacing round; tests call it by hand
scheduler.start(start_background_task, sleep)   # the server runs it every TICK_SECONDS

`emit(event, payload, to)` is how payloads leave (Socket.IO in the server, a list in a unit
test). The scheduler emits under each session's lock, as the handlers do, so a session's
messages leave in sequence order.

Isolation: nothing here ever *waits* for a session's lock. The scheduler try-locks each
session and skips one a handler is working on (it catches up next round); the reaper and
tab bookkeeping (`attach`, `detach`) need only the manager's own lock, which is never held
while a session does work. A session that has used up its CPU budget (`Session.cpu`) is not
paced until the budget recovers, so its cost stays on its own clock, not everyone's.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from webapp.sessions.budget import CpuBudget, CpuBudgets
from webapp.sessions.session import MIN_TICK_INTERVAL, Session

log = logging.getLogger(__name__)

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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.emit = emit
        self.cpu_rate = cpu_rate  # CPU seconds a session may use per wall second
        self.cpu_burst = cpu_burst  # ... and at once
        # Commands of all sessions of one client share a second budget (None: no such
        # budget), so that making new sessions does not make new CPU time.
        self.client_cpu = (
            CpuBudgets(client_cpu_rate, client_cpu_burst, clock=clock)
            if client_cpu_rate is not None
            else None
        )
        self.clock = clock
        self.max_sessions = max_sessions
        self.max_per_client = max_per_client  # 0: no limit per client
        self.idle_seconds = idle_seconds
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
        session.client = client
        if client and self.client_cpu is not None:
            session.client_cpu = self.client_cpu.of(client)
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
    """Paces every playing session against the wall clock and emits their ticks."""

    def __init__(
        self, manager: SessionManager, period: float = 0.05, ticks_per_second: float = 1000.0
    ) -> None:
        self.manager = manager
        self.period = period
        self.ticks_per_second = ticks_per_second  # the budget for all sessions together
        super().__init__()
        self._next_reap = float("-inf")
        # Hooks for the transport: `tend(session)` runs under each session's lock before it
        # is paced, `after_round()` once per round (webapp.realtime sets both).
        self.tend: Callable[[Session], None] | None = None
        self.after_round: Callable[[], Any] | None = None

    def tick(self, wall_now: float) -> int:
        """One round: advance, emit what changed, free idle sessions. Returns ticks sent."""
        sent = 0
        sessions = self.manager.sessions()
        interval = self.interval(sum(1 for s in sessions if s.clock.playing and s.tabs))
        for session in sessions:
            if not session.lock.acquire(blocking=False):
                continue  # a handler is working on it; the next round catches up
            try:
                if self.tend is not None and session.tabs:
                    self.tend(session)
                sent += self._pace(session, wall_now, interval)
            finally:
                session.lock.release()
        if self.after_round is not None:
            self.after_round()
        if wall_now >= self._next_reap:
            self._next_reap = wall_now + 1.0
            self.manager.reap(wall_now)
        return sent

    def interval(self, playing: int) -> float:
        """Seconds between two paced ticks of one session: ten a second while the server is
        quiet, fewer when many sessions play, so that all of them together stay within
        `ticks_per_second` (a tick carries every transition since the previous one, so a
        longer interval loses nothing; commands are still answered at once)."""
        return max(MIN_TICK_INTERVAL, playing / self.ticks_per_second)

    def _pace(self, session: Session, wall_now: float, interval: float) -> int:
        if not session.tabs or session.cpu.spent():
            # Nobody is watching, or the session has used its CPU share: hold still, and
            # take a fresh anchor when it may move again (it plays slower, never in jumps).
            session.clock.reanchor()
            return 0
        with session.cpu.measure():
            try:
                session.pace(wall_now)
                payload = session.tick(wall_now, interval)
            except Exception:  # one broken session must not stop every other one
                log.exception("pacing session failed; pausing it")
                session.clock.pause()
                return 0
            if payload is None:
                return 0
            self.manager.emit("tick", payload, session.room)
        return 1

    def run(self, sleep: Callable[[float], None]) -> None:
        """The loop body of the background task; returns when `stop()` is called."""
        while not self.stopped.is_set():
            started = time.monotonic()
            try:
                self.tick(started)
            except Exception:
                log.exception("scheduler round failed")
            sleep(max(0.0, self.period - (time.monotonic() - started)))
