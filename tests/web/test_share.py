"""Share links: content addressing, validation, limits, storage, and opening a link."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app, socketio_of
from webapp.storage import ShareStore, canonical_json, link_id

ROOT = Path(__file__).resolve().parents[2]


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


def share(http: FlaskClient, body: Any, **headers: str) -> Any:
    return http.post("/api/share", json=body, headers=headers)


def test_share_answers_an_id_and_its_url(http: FlaskClient) -> None:
    response = share(http, {"yaml": POD})
    assert response.status_code == 201
    body = response.json
    assert body["url"] == f"/s/{body['id']}"
    assert len(body["id"]) == 16


def test_the_same_content_gets_the_same_id(http: FlaskClient) -> None:
    actions = [{"at": 12, "action": "delete", "gracePeriodSeconds": 30}]
    first = share(http, {"yaml": POD, "actions": actions, "at": 20}).json["id"]
    again = share(http, {"at": 20.0, "actions": actions, "yaml": POD}).json["id"]
    other = share(http, {"yaml": POD, "actions": actions, "at": 21}).json["id"]
    assert first == again
    assert first != other
    assert first == link_id(canonical_json({"yaml": POD, "actions": actions, "at": 20}))


def test_a_stored_link_reads_back_unchanged(http: FlaskClient) -> None:
    actions = [{"at": 12.5, "action": "crash", "container": "app", "exitCode": 3}]
    link = share(http, {"yaml": POD, "actions": actions, "at": 20}).json["id"]
    stored = http.get(f"/api/share/{link}")
    assert stored.status_code == 200
    assert stored.json == {"yaml": POD, "actions": actions, "at": 20.0}


def test_a_stored_link_never_changes(tmp_path: Path) -> None:
    store = ShareStore(tmp_path / "links.sqlite3")
    link = store.put({"yaml": POD, "actions": [], "at": 0})
    # Even a forged row for an existing id cannot replace the first one.
    store.connection.execute(
        "INSERT OR IGNORE INTO share_links (id, body, created_at) VALUES (?, ?, 0)",
        (link, '{"yaml": "x"}'),
    )
    assert store.get(link) == {"yaml": POD, "actions": [], "at": 0.0}


def test_the_database_uses_wal_and_full_sync(tmp_path: Path) -> None:
    store = ShareStore(tmp_path / "links.sqlite3")
    assert store.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.connection.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_the_default_database_lives_in_the_instance_folder(tmp_path: Path) -> None:
    app = create_app({"TESTING": True})
    app.instance_path = str(tmp_path / "instance")
    from webapp.storage import database_path

    assert database_path(app) == tmp_path / "instance" / "playground.sqlite3"


def test_invalid_yaml_gives_400_with_located_errors_in_the_asked_language(
    http: FlaskClient,
) -> None:
    bad = POD.replace("image:", "imagee:")
    response = share(http, {"yaml": bad}, **{"Accept-Language": "zh-CN,zh;q=0.9"})
    assert response.status_code == 400
    errors = {e["path"]: e for e in response.json["errors"]}
    assert errors["spec.containers[0].imagee"]["line"] == 8
    assert "未知字段" in errors["spec.containers[0].imagee"]["message"]


@pytest.mark.parametrize(
    "body",
    [
        "just text",
        {"actions": []},
        {"yaml": 12},
        {"yaml": POD, "at": -1},
        {"yaml": POD, "at": "later"},
        {"yaml": POD, "actions": "delete"},
        {"yaml": POD, "actions": [{"action": "delete"}]},  # no `at`
        {"yaml": POD, "actions": [{"at": 1, "action": "explode"}]},
        {"yaml": POD, "actions": [{"at": 1, "action": "delete", "x": [1]}]},
        {"yaml": POD, "actions": [{"at": 1, "action": "delete"}] * 1001},
        {"yaml": POD, "extra": True},
    ],
)
def test_malformed_bodies_give_400(http: FlaskClient, body: Any) -> None:
    response = share(http, body)
    assert response.status_code == 400
    assert response.json["message"]


def test_yaml_over_64_kib_gives_413(http: FlaskClient) -> None:
    big = POD + "#" * (64 * 1024)
    assert share(http, {"yaml": big}).status_code == 413


def test_a_huge_body_gives_413_unread(http: FlaskClient) -> None:
    response = http.post(
        "/api/share", data=b"{" + b" " * (1024 * 1024), content_type="application/json"
    )
    assert response.status_code == 413


def test_posting_too_fast_gives_429(tmp_path: Path) -> None:
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SHARE_POSTS_PER_MINUTE": 3,
        }
    )
    app.extensions["playground.share_limits"].per_client.clock = lambda: 0.0  # frozen time
    http = app.test_client()
    codes = [share(http, {"yaml": POD, "at": i}).status_code for i in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    # Another address has its own budget.
    other = http.post("/api/share", json={"yaml": POD}, environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert other.status_code == 201


def test_an_unknown_link_is_a_friendly_404_in_the_users_language(http: FlaskClient) -> None:
    response = http.get("/s/aaaaaaaaaaaaaaaa", headers={"Accept-Language": "zh-CN"})
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert 'lang="zh-Hans"' in html
    assert "没有找到这个链接对应的共享场景" in html
    assert "/static/css/base.css" in html
    english = http.get("/s/not-even-an-id").get_data(as_text=True)
    assert "No shared scenario has this link" in english


def test_an_unknown_link_in_the_api_is_404_json(http: FlaskClient) -> None:
    response = http.get("/api/share/aaaaaaaaaaaaaaaa")
    assert response.status_code == 404
    assert response.json["code"] == "share_not_found"


def test_a_link_opens_the_playground_with_its_id(http: FlaskClient) -> None:
    link = share(http, {"yaml": POD}).json["id"]
    response = http.get(f"/s/{link}")
    assert response.status_code == 200
    assert response.headers["Content-Security-Policy"]


def test_joining_a_link_replays_its_actions_and_stops_at_its_moment(
    app: Flask, http: FlaskClient
) -> None:
    actions = [
        {"at": 12, "action": "delete", "gracePeriodSeconds": 30},
    ]
    link = share(http, {"yaml": POD, "actions": actions, "at": 20}).json["id"]
    client = socketio_of(app).test_client(app)
    client.get_received()
    client.emit("join", {"share": link})
    (message,) = client.get_received()
    snapshot = message["args"][0]
    assert message["name"] == "snapshot"
    assert snapshot["now"] == 20
    assert snapshot["clock"]["playing"] is False
    assert snapshot["views"]["columns"]["STATUS"] == "Terminating"
    assert [a["action"] for a in snapshot["actions"]] == ["delete"]


def test_a_link_shown_before_its_last_action_keeps_that_action_to_come(
    app: Flask, http: FlaskClient
) -> None:
    actions = [{"at": 12, "action": "delete", "gracePeriodSeconds": 1}]
    link = share(http, {"yaml": POD, "actions": actions, "at": 5}).json["id"]
    client = socketio_of(app).test_client(app)
    client.get_received()
    client.emit("join", {"share": link})
    snapshot = client.get_received()[0]["args"][0]
    assert snapshot["now"] == 5
    assert snapshot["actions"] == [{"at": 12, "action": "delete", "gracePeriodSeconds": 1}]
    client.emit("clock", {"op": "seek", "value": 20})
    assert client.get_received()[0]["args"][0]["pod"] is None


def test_joining_an_unknown_link_is_an_error(app: Flask) -> None:
    client = socketio_of(app).test_client(app)
    client.get_received()
    client.emit("join", {"share": "aaaaaaaaaaaaaaaa", "lang": "zh"})
    (message,) = client.get_received()
    assert message["name"] == "error"
    assert message["args"][0]["code"] == "share_not_found"


def _start_server(db: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PLAYGROUND_DB": str(db), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # gunicorn's arbiter and worker: killed together below
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # "Pod Lifecycle Playground on http://127.0.0.1:PORT/"
    url = line.strip().rsplit(" ", 1)[-1].rstrip("/")
    assert url.startswith("http://127.0.0.1:"), line
    for _ in range(100):
        try:
            requests.get(f"{url}/healthz", timeout=2)
            break
        except requests.ConnectionError:
            time.sleep(0.05)
    return process, url


@pytest.mark.slow
def test_an_acknowledged_link_survives_kill_9_and_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "links.sqlite3"
    process, url = _start_server(db)
    try:
        body = {"yaml": POD, "actions": [{"at": 10, "action": "crash", "container": "app"}]}
        answer = requests.post(f"{url}/api/share", json=body, timeout=10)
        assert answer.status_code == 201
        link = answer.json()["id"]
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # kill -9 of the whole server
        process.wait(10)
    process, url = _start_server(db)
    try:
        stored = requests.get(f"{url}/api/share/{link}", timeout=10)
        assert stored.status_code == 200
        assert stored.json() == {**body, "at": 0.0}
        assert requests.get(f"{url}/s/{link}", timeout=10).status_code == 200
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # kill -9 of the whole server
        process.wait(10)
