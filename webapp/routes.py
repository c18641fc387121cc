"""HTTP pages and the JSON API.

GET  /                    the playground (`?scenario=NAME` opens a built-in one)
GET  /s/<id>              the playground on a share link
GET  /api/scenarios       the built-ins: [{name, title: {en, zh}, description: {en, zh}}]
POST /api/share           {yaml, actions?, at?, lang?} -> {id, url}
GET  /api/share/<id>      {yaml, actions, at, lang?}
GET  /healthz

index.html receives `share_id`, `scenario_name` (None when absent), `lang` (negotiated
from Accept-Language) and `share_lang` (the language a share link was made in, or None)
for its <body data-*> attributes.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, render_template, request
from werkzeug.exceptions import HTTPException, NotFound

from webapp import i18n, storage
from webapp.manifest import ScenarioError, localize_errors, parse_scenario
from webapp.paths import resource_dir
from webapp.ratelimit import RateLimiter
from webapp.sessions import PayloadProblem, ScenarioCatalog
from webapp.sessions import payloads as check

bp = Blueprint("pages", __name__)

# The body may carry actions besides the scenario text; past this it is refused unread.
BODY_LIMIT_FACTOR = 4

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
    return catalog_of(current_app).listing(), 200


@bp.get("/api/share/<link_id>")
def share_get(link_id: str) -> Response:
    link = storage.store_of(current_app).get(link_id)
    if link is None:
        return _api_error("share_not_found", 404)
    return link, 200


@bp.post("/api/share")
def share_post() -> Response:
    config = current_app.config
    text_limit = int(config["SHARE_MAX_TEXT_BYTES"])
    if not share_limiter_of(current_app).allow(request.remote_addr or ""):
        return _api_error("share_rate_limited", 429, headers={"Retry-After": "60"})
    length = request.content_length
    if length is not None and length > text_limit * BODY_LIMIT_FACTOR:
        return _api_error("share_too_large", 413, limit=text_limit // 1024)
    body = request.get_json(silent=True)
    try:
        body = check.require_object(body)
        check.only_fields(body, ["yaml", "actions", "at", "lang"])
        if isinstance(body.get("yaml"), str) and len(body["yaml"].encode()) > text_limit:
            return _api_error("share_too_large", 413, limit=text_limit // 1024)
        text = check.text(body, "yaml", limit=text_limit)
        actions = check.check_actions(body.get("actions", []), yaml_limit=text_limit)
        at = check.number(body, "at") if body.get("at") is not None else 0.0
        if at < 0:
            raise PayloadProblem("negative", field="at")
        lang = body.get("lang")
        if lang is not None and not i18n.is_language(lang):
            raise PayloadProblem("bad_language")
    except PayloadProblem as problem:
        lang = _lang()
        detail = i18n.problem(problem.code, lang, **problem.params)
        return {
            "code": "share_invalid",
            "message": i18n.message("share_invalid", lang, problem=detail),
        }, 400
    try:
        parse_scenario(text)
    except ScenarioError as error:
        lang = _lang()
        return {
            "code": "invalid_scenario",
            "message": i18n.message("invalid_scenario", lang, count=len(error.errors)),
            "errors": localize_errors(error.errors, lang),
        }, 400
    link = {"yaml": text, "actions": actions, "at": at}
    if lang is not None:
        link["lang"] = lang
    link_id = storage.store_of(current_app).put(link)
    return {"id": link_id, "url": f"/s/{link_id}"}, 201


@bp.get("/healthz")
def healthz() -> tuple[dict[str, str], int]:
    return {"status": "ok"}, 200


def _api_error(
    code: str, status: int, headers: dict[str, str] | None = None, **params: Any
) -> Response:
    payload = {"code": code, "message": i18n.message(code, _lang(), **params)}
    return (payload, status, headers) if headers else (payload, status)


def _not_found(error: HTTPException) -> Any:
    if request.path.startswith("/api/"):
        return {"code": "not_found", "message": str(error.description)}, 404
    return not_found_page("page_not_found_text")


def share_limiter_of(app: Flask) -> RateLimiter:
    limiter: RateLimiter = app.extensions["playground.share_limiter"]
    return limiter


def init_app(app: Flask) -> ScenarioCatalog:
    per_minute = float(app.config["SHARE_POSTS_PER_MINUTE"])
    app.extensions["playground.share_limiter"] = RateLimiter(per_minute / 60.0, burst=per_minute)
    catalog = ScenarioCatalog(resource_dir("scenarios"))
    app.extensions["playground.catalog"] = catalog
    app.register_blueprint(bp)
    app.register_error_handler(NotFound, _not_found)
    return catalog
