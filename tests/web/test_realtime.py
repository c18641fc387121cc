"""The Socket.IO contract, with Flask-SocketIO's test client and the scheduler stepped by hand.

The engine here is the fake of tests/web/fake_engine.py; test_realtime_engine.py repeats
the lifecycle contracts on the real engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app, socketio_of
from webapp.realtime import realtime_of

BAD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    imagee: nginx
"""


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
            "MAX_SESSIONS": 3,
            "ACTIONS_PER_SECOND": 1000,
        }
    )


def connect(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()  # drop the hello
    return client


@pytest.fixture
def client(app: Flask) -> SocketIOTestClient:
    return connect(app)


def events(client: SocketIOTestClient, name: str | None = None) -> list[dict[str, Any]]:
    return [m["args"][0] for m in client.get_received() if name is None or m["name"] == name]


def only(client: SocketIOTestClient, name: str) -> dict[str, Any]:
    received = client.get_received()
    assert [m["name"] for m in received] == [name], received
    payload: dict[str, Any] = received[0]["args"][0]
    return payload


def join(client: SocketIOTestClient, **payload: Any) -> dict[str, Any]:
    client.emit("join", payload or {"yaml": POD})
    return only(client, "snapshot")


def run(app: Flask, seconds: float, rounds: int = 20, start: float = 1000.0) -> None:
    """Step the scheduler through `seconds` of wall time in `rounds` rounds."""
    scheduler = realtime_of(app).scheduler
    for i in range(rounds + 1):
        scheduler.tick(start + seconds * i / rounds)


def test_join_with_yaml_gives_a_snapshot(client: SocketIOTestClient) -> None:
    snapshot = join(client, yaml=POD)
    assert len(snapshot["session"]) >= 32
    assert snapshot["seq"] == 0
    assert snapshot["now"] == 0
    assert snapshot["clock"] == {"playing": False, "speed": 1.0, "end": 7200}
    assert snapshot["pod"]["metadata"]["name"] == "web"
    assert snapshot["transitions"][0]["step"] == "submitted"
    assert snapshot["scenario"]["yaml"] == POD
    assert snapshot["actions"] == []
    assert set(snapshot["views"]) == {"columns", "watch", "describe", "events", "yaml", "logs"}


def test_join_a_builtin_scenario_by_name(client: SocketIOTestClient) -> None:
    snapshot = join(client, scenario="plain-pod")
    assert snapshot["scenario"]["name"] == "plain-pod"
    assert snapshot["scenario"]["title"]["zh"]


def test_join_with_nothing_opens_the_default_scenario(client: SocketIOTestClient) -> None:
    client.emit("join", {})
    assert only(client, "snapshot")["scenario"]["name"] == "plain-pod"


def test_play_gives_ticks_with_consecutive_sequence_numbers(
    app: Flask, client: SocketIOTestClient
) -> None:
    snapshot = join(client)
    client.emit("clock", {"op": "play"})
    first = only(client, "tick")
    assert first["clock"]["playing"] is True
    run(app, 6.0)
    ticks = [first, *events(client, "tick")]
    seqs = [t["seq"] for t in ticks]
    assert seqs == list(range(snapshot["seq"] + 1, snapshot["seq"] + 1 + len(ticks)))
    # Time alone is resent once a second (the page runs its clock in between).
    assert 5.0 <= ticks[-1]["now"] <= 6.0
    steps = [t["step"] for tick in ticks for t in tick["transitions"]]
    assert steps == ["scheduled", "running"]
    assert ticks[-1]["pod"]["status"]["phase"] == "Running"
    assert ticks[-1]["views"]["columns"]["STATUS"] == "Running"
    assert isinstance(ticks[-1]["sentAt"], float)


def test_speed_is_applied_and_out_of_range_speeds_are_refused(
    app: Flask, client: SocketIOTestClient
) -> None:
    join(client)
    client.emit("clock", {"op": "speed", "value": 10})
    assert only(client, "tick")["clock"]["speed"] == 10
    for bad in (0.25, 101, "fast", True, None):
        client.emit("clock", {"op": "speed", "value": bad})
        assert only(client, "error")["code"] in ("bad_speed", "invalid_payload")
    client.emit("clock", {"op": "play"})
    run(app, 1.0)
    events(client)
    client.emit("clock", {"op": "pause"})  # a pause tick tells exactly where it stopped
    assert only(client, "tick")["now"] == pytest.approx(10.0)


def test_step_runs_to_the_next_event(client: SocketIOTestClient) -> None:
    join(client)
    client.emit("clock", {"op": "step"})
    tick = only(client, "tick")
    assert tick["now"] == 1.0
    assert [t["step"] for t in tick["transitions"]] == ["scheduled"]


def test_delete_gives_terminating_then_no_pod(app: Flask, client: SocketIOTestClient) -> None:
    join(client)
    client.emit("clock", {"op": "seek", "value": 5})
    only(client, "snapshot")
    client.emit("act", {"action": "delete", "gracePeriodSeconds": 2})
    tick = only(client, "tick")
    assert tick["views"]["columns"]["STATUS"] == "Terminating"
    client.emit("clock", {"op": "play"})
    run(app, 3.0)
    assert events(client, "tick")[-1]["pod"] is None


def test_a_gap_is_repaired_by_joining_with_the_session_id(
    app: Flask, client: SocketIOTestClient
) -> None:
    snapshot = join(client)
    client.emit("clock", {"op": "play"})
    run(app, 4.0)
    ticks = events(client, "tick")
    # The tab lost the middle ticks: it sees seq jump and asks for a fresh snapshot.
    client.emit("join", {"session": snapshot["session"]})
    fresh = only(client, "snapshot")
    assert fresh["session"] == snapshot["session"]
    assert fresh["seq"] == ticks[-1]["seq"]
    assert fresh["now"] == ticks[-1]["now"]
    assert len(fresh["transitions"]) == 3


def test_a_reload_resumes_the_same_session_with_nothing_lost(app: Flask) -> None:
    first = connect(app)
    snapshot = join(first)
    first.emit("act", {"action": "crash", "container": "app"})
    events(first)
    first.disconnect()
    second = connect(app)
    resumed = join(second, session=snapshot["session"])
    assert [a["action"] for a in resumed["actions"]] == ["crash"]
    assert resumed["transitions"][-1]["cause"] == "crash"


def test_a_session_cannot_be_joined_without_its_id(app: Flask, client: SocketIOTestClient) -> None:
    join(client)
    stranger = connect(app)
    stranger.emit("join", {"session": "not-the-id"})
    assert only(stranger, "error")["code"] == "unknown_session"
    for event, payload in [
        ("clock", {"op": "play"}),
        ("act", {"action": "delete"}),
        ("apply", {"yaml": POD}),
    ]:
        stranger.emit(event, payload)
        assert only(stranger, "error")["code"] == "no_session"
    assert events(client) == []  # the owner's session saw nothing of it


def test_bad_yaml_gives_located_errors_and_no_session(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"yaml": BAD_YAML, "lang": "zh"})
    error = only(client, "error")
    assert error["code"] == "invalid_scenario"
    assert "错误" in error["message"]
    located = {e["path"]: e for e in error["errors"]}["spec.containers[0].imagee"]
    assert (located["doc"], located["line"], located["column"]) == (0, 8, 5)
    assert "未知字段" in located["message"]
    assert len(realtime_of(app).manager) == 0


