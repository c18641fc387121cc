"""The wire of `apply` (issue 17 item 3, shared/ARCHITECTURE.md "Over the wire"): without
`restart` it is kubectl apply to the running session (its clock and history kept), answered
with `applied` {mode: "apply", lines} as kubectl prints them; an API server's refusal is an
`error` with kubectl's words, and nothing changes; `restart: true` starts over at second 0."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from webapp import create_app, socketio_of
from webapp.realtime import realtime_of

ROOT = Path(__file__).resolve().parents[2]
# kubernetes/website content/en/examples/controllers/nginx-deployment.yaml
NGINX = (ROOT / "tests" / "unit" / "data" / "docs" / "nginx-deployment.yaml").read_text(
    encoding="utf-8"
)


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


def received(client: SocketIOTestClient) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for message in client.get_received():
        found.setdefault(message["name"], []).append(message["args"][0])
    return found


def play_to(app: Flask, client: SocketIOTestClient, session: str, t: float) -> None:
    client.emit("clock", {"op": "seek", "value": t})
    seeker = realtime_of(app).seeker
    for _ in range(1000):
        if not seeker.round():
            break
    client.get_received()
    client.emit("join", {"session": session})
    (snapshot,) = received(client)["snapshot"]
    assert snapshot["now"] == t


def test_apply_without_restart_is_kubectl_apply_to_the_running_session(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"yaml": NGINX})
    (snapshot,) = received(client)["snapshot"]
    session = snapshot["session"]
    play_to(app, client, session, 30)
    client.emit("apply", {"yaml": NGINX.replace("nginx:1.14.2", "nginx:1.16.1")})
    got = received(client)
    assert "snapshot" not in got  # the history goes on: no new run
    (answer,) = got["applied"]
    assert answer["mode"] == "apply"
    assert answer["lines"][-1] == "deployment.apps/nginx-deployment configured"
    assert answer["lines"][0].startswith("Warning: resource deployments/nginx-deployment is")
    assert got["tick"][-1]["now"] == 30
    sim = realtime_of(app).manager.get(session).sim
    assert sim.actions[-1]["at"] == 30 and sim.actions[-1]["action"] == "apply"
    client.emit("apply", {"yaml": NGINX.replace("nginx:1.14.2", "nginx:1.16.1")})
    (answer,) = received(client)["applied"]
    assert answer["lines"] == ["deployment.apps/nginx-deployment unchanged"]


def test_an_api_refusal_is_an_error_with_kubectls_words_and_changes_nothing(
    app: Flask, client: SocketIOTestClient
) -> None:
    client.emit("join", {"yaml": POD})
    (snapshot,) = received(client)["snapshot"]
    sim = realtime_of(app).manager.get(snapshot["session"]).sim
    before = (len(sim.actions), sim.now, sim.pod()["metadata"]["resourceVersion"])
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n---\n"
    client.emit("apply", {"yaml": config + POD + "    ports:\n    - containerPort: 8080\n"})
    got = received(client)
    assert "applied" not in got
    (error,) = got["error"]
    assert error["code"] == "action_refused" and error["reason"] == "pod_update_forbidden"
    assert (
        'The Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other '
        "than `spec.containers[*].image`,`spec.initContainers[*].image`"
    ) in error["message"]
    assert (len(sim.actions), sim.now, sim.pod()["metadata"]["resourceVersion"]) == before
    assert "cfg" not in sim.config_maps


def test_apply_with_restart_starts_over_at_second_0(app: Flask, client: SocketIOTestClient) -> None:
    client.emit("join", {"yaml": NGINX})
    (snapshot,) = received(client)["snapshot"]
    play_to(app, client, snapshot["session"], 20)
    client.emit("apply", {"yaml": NGINX.replace("replicas: 3", "replicas: 2"), "restart": True})
    got = received(client)
    (fresh,) = got["snapshot"]
    assert fresh["now"] == 0 and fresh["session"] == snapshot["session"]
    assert got["applied"] == [{"mode": "restart", "lines": []}]


def test_apply_checks_its_payload(client: SocketIOTestClient) -> None:
    client.emit("join", {"yaml": POD})
    client.get_received()
    client.emit("apply", {"yaml": POD, "restart": "yes"})
    (error,) = received(client)["error"]
    assert error["code"] == "invalid_payload" and '"restart"' in error["message"]
    client.emit("apply", {"yaml": "kind: [\n"})
    (error,) = received(client)["error"]
    assert error["code"] == "invalid_scenario"
    assert error["errors"][0]["code"] == "yaml_syntax" and error["errors"][0]["line"] >= 1
