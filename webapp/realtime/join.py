"""`join {session? | yaml? | scenario? | share?, lang?, transitions?}`: attach a tab to a
session (an existing one by id, or a new one from text, a built-in name or a share link) and
send it a snapshot. `transitions: "table"` asks for the transitions of this tab's snapshots
and ticks as a table (`transitionTable`, webapp/sessions/wire.py), `"list"` (the default)
for the list of records."""

from __future__ import annotations

import math
import time
from typing import Any

from flask import current_app

from webapp import records, shares, storage
from webapp.clients import current_client
from webapp.realtime.state import (
    Realtime,
    Refusal,
    engine_class,
    language,
    parse,
    scenario_text,
)
from webapp.sessions import (
    PayloadProblem,
    Session,
    SessionGone,
    TooManyForClient,
    TooManySessions,
    slices,
)
from webapp.sessions import payloads as check

SOURCES = ("session", "yaml", "scenario", "share")
TRANSITION_FORMS = ("list", "table")


def on_join(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    check.only_fields(payload, [*SOURCES, "lang", "transitions"])
    if "lang" in payload:
        rt.languages[sid] = language(payload)
    table = None
    if "transitions" in payload:
        table = check.choice(payload, "transitions", TRANSITION_FORMS) == "table"
    sources = [k for k in SOURCES if k in payload]
    if len(sources) > 1:
        raise PayloadProblem("one_source")
    started = time.thread_time()
    previous = rt.manager.session_of(sid)  # only this tab's own handlers change it
    if sources == ["session"]:
        session_id = check.text(payload, "session")
        if previous is not None and previous.owner is not None and session_id == previous.public_id:
            session = previous  # a class's tab resyncing, by the id it was shown
        else:
            session = rt.manager.get(session_id)
        if session is None:
            # Not here: a record of it (another worker's, or before a restart) rebuilds it.
            session = resume(rt, session_id, sid)
        elif session is not previous and session.owner is not None:
            raise Refusal("class_session_private")  # a class's run: only through the class
        else:
            try:
                rt.manager.attach(sid, session)
            except SessionGone:
                raise Refusal("unknown_session") from None
    else:
        client = current_client()
        busy(rt, client)
        if not rt.creations.allow(client):
            raise Refusal("new_sessions_rate_limited", limit=int(rt.creations.burst))
        session = new_session(rt, sid, payload, sources[0] if sources else None, client)
        if rt.keeper is not None:
            rt.keeper.claim(session)
    # Building a session (parsing, replaying a share) is charged to it; re-joining is never
    # refused for CPU (a tab repairing a gap must get its snapshot), only charged.
    used = time.thread_time() - started
    for budget in session.budgets():
        budget.charge(used)
    if previous is not None and previous is not session:
        rt.leave_room(sid, previous.room)
    with rt.working(session, refusable=False), session.lock:
        if table is not None:
            (rt.outbox.table_tabs.add if table else rt.outbox.table_tabs.discard)(sid)
        if not rt.enter_room(sid, session):
            return  # the tab hung up while its session was being built
        rt.send_snapshot(session, to_room=False, sid=sid)
    if rt.run_scheduler:
        rt.scheduler.start(rt.socketio.start_background_task, rt.socketio.sleep)
        if rt.keeper is not None:
            rt.keeper.start(rt.socketio.start_background_task, rt.socketio.sleep)


def busy(rt: Realtime, client: str) -> None:
    """A new session is built at its client's cost: refused (`client_busy`) while the
    client's CPU budget is spent, as its commands are, so that opening more tabs never
    brings more CPU time (issue 26, F1)."""
    budgets = rt.manager.client_cpu
    if budgets is None or not client:
        return
    budget = budgets.of(client)
    if budget.spent():
        raise Refusal(
            "client_busy", seconds=max(1, math.ceil(budget.wait())), share=round(budget.rate * 100)
        )


def resume(rt: Realtime, session_id: str, sid: str) -> Session:
    """Session `session_id` rebuilt from its record for tab `sid` (webapp/records.py)."""
    if rt.keeper is None:
        raise Refusal("unknown_session")
    if rt.keeper.owner_of(session_id) is not None:
        # A class's run whose home is another worker (or gone): refused here as there,
        # before its lease is asked for, which would hang up the class's tabs.
        raise Refusal("class_session_private")
    try:
        session = rt.keeper.resume(session_id, sid=sid, client=current_client())
    except records.SessionElsewhere:
        raise Refusal("session_elsewhere") from None
    except TooManyForClient as error:
        raise Refusal("client_session_limit", limit=error.limit) from None
    except TooManySessions as error:
        raise Refusal("too_many_sessions", limit=error.limit) from None
    if session is None:
        raise Refusal("unknown_session")
    return session


def new_session(
    rt: Realtime, sid: str, payload: dict[str, Any], source: str | None, client: str
) -> Session:
    """A session from text, a share link or a built-in, joined by tab `sid`."""
    engine = engine_class()
    future: list[dict[str, Any]] = []
    seek_to: float | None = None
    if source == "yaml":
        sim = engine.from_scenario(parse(scenario_text(rt, payload)), seed=0)
    elif source == "share":
        store = storage.store_of(current_app)
        link_id = check.text(payload, "share")
        link = store.get(link_id)
        if link is None:
            raise Refusal("share_not_found")
        scenario = parse(link["yaml"])
        try:
            # Never past the horizon, and a link stored before links were checked fails
            # with the action that breaks it, not an internal error.
            # Within one slice's budget; the rest of the way to a far `at` is a sliced seek.
            sim, future, seek_to = shares.open_link(
                engine, scenario, link, end=rt.manager.end_seconds, stop=slices.slice_stop(None)
            )
        except PayloadProblem as problem:
            raise Refusal("share_unopenable", problem=(problem.code, problem.params)) from None
        except shares.LinkBroken as broken:
            raise Refusal(
                "share_broken",
                index=broken.index,
                action=str(broken.action.get("action", "")),
                at=f"{broken.action['at']:g}",
                action_refusal=(broken.code, broken.reason, broken.params),
            ) from None
        store.mark_opened(link_id)
    else:
        name = check.text(payload, "scenario") if source == "scenario" else None
        scenario = rt.catalog.get(name) if name else default_scenario(rt)
        if scenario is None:
            raise Refusal("unknown_scenario", name=name or "")
        sim = engine.from_scenario(scenario, seed=0)
    try:
        session = rt.manager.create(sim, future, client=client, tab=sid)
    except TooManyForClient as error:
        raise Refusal("client_session_limit", limit=error.limit) from None
    except TooManySessions as error:
        raise Refusal("too_many_sessions", limit=error.limit) from None
    if seek_to is not None:
        with session.lock:
            slices.begin_seek(session, seek_to)
        if rt.run_scheduler:
            rt.seeker.start(rt.socketio.start_background_task, rt.socketio.sleep)
    return session


def default_scenario(rt: Realtime) -> Any:
    names = rt.catalog.names()
    return rt.catalog.get("plain-pod" if "plain-pod" in names else (names or [""])[0])
