"""Forward seeks computed in slices (issue 12): no request runs unbounded simulation work.

begin_seek(session, t)        # the seek becomes the session's pending target
run_slice(session)            # one slice of it (<= SLICE_CPU_SECONDS or SLICE_EVENTS); True when reached
stop_seek(session)            # "stop here": the session stays where the seek got to
loop = SeekLoop(manager)      # the thread that runs the slices of every seeking session
loop.round()                  # one pass over them (tests call it by hand)

A seek back, or forward past a checkpoint of this history, first restores the nearest
checkpoint at or before `t` (or starts again from second 0): that costs one checkpoint,
never a replay. What is left, from there to `t`, is simulation work that can take seconds
in a crash-looping Pod; it becomes `session.seek_target` and runs in slices. The handler
runs the first slice itself (a near seek is done at once, as before); the seek loop runs
the rest, one slice per seeking session per pass, each under that session's lock only for
the slice and charged to its CPU budgets (a session or client that has used its share
waits its turn), so neither the scheduler nor another session waits for it. Snapshots and
ticks carry `seeking: {target, reached}` while it runs (progress ticks carry only that:
rendering the views after every slice would cost more than the slice); the tick after the
target is reached carries the state there, every transition since the last full message and
`seeking: null`, with the clock at the target as after an ordinary seek.

Slicing never changes the run: the engine stops only between two instants
(`Simulation.advance_to`), so the sliced run is the run in one go, event for event.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from webapp.sessions.budget import SLICE_CPU_SECONDS, SLICE_EVENTS, SliceStop, slice_stop
from webapp.sessions.manager import BackgroundLoop
from webapp.sessions.session import Session

log = logging.getLogger(__name__)

# One slice's bounds and its stop live with the CPU budgets (pacing uses them too).
__all__ = ["SLICE_CPU_SECONDS", "SLICE_EVENTS", "SliceStop", "slice_stop"]


def sliceable(session: Session) -> bool:
    return hasattr(session.sim, "advance_to")


def begin_seek(session: Session, t: float) -> None:
    """Under the session's lock: make `t` the pending seek target, restoring the nearest
    checkpoint first when `t` is behind the run or a checkpoint lies between (bounded work).
    An engine without `advance_to` seeks at once, as `Session.seek` does."""
    if not sliceable(session):
        session.seek_target = None
        session.seek(t)
        return
    sim = session.sim
    if t < sim.now or session._checkpoint_ahead(t):
        timeline = session.actions
        past = [a for a in timeline if a["at"] <= t]
        engine = type(sim)
        store = session.checkpoints
        start = store.best(session.scenario, past, round(t * 1000), session.seed, sim.horizon_ms)
        if start is not None:
            fresh = engine.restore(start)
            fresh.checkpoints = store
            store.adopt(fresh)
            future = timeline[len(start.actions) :]
        else:
            fresh = engine(session.scenario, seed=session.seed, horizon=sim.horizon)
            future = timeline
        session._install(fresh, list(future))
    session.seek_target = min(float(t), session.clock.end)
    session.clock.reanchor()


def run_slice(session: Session, stop: Callable[[], bool] | None = None) -> bool:
    """Under the session's lock: one slice of the pending seek; True when the target is
    reached (or there is none). `stop` defaults to one slice's budget."""
    target = session.seek_target
    if target is None:
        return True
    if stop is None:
        stop = slice_stop(session.sim)
    if not session.run_until(target, stop):
        return False
    session.seek_target = None
    session.clock.reanchor()
    return True


def stop_seek(session: Session) -> bool:
    """Under the session's lock: end a pending seek where it got to ("stop here"); False if
    there was none."""
    if session.seek_target is None:
        return False
    session.seek_target = None
    session.clock.reanchor()
    return True


class SeekLoop(BackgroundLoop):
    """Runs the pending seeks of every session, one slice each per pass, round-robin.

    `emit(event, payload, room)` sends a light progress tick (`seeking` only) after a slice,
    at most ten a second, and the full tick with the state at the target when it is reached
    (the scheduler sends no paced ticks for a seeking session). Sessions whose
    lock a handler holds, or whose session or client CPU budget is spent, are skipped this
    pass; their seek goes on when they may spend again.
    """

    def __init__(
        self,
        manager: Any,
        emit: Callable[[str, Any, str], None],
        *,
        period: float = 0.02,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.manager = manager
        self.emit = emit
        self.period = period
        self.clock = clock
        super().__init__()

    def round(self) -> int:
        """One pass: a slice for every seeking session that may work now. Returns slices run."""
        ran = 0
        for session in self.manager.sessions():
            if session.seek_target is None:
                continue
            budgets = session.budgets()
            if session.held():
                continue
            if not session.lock.acquire(blocking=False):
                continue  # a handler is working on it; the next pass comes back
            try:
                if session.seek_target is None:
                    continue
                started = time.thread_time()
                try:
                    done = run_slice(session)
                    # At the target, the state there, exactly; before it, progress only.
                    payload = session.tick() if done else session.progress_tick(self.clock())
                except Exception:  # one broken session must not stop the others' seeks
                    log.exception("a seek slice failed; the seek stops there")
                    stop_seek(session)
                    session.clock.pause()
                    payload = session.tick()
                finally:
                    used = time.thread_time() - started
                    for budget in budgets:
                        budget.charge(used)
                if payload is not None:
                    self.emit("tick", payload, session.room)
                ran += 1
            finally:
                session.lock.release()
        return ran

    def run(self, sleep: Callable[[float], None]) -> None:
        while not self.stopped.is_set():
            try:
                ran = self.round()
            except Exception:
                log.exception("seek round failed")
                ran = 0
            # Between passes the GIL goes to the scheduler and the handlers.
            sleep(0.001 if ran else self.period)