def test_apply_a_bad_scenario_gives_located_errors_in_english_by_default(
    client: SocketIOTestClient,
) -> None:
    join(client)
    client.emit("apply", {"yaml": BAD_YAML})
    error = only(client, "error")
    located = {e["path"]: e for e in error["errors"]}["spec.containers[0].imagee"]
    assert located["line"] == 8
    assert "unknown field" in located["message"]


def test_apply_a_whole_scenario_restarts_the_session(client: SocketIOTestClient) -> None:
    snapshot = join(client)
    client.emit("clock", {"op": "seek", "value": 30})
    only(client, "snapshot")
    other = POD.replace("name: web", "name: api")
    # issue 17: a restart is asked for (`apply` without it is kubectl apply)
    client.emit("apply", {"yaml": other, "restart": True})
    received = client.get_received()
    assert [m["name"] for m in received] == ["snapshot", "applied"], received
    restarted = received[0]["args"][0]
    assert restarted["session"] == snapshot["session"]
    assert restarted["now"] == 0
    assert restarted["pod"]["metadata"]["name"] == "api"
    assert restarted["scenario"]["yaml"] == other


def test_apply_objects_without_a_pod_goes_to_the_engine(client: SocketIOTestClient) -> None:
    join(client)
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"
    client.emit("apply", {"yaml": config_map})
    # issue 17: the tick, then the answer kubectl prints (webapp/realtime/apply.py)
    received = client.get_received()
    assert [m["name"] for m in received] == ["tick", "applied"], received
    tick = received[0]["args"][0]
    assert tick["transitions"][-1]["after"] == "apply"


