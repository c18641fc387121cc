"""A session's share of the server's CPU: a token bucket of CPU seconds.

budget = CpuBudget(rate=0.25, burst=2.0)   # a quarter of a core on average, 2 s at once
with budget.measure(now):                  # charges the thread CPU time the block used
    session.seek(7000)
budget.spent(now)                          # True while the session owes CPU time
budget.wait(now)                           # wall seconds until it no longer does

Every command of a session (a seek, a step, an action, an apply) and the scheduler's pacing
of it are charged in *thread* CPU time (`time.thread_time()`), so the budget counts the
work the session caused, not time spent waiting for the GIL or a lock. A session whose
balance is negative gets its commands refused and its pacing held back until the balance
recovers, so one client repeating expensive seeks cannot take more than `rate` of a core
for long, however cheap each request looks to the rate limiter.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


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

    @contextmanager
    def measure(self) -> Iterator[None]:
        """Charge the CPU time the calling thread spends inside the block."""
        started = time.thread_time()
        try:
            yield
        finally:
            self.charge(time.thread_time() - started)


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
