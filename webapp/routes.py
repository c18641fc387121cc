"""HTTP pages and the JSON API."""

from __future__ import annotations

from flask import Blueprint, Flask, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html")


@bp.get("/healthz")
def healthz() -> tuple[dict[str, str], int]:
    return {"status": "ok"}, 200


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
