"""Coasting: doing many steady probe ticks at once, exactly as one by one.

Between two events that change anything, a probe worker's periodic ticks repeat: each runs
the same probe with the same answer (or does nothing), lengthens the worker's transition run
by one (``repeat``) and, for a failure, counts its Unhealthy Event once more. Twenty
containers with three probes every second make 216,000 such ticks an hour. :func:`coast`
does all the ticks due before the next other event in one step per worker, with the same
result as running them one by one: same transitions, Events, worker state and the same
order of everything that runs afterwards (the workers' next timers are scheduled in the
order the ticks would have scheduled them). docs/internals.md, "Coasting".
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from webapp.engine.core.clock import LATE, Clock, Timer
from webapp.engine.kubelet.probes import ProbeWorker, Repeats

if TYPE_CHECKING:
    from webapp.engine.kubelet.kubelet import Kubelet

MIN_TICKS = 2  # coast only when it saves at least this many ticks of one worker


def coast(kubelets: Kubelet | list[Kubelet], clock: Clock, until_ms: int) -> bool:
    """Do every periodic probe tick due before the first other event (and not after
    ``until_ms``) at once, when every one of them is steady. False when it did nothing: the
    next tick must then run for real. ``kubelets``: the run's kubelet, or (a cluster run,
    engine/cluster.py) the kubelets of all its Pods on the shared clock, which must own
    every probe worker's timer on it: ticks of different Pods are ordered together."""
    if not isinstance(kubelets, list):
        kubelets = [kubelets]
    other = clock.earliest_untagged(ProbeWorker)
    limit = until_ms + 1 if other is None else min(other, until_ms + 1)
    # One pass: each worker's steady ticks before the limit; a worker whose steadiness ends
    # sooner (or whose next tick is not steady at all) lowers the limit for all of them.
    found: list[tuple[ProbeWorker, Timer, Repeats]] = []
    owner: dict[int, Kubelet] = {}
    for kubelet, worker in ((k, w) for k in kubelets for w in k.probe_workers()):
        timer = worker.timer
        if timer is None or timer.cancelled or timer.at_ms >= limit:
            continue
        repeats = worker.repeats(timer.at_ms, limit)
        if (
            repeats is None
            or repeats.count == 0
            or not kubelet.can_skip(worker, repeats, timer.at_ms)
        ):
            limit = timer.at_ms  # this tick must run for real, and every tick after it waits
            continue
        limit = min(limit, timer.at_ms + repeats.count * worker.spec.period_ms)
        found.append((worker, timer, repeats))
        owner[id(worker)] = kubelet
    # A lower limit only shortens the runs found before it was lowered.
    plans = [(w, t, _trimmed(r, w, t, limit)) for w, t, r in found if t.at_ms < limit]
    if not any(r.count >= MIN_TICKS for _, _, r in plans):
        return False
    ticked = 0
    last_ms = clock.now_ms
    for worker, timer, repeats in plans:
        last = timer.at_ms + (repeats.count - 1) * worker.spec.period_ms
        owner[id(worker)].skip(worker, repeats, last)
        ticked += repeats.count
        last_ms = max(last_ms, last)
    # The next timer of each worker, scheduled in the order its last tick would have been
    # (and so scheduled its successor): see _tick_order.
    order = sorted(plans, key=functools.cmp_to_key(_tick_order))
    clock.now_ms = last_ms
    for worker, timer, repeats in order:
        timer.cancel()
        worker.timer = clock.schedule(
            timer.at_ms + repeats.count * worker.spec.period_ms, worker.tick, LATE, tag=worker
        )
    clock.processed += ticked
    return True


def _trimmed(repeats: Repeats, worker: ProbeWorker, timer: Timer, limit: int) -> Repeats:
    period = worker.spec.period_ms
    count = min(repeats.count, -(-(limit - timer.at_ms) // period))
    return Repeats(count, repeats.result, repeats.output, repeats.errored)


def _tick_order(
    a: tuple[ProbeWorker, Timer, Repeats], b: tuple[ProbeWorker, Timer, Repeats]
) -> int:
    """Which of two workers' last coasted ticks would have run first one by one.

    Ticks due at the same time run in the order their timers were scheduled; a coasted tick's
    timer was scheduled by the same worker's tick one period before, the first coasted tick's
    by whatever scheduled it before coasting began (its ``seq``, earlier than any coasted
    tick). So: the earlier last tick first; at the same time, compare the ticks that
    scheduled them, one period back, down to where one chain starts."""
    (wa, ta, ra), (wb, tb, rb) = a, b
    pa, pb = wa.spec.period_ms, wb.spec.period_ms
    la, lb = ta.at_ms + (ra.count - 1) * pa, tb.at_ms + (rb.count - 1) * pb
    if la != lb:
        return -1 if la < lb else 1
    first_a, first_b = ta.at_ms, tb.at_ms
    # Same time t: the timer due at t was scheduled at t - period (a coasted tick) or, for a
    # chain's first tick, before coasting began.
    if la == first_a and lb == first_b:
        return -1 if ta.seq < tb.seq else 1
    if la == first_a:
        return -1  # scheduled before coasting: earlier than any coasted tick's scheduling
    if lb == first_b:
        return 1
    if pa != pb:
        return -1 if la - pa < lb - pb else 1  # scheduled by earlier ticks
    # Same period: both chains run in step back to the later of their first ticks.
    back = max(first_a, first_b)
    if first_a == first_b:
        return -1 if ta.seq < tb.seq else 1
    return -1 if back == first_a else 1  # the chain that starts there was scheduled first
