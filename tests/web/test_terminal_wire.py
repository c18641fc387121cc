"""The terminal's wire (shared/ARCHITECTURE.md "Terminal", webapp/realtime/terminal.py):
`terminal {line}` -> `terminal:output {line, stdout, stderr, exitCode}` to the tab that typed
it; bad input is refused at the door with a located error in the tab's language, and
nothing else in the session changes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from webapp import create_app, socketio_of, terminal
from webapp.realtime import realtime_of


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
                      "SESSION_SCHEDULER": False})  # fmt: skip


def received(client: SocketIOTestClient) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for message in client.get_received():
        found.setdefault(message["name"], []).append(message["args"][0])
    return found


def joined(app: Flask, lang: str = "en") -> tuple[SocketIOTestClient, Any]:
    client = socketio_of(app).test_client(app)
    client.emit("join", {"yaml": POD, "lang": lang})
    (snapshot,) = received(client)["snapshot"]
    return client, realtime_of(app).manager.get(snapshot["session"])


def typed(client: SocketIOTestClient, payload: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    client.emit("terminal", payload)
    return received(client)


def test_a_line_is_answered_with_what_kubectl_prints(app: Flask) -> None:
    client, session = joined(app)
    got = typed(client, {"line": "kubectl get pods -o name"})
    assert got["terminal:output"] == [{"line": "kubectl get pods -o name",
                                       "stdout": f"pod/{session.sim.pod()['metadata']['name']}\n",
                                       "stderr": "", "exitCode": 0}]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "stderr", "code"),
    [
        ("ls -l", "bash: ls: command not found\nThis terminal runs kubectl: try `kubectl get pods` (or `help`).\n", 127),
        ("kubectl get pods 'app", "bash: unexpected EOF while looking for matching `''\n", 2),
        ('kubectl logs "web', "bash: unexpected EOF while looking for matching `\"'\n", 2),
        ("kubectl get pods | grep web", "bash: |: This terminal runs one kubectl command at a time: pipes, redirections, `;`, `&&` and `$(...)` are not run.\n", 2),
        ("kubectl get pods $(rm -rf /)", "bash: $(: This terminal runs one kubectl command at a time: pipes, redirections, `;`, `&&` and `$(...)` are not run.\n", 2),
        ("kubectl edit pod web", '"kubectl edit" is not available in this terminal yet', 1),
    ],
)  # fmt: skip
def test_what_is_not_kubectl_gets_a_one_line_answer(
    app: Flask, line: str, stderr: str, code: int
) -> None:
    client, _ = joined(app)
    [out] = typed(client, {"line": line})["terminal:output"]
    assert stderr in out["stderr"] and out["exitCode"] == code and out["stdout"] == ""


def test_the_hint_is_in_the_tabs_language(app: Flask) -> None:
    client, _ = joined(app, "zh")
    [out] = typed(client, {"line": "ls"})["terminal:output"]
    assert (
        out["stderr"]
        == "bash: ls: command not found\n这个终端运行 kubectl：试试 `kubectl get pods`（或输入 `help`）。\n"
    )


def test_escapes_and_control_characters_are_data(app: Flask) -> None:
    client, _ = joined(app)
    line = "kubectl get pods \x1b[2J\x1b[31mred\x07\x00"
    [out] = typed(client, {"line": line})["terminal:output"]
    assert out["line"] == line  # sent back as typed: the page shows it as text, never runs it
    assert out["exitCode"] == 1 and out["stderr"].startswith("Error from server (NotFound): pods ")


def test_a_line_past_the_limit_is_refused_before_it_is_read(app: Flask) -> None:
    client, session = joined(app)
    before = list(session.actions)
    got = typed(client, {"line": "kubectl delete pod web " + "x" * 100_000})
    [error] = got["error"]
    assert error["code"] == "terminal_line_too_long" and "16 KiB" in error["message"]
    assert error["event"] == "terminal"  # the page's terminal shows its own refusals in place
    assert "terminal:output" not in got and session.actions == before


@pytest.mark.parametrize(
    ("line", "stderr"),
    [
        ("kubectl edit pod web", "error: 这个终端还不支持“kubectl edit”；它支持 get、describe、logs、events、exec、apply -f -、delete、scale、rollout、set image、label、patch、cordon、uncordon、drain、version、api-resources 和 api-versions\n"),
        ("kubectl get pods -o custom-columns=NAME:.metadata.name", "error: 这个终端还不支持 `-o custom-columns`；它支持 -o wide、name、yaml、json 和 jsonpath=...（其余格式可用你自己的 kubectl 对本会话运行：下载 → 使用你自己的 kubectl）\n"),
        ("kubectl describe node x", "error: 这个终端还不支持“kubectl describe nodes”；它能 describe pods, services, deployments, replicasets, statefulsets, daemonsets, jobs, poddisruptionbudgets\n"),
        ("kubectl exec -it web -- top", "error: 这个终端的 `kubectl exec -i` 只能打开 shell（sh、bash、ash：kubectl exec -it Pod -- sh），还不支持其他程序；请一次运行一条命令：kubectl exec Pod -- 命令\n"),
    ],
)  # fmt: skip
def test_what_the_terminal_does_not_run_yet_is_said_in_the_tabs_language(
    app: Flask, line: str, stderr: str
) -> None:
    client, _ = joined(app, "zh")
    [out] = typed(client, {"line": line})["terminal:output"]
    assert (out["stderr"], out["exitCode"], out["stdout"]) == (stderr, 1, "")


@pytest.mark.parametrize("payload", [{}, {"line": 3}, {"line": "kubectl", "extra": 1},
                                     {"signal": "SIGKILL"}])  # fmt: skip
def test_malformed_payloads_are_located_errors(app: Flask, payload: dict[str, Any]) -> None:
    client, _ = joined(app)
    got = typed(client, payload)
    assert [e["code"] for e in got["error"]] and "terminal:output" not in got
    assert all(e["code"] != "internal_error" for e in got["error"])


def test_a_tab_that_joined_nothing_is_refused(app: Flask) -> None:
    client = socketio_of(app).test_client(app)
    client.get_received()
    [error] = typed(client, {"line": "kubectl get pods"})["error"]
    assert error["code"] == "no_session"


def test_a_thousand_lines_a_second_hit_the_rate_limit_not_the_server(app: Flask) -> None:
    client, _ = joined(app)
    answers = errors = 0
    for _ in range(1000):
        got = typed(client, {"line": "kubectl version --client"})
        answers += len(got.get("terminal:output", []))
        errors += sum(e["code"] == "rate_limited" for e in got.get("error", []))
    assert errors > 900 and answers + errors == 1000


def test_a_delete_typed_is_the_sessions_action(app: Flask) -> None:
    client, session = joined(app)
    name = session.sim.pod()["metadata"]["name"]
    [out] = typed(client, {"line": f"kubectl delete pod {name} --grace-period=7"})[
        "terminal:output"
    ]
    assert out["stdout"] == f'pod "{name}" deleted from default namespace\n'
    assert (
        session.actions[-1]["action"] == "delete"
        and session.actions[-1].get("gracePeriodSeconds", 7) == 7
    )


def test_the_line_limit_is_the_documented_one() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text(encoding="utf-8")
    assert f"{terminal.MAX_LINE_BYTES // 1024} KiB" in text and "terminal_line_too_long" in text