def test_seek_back_replays_exactly(app: Flask, client: SocketIOTestClient) -> None:
    join(client)
    client.emit("clock", {"op": "seek", "value": 12})
    at_12 = only(client, "snapshot")
    client.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    events(client)
    client.emit("clock", {"op": "seek", "value": 20})
    at_20 = only(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 60})
    assert only(client, "snapshot")["pod"] is None
    client.emit("clock", {"op": "seek", "value": 20})
    again = only(client, "snapshot")
    assert again["pod"] == at_20["pod"]
    assert again["transitions"] == at_20["transitions"]
    assert again["views"] == at_20["views"]
    client.emit("clock", {"op": "seek", "value": 11})
    before = only(client, "snapshot")
    assert before["pod"] == at_12["pod"]  # nothing changed between 11 and 12
    assert "deletionTimestamp" not in before["pod"]["metadata"]


def test_seek_outside_the_run_is_refused(client: SocketIOTestClient) -> None:
    join(client)
    for value in (-1, 7201, float("nan")):
        client.emit("clock", {"op": "seek", "value": value})
        assert only(client, "error")["code"] in ("bad_seek", "invalid_payload")


def test_play_at_the_end_is_refused(client: SocketIOTestClient) -> None:
    join(client)
    client.emit("clock", {"op": "seek", "value": 7200})
    only(client, "snapshot")
    client.emit("clock", {"op": "play"})
    assert only(client, "error")["code"] == "at_end"


def test_the_session_limit_answers_with_an_error(app: Flask) -> None:
    clients = [connect(app) for _ in range(4)]
    for c in clients[:3]:
        join(c)
    clients[3].emit("join", {"yaml": POD, "lang": "zh"})
    error = only(clients[3], "error")
    assert error["code"] == "too_many_sessions"
    assert "上限" in error["message"]


