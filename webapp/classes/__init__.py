"""The classroom (issue 9; ARCHITECTURE.md, "Classroom"): a teacher runs a live class.

webapp/classes/codes.py      class codes and teacher keys (only hashes are stored)
webapp/classes/store.py      SQLite persistence: code, key hash, timeline, roster, answers
webapp/classes/room.py       classes in memory, the gate every Socket.IO event passes, rosters
webapp/classes/events.py     the class:* Socket.IO events
webapp/classes/handout.py    class:handout
webapp/classes/asking.py     prediction questions in class (class:ask/reveal/answer)
webapp/classes/kinds.py      the kinds of question computed from the engine
webapp/classes/plans.py      lesson plans (scenarios/plans/*.yaml), validated with located errors
webapp/classes/teaching.py   a class following a plan (class:plan, class:next, the timer)
webapp/classes/routes.py     POST /api/classes, /c/<code>, /c/<code>/teach, /c/<code>/qr.svg
webapp/classes/span.py       a class whose tabs sit on several workers (Redis)

Settings: CLASS_MAX_STUDENTS (200), CLASS_IDLE_SECONDS (2 h with nobody connected),
CLASS_STUDENT_EVENTS_PER_SECOND (10, over all of one student's tabs), CLASSES_PER_HOUR
(per client address), CLASS_NAMES_PER_MINUTE and CLASS_NAMES_PER_CONNECTION_PER_MINUTE
(new names), CLASS_CODE_MISSES_PER_MINUTE (unknown codes looked up, per address),
CLASS_PIN_TRIES_PER_MINUTE (teacher PIN tries, per address and per class).
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from webapp import i18n, storage
from webapp.classes.messages import MESSAGES, PROBLEMS
from webapp.classes.room import Classes
from webapp.classes.span import init as init_span
from webapp.classes.store import ClassStore
from webapp.ratelimit import RateLimiter, shared_limiter
from webapp.realtime.dispatch import guarded
from webapp.realtime.state import Realtime

__all__ = ["Classes", "classes_of", "init_app"]

i18n.CATALOGUE.update(MESSAGES)
i18n.PROBLEMS.update(PROBLEMS)


def classes_of(app: Flask) -> Classes:
    classes: Classes = app.extensions["playground.classes"]
    return classes


def init_app(app: Flask, rt: Realtime) -> Classes:
    from webapp.classes import events, routes
    from webapp.shares import engine_for

    config = app.config
    store = ClassStore(storage.database_of(app))  # the share links' database
    classes = Classes(
        rt,
        store,
        engine=lambda: engine_for(app),
        max_students=int(config["CLASS_MAX_STUDENTS"]),
        idle_seconds=float(config["CLASS_IDLE_SECONDS"]),
        student_events_per_second=float(config["CLASS_STUDENT_EVENTS_PER_SECOND"]),
    )
    per_hour = float(config["CLASSES_PER_HOUR"])
    # Per client address and per class: across every worker and host when there is Redis
    # (webapp/ratelimit.py); per connection: in the process that holds it.
    classes.creations = shared_limiter(config, "new-classes", per_hour / 3600.0, per_hour)  # type: ignore[attr-defined]
    names = float(config["CLASS_NAMES_PER_MINUTE"])
    classes.names_per_client = shared_limiter(config, "class-names", names / 60.0, 2 * names)
    names = float(config["CLASS_NAMES_PER_CONNECTION_PER_MINUTE"])
    classes.names_per_tab = RateLimiter(names / 60.0, burst=names)
    misses = float(config["CLASS_CODE_MISSES_PER_MINUTE"])
    classes.code_misses = shared_limiter(config, "class-code-misses", misses / 60.0, 2 * misses)
    pins = float(config["CLASS_PIN_TRIES_PER_MINUTE"])
    classes.pin_tries_per_client = shared_limiter(config, "class-pins", pins / 60.0, pins)
    classes.pin_tries_per_class = shared_limiter(config, "class-pins-class", pins / 60.0, pins)
    from webapp.classes.plans import PlanCatalog
    from webapp.paths import resource_dir

    classes.plans = PlanCatalog(
        resource_dir("scenarios") / "plans", app.extensions["playground.catalog"]
    )
    rt.gates.append(classes.gate)
    rt.leaving.append(classes.leave)
    rt.refusals.append(classes.refused)
    rt.terminal_mirrors.append(classes.terminal_mirror)
    socketio: Any = app.extensions["socketio"]
    for event, fn in events.register(classes).items():
        socketio.on(event)(guarded(rt, event, fn, limited=True))
    app.register_blueprint(routes.bp)
    app.extensions["playground.classes"] = classes
    span = init_span(app, rt, classes)
    if span is not None:  # classes across workers (webapp/classes/span.py)
        classes.span = rt.span = span
        rt.outbox.remote = span.emit
        rt.leaving.append(span.leave)
        span.start()
    return classes
