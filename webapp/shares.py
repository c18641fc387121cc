"""Share links: what a link may hold, and proof at creation that it will open.

link, order = check_body(body, text_limit=64 * 1024, end=7200)  # PayloadProblem: bad shape
sim = replay_link(Simulation, scenario, link["actions"], until=t)  # LinkBroken if an action fails
checked = validate(Simulation, scenario, link, stop)               # bounded check at POST
sim, future, seek = open_link(Simulation, scenario, link, end=7200, stop=stop)  # `join {share}`

A link is `{yaml, actions, at}`: the scenario text, the timeline of the user's actions
(each with `at`, virtual seconds) and the second it opens at. `POST /api/share` replays the
timeline up to its last action with the real engine, within a bounded budget, before
storing anything (`checkedUntil` in the answer says how far it got): an action refused
there is refused with its index and field. Opening replays within a budget too; the rest
of the way to `at` is a sliced seek (webapp/sessions/slices.py), so a far `at` costs no
request more than a slice. Every time in a link is within the run's horizon (SESSION_END_SECONDS),
so neither creating nor opening one ever simulates past it.

Opening replays exactly as the check did (the same `replay_link`), so the check predicts
the open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from webapp.i18n import is_language
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check

# Which field of an action an engine refusal is about (ActionError codes, webapp/i18n.py
# ACTION_REFUSALS); the engine may also name it itself in `params["field"]`.
REFUSAL_FIELDS = {
    "bad_action": "action",
    "unknown_action": "action",
    "pod_gone": "action",
    "bad_grace": "gracePeriodSeconds",
    "bad_force": "force",
    "bad_container": "container",
    "container_required": "container",
    "unknown_container": "container",
    "container_not_running": "container",
    "bad_probe": "probe",
    "no_such_probe": "probe",
    "bad_healthy": "healthy",
    "bad_exit_code": "exitCode",
    "bad_node": "node",
    "node_required": "node",
    "unknown_node": "node",
    "node_already_down": "node",
    "node_already_up": "node",
    "bad_yaml": "yaml",
    "invalid_objects": "yaml",
    "second_pod": "yaml",
    "pod_update_forbidden": "yaml",
}


def engine_for(app: Flask) -> Any:
    """The Simulation class of `app` (its SESSION_ENGINE in tests, the real engine else)."""
    engine = app.config.get("SESSION_ENGINE")
    if engine is None:
        from webapp.engine import Simulation

        engine = Simulation
    return engine


class LinkBroken(Exception):
    """Action `index` of a link's timeline cannot run when its time comes."""

    def __init__(self, index: int, action: dict[str, Any], error: Exception) -> None:
        super().__init__(str(error))
        self.index = index
        self.action = action
        self.code: str = getattr(error, "code", "bad_action")
        params = getattr(error, "params", None) or {}
        self.params = {k: v for k, v in params.items() if k != "errors"}
        self.reason = getattr(error, "message", None) or str(error)
        self.field = str(self.params.get("field") or REFUSAL_FIELDS.get(self.code, "action"))

    @property
    def path(self) -> str:
        return f"actions[{self.index}].{self.field}"


def check_body(body: Any, *, text_limit: int, end: float) -> tuple[dict[str, Any], list[int]]:
    """The shape of a share body: `{yaml, actions?, at?, lang?}`, every time within [0, end];
    `lang` is the language the link was made in (en or zh), kept with it.

    Returns the link (its actions in time order, as stored) and, for each of those actions,
    its index in the body, so that errors point at what the client sent. A problem inside
    action i names it: `actions[i].field`.
    """
    body = check.require_object(body)
    check.only_fields(body, ["yaml", "actions", "at", "lang"])
    text = check.text(body, "yaml", limit=text_limit)
    raw = body.get("actions", [])
    if not isinstance(raw, list):
        raise PayloadProblem("not_list", field="actions")
    if len(raw) > check.MAX_ACTIONS:
        raise PayloadProblem("too_many", field="actions", limit=check.MAX_ACTIONS)
    actions = []
    for i, item in enumerate(raw):
        try:
            action = check.check_action(item, yaml_limit=text_limit, timed=True)
            if action["at"] > end:
                raise PayloadProblem("after_end", field="at", end=f"{end:g}")
        except PayloadProblem as problem:
            field = problem.params.get("field")
            if field:
                problem.params["field"] = f"actions[{i}].{field}"
            else:  # e.g. an unknown action word: the problem names no field
                problem.params["where"] = f"actions[{i}]"
            raise
        actions.append(action)
    at = check.number(body, "at") if body.get("at") is not None else 0.0
    if at < 0:
        raise PayloadProblem("negative", field="at")
    if at > end:
        raise PayloadProblem("after_end", field="at", end=f"{end:g}")
    lang = body.get("lang")
    if lang is not None and not is_language(lang):
        raise PayloadProblem("bad_language", field="lang")
    order = sorted(range(len(actions)), key=lambda i: actions[i]["at"])  # stable
    link = {"yaml": text, "actions": [actions[i] for i in order], "at": at}
    if lang is not None:
        link["lang"] = lang
    return link, order