def test_too_many_events_per_second_answer_with_an_error(tmp_path: Path) -> None:
    app = create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 3,
        }
    )
    realtime_of(app).limiter.clock = lambda: 0.0  # frozen: no token comes back
    client = connect(app)
    join(client)
    for _ in range(4):
        client.emit("clock", {"op": "pause"})
    codes = [e.get("code") for e in events(client, "error")]
    assert codes == ["rate_limited", "rate_limited"]  # a burst of 3: join and two pauses


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("join", ["not an object"]),
        ("join", [{"session": 42}]),
        ("join", [{"yaml": POD, "scenario": "plain-pod"}]),
        ("join", [{"yaml": POD, "color": "red"}]),
        ("join", [{"yaml": POD, "lang": "fr"}]),
        ("join", [{"yaml": POD}, {"extra": 1}]),
        ("join", []),
        ("join", [{"scenario": "no-such-thing"}]),
        ("clock", [{"op": "rewind"}]),
        ("clock", [{"op": "seek"}]),
        ("clock", [["play"]]),
        ("act", [{"action": "explode"}]),
        ("act", [{"action": "delete", "gracePeriodSeconds": {"$gt": 1}}]),
        ("act", [{"action": "delete", "at": 3}]),
        ("act", [{"gracePeriodSeconds": 1}]),
        ("apply", [{"yaml": 7}]),
        ("apply", [{"yaml": "x" * (64 * 1024 + 1)}]),
        ("lang", [{"lang": "klingon"}]),
        ("lang", [None]),
    ],
)
def test_malformed_payloads_give_errors(
    app: Flask, client: SocketIOTestClient, event: str, args: list[Any]
) -> None:
    join(client)
    client.emit(event, *args)
    error = only(client, "error")
    assert error["code"] and error["message"]
    # The session still works afterwards.
    client.emit("clock", {"op": "step"})
    assert only(client, "tick")["now"] == 1.0


def test_errors_follow_the_language_event(client: SocketIOTestClient) -> None:
    join(client)
    client.emit("lang", {"lang": "zh"})
    assert events(client) == []
    client.emit("clock", {"op": "speed", "value": 1000})
    assert "速度" in only(client, "error")["message"]


def test_an_engine_refusal_is_an_error_not_a_crash(client: SocketIOTestClient) -> None:
    join(client)
    client.emit("act", {"action": "delete"})
    events(client)
    client.emit("act", {"action": "delete"})
    error = only(client, "error")
    assert error["code"] == "action_refused"
    assert "already being deleted" in error["message"]


def test_an_unexpected_failure_answers_internal_error_and_spares_the_session(
    app: Flask, client: SocketIOTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = join(client)
    session = realtime_of(app).manager.get(snapshot["session"])
    assert session is not None

    def broken(_: dict[str, Any]) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(session.sim, "act", broken)
    client.emit("act", {"action": "crash", "container": "app"})
    assert only(client, "error")["code"] == "internal_error"
    client.emit("clock", {"op": "step"})
    assert only(client, "tick")["now"] == 1.0


def test_two_tabs_of_one_session_both_get_ticks(app: Flask) -> None:
    first, second = connect(app), connect(app)
    snapshot = join(first)
    join(second, session=snapshot["session"])
    first.emit("clock", {"op": "step"})
    assert only(first, "tick")["seq"] == only(second, "tick")["seq"]


def test_joining_another_session_leaves_the_first(app: Flask) -> None:
    client = connect(app)
    first = join(client)
    join(client)  # a new session from the same tab
    session = realtime_of(app).manager.get(first["session"])
    assert session is not None and session.tabs == set()


def test_the_tick_after_an_action_carries_the_log_the_engine_accepted(
    client: SocketIOTestClient,
) -> None:
    """The page shares what the server ran: an accepted action comes back in the next
    tick with the engine's `at` (as a delta: the log the tabs have, kept, and the new
    action); a refused one never appears, and a tick with no new action carries no log."""
    join(client)
    client.emit("clock", {"op": "seek", "value": 5})
    only(client, "snapshot")
    client.emit("act", {"action": "delete", "gracePeriodSeconds": 2})
    tick = only(client, "tick")
    assert "actions" not in tick
    delta = tick["actionsDelta"]
    assert delta["keep"] == 0
    assert [(a["action"], a["at"]) for a in delta["add"]] == [("delete", 5.0)]
    client.emit("act", {"action": "no-such-action"})
    assert [m["name"] for m in client.get_received()] == ["error"]
    client.emit("clock", {"op": "step"})
    tick = only(client, "tick")
    assert "actions" not in tick and "actionsDelta" not in tick
