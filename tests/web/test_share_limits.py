"""Share links that will open, within the run's horizon, and a storage budget (issue 12
items 1, 7, 9): checked at POST by replaying their whole timeline, refused with the
failing action and field; opened never past the horizon; a global rate, a CPU budget for
checking, a database size cap (507) and expiry of links never opened."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app, socketio_of, storage
from webapp.storage import ShareStore, StorageFull, canonical_json, link_id

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


def make_app(tmp_path: Path, **config: Any) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            **config,
        }
    )


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield make_app(tmp_path)  # the real engine


@pytest.fixture
def http(app: Flask) -> FlaskClient:
    return app.test_client()


def post(http: FlaskClient, body: Any, **headers: str) -> Any:
    return http.post("/api/share", json=body, headers=headers)


def refused(response: Any, code: str, path: str) -> dict[str, Any]:
    assert response.status_code == 400, response.json
    assert response.mimetype == "application/json"
    body: dict[str, Any] = response.json
    assert body["code"] == code
    assert [e["path"] for e in body["errors"]] == [path]
    return body


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def answers(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


# -- refused at POST: links that would not open ---------------------------------------------


@pytest.mark.parametrize("at", [7200.5, 1e9, 1e12])
def test_a_moment_past_the_end_of_a_run_is_refused(http: FlaskClient, at: float) -> None:
    body = refused(post(http, {"yaml": POD, "at": at}, **ZH), "share_invalid", "at")
    assert "7200" in body["message"] and "终点" in body["message"]


def test_an_action_past_the_end_of_a_run_is_refused(http: FlaskClient) -> None:
    actions = [{"at": 3, "action": "crash", "container": "app"}, {"at": 1e12, "action": "delete"}]
    refused(post(http, {"yaml": POD, "actions": actions}), "share_invalid", "actions[1].at")


def test_an_action_the_engine_refuses_is_located_by_index_and_field(http: FlaskClient) -> None:
    actions = [{"at": 12, "action": "crash", "container": "nope"}]
    body = refused(
        post(http, {"yaml": POD, "actions": actions, "at": 20}, **ZH),
        "share_action_refused",
        "actions[0].container",
    )
    error = body["errors"][0]
    assert (error["action"], error["field"], error["code"]) == (0, "container", "unknown_container")
    assert "nope" in error["message"] and "容器" in error["message"]
    assert "第 0 个操作" in body["message"]


def test_a_bad_action_still_to_come_is_refused_too(http: FlaskClient) -> None:
    # Shown at 5 s, the crash at 50 s would be refused when the run got there.
    actions = [{"at": 50, "action": "set-probe", "container": "app", "probe": "liveness"}]
    body = refused(
        post(http, {"yaml": POD, "actions": actions, "at": 5}),
        "share_action_refused",
        "actions[0].probe",
    )
    assert body["errors"][0]["code"] == "no_such_probe"


def test_applying_garbage_yaml_in_the_past_is_refused(http: FlaskClient) -> None:
    actions = [{"at": 4, "action": "apply", "yaml": "::: not yaml"}]
    refused(post(http, {"yaml": POD, "actions": actions, "at": 10}), "share_action_refused",
            "actions[0].yaml")  # fmt: skip


def test_errors_point_at_the_action_as_sent_even_out_of_order(http: FlaskClient) -> None:
    actions = [
        {"at": 30, "action": "crash", "container": "nope"},
        {"at": 10, "action": "crash", "container": "app"},
    ]
    refused(post(http, {"yaml": POD, "actions": actions}), "share_action_refused",
            "actions[0].container")  # fmt: skip
    bad_word = [{"at": 1, "action": "crash", "container": "app"}, {"at": 2, "action": "explode"}]
    body = refused(post(http, {"yaml": POD, "actions": bad_word}), "share_invalid", "actions[1]")
    assert "actions[1]" in body["message"] and "explode" in body["message"]


def test_a_good_link_with_a_future_still_opens_and_plays_on(app: Flask, http: FlaskClient) -> None:
    actions = [{"at": 12, "action": "delete", "gracePeriodSeconds": 1}]
    link = post(http, {"yaml": POD, "actions": actions, "at": 5}).json["id"]
    client = connect(app)
    client.emit("join", {"share": link})
    [(name, snapshot)] = answers(client)
    assert name == "snapshot" and snapshot["now"] == 5


# -- opening links stored before they were checked ----------------------------------------------


def store_raw(app: Flask, link: dict[str, Any]) -> str:
    """Write a link straight into the database, as an older version could have."""
    body = canonical_json(link)
    new_id = link_id(body)
    store = storage.store_of(app)
    with store.connection as connection:
        connection.execute(
            "INSERT INTO share_links (id, body, created_at) VALUES (?, ?, 0)", (new_id, body)
        )
    return new_id


class Recording(FakeSimulation):
    """The fake engine, remembering the latest virtual second any instance reached."""

    furthest = 0.0

    def advance(self, seconds: float) -> None:
        super().advance(seconds)
        Recording.furthest = max(Recording.furthest, self.now)


def test_opening_a_stored_link_never_runs_past_the_horizon(tmp_path: Path) -> None:
    app = make_app(tmp_path, SESSION_ENGINE=Recording)
    Recording.furthest = 0.0
    link = store_raw(app, {"yaml": POD, "actions": [], "at": 1e9})
    client = connect(app)
    client.emit("join", {"share": link, "lang": "zh"})
    [(name, error)] = answers(client)
    assert name == "error" and error["code"] == "share_unopenable"
    assert "7200" in error["message"] and "无法打开" in error["message"]
    assert Recording.furthest <= 7200


def test_opening_a_stored_link_whose_past_action_fails_says_which(app: Flask) -> None:
    link = store_raw(
        app, {"yaml": POD, "actions": [{"at": 3, "action": "crash", "container": "x"}], "at": 9}
    )
    client = connect(app)
    client.emit("join", {"share": link})
    [(name, error)] = answers(client)
    assert name == "error" and error["code"] == "share_broken"
    assert "action 0 (crash at 3 s)" in error["message"] and "'x'" in error["message"]


def test_a_stored_future_action_that_fails_is_dropped_not_a_paused_run(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    from webapp.realtime import realtime_of

    bad = {"at": 20, "action": "crash", "container": "nope"}
    link = store_raw(app, {"yaml": POD, "actions": [bad], "at": 5})
    client = connect(app)
    client.emit("join", {"share": link})
    session_id = answers(client)[0][1]["session"]
    client.emit("clock", {"op": "play"})
    answers(client)
    scheduler = realtime_of(app).scheduler
    for i in range(12):
        scheduler.tick(1000.0 + i * 2.5)  # 27.5 wall seconds at 1x
    session = realtime_of(app).manager.get(session_id)
    assert session is not None
    assert session.clock.playing and session.sim.now > 30
    assert not [r for r in caplog.records if r.exc_info]


# -- the storage budget ---------------------------------------------------------------------


def test_posts_of_all_clients_together_are_limited(tmp_path: Path) -> None:
    app = make_app(tmp_path, SESSION_ENGINE=FakeSimulation, SHARE_POSTS_PER_MINUTE_GLOBAL=3)
    app.extensions["playground.share_limits"].everyone.clock = lambda: 0.0
    http = app.test_client()
    codes = [
        http.post(
            "/api/share",
            json={"yaml": POD, "at": i},
            environ_base={"REMOTE_ADDR": f"10.0.0.{i}"},
            headers=ZH,
        )
        for i in range(4)
    ]
    assert [r.status_code for r in codes] == [201, 201, 201, 429]
    assert codes[-1].json["code"] == "share_busy" and "太多" in codes[-1].json["message"]
    assert codes[-1].headers["Retry-After"]


class CostlyCheck(FakeSimulation):
    @classmethod
    def from_scenario(cls, scenario: Any, seed: int = 0) -> FakeSimulation:
        until = time.thread_time() + 0.03
        while time.thread_time() < until:
            pass
        return super().from_scenario(scenario, seed)


def test_checking_links_is_bounded_by_a_cpu_budget_per_client(tmp_path: Path) -> None:
    app = make_app(
        tmp_path, SESSION_ENGINE=CostlyCheck, SHARE_CPU_SHARE=0.001, SHARE_CPU_BURST_SECONDS=0.05
    )
    http = app.test_client()
    codes = [post(http, {"yaml": POD, "at": i}).status_code for i in range(4)]
    assert codes[:2] == [201, 201]
    answer = post(http, {"yaml": POD, "at": 9}, **ZH)
    assert answer.status_code == 429 and answer.json["code"] == "share_cpu_busy"
    assert int(answer.headers["Retry-After"]) >= 1
    other = http.post("/api/share", json={"yaml": POD}, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 201


def test_a_full_database_refuses_new_links_with_507_and_still_answers_old_ones(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path, SESSION_ENGINE=FakeSimulation, SHARE_DB_MAX_BYTES=64 * 1024)
    http = app.test_client()
    padded = POD + "# " + "x" * 8000 + "\n"
    made = []
    for i in range(40):
        answer = http.post(
            "/api/share",
            json={"yaml": padded, "at": i},
            headers=ZH,
            environ_base={"REMOTE_ADDR": f"10.1.0.{i}"},
        )
        if answer.status_code != 201:
            break
        made.append(answer.json["id"])
    assert made and answer.status_code == 507
    assert answer.mimetype == "application/json"
    assert answer.json["code"] == "share_storage_full" and "已满" in answer.json["message"]
    again = http.post("/api/share", json={"yaml": padded, "at": 0})  # exists: no growth
    assert again.status_code == 201 and again.json["id"] == made[0]
    assert http.get(f"/api/share/{made[-1]}").status_code == 200


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


DAY = 86400.0


def test_links_never_opened_expire_and_opened_ones_are_kept(tmp_path: Path) -> None:
    clock = Clock()
    store = ShareStore(
        tmp_path / "links.sqlite3", unopened_seconds=30 * DAY, sweep_seconds=3600, clock=clock
    )
    kept = store.put({"yaml": POD, "actions": [], "at": 1})
    dropped = store.put({"yaml": POD, "actions": [], "at": 2})
    store.mark_opened(kept)
    assert store.opened(kept)[0] == clock.now and store.opened(dropped) == (None, None)
    clock.now += 29 * DAY
    assert store.sweep(force=True) == 0
    clock.now += 2 * DAY
    young = store.put({"yaml": POD, "actions": [], "at": 3})  # this write sweeps
    assert store.get(dropped) is None
    assert store.get(kept) is not None and store.get(young) is not None
    # The sweep is lazy: at most once an hour unless forced.
    store.put({"yaml": POD, "actions": [], "at": 4})
    clock.now += 31 * DAY
    store.put({"yaml": POD, "actions": [], "at": 5})
    assert store.get(young) is None
    assert store.get(kept) is not None


def test_a_full_database_sweeps_before_refusing(tmp_path: Path) -> None:
    clock = Clock()
    store = ShareStore(
        tmp_path / "links.sqlite3",
        max_bytes=64 * 1024,
        unopened_seconds=DAY,
        sweep_seconds=1e9,
        clock=clock,
    )
    padded = POD + "#" + "x" * 8000
    made = 0
    with pytest.raises(StorageFull):
        for i in range(100):
            store.put({"yaml": padded, "actions": [], "at": i})
            made += 1
    clock.now += 2 * DAY  # they have all expired: the next put makes room
    assert store.put({"yaml": padded, "actions": [], "at": 1000})


def test_opening_a_link_records_when(app: Flask, http: FlaskClient) -> None:
    link = post(http, {"yaml": POD}).json["id"]
    store = storage.store_of(app)
    assert store.opened(link) == (None, None)
    client = connect(app)
    client.emit("join", {"share": link})
    first, last = store.opened(link)
    assert first is not None and last == first
    assert http.get(f"/api/share/{link}").status_code == 200


def test_an_older_database_gains_the_new_columns_and_keeps_its_links(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE share_links (id TEXT PRIMARY KEY, body TEXT NOT NULL, "
        "created_at REAL NOT NULL) WITHOUT ROWID"
    )
    link = {"yaml": POD, "actions": [], "at": 0.0}
    body = canonical_json(link)
    old.execute("INSERT INTO share_links VALUES (?, ?, 0)", (link_id(body), body))
    old.commit()
    old.close()
    store = ShareStore(path)
    columns = {row[1] for row in store.connection.execute("PRAGMA table_info(share_links)")}
    assert {"opened_at", "last_opened_at"} <= columns
    assert store.get(link_id(body)) == json.loads(body)
    store.mark_opened(link_id(body))
    assert store.opened(link_id(body))[0] is not None
    ShareStore(path)  # opening it again changes nothing
