"""The Socket.IO contract for a workload scenario: the same snapshot/tick as for a Pod, plus
`cluster` (every Pod, the workloads, the traffic, the kubectl views), and the `focus` action
that picks which Pod the single-Pod views show."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.web.seeking import run_seeks
from webapp import create_app, socketio_of

ROOT = Path(__file__).resolve().parents[2]
ROLLING = (ROOT / "scenarios" / "workloads" / "rolling-update.yaml").read_text(encoding="utf-8")


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


def one(client: SocketIOTestClient, name: str) -> dict[str, Any]:
    messages = client.get_received()
    assert [m["name"] for m in messages] == [name], messages
    return messages[0]["args"][0]


def seek(app: Flask, client: SocketIOTestClient, session: str, t: float) -> dict[str, Any]:
    """Seek to `t`, letting the seek loop finish whatever the request's own slice did not
    (a slice is bounded by CPU time, so how far one gets depends on the machine's load),
    then the full state as a rejoining tab gets it."""
    client.emit("clock", {"op": "seek", "value": t})
    run_seeks(app)
    client.get_received()
    client.emit("join", {"session": session})
    snapshot = one(client, "snapshot")
    assert snapshot["now"] == t and snapshot["seeking"] is None
    return snapshot


def test_a_workload_scenario_joins_and_shows_every_pod(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"yaml": ROLLING})
    snapshot = one(client, "snapshot")
    cluster = snapshot["cluster"]
    assert len(cluster["pods"]) == 3
    assert cluster["focus"] == cluster["pods"][0]["name"]
    assert snapshot["pod"]["metadata"]["name"] == cluster["focus"]
    assert {p["owner"]["kind"] for p in cluster["pods"]} == {"ReplicaSet"}
    later = seek(app, client, snapshot["session"], 120)["cluster"]
    assert [p["columns"]["STATUS"] for p in later["pods"]] == ["Running"] * 3
    assert later["views"]["rolloutStatus"] == {
        "deployment/web": 'deployment "web" successfully rolled out\n'
    }
    assert "deployment.apps/web" in later["views"]["get"]
    assert later["traffic"]["failed"] > later["traffic"]["noEndpoints"]
    assert later["traffic"]["perSecond"][-1][0] == 120


def test_focus_switches_the_single_pod_views_and_survives_a_seek(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"yaml": ROLLING})
    session = one(client, "snapshot")["session"]
    pods = seek(app, client, session, 20)["cluster"]["pods"]
    other = pods[2]["name"]
    client.emit("act", {"action": "focus", "name": other})
    snapshot = one(client, "snapshot")
    assert snapshot["cluster"]["focus"] == other
    assert snapshot["pod"]["metadata"]["name"] == other
    assert snapshot["transitions"][0]["object"] == f"Pod/{other}"
    assert seek(app, client, session, 25)["cluster"]["focus"] == other
    client.emit("act", {"action": "focus", "name": "nope"})
    refused = one(client, "error")
    assert refused["code"] == "action_refused"


def test_scale_over_the_wire_and_a_pod_scenario_refuses_it(client: SocketIOTestClient) -> None:
    client.emit("join", {"yaml": ROLLING})
    one(client, "snapshot")
    client.emit("act", {"action": "scale", "name": "web", "replicas": 5})
    tick = one(client, "tick")
    assert len(tick["cluster"]["pods"]) == 5
    client.emit("join", {"scenario": "plain-pod"})
    snapshot = one(client, "snapshot")
    assert "cluster" not in snapshot
    client.emit("act", {"action": "scale", "name": "web", "replicas": 5})
    assert one(client, "error")["code"] == "action_refused"


def test_the_workload_lessons_are_built_ins(app: Flask, client: SocketIOTestClient) -> None:
    names = [item["name"] for item in app.test_client().get("/api/scenarios").json]
    assert {"rolling-update", "rolling-update-prestop", "job-indexed", "drain-with-pdb"} <= set(
        names
    )
    assert names.index("plain-pod") < names.index("rolling-update")  # Pod lessons first
    client.emit("join", {"scenario": "rolling-update-prestop"})
    snapshot = one(client, "snapshot")
    assert snapshot["scenario"]["name"] == "rolling-update-prestop"
    assert snapshot["cluster"]["traffic"]["service"] == "web"


def test_a_workload_share_link_opens_at_its_moment_with_its_focus(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"yaml": ROLLING})
    pods = one(client, "snapshot")["cluster"]["pods"]
    actions = [
        {"at": 10, "action": "focus", "name": pods[1]["name"]},
        {"at": 15, "action": "scale", "name": "web", "replicas": 4},
    ]
    body = {"yaml": ROLLING, "actions": actions, "at": 50}
    response = app.test_client().post("/api/share", json=body)
    assert response.status_code == 201, response.json
    client.emit("join", {"share": response.json["id"]})
    opened = one(client, "snapshot")
    # The link's replay runs in slices bounded by CPU time: how far the first one got
    # depends on this machine; the seek loop takes it the rest of the way.
    assert opened["seeking"] is None or opened["seeking"]["target"] == 50
    run_seeks(app)
    client.get_received()
    client.emit("join", {"session": opened["session"]})
    snapshot = one(client, "snapshot")
    assert snapshot["now"] == 50 and snapshot["seeking"] is None
    assert snapshot["cluster"]["focus"] == pods[1]["name"]
    # the rollout at 30 s replaced that Pod: the views follow it to its end
    assert snapshot["pod"] is None
    assert snapshot["transitions"][0]["object"] == f"Pod/{pods[1]['name']}"
    assert any(t["step"] == "removed" for t in snapshot["transitions"])
    assert len(snapshot["cluster"]["pods"]) >= 4
    assert [a["action"] for a in snapshot["actions"]] == ["focus", "scale"]


def test_seeking_back_in_a_cluster_run_shows_exactly_what_was_seen(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"scenario": "rolling-update"})
    session = one(client, "snapshot")["session"]
    seen = seek(app, client, session, 45)
    seek(app, client, session, 150)
    again = seek(app, client, session, 45)
    for key in ("pod", "events", "transitions", "endpointSlices", "cluster"):
        assert again[key] == seen[key], key
