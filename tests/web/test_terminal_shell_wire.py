"""`kubectl exec -it POD -- sh` over the terminal's wire (webapp/realtime/terminal.py,
webapp/terminal/shell.py): the open answers with `exitCode: null` and the shell's `prompt`,
each line the tab sends goes to the shell and is answered with its output and the next
prompt, `exit N` / Ctrl+D (`signal: EOF`) end it as kubectl ends it, and its container
stopping ends it with 137. A real Socket.IO test client drives it; the bounds (shells per
session and per client, idle time) hold, and other tabs are unaffected."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from webapp import create_app, socketio_of
from webapp.realtime import realtime_of
from webapp.realtime import terminal as realtime_terminal

NGINX = POD  # one nginx Pod, `web`, container `app`


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
                      "SESSION_SCHEDULER": False})  # fmt: skip
    for sid, entry in list(realtime_terminal._shells.items()):  # the test's tabs never left
        realtime_terminal._close(sid, entry)


def received(client: SocketIOTestClient) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for message in client.get_received():
        found.setdefault(message["name"], []).append(message["args"][0])
    return found


def tab(app: Flask, lang: str = "en", **join: Any) -> tuple[SocketIOTestClient, Any]:
    client = socketio_of(app).test_client(app)
    client.emit("join", {"lang": lang, **(join or {"scenario": "liveness-exec"})})
    (snapshot,) = received(client)["snapshot"]
    session = realtime_of(app).manager.get(snapshot["session"])
    client.emit("clock", {"op": "seek", "value": 10})
    client.get_received()
    return client, session


def typed(client: SocketIOTestClient, payload: dict[str, Any]) -> list[dict[str, Any]]:
    client.emit("terminal", payload)
    return received(client).get("terminal:output", [])


def line(client: SocketIOTestClient, text: str) -> dict[str, Any]:
    [out] = typed(client, {"line": text})
    return out


def test_a_shell_opens_with_its_prompt_and_keeps_its_directory(app: Flask) -> None:
    client, session = tab(app)
    assert line(client, "kubectl exec -it liveness-exec -- sh") == {
        "line": "kubectl exec -it liveness-exec -- sh", "stdout": "", "stderr": "",
        "exitCode": None, "prompt": "/ # "}  # fmt: skip
    assert line(client, "ls /tmp") == {"line": "ls /tmp", "stdout": "healthy\n", "stderr": "",
                                       "exitCode": None, "prompt": "/ # "}  # fmt: skip
    assert line(client, "cd /tmp")["prompt"] == "/tmp # "
    assert line(client, "pwd")["stdout"] == "/tmp\n"
    assert line(client, "rm healthy")["exitCode"] is None
    assert line(client, "cd")["prompt"] == "~ # "  # $HOME is /root: \w shows it as ~
    assert line(client, "exit") == {"line": "exit", "stdout": "", "stderr": "", "exitCode": 0}
    # each line was the engine's exec, in the timeline; the file is gone for the probe too
    lines = [a for a in session.actions if a["action"] == "exec"]
    assert [a["command"] for a in lines][:2] == [["sh"], ["sh", "-c", "ls /tmp"]]
    assert line(client, "kubectl exec liveness-exec -- ls /tmp")["stdout"] == ""


@pytest.mark.parametrize(
    "opening",
    ["kubectl exec -it liveness-exec -- /bin/sh", "kubectl exec -i -t liveness-exec -c liveness -- ash",
     "kubectl exec --stdin --tty liveness-exec -- sh"],
)  # fmt: skip
def test_the_forms_of_exec_it_open_the_shell(app: Flask, opening: str) -> None:
    client, _ = tab(app)
    assert line(client, opening)["prompt"] == "/ # "
    out = line(client, "echo $HOSTNAME")
    assert (out["stdout"], out["prompt"]) == ("liveness-exec\n", "/ # ")


def test_exit_n_and_ctrl_d_end_it_as_kubectl_does(app: Flask) -> None:
    client, _ = tab(app)
    line(client, "kubectl exec -it liveness-exec -- sh")
    assert line(client, "exit 3") == {"line": "exit 3", "stdout": "",
                                      "stderr": "command terminated with exit code 3\n", "exitCode": 3}  # fmt: skip
    assert "prompt" not in line(client, "kubectl get pods -o name")  # kubectl's again
    line(client, "kubectl exec -it liveness-exec -- sh")
    line(client, "cat /nope")
    [out] = typed(client, {"signal": "EOF"})  # Ctrl+D: the shell exits with $?
    assert (out["stderr"], out["exitCode"]) == ("command terminated with exit code 1\n", 1)


def test_ctrl_c_at_the_prompt_keeps_the_shell(app: Flask) -> None:
    client, _ = tab(app)
    line(client, "kubectl exec -it liveness-exec -- sh")
    assert typed(client, {"signal": "SIGINT"}) == []
    assert line(client, "echo still")["stdout"] == "still\n"


def test_bash_prints_debians_prompt_and_a_missing_shell_is_the_runtimes_error(app: Flask) -> None:
    client, _ = tab(app, yaml=NGINX)
    assert line(client, "kubectl exec -it web -- bash")["prompt"] == "root@web:/# "
    out = line(client, "exit")
    assert (out["stderr"], out["exitCode"]) == ("exit\n", 0)  # bash says exit
    assert line(client, "kubectl exec -it web -- sh")["prompt"] == "# "  # dash
    line(client, "exit")
    other, _ = tab(app)
    out = line(other, "kubectl exec -it liveness-exec -- bash")
    assert out["exitCode"] == 126 and "prompt" not in out
    assert out["stderr"].endswith(
        'exec: "bash": executable file not found in $PATH: unknown\ncommand terminated with exit code 126\n'
    )


def test_the_container_restarting_ends_the_shell_with_137(app: Flask) -> None:
    client, _ = tab(app)
    line(client, "kubectl exec -it liveness-exec -- sh")
    line(client, "rm /tmp/healthy")
    client.emit("clock", {"op": "seek", "value": 60})  # three failed probes: killed, restarted
    client.get_received()
    out = line(client, "ls /tmp")
    assert (out["stderr"], out["exitCode"]) == ("command terminated with exit code 137\n", 137)
    assert "prompt" not in out


def test_the_look_ends_a_shell_whose_container_stopped_without_a_line(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(realtime_terminal, "SHELL_LOOK_SECONDS", 0.05)
    client, _ = tab(app)
    line(client, "kubectl exec -it liveness-exec -- sh")
    client.emit("act", {"action": "delete", "gracePeriodSeconds": 0, "force": True})
    client.get_received()
    deadline = time.monotonic() + 10
    found: list[dict[str, Any]] = []
    while not found and time.monotonic() < deadline:
        found = received(client).get("terminal:output", [])
        time.sleep(0.05)
    assert found == [{"line": "", "stdout": "", "stderr": "command terminated with exit code 137\n",
                      "exitCode": 137}]  # fmt: skip


def test_an_idle_shell_closes(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(realtime_terminal, "SHELL_LOOK_SECONDS", 0.05)
    monkeypatch.setattr(realtime_terminal, "SHELL_IDLE_SECONDS", 0.2)
    client, _ = tab(app, lang="zh")
    line(client, "kubectl exec -it liveness-exec -- sh")
    deadline = time.monotonic() + 10
    found: list[dict[str, Any]] = []
    while not found and time.monotonic() < deadline:
        found = received(client).get("terminal:output", [])
        time.sleep(0.05)
    assert [(o["stderr"], o["exitCode"]) for o in found] == [
        ("（此终端的 shell 在 0 分钟没有输入后被关闭）\n", 1)
    ]


def test_a_line_past_the_limit_is_refused_and_the_shell_stays(app: Flask) -> None:
    client, _ = tab(app)
    line(client, "kubectl exec -it liveness-exec -- sh")
    client.emit("terminal", {"line": "echo " + "x" * 20_000})
    [error] = received(client)["error"]
    assert error["code"] == "terminal_line_too_long"
    assert line(client, "echo ok")["stdout"] == "ok\n"  # the shell is still open


def test_fifty_shells_the_bounds_hold_and_other_tabs_are_unaffected(app: Flask) -> None:
    first, session = tab(app)
    tabs = [first]
    opened = refused = 0
    for i in range(50):
        client = tabs[0] if i == 0 else socketio_of(app).test_client(app)
        if i:
            client.emit("join", {"session": session.id, "lang": "zh" if i % 2 else "en"})
            client.get_received()
            tabs.append(client)
        out = line(client, "kubectl exec -it liveness-exec -- sh")
        if "prompt" in out:
            opened += 1
        else:
            refused += 1
            assert out["exitCode"] == 1 and out["stdout"] == ""
            assert out["stderr"] in (
                "error: this session already has 10 shells open (this terminal's limit); exit one of them first\n",
                "error: 这个会话已经打开了 10 个 shell（此终端的上限）；请先退出其中一个\n",
            )
    assert (opened, refused) == (realtime_terminal.MAX_SHELLS_PER_SESSION, 40)
    # the refused opened nothing: no exec in the timeline for them
    assert sum(a["command"] == ["sh"] for a in session.actions if a["action"] == "exec") == 10
    # the open ones go on; a refused tab's kubectl works; one exits, and a place is free
    assert line(tabs[0], "echo one")["stdout"] == "one\n"
    assert line(tabs[20], "kubectl get pods -o name")["stdout"] == "pod/liveness-exec\n"
    line(tabs[0], "exit")
    assert line(tabs[20], "kubectl exec -it liveness-exec -- sh")["prompt"] == "/ # "
    # the client's bound: with a second session's ten, this address has 20 open
    second, other = tab(app)
    for i in range(10):
        client = second if i == 0 else socketio_of(app).test_client(app)
        if i:
            client.emit("join", {"session": other.id})
            client.get_received()
        assert line(client, "kubectl exec -it liveness-exec -- sh")["prompt"] == "/ # "
    third, _ = tab(app)
    out = line(third, "kubectl exec -it liveness-exec -- sh")
    assert (out["stderr"], out["exitCode"]) == (
        "error: your address already has 20 shells open (this terminal's limit); exit one of them first\n",
        1,
    )
    assert line(tabs[1], "echo two")["stdout"] == "two\n"


def test_a_tab_that_leaves_closes_its_shell(app: Flask) -> None:
    client, _ = tab(app)
    line(client, "kubectl exec -it liveness-exec -- sh")
    assert len(realtime_terminal._shells) == 1
    client.disconnect()
    assert realtime_terminal._shells == {}