def replay_link(
    engine: Any,
    scenario: Any,
    actions: list[dict[str, Any]],
    until: float,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> Any:
    """A fresh run of `scenario` with `actions` applied at their times, up to `until`
    (the way a session applies a timeline as it plays); LinkBroken names the first action
    the engine refuses. With `stop` (an engine that has `advance_to`), it ends early when
    `stop()` says so: see `replay_bounded`."""
    return replay_bounded(engine, scenario, actions, until, seed, stop)[0]


def replay_bounded(
    engine: Any,
    scenario: Any,
    actions: list[dict[str, Any]],
    until: float,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> tuple[Any, int]:
    """`replay_link`, returning also how many of `actions` were applied; when `stop()` ends
    it before `until`, the run is wherever it got to (`sim.now < until`) and the actions
    not applied are still to come."""
    sim = engine.from_scenario(scenario, seed=seed)
    advance_to = getattr(sim, "advance_to", None)
    watch = getattr(stop, "watch", None)
    if watch is not None:  # a slice budget counting this run's events
        watch(sim)

    def reach(t: float) -> bool:
        if advance_to is None or stop is None:
            sim.advance(max(0.0, t - sim.now))
            return True
        return bool(advance_to(t, stop))

    for index, action in enumerate(actions):
        if not reach(action["at"]):
            return sim, index
        try:
            sim.act({k: v for k, v in action.items() if k != "at"})
        except Exception as error:
            if not isinstance(getattr(error, "code", None), str):
                raise
            raise LinkBroken(index, action, error) from None
    reach(until)
    return sim, len(actions)


def validate(
    engine: Any, scenario: Any, link: dict[str, Any], stop: Callable[[], bool] | None = None
) -> float:
    """Replay the timeline of a checked link up to its last action (not its `at`: opening
    reaches that through a sliced seek): it plays on without a refused action (LinkBroken
    otherwise). With `stop` the check is bounded and may end early; returns the virtual
    second it checked until (the last action's time when it got there)."""
    actions = link["actions"]
    last = max([0.0, *(a["at"] for a in actions)])
    sim, applied = replay_bounded(engine, scenario, actions, last, stop=stop)
    return last if applied == len(actions) and sim.now >= last else float(sim.now)


def open_link(
    engine: Any,
    scenario: Any,
    link: dict[str, Any],
    end: float,
    stop: Callable[[], bool] | None = None,
) -> tuple[Any, list[dict[str, Any]], float | None]:
    """The run a link opens: the simulation, the actions still to come, and the second it
    still has to seek to (None when it is already at the link's `at`). With `stop`, the
    replay ends early when `stop()` says so, and the rest of the way to `at` is left to a
    sliced seek. A stored time past `end` (a link stored before links were checked) is
    refused with PayloadProblem rather than simulated."""
    at = float(link["at"])
    if not 0 <= at <= end:
        raise PayloadProblem("after_end", field="at", end=f"{end:g}")
    actions = [a for a in link["actions"] if a["at"] <= end]
    past = [a for a in actions if a["at"] <= at]
    future = [a for a in actions if a["at"] > at]
    sim, applied = replay_bounded(engine, scenario, past, until=at, stop=stop)
    if applied == len(past) and sim.now >= at:
        return sim, future, None
    return sim, past[applied:] + future, at
