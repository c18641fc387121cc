"""Bounded looks ahead and cheap starts for the classroom (issue 12).

look = capture(session, until)  # under the session's lock: where a look ahead starts from
sim = run(look)                 # the run at `until`, within ASK_EVENTS / ASK_CPU_SECONDS
start = start_at(engine, scenario, actions, at, live=..., store=...)  # (sim, future, seek_to)

A prediction question ("what will STATUS be in N seconds?", a scenario's own question) is
answered from the state of the asking session's timeline N virtual seconds on. That used to
be a replay from second 0 in the request: seconds of CPU at 7200 s of a crash-looping Pod.
Now it starts from a checkpoint of the session's run as it is (`Simulation.checkpoint()`,
a few ms), or the session's nearest stored checkpoint before `until`, and runs at most
ASK_EVENTS engine events or ASK_CPU_SECONDS of thread CPU; past that it is refused with
`question_too_costly` (a cluster run's look ahead too, from its own checkpoints). The caller charges the CPU to the session's budgets
(`Realtime.working`). The result is the same as the replay from 0, event for event.

A session that must end up at a far moment (a fork, a hand-out at `at`, a teacher session
rebuilt, a student's hand-out on return) starts from a checkpoint (of the live run, when it
is exactly there, or the nearest stored one) or from second 0 with the timeline's actions as
its kept future, and reaches the moment by a sliced seek (webapp/sessions/slices.py): no
replay in the request, the tabs see `seeking` progress like any far seek.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.realtime.state import Refusal
from webapp.sessions.slices import slice_stop

# One look ahead runs at most this many engine events (coasted probe ticks count) or this
# much thread CPU, whichever comes first. 600 virtual seconds (asking.MAX_SECONDS) of the
# worst valid scenario (a crash-looping Pod of 20 containers with 3 probes each every second)
# are 36,432 events, so every allowed question fits in the event bound, the one that is the
# same on every machine. The CPU bound only stops a run whose events are unusually dear: those
# events cost 0.25 s of CPU on a fast machine and 0.68 s on a slow one (19 us an event, 2
# cores), so 50,000 events are about 1 s there and the bound leaves that twice over. (At
# 0.6 s a slow machine refused the worst case's every 600 s question.)
ASK_EVENTS = 50_000
ASK_CPU_SECONDS = 2.0


@dataclass
class Look:
    engine: Any
    scenario: Any
    seed: int
    actions: list[dict[str, Any]]  # the timeline up to `until`
    until: float
    checkpoint: Any  # where the run starts (None: second 0)


def moment(session: Any) -> float:
    """Under the session's lock: the virtual second a question about "now" is asked at:
    where a running sliced seek goes to (a rebuilt teacher session, a far seek), else the
    run's now."""
    target = getattr(session, "seek_target", None)
    return float(target) if target is not None else float(session.sim.now)


def capture(session: Any, until: float) -> Look:
    """Where a look ahead of `session` to virtual second `until` starts: a checkpoint of its
    run now, else its nearest stored checkpoint, else second 0. Cheap (a few ms)."""
    with session.lock:
        sim = session.sim
        actions = [dict(a) for a in session.actions if a["at"] <= until]
        checkpoint = None
        if hasattr(sim, "checkpoints"):  # engines with checkpoints (both runs, not doubles)
            checkpoint = sim.checkpoint() if sim.now <= until else None
            if checkpoint is None or not checkpoint.fits(
                sim.scenario, actions, session.seed, sim.horizon_ms
            ):
                checkpoint = session.checkpoints.best(
                    sim.scenario, actions, round(until * 1000), session.seed, sim.horizon_ms
                )
        return Look(type(sim), sim.scenario, session.seed, actions, until, checkpoint)


