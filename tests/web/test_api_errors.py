"""Every /api/* error is JSON {code, message} in the asked language (issue 12 item 8); page
routes keep their HTML error pages."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app, storage

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
        }
    )
    app.testing = False  # errors answered as in production, not raised into the test
    yield app


@pytest.fixture
def http(app: Flask) -> FlaskClient:
    return app.test_client()


def json_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body: dict[str, Any] = response.json
    assert body["code"] == code
    assert body["message"]
    return body


def test_a_failure_inside_share_is_json_not_an_html_page(
    app: Flask, http: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_: Any) -> str:
        raise sqlite3.OperationalError("no such table: share_links")

    monkeypatch.setattr(storage.store_of(app), "put", broken)
    body = json_error(
        http.post("/api/share", json={"yaml": POD}, headers=ZH), 500, "internal_error"
    )
    assert "服务器出错" in body["message"]
    assert "<html" not in str(body).lower()
    failures = [r for r in caplog.records if r.exc_info]
    assert len(failures) == 1  # logged once, as the bug it is


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.OperationalError("disk I/O error"),
        sqlite3.OperationalError("database or disk is full"),
        sqlite3.OperationalError("attempt to write a readonly database"),
        OSError(28, "No space left on device"),
    ],
)
def test_a_store_that_cannot_be_written_is_507_not_a_bug(
    app: Flask,
    http: FlaskClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
) -> None:
    """A full or read-only disk is the host's news (issue 26 F7): 507, no traceback."""

    def broken(_: Any) -> str:
        raise error

    monkeypatch.setattr(storage.store_of(app), "put", broken)
    body = json_error(
        http.post("/api/share", json={"yaml": POD}, headers=ZH), 507, "storage_unavailable"
    )
    assert "无法保存" in body["message"]
    assert not [r for r in caplog.records if r.exc_info]


def test_a_failure_reading_a_share_is_json(
    app: Flask, http: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_: Any) -> None:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(storage.store_of(app), "get", broken)
    json_error(http.get("/api/share/aaaaaaaaaaaaaaaa"), 500, "internal_error")


def test_an_unknown_api_address_is_json_in_the_asked_language(http: FlaskClient) -> None:
    body = json_error(http.get("/api/nothing-here", headers=ZH), 404, "not_found")
    assert "API" in body["message"] and "什么也没有" in body["message"]


def test_a_wrong_method_is_json_and_says_which_are_allowed(http: FlaskClient) -> None:
    response = http.put("/api/share", json={"yaml": POD})
    body = json_error(response, 405, "method_not_allowed")
    assert "POST" in body["message"]
    assert "POST" in response.headers["Allow"]
    json_error(http.delete("/api/scenarios"), 405, "method_not_allowed")


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"{not json", "application/json"),
        (b"\xff\xfe", "application/json"),
        (b'{"yaml": "\\ud800"}', "application/json"),
        (b"yaml=x", "application/x-www-form-urlencoded"),
        (b"[" * 50_000 + b"]" * 50_000, "application/json"),  # deeper than the decoder goes
    ],
)
def test_unreadable_share_bodies_are_json_400(
    http: FlaskClient, body: bytes, content_type: str
) -> None:
    response = http.post("/api/share", data=body, content_type=content_type)
    assert response.status_code == 400
    assert response.mimetype == "application/json"
    assert response.json["code"] == "share_invalid"


def test_page_routes_keep_html_errors(
    app: Flask, http: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = http.get("/no/such/page")
    assert missing.status_code == 404 and missing.mimetype == "text/html"
    assert http.post("/").mimetype == "text/html"  # 405 on a page route

    def broken(_: Any) -> None:
        raise sqlite3.OperationalError("no such table: share_links")

    monkeypatch.setattr(storage.store_of(app), "get", broken)
    failed = http.get("/s/aaaaaaaaaaaaaaaa")
    assert failed.status_code == 500 and failed.mimetype == "text/html"

    def unreadable(_: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(storage.store_of(app), "get", unreadable)
    failed = http.get("/s/aaaaaaaaaaaaaaaa")
    assert failed.status_code == 507 and failed.mimetype == "text/html"
