"""The Socket.IO contract on the real engine, with the scheduler stepped by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from webapp import create_app, socketio_of
from webapp.paths import resource_dir
from webapp.realtime import realtime_of

BUILT_INS = sorted(path.stem for path in resource_dir("scenarios").glob("*.yaml"))

MISSING_CONFIG_MAP = """\
apiVersion: v1
kind: Pod
metadata:
  name: shop
spec:
  containers:
  - name: app
    image: nginx:1.27
    env:
    - name: LOG_LEVEL
      valueFrom:
        configMapKeyRef:
          name: shop-config
          key: log-level
"""

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
data:
  log-level: info
"""


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_SCHEDULER": False,
        }
    )


@pytest.fixture
def client(app: Flask) -> SocketIOTestClient:
    client = socketio_of(app).test_client(app)
    client.get_received()
    return client


def received(client: SocketIOTestClient, name: str) -> list[dict[str, Any]]:
    messages = client.get_received()
    assert {m["name"] for m in messages} <= {name}, messages
    return [m["args"][0] for m in messages]


def one(client: SocketIOTestClient, name: str) -> dict[str, Any]:
    (payload,) = received(client, name)
    return payload


def play(app: Flask, wall_seconds: float, start: float = 0.0) -> None:
    scheduler = realtime_of(app).scheduler
    rounds = int(wall_seconds / 0.05)
    for i in range(rounds + 1):
        scheduler.tick(start + i * 0.05)


def test_join_play_and_watch_the_pod_reach_running(app: Flask, client: SocketIOTestClient) -> None:
    client.emit("join", {"scenario": "plain-pod"})
    snapshot = one(client, "snapshot")
    assert snapshot["pod"]["status"]["phase"] == "Pending"
    assert snapshot["stage"]["stage"] == 1
    client.emit("clock", {"op": "speed", "value": 10})
    client.emit("clock", {"op": "play"})
    play(app, 3.0)
    ticks = received(client, "tick")
    assert [t["seq"] for t in ticks] == list(range(1, len(ticks) + 1))
    last = ticks[-1]
    assert last["pod"]["status"]["phase"] == "Running"
    assert last["views"]["columns"]["STATUS"] == "Running"
    assert last["views"]["columns"]["READY"] == "1/1"
    sent = [t for tick in ticks for t in tick["transitions"]]
    all_seqs = [t["seq"] for t in snapshot["transitions"]] + [t["seq"] for t in sent]
    assert all_seqs == list(range(len(all_seqs)))  # every transition once, in order
    assert {t["stage"] for t in sent} >= {1, 3, 4}


def test_delete_gives_terminating_and_then_no_pod(app: Flask, client: SocketIOTestClient) -> None:
    client.emit("join", {"scenario": "sigterm-ignored"})  # its own script deletes at 20 s
    one(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 10})
    assert one(client, "snapshot")["pod"]["status"]["phase"] == "Running"
    client.emit("act", {"action": "delete", "gracePeriodSeconds": 30})
    tick = one(client, "tick")
    assert tick["views"]["columns"]["STATUS"] == "Terminating"
    assert tick["pod"]["metadata"]["deletionTimestamp"]
    assert tick["stage"]["stage"] == 5
    client.emit("clock", {"op": "speed", "value": 10})
    client.emit("clock", {"op": "play"})
    play(app, 4.0)
    ticks = received(client, "tick")
    assert ticks[-1]["pod"] is None
    assert ticks[-1]["views"]["columns"] is None
    assert any(t["step"] == "removed" for tick in ticks for t in tick["transitions"])


def test_seek_back_shows_exactly_the_pod_seen_then(app: Flask, client: SocketIOTestClient) -> None:
    client.emit("join", {"scenario": "sigterm-ignored"})  # its own script deletes at 20 s
    one(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 10})
    one(client, "snapshot")
    client.emit("act", {"action": "delete"})
    one(client, "tick")
    client.emit("clock", {"op": "speed", "value": 10})
    client.emit("clock", {"op": "play"})
    play(app, 1.0)
    client.emit("clock", {"op": "pause"})
    seen = received(client, "tick")[-1]
    assert seen["views"]["columns"]["STATUS"] == "Terminating"
    client.emit("clock", {"op": "seek", "value": 300})
    assert one(client, "snapshot")["pod"] is None
    client.emit("clock", {"op": "seek", "value": seen["now"]})
    again = one(client, "snapshot")
    assert again["now"] == seen["now"]
    assert again["pod"] == seen["pod"]
    assert again["events"] == seen["events"]
    assert again["views"] == seen["views"]
    assert [a["action"] for a in again["actions"]] == ["delete"]


