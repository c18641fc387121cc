"""A share link remembers the language it was made in (issue 11, defect 19)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app
from webapp.storage import ShareStore, canonical_json, link_id


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
        }
    )


@pytest.fixture
def http(app: Flask) -> FlaskClient:
    return app.test_client()


def test_the_language_is_stored_and_read_back(http: FlaskClient) -> None:
    made = http.post("/api/share", json={"yaml": POD, "lang": "zh"})
    assert made.status_code == 201
    stored = http.get(f"/api/share/{made.json['id']}").json
    assert stored == {"yaml": POD, "actions": [], "at": 0.0, "lang": "zh"}


def test_a_link_without_a_language_keeps_its_old_id_and_reads_back_without_one(
    http: FlaskClient,
) -> None:
    plain = http.post("/api/share", json={"yaml": POD}).json["id"]
    assert plain == link_id(canonical_json({"yaml": POD, "actions": [], "at": 0}))
    assert "lang" not in http.get(f"/api/share/{plain}").json
    english = http.post("/api/share", json={"yaml": POD, "lang": "en"}).json["id"]
    chinese = http.post("/api/share", json={"yaml": POD, "lang": "zh"}).json["id"]
    assert len({plain, english, chinese}) == 3, "each language its own link"
    assert http.get(f"/api/share/{english}").json["lang"] == "en"


@pytest.mark.parametrize("lang", ["fr", "", 3, ["zh"]])
def test_an_unknown_language_is_refused_in_the_readers_language(
    http: FlaskClient, lang: object
) -> None:
    response = http.post(
        "/api/share", json={"yaml": POD, "lang": lang}, headers={"Accept-Language": "zh-CN"}
    )
    assert response.status_code == 400
    assert response.json["code"] == "share_invalid"
    assert "语言只能是 en 或 zh" in response.json["message"]


def test_the_shared_page_carries_the_links_language_and_the_readers(http: FlaskClient) -> None:
    link = http.post("/api/share", json={"yaml": POD, "lang": "zh"}).json["id"]
    page = http.get(f"/s/{link}", headers={"Accept-Language": "en-US,en;q=0.9"}).text
    assert 'data-share-lang="zh"' in page
    assert 'data-lang="en"' in page, "the page is not switched: it only offers"
    old = http.post("/api/share", json={"yaml": POD}).json["id"]
    assert 'data-share-lang=""' in http.get(f"/s/{old}").text


def test_a_database_from_before_the_column_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    body = canonical_json({"yaml": POD, "actions": [], "at": 0})
    old_id = link_id(body)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE share_links (id TEXT PRIMARY KEY, body TEXT NOT NULL,"
            " created_at REAL NOT NULL) WITHOUT ROWID"
        )
        connection.execute("INSERT INTO share_links VALUES (?, ?, 0)", (old_id, body))
    connection.close()
    store = ShareStore(path)
    assert store.get(old_id) == {"yaml": POD, "actions": [], "at": 0.0}
    new_id = store.put({"yaml": POD, "actions": [], "at": 0, "lang": "en"})
    assert store.get(new_id)["lang"] == "en"
    store.close()
    # Opening it again (a second process, a restart) finds the column and changes nothing.
    again = ShareStore(path)
    assert again.get(new_id)["lang"] == "en"
    assert again.get(old_id) == {"yaml": POD, "actions": [], "at": 0.0}
    again.close()