def run(
    look: Look,
    events: int | None = None,
    cpu_seconds: float | None = None,
    *,
    visit: Callable[[Any, float], bool] | None = None,
    start: float = 0.0,
    every: float = 0.5,
) -> Any:
    """The run of `look` at `look.until`, exactly as a replay from 0 would leave it; refused
    (`question_too_costly`) when it needs more than the budget (ASK_EVENTS, ASK_CPU_SECONDS
    by default). With `visit`, the run is also shown to `visit(sim, t)` at `start`, then
    every `every` virtual seconds up to `until` (the timeline's actions applied on the way,
    as playing would); the run stops where `visit` returns True (the questions that ask
    when something happens: asking.py)."""
    events = ASK_EVENTS if events is None else events
    cpu_seconds = ASK_CPU_SECONDS if cpu_seconds is None else cpu_seconds
    stop = slice_stop(None, cpu_seconds=cpu_seconds, events=events)
    if look.checkpoint is not None:
        sim = look.engine.restore(look.checkpoint)
        rest = look.actions[len(look.checkpoint.actions) :]
    else:
        make = getattr(look.engine, "from_scenario", look.engine)  # a cluster run: its class
        sim = make(look.scenario, seed=look.seed)
        rest = look.actions
        if not rest and look.until <= 0:
            return sim  # as a replay to 0 without actions: nothing run yet
    stop.watch(sim)
    advance_to = getattr(sim, "advance_to", None)

    def reach(t: float) -> None:
        if advance_to is None:  # an engine without slices (test doubles): a plain run
            sim.advance(max(0.0, t - sim.now))
        elif not advance_to(t, stop):
            raise Refusal(
                "question_too_costly",
                seconds=f"{look.until:g}",
                events=events,
                cpu=f"{cpu_seconds:g}",
            )

    def act(action: dict[str, Any]) -> None:
        reach(action["at"])
        try:
            sim.act({k: v for k, v in action.items() if k != "at"})
        except Exception as error:
            if not isinstance(getattr(error, "code", None), str):
                raise
            # Refused now (a kept future from a link stored before links were checked):
            # playing on drops it (Session.run_until), so the look ahead does too.

    pending = list(rest)
    if visit is not None:
        t = max(start, sim.now)
        while True:
            while pending and pending[0]["at"] <= t:
                act(pending.pop(0))
            reach(t)
            if visit(sim, t):
                return sim
            if t >= look.until:
                break
            t = min(round(t + every, 6), look.until)
    for action in pending:
        act(action)
    reach(look.until)
    return sim


def replayer(look: Look, **budget: Any) -> Any:
    """A `replay(scenario, actions, t)` for quiz.answer that runs `look` (bounded): the
    scenario and actions are the ones captured, up to `t`."""

    def replay(scenario: Any, actions: list[dict[str, Any]], t: float) -> Any:
        part = Look(
            look.engine,
            look.scenario,
            look.seed,
            [a for a in look.actions if a["at"] <= t],
            t,
            look.checkpoint if look.checkpoint is None or look.checkpoint.at <= t else None,
        )
        return run(part, **budget)

    return replay


def start_at(
    engine: Any,
    scenario: Any,
    actions: list[dict[str, Any]],
    at: float,
    *,
    live: Any = None,
    store: Any = None,
    seed: int = 0,
) -> tuple[Any, list[dict[str, Any]], float | None]:
    """A run of `scenario` that will be at virtual second `at` with `actions` (each with
    `at`; those up to `at` are used) applied: (sim, its kept future, the second still to
    seek to, None when it is there). From a checkpoint of `live` (a run at exactly that
    moment of that timeline), else the nearest fitting checkpoint of `store`, else second
    0. No simulation runs here."""
    past = [dict(a) for a in actions if a["at"] <= at]
    at_ms = round(at * 1000)
    checkpoint = None
    if live is not None and hasattr(live, "checkpoints") and live.now_ms == at_ms:
        checkpoint = live.checkpoint()
        if checkpoint is not None and not checkpoint.fits(
            scenario, past, seed, checkpoint.horizon_ms
        ):
            checkpoint = None
    if checkpoint is None and store is not None and live is not None:
        checkpoint = store.best(scenario, past, at_ms, seed, live.horizon_ms)
    if checkpoint is not None:
        sim = engine.restore(checkpoint)
        future = past[len(checkpoint.actions) :]
        if sim.now_ms == at_ms and not future:
            return sim, [], None
        return sim, future, at
    sim = engine.from_scenario(scenario, seed=seed)
    if not past and at <= 0:
        return sim, [], None  # as a replay to 0 without actions: nothing run yet
    return sim, past, at
