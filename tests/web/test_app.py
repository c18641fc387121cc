from __future__ import annotations

import re

from flask import Flask

from webapp import socketio_of


def test_healthz_answers_ok(app: Flask) -> None:
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok"}


def test_page_references_only_our_own_hashed_assets(app: Flask) -> None:
    client = app.test_client()
    html = client.get("/").get_data(as_text=True)
    # In-page links (a skip link to "#diagram") are not files.
    refs = [r for r in re.findall(r'(?:src|href)="([^"]+)"', html) if not r.startswith("#")]
    assert refs, "the page should load scripts and styles"
    for ref in refs:
        assert ref.startswith("/assets/"), ref
        assert client.get(ref).status_code == 200, ref


def test_every_response_forbids_inline_script_and_other_origins(app: Flask) -> None:
    csp = app.test_client().get("/").headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp  # and the import map's hash (tests/web/test_assets.py)
    assert "default-src 'self'" in csp
    assert "unsafe-inline" not in csp


def test_socketio_runs_in_explicit_threading_mode(app: Flask) -> None:
    assert socketio_of(app).async_mode == "threading"


def test_socketio_greets_a_new_client(app: Flask) -> None:
    client = socketio_of(app).test_client(app)
    assert client.is_connected()
    names = [message["name"] for message in client.get_received()]
    assert "hello" in names
