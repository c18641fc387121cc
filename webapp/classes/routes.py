"""The classroom's HTTP side.

POST /api/classes {scenario? | yaml? | share?, lang?, plan?}
                          -> 201 {code, teacherKey, teacherPin, joinUrl, teacherUrl}
                          (`plan`: the class follows that lesson plan; with no scenario
                          given, it starts on the plan's first scenario)
GET  /api/plans           the built-in lesson plans: [{name, title, description, minutes,
                          steps}] (webapp/classes/plans.py)
GET  /c/<code>            the student's page (404 page in the reader's language if unknown or ended)
GET  /c/<code>/teach      the teacher's page; the key travels in the URL's fragment
                          (#key=...&pin=...), which browsers never send, so no server log
                          holds it; without a key the page asks for the teacher PIN
GET  /c/<code>/qr.svg     a QR code of the join URL, drawn here (no outside service)

A code that is no live class counts against the client's budget of unknown codes
(CLASS_CODE_MISSES_PER_MINUTE); while it is spent, every page and QR code under /c/ is 429
for that client, so that probing codes tells nothing (issue 26, F4).
"""

from __future__ import annotations

from typing import Any

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, current_app, render_template, request

from webapp import i18n, storage
from webapp.clients import current_client
from webapp.manifest import ScenarioError, localize_errors, parse_scenario
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check

bp = Blueprint("classes", __name__)


def _classes() -> Any:
    return current_app.extensions["playground.classes"]


def _lang() -> str:
    return i18n.negotiate_language(request.headers.get("Accept-Language"))


def _error(code: str, status: int, **params: Any) -> tuple[dict[str, Any], int]:
    return {"code": code, "message": i18n.message(code, _lang(), **params)}, status


@bp.post("/api/classes")
def create_class() -> Any:
    classes = _classes()
    if not classes.creations.allow(current_client()):
        return _error("classes_rate_limited", 429, limit=int(classes.creations.burst))
    limit = int(current_app.config["SHARE_MAX_TEXT_BYTES"])
    if request.content_length is not None and request.content_length > limit * 4:
        return _error("share_too_large", 413, limit=limit // 1024)
    body = request.get_json(silent=True)
    body = {} if body is None else body
    lang = _lang()
    timeline = None
    try:
        check.require_object(body)
        check.only_fields(body, ["scenario", "yaml", "share", "lang", "plan"])
        sources = [k for k in ("scenario", "yaml", "share") if k in body]
        plan = None
        if "plan" in body:
            plan = classes.plans.get(check.text(body, "plan", limit=64))
            if plan is None:
                return _error("class_unknown_plan", 400, name=check.shown_name(body["plan"]))
        if len(sources) > 1:
            raise PayloadProblem("one_source")
        if "lang" in body:
            if not i18n.is_language(body["lang"]):
                raise PayloadProblem("bad_language")
            lang = body["lang"]
        if sources == ["yaml"]:
            text = check.text(body, "yaml", limit=limit)
        elif sources == ["share"]:
            link = storage.store_of(current_app).get(check.text(body, "share"))
            if link is None:
                return _error("share_not_found", 404)
            text = link["yaml"]
            timeline = {"actions": link.get("actions", []), "now": float(link.get("at", 0))}
        else:
            from webapp.classes.plans import first_scenario

            catalog = current_app.extensions["playground.catalog"]
            default = first_scenario(plan) if plan is not None else "plain-pod"
            name = check.text(body, "scenario") if sources else default
            scenario = catalog.get(name)
            if scenario is None:
                return _error("unknown_scenario", 400, name=name)
            text = scenario.text
    except PayloadProblem as problem:
        detail = i18n.problem(problem.code, lang, **problem.params)
        return {
            "code": "class_invalid",
            "message": i18n.message("class_invalid", lang, problem=detail),
        }, 400
    try:
        parse_scenario(text)
    except ScenarioError as error:
        return {
            "code": "invalid_scenario",
            "message": i18n.message("invalid_scenario", lang, count=len(error.errors)),
            "errors": localize_errors(error.errors, lang),
        }, 400
    code, key, pin = classes.create(
        text, lang, timeline, plan=plan["name"] if plan is not None else None
    )
    join = f"{request.host_url.rstrip('/')}/c/{code}"
    return {
        "code": code,
        "teacherKey": key,
        "teacherPin": pin,
        "joinUrl": join,
        "teacherUrl": teacher_path(code, key, pin),
    }, 201


@bp.get("/api/plans")
def plans() -> Any:
    return _classes().plans.listing()


def teacher_path(code: str, key: str, pin: str) -> str:
    """The teacher link: the key (and PIN) in the fragment, which browsers never send."""
    return f"/c/{code}/teach#key={key}&pin={pin}"


def _found(code: str) -> tuple[str | None, Any]:
    """(the live class's code, None), or (None, the 404 or 429 answer)."""
    from webapp.realtime.state import Refusal
    from webapp.routes import not_found_page

    classes = _classes()
    client = current_client()
    try:
        classes.may_look_up(client)
    except Refusal as refusal:
        text = i18n.message(refusal.code, _lang(), **refusal.params)
        return None, Response(
            text + "\n",
            status=429,
            mimetype="text/plain",
            headers={"Retry-After": "60", "Cache-Control": "no-store"},
        )
    found = classes.lookup(code)
    if found is None:
        classes.missed(client)
        return None, not_found_page("class_not_found_text")
    return found, None


def _page(code: str, role: str) -> Any:
    found, answer = _found(code)
    if found is None:
        return answer
    return render_template(
        "index.html",
        share_id=None,
        scenario_name=None,
        lang=_lang(),
        share_lang=None,
        class_code=found,
        class_role=role,
    )


@bp.get("/c/<code>")
def student_page(code: str) -> Any:
    return _page(code, "student")


@bp.get("/c/<code>/teach")
def teacher_page(code: str) -> Any:
    return _page(code, "teacher")


@bp.get("/c/<code>/qr.svg")
def qr_code(code: str) -> Any:
    found, answer = _found(code)
    if found is None:
        return answer
    svg = qr_svg(f"{request.host_url.rstrip('/')}/c/{found}")
    return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


def qr_svg(text: str) -> str:
    """A QR code of `text` as one SVG path (black modules on white, a 4-module quiet zone)."""
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
    qr.add_data(text)
    qr.make(fit=True)
    matrix = qr.get_matrix()
    size = len(matrix)
    path = "".join(
        f"M{x},{y}h1v1h-1z" for y, row in enumerate(matrix) for x, on in enumerate(row) if on
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" '
        f'shape-rendering="crispEdges"><rect width="{size}" height="{size}" fill="#fff"/>'
        f'<path d="{path}" fill="#000"/></svg>'
    )
