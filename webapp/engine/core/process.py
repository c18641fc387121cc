"""SimPy-like processes on the virtual clock: generators that yield what they wait for.

A process generator yields either an ``int`` (sleep that many virtual ms) or a
:class:`Signal` (wait until it fires). The kubelet's sequential start loop, its blocking
hooks and its parallel container kills are written this way, so they read like the Go code
they mirror.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Generator
from typing import Any

from webapp.engine.core.clock import NORMAL, Clock, Timer

ProcessGenerator = Generator[Any, None, Any]


class Signal:
    """A one-shot condition processes can wait for (SimPy's ``Event``)."""

    __slots__ = ("_waiters", "fired", "value")

    def __init__(self) -> None:
        self.fired = False
        self.value: Any = None
        self._waiters: list[Callable[[], None]] = []

    def fire(self, value: Any = None) -> None:
        if self.fired:
            return
        self.fired = True
        self.value = value
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter()

    def wait(self, callback: Callable[[], None]) -> None:
        if self.fired:
            callback()
        else:
            self._waiters.append(callback)


class Process:
    """Drives one generator; ``done`` fires with its return value. ``cancel()`` drops it.

    The clock counts live processes (``clock.processes``): a generator cannot be copied, so
    a checkpoint is taken only when none is live (engine/checkpoint.py). A finished or
    cancelled process may still be referred to (a signal's stale waiter); its deep copy is
    an inert stand-in."""

    __slots__ = ("_clock", "_gen", "_priority", "_timer", "cancelled", "done", "ended")

    def __init__(self, clock: Clock, gen: ProcessGenerator, priority: int = NORMAL) -> None:
        self._clock = clock
        self._gen = gen
        self._priority = priority
        self._timer: Timer | None = None
        self.cancelled = False
        self.ended = False
        self.done = Signal()
        clock.processes += 1
        self._resume()

    def cancel(self) -> None:
        self.cancelled = True
        if self._timer is not None:
            self._timer.cancel()
        self._end()
        self._gen.close()

    def _end(self) -> None:
        if not self.ended:
            self.ended = True
            self._clock.processes -= 1

    def __deepcopy__(self, memo: dict) -> Process:
        if not self.ended:
            raise LiveProcessError("a live process (a generator) cannot be copied")
        inert = _inert_process(self._clock, Signal(), self._priority)
        memo[id(self)] = inert
        inert._clock = copy.deepcopy(self._clock, memo)
        inert.done = copy.deepcopy(self.done, memo)
        return inert

    def __reduce__(self) -> tuple:
        if not self.ended:
            raise LiveProcessError("a live process (a generator) cannot be copied")
        return (_inert_process, (self._clock, self.done, self._priority))

    def _resume(self) -> None:
        if self.cancelled:
            return
        self._timer = None
        try:
            waited = next(self._gen)
        except StopIteration as stop:
            self._end()
            self.done.fire(stop.value)
            return
        if isinstance(waited, Signal):
            waited.wait(self._resume_later)
        else:
            self._timer = self._clock.after(int(waited), self._resume, self._priority)

    def _resume_later(self) -> None:
        # Resume through the clock so a firing signal never re-enters its firer's frame.
        if not self.cancelled:
            self._timer = self._clock.after(0, self._resume, self._priority)


def _inert_process(clock: Clock, done: Signal, priority: int) -> Process:
    """A finished process as a copy of it: it never runs again."""
    inert = Process.__new__(Process)
    inert._clock = clock
    inert._gen = None
    inert._priority = priority
    inert._timer = None
    inert.cancelled = True
    inert.ended = True
    inert.done = done
    return inert


class LiveProcessError(TypeError):
    """A deep copy met a process that is still running."""


def all_of(signals: list[Signal]) -> Signal:
    """A signal that fires once every signal in ``signals`` has fired."""
    return _AllOf(signals).combined


def first_of(clock: Clock, signal: Signal, timeout_ms: int) -> Signal:
    """A signal that fires when ``signal`` fires or ``timeout_ms`` have passed, whichever is
    first (Go's ``select`` over a channel and ``time.After``)."""
    return _FirstOf(clock, signal, timeout_ms).combined


class _AllOf:
    """The waiter behind :func:`all_of` (an object, not a closure, so a checkpoint's deep
    copy copies it with everything it refers to)."""

    __slots__ = ("combined", "remaining")

    def __init__(self, signals: list[Signal]) -> None:
        self.combined = Signal()
        self.remaining = len(signals)
        if not signals:
            self.combined.fire()
        for signal in signals:
            signal.wait(self.one_done)

    def one_done(self) -> None:
        self.remaining -= 1
        if self.remaining == 0:
            self.combined.fire()


class _FirstOf:
    """The waiter behind :func:`first_of`."""

    __slots__ = ("combined", "timer")

    def __init__(self, clock: Clock, signal: Signal, timeout_ms: int) -> None:
        self.combined = Signal()
        self.timer = clock.after(timeout_ms, self.combined.fire, NORMAL)
        signal.wait(self.fired)

    def fired(self) -> None:
        self.timer.cancel()
        self.combined.fire()