@pytest.mark.parametrize("name", BUILT_INS)
def test_every_builtin_replays_deterministically(client: SocketIOTestClient, name: str) -> None:
    client.emit("join", {"scenario": name})
    one(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 90})
    forward = one(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 400})
    one(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 90})
    replayed = one(client, "snapshot")
    for key in ("now", "pod", "events", "transitions", "endpointSlices", "nodes", "views"):
        assert replayed[key] == forward[key], key


def test_applying_the_missing_config_map_lets_the_container_start(
    client: SocketIOTestClient,
) -> None:
    client.emit("join", {"yaml": MISSING_CONFIG_MAP})
    one(client, "snapshot")
    client.emit("clock", {"op": "seek", "value": 20})
    stuck = one(client, "snapshot")
    assert stuck["views"]["columns"]["STATUS"] == "CreateContainerConfigError"
    client.emit("apply", {"yaml": CONFIG_MAP})
    # issue 17: the tick, then `applied` with the line kubectl prints
    assert [m["name"] for m in client.get_received()] == ["tick", "applied"]
    client.emit("clock", {"op": "seek", "value": 60})
    fixed = one(client, "snapshot")
    assert fixed["views"]["columns"]["STATUS"] == "Running"
    assert [a["action"] for a in fixed["actions"]] == ["apply"]


def test_an_invalid_action_is_refused_by_the_engine(client: SocketIOTestClient) -> None:
    client.emit("join", {"scenario": "plain-pod", "lang": "zh"})
    one(client, "snapshot")
    client.emit("act", {"action": "crash", "container": "no-such-container"})
    error = one(client, "error")
    assert error["code"] == "action_refused"
    assert error["reason"] == "unknown_container"
    assert error["message"] == "这个 Pod 没有名为 'no-such-container' 的容器。"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "Container 'app' has no liveness probe."),
        ("zh", "容器 'app' 没有定义 liveness 探针。"),
    ],
)
def test_engine_refusals_speak_the_clients_language(
    client: SocketIOTestClient, lang: str, expected: str
) -> None:
    client.emit("join", {"scenario": "plain-pod", "lang": lang})
    one(client, "snapshot")
    client.emit(
        "act", {"action": "set-probe", "container": "app", "probe": "liveness", "healthy": False}
    )
    error = one(client, "error")
    assert (error["reason"], error["message"]) == ("no_such_probe", expected)


def test_every_engine_refusal_code_has_both_languages() -> None:
    import re

    from webapp import i18n

    source = "".join(
        p.read_text()
        for p in (Path(__file__).resolve().parents[2] / "webapp" / "engine").glob("*.py")
    )
    codes = set(re.findall(r'ActionError\(\s*"([a-z_]+)"', source))
    assert codes, "the engine raises ActionError with codes"
    assert codes <= set(i18n.ACTION_REFUSALS), codes - set(i18n.ACTION_REFUSALS)
    assert all(set(entry) == {"en", "zh"} for entry in i18n.ACTION_REFUSALS.values())


def test_a_share_link_opens_at_its_moment(app: Flask, client: SocketIOTestClient) -> None:
    text = (resource_dir("scenarios") / "plain-pod.yaml").read_text()
    body = {"yaml": text, "actions": [{"at": 20, "action": "delete"}], "at": 21}
    link = app.test_client().post("/api/share", json=body).json["id"]
    client.emit("join", {"share": link})
    snapshot = one(client, "snapshot")
    assert snapshot["now"] == 21
    assert snapshot["clock"]["playing"] is False
    assert snapshot["pod"] is None  # deleted at 20 s, gone within the second
    assert any(t["step"] == "removed" for t in snapshot["transitions"])
    assert snapshot["actions"] == [{"at": 20.0, "action": "delete"}]
