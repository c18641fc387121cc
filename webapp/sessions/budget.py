"""A session's share of the server's CPU: a token bucket of CPU seconds.

budget = CpuBudget(rate=0.25, burst=2.0)   # a quarter of a core on average, 2 s at once
with budget.measure(now):                  # charges the thread CPU time the block used
    session.seek(7000)
budget.spent(now)                          # True while the session owes CPU time
budget.wait(now)                           # wall seconds until it no longer does
with charged([session_budget, client_budget, server_budget]):   # one block, every budget
    ...
held(session_budget, client_budget, server_budget)  # may this session's work go on now?

Every command of a session (a seek, a step, an action, an apply) and the scheduler's pacing
of it are charged in *thread* CPU time (`time.thread_time()`), so the budget counts the
work the session caused, not time spent waiting for the GIL or a lock. A session whose
balance is negative gets its commands refused and its pacing held back until the balance
recovers, so one client repeating expensive seeks cannot take more than `rate` of a core
for long, however cheap each request looks to the rate limiter.

Three budgets count each piece of a session's work (issue 26, F1): the session's own, its
client's (every session of one address: opening more tabs brings no more CPU time) and the
server's (every session together). A session past its own or its client's waits; past the
server's, only the sessions of clients that have hardly used theirs go on (`held`), so the
clients that spent it are slowed and nobody else.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any


class CpuBudget:
    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = float(rate)  # CPU seconds earned per wall second
        self.burst = float(burst)  # the most CPU seconds a session can spend at once
        self.clock = clock
        self.balance = self.burst
        self._updated = clock()
        # Handlers of several tabs (and, for a client's budget, of several sessions) and
        # the scheduler charge the same budget.
        self._lock = threading.Lock()

    def _refill(self, now: float) -> None:
        self.balance = min(self.burst, self.balance + max(0.0, now - self._updated) * self.rate)
        self._updated = max(self._updated, now)

    def charge(self, cpu_seconds: float, now: float | None = None) -> None:
        with self._lock:
            self._refill(self.clock() if now is None else now)
            self.balance -= max(0.0, cpu_seconds)

    def spent(self, now: float | None = None) -> bool:
        with self._lock:
            self._refill(self.clock() if now is None else now)
            return self.balance <= 0.0

    def wait(self, now: float | None = None) -> float:
        """Wall seconds until the balance is positive again (0 when it is)."""
        with self._lock:
            self._refill(self.clock() if now is None else now)
            if self.balance > 0.0 or self.rate <= 0.0:
                return 0.0
            return -self.balance / self.rate

    def fraction(self, now: float | None = None) -> float:
        """How full the bucket is: 1.0 with the whole burst left, <= 0 while in debt."""
        with self._lock:
            self._refill(self.clock() if now is None else now)
            if self.burst == float("inf"):
                return 1.0
            return self.balance / self.burst if self.burst > 0 else 0.0

    @contextmanager
    def measure(self) -> Iterator[None]:
        """Charge the CPU time the calling thread spends inside the block."""
        with charged([self]):
            yield


@contextmanager
def charged(budgets: Iterable[CpuBudget | None]) -> Iterator[None]:
    """Charge the CPU time the calling thread spends inside the block to every budget."""
    started = time.thread_time()
    try:
        yield
    finally:
        used = time.thread_time() - started
        for budget in budgets:
            if budget is not None:
                budget.charge(used)


# While the server's own budget is spent, a session may still work if its client has at
# least this share of its burst left: a client that has hardly used the server (one tab
# playing a Pod) goes on, and the clients that spent the server's budget wait.
LIGHT_FRACTION = 0.5


def held(
    session: CpuBudget, client: CpuBudget | None = None, server: CpuBudget | None = None
) -> bool:
    """Whether work of a session (pacing it, a slice of its seek) must wait now: its own
    budget or its client's is spent, or the server's is and its client is not a light one."""
    if session.spent() or (client is not None and client.spent()):
        return True
    if server is None or not server.spent():
        return False
    return (client if client is not None else session).fraction() < LIGHT_FRACTION


class CpuBudgets:
    """One CpuBudget per key (a client address), for work that has no session yet (checking
    a share link). Budgets that have refilled completely are dropped now and then."""

    def __init__(
        self,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.max_keys = max_keys
        self._budgets: dict[str, CpuBudget] = {}
        self._lock = threading.Lock()

    def of(self, key: str) -> CpuBudget:
        with self._lock:
            budget = self._budgets.get(key)
            if budget is None:
                if len(self._budgets) >= self.max_keys:
                    self._prune()
                budget = CpuBudget(self.rate, self.burst, clock=self.clock)
                self._budgets[key] = budget
            return budget

    def _prune(self) -> None:
        now = self.clock()
        for key, budget in list(self._budgets.items()):
            if not budget.spent(now) and budget.balance >= budget.burst:
                del self._budgets[key]
        if len(self._budgets) >= self.max_keys:  # all busy: forget the half that owes least
            by_debt = sorted(self._budgets, key=lambda k: -self._budgets[k].balance)
            for key in by_debt[: len(by_debt) // 2]:
                del self._budgets[key]


class ClientGates:
    """One lock per client address, held while a handler of that client works, so that the
    tabs of one address do their work one at a time: thirty tabs building heavy sessions at
    once would otherwise be thirty threads taking turns at the GIL with the scheduler's
    (issue 26, F1). A gate nobody holds or waits for is forgotten."""

    def __init__(self) -> None:
        self._gates: dict[str, list[Any]] = {}  # client -> [lock, holders and waiters]
        self._lock = threading.Lock()

    @contextmanager
    def held(self, client: str) -> Iterator[None]:
        with self._lock:
            entry = self._gates.setdefault(client, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0 and self._gates.get(client) is entry:
                    del self._gates[client]

    def __len__(self) -> int:
        return len(self._gates)


# -- slices: the bound of one piece of simulation work (webapp/sessions/slices.py) ----------

SLICE_CPU_SECONDS = 0.05  # thread CPU time of one slice
SLICE_EVENTS = 2000  # ... or this many engine events, whichever comes first


class SliceStop:
    """A `stop()` for `advance_to`: True once this slice used `cpu_seconds` of the calling
    thread's CPU time or the engine of `sim` ran `events` events (coasted probe ticks
    count). `watch(sim)` names the run to count when it is made after the stop."""

    def __init__(self, sim: Any, cpu_seconds: float, events: int) -> None:
        self.cpu_seconds = cpu_seconds
        self.events = events
        self.started = time.thread_time()
        self.watch(sim)

    def watch(self, sim: Any) -> None:
        self._clock = getattr(sim, "clock", None)
        self._first = getattr(self._clock, "processed", 0)

    def __call__(self) -> bool:
        done = getattr(self._clock, "processed", 0) - self._first
        return done >= self.events or time.thread_time() - self.started >= self.cpu_seconds


def slice_stop(
    sim: Any, cpu_seconds: float = SLICE_CPU_SECONDS, events: int = SLICE_EVENTS
) -> SliceStop:
    """One slice's `stop()` for `sim` (or, with None, for the run given to `watch`)."""
    return SliceStop(sim, cpu_seconds, events)
