"""HTTP pages and the JSON API.

GET  /                    the playground (`?scenario=NAME` opens a built-in one)
GET  /s/<id>              the playground on a share link
GET  /api/scenarios       the built-ins: [{name, title: {en, zh}, description: {en, zh}}]
                          (?lang=en|zh: the texts in that language only)
POST /api/share           {yaml, actions?, at?, lang?} -> {id, url}
GET  /api/share/<id>      {yaml, actions, at, lang?}
GET  /healthz

Every /api/* answer that is not a success is JSON `{code, message}` (`message` in the
language of Accept-Language), whatever went wrong: the route's own refusals, HTTP errors
(404, 405, ...) and unexpected failures (500, logged once).

index.html receives `share_id`, `scenario_name` (None when absent), `lang` (negotiated
from Accept-Language) and `share_lang` (the language a share link was made in, or None)
for its <body data-*> attributes.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, current_app, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from webapp import i18n, shares, storage
from webapp.clients import current_client
from webapp.manifest import ScenarioError, localize_errors, parse_scenario
from webapp.paths import resource_dir
from webapp.ratelimit import RateLimiter, SharedRateLimiter, shared_limiter
from webapp.sessions import CpuBudgets, PayloadProblem, ScenarioCatalog
from webapp.sessions import payloads as check
from webapp.sessions.slices import slice_stop

log = logging.getLogger(__name__)

bp = Blueprint("pages", __name__)

# The body may carry actions besides the scenario text; past this it is refused unread.
BODY_LIMIT_FACTOR = 4
# What checking a share at POST may cost: its run up to the last action, at most this
# much CPU time or this many engine events (the answer's `checkedUntil` says how far).
SHARE_CHECK_CPU_SECONDS = 0.08
SHARE_CHECK_EVENTS = 4000

Response = tuple[Any, int] | tuple[Any, int, dict[str, str]]


def _lang() -> str:
    return i18n.negotiate_language(request.headers.get("Accept-Language"))


def catalog_of(app: Flask) -> ScenarioCatalog:
    catalog: ScenarioCatalog = app.extensions["playground.catalog"]
    return catalog


def not_found_page(text_code: str, **params: Any) -> tuple[str, int]:
    lang = _lang()
    html = render_template(
        "404.html",
        lang=lang,
        title=i18n.message("page_not_found_title", lang),
        text=i18n.message(text_code, lang, **params),
        link=i18n.message("back_to_playground", lang),
        app_title=i18n.message("app_title", lang),
    )
    return html, 404


def _storage_notice(lang: str) -> str | None:
    """What a new visitor is told while the database or Redis cannot be written (the
    same checks /readyz runs: webapp/metrics.py), or None."""
    readiness = current_app.extensions.get("playground.readiness")
    if readiness is None:
        return None
    _, checks = readiness.run()
    if all(checks.get(name, "ok") == "ok" for name in ("database", "records")):
        return None
    return i18n.message("storage_notice", lang)


@bp.app_context_processor
def _page_notices() -> dict[str, Any]:
    return {"storage_notice": lambda: _storage_notice(_lang())}


@bp.get("/")
def index() -> str | tuple[str, int]:
    name = request.args.get("scenario")
    if name is not None and catalog_of(current_app).get(name) is None:
        return not_found_page("scenario_not_found_text", name=name)
    return render_template(
        "index.html", share_id=None, scenario_name=name, lang=_lang(), share_lang=None
    )


@bp.get("/s/<link_id>")
def shared(link_id: str) -> str | tuple[str, int]:
    link = storage.store_of(current_app).get(link_id)
    if link is None:
        return not_found_page("share_not_found_text")
    # The page is in the reader's language; it only offers the one the link was made in.
    return render_template(
        "index.html",
        share_id=link_id,
        scenario_name=None,
        lang=_lang(),
        share_lang=link.get("lang"),
    )


@bp.get("/api/scenarios")
def scenarios() -> Response:
    lang = request.args.get("lang")
    if lang is not None and lang not in ("en", "zh"):
        detail = i18n.problem("bad_language", _lang())
        return {
            "code": "bad_request",
            "message": detail,
            "errors": [{"path": "lang", "code": "bad_language", "message": detail}],
        }, 400
    return catalog_of(current_app).listing(lang), 200


@bp.get("/api/share/<link_id>")
def share_get(link_id: str) -> Response:
    store = storage.store_of(current_app)
    link = store.get(link_id)
    if link is None:
        return _api_error("share_not_found", 404)
    store.mark_opened(link_id)
    return link, 200


@bp.post("/api/share")
def share_post() -> Response:
    """Check a link fully (shape, scenario, and a replay of its whole timeline) before
    storing it: a link that is accepted opens (webapp/shares.py)."""
    app = current_app
    config = app.config
    text_limit = int(config["SHARE_MAX_TEXT_BYTES"])
    client = current_client()
    limits = share_limits_of(app)
    if not limits.per_client.allow(client):
        return _api_error("share_rate_limited", 429, headers={"Retry-After": "60"})
    if not limits.everyone.allow("*"):
        return _api_error("share_busy", 429, headers={"Retry-After": "10"})
    length = request.content_length
    if length is not None and length > text_limit * BODY_LIMIT_FACTOR:
        return _api_error("share_too_large", 413, limit=text_limit // 1024)
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # nested deeper than the JSON decoder goes: not a share body
        body = None
    lang = _lang()
    try:
        text = body.get("yaml") if isinstance(body, dict) else None
        if isinstance(text, str) and check.utf8_size(text, "yaml") > text_limit:
            return _api_error("share_too_large", 413, limit=text_limit // 1024)
        link, order = shares.check_body(
            body, text_limit=text_limit, end=float(config["SESSION_END_SECONDS"])
        )
    except PayloadProblem as problem:
        return _share_invalid(problem, lang), 400
    try:
        scenario = parse_scenario(link["yaml"])
    except ScenarioError as error:
        return {
            "code": "invalid_scenario",
            "message": i18n.message("invalid_scenario", lang, count=len(error.errors)),
            "errors": localize_errors(error.errors, lang),
        }, 400
    budget = limits.cpu.of(client)
    if budget.spent():
        wait = max(1, math.ceil(budget.wait()))
        return _api_error("share_cpu_busy", 429, headers={"Retry-After": str(wait)}, seconds=wait)
    try:
        with budget.measure():
            # Bounded: up to the last action, within SHARE_CHECK_CPU_SECONDS / _EVENTS.
            checked = shares.validate(
                shares.engine_for(app),
                scenario,
                link,
                stop=slice_stop(None, SHARE_CHECK_CPU_SECONDS, SHARE_CHECK_EVENTS),
            )
    except shares.LinkBroken as broken:
        return _link_broken(broken, order[broken.index], lang), 400
    try:
        link_id = storage.store_of(app).put(link)
    except storage.StorageFull as full:
        return _api_error("share_storage_full", 507, limit=full.limit // (1024 * 1024))
    return {"id": link_id, "url": f"/s/{link_id}", "checkedUntil": checked}, 201


def _share_invalid(problem: PayloadProblem, lang: str) -> dict[str, Any]:
    params = dict(problem.params)
    where = params.pop("where", None)
    detail = i18n.problem(problem.code, lang, **params)
    if where:
        detail = f"{where}: {detail}"
    path = where or params.get("field") or ""
    return {
        "code": "share_invalid",
        "message": i18n.message("share_invalid", lang, problem=detail),
        "errors": [{"path": path, "code": problem.code, "message": detail}],
    }


def _link_broken(broken: shares.LinkBroken, index: int, lang: str) -> dict[str, Any]:
    """Action `index` (as the client sent it) would be refused when its time comes."""
    reason = i18n.action_refusal(broken.code, lang, broken.reason, **broken.params)
    path = f"actions[{index}].{broken.field}"
    return {
        "code": "share_action_refused",
        "message": i18n.message(
            "share_action_refused",
            lang,
            index=index,
            action=broken.action.get("action", ""),
            at=f"{broken.action['at']:g}",
            reason=reason,
        ),
        "errors": [
            {
                "path": path,
                "action": index,
                "field": broken.field,
                "code": broken.code,
                "message": reason,
            }
        ],
    }


@bp.get("/healthz")
def healthz() -> tuple[dict[str, str], int]:
    return {"status": "ok"}, 200


def _api_error(
    code: str,
    status: int,
    headers: dict[str, str] | None = None,
    message_key: str | None = None,
    **params: Any,
) -> Response:
    payload = {"code": code, "message": i18n.message(message_key or code, _lang(), **params)}
    return (payload, status, headers) if headers else (payload, status)


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


# HTTP status -> the code and catalogue entry of an API error the route did not answer itself
_HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
    415: "unsupported_media_type",
}


def _http_error(error: HTTPException) -> Any:
    """Every /api/* error is JSON `{code, message}` in the request's language; page routes
    keep their HTML (our 404 page, Werkzeug's page for the rest)."""
    if not _is_api():
        if error.code == 404:
            return not_found_page("page_not_found_text")
        return error
    status = error.code or 500
    code = _HTTP_CODES.get(status, "http_error")
    response = error.get_response()
    headers = {k: v for k, v in response.headers.items() if k in ("Allow", "Retry-After")}
    params = {"http_status": status, "name": error.name}
    if status == 405:
        params["allowed"] = headers.get("Allow", "")
    return _api_error(code, status, headers=headers or None, **params)


class InsufficientStorage(HTTPException):
    """507: the store cannot be written (a page route's answer; /api/* answer JSON)."""

    code = 507
    description = "The server cannot save anything right now. Try again later."


def _internal_error(error: Exception) -> Any:
    """An exception no route answered: logged once with its traceback (it is a bug), and
    answered as JSON on /api/* (HTML elsewhere, as before)."""
    if isinstance(error, HTTPException):
        return _http_error(error)
    cause = storage.write_fault(error)
    if cause is not None:  # a full or read-only disk, Redis down: the host's news, no bug
        storage.report_fault(current_app, cause)
        log.warning(
            "request %s %s: the store cannot be written: %s", request.method, request.path, cause
        )
        if not _is_api():
            return InsufficientStorage()
        return _api_error("storage_unavailable", 507)
    log.exception("request %s %s failed", request.method, request.path)
    if not _is_api():
        return InternalServerError()
    return _api_error("internal_error", 500, message_key="api_internal_error")


@dataclass
class ShareLimits:
    per_client: RateLimiter | SharedRateLimiter  # posts per client address
    everyone: RateLimiter | SharedRateLimiter  # posts of all clients together
    cpu: CpuBudgets  # CPU for checking links, per client address


def share_limits_of(app: Flask) -> ShareLimits:
    limits: ShareLimits = app.extensions["playground.share_limits"]
    return limits


def init_app(app: Flask) -> ScenarioCatalog:
    config = app.config
    per_minute = float(config["SHARE_POSTS_PER_MINUTE"])
    global_per_minute = float(config["SHARE_POSTS_PER_MINUTE_GLOBAL"])
    app.extensions["playground.share_limits"] = ShareLimits(
        # Both across every worker and host when there is Redis (webapp/ratelimit.py).
        per_client=shared_limiter(config, "share-posts", per_minute / 60.0, per_minute),
        everyone=shared_limiter(
            config, "share-posts-all", global_per_minute / 60.0, global_per_minute
        ),
        cpu=CpuBudgets(float(config["SHARE_CPU_SHARE"]), float(config["SHARE_CPU_BURST_SECONDS"])),
    )
    catalog = ScenarioCatalog(resource_dir("scenarios"))
    app.extensions["playground.catalog"] = catalog
    app.register_blueprint(bp)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _internal_error)
    return catalog
