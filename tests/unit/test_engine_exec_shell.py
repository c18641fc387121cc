"""The `exec` action's `shell` (kubectl exec -it, webapp/engine/programs/machine.py `exec`):
each line typed into an interactive shell is one `exec` of `SHELL -c LINE` that starts in
the shell's state (working directory, variables, exported names, `$?`) and answers with the
state after it, so `cd`, `export` and `$?` carry from one line to the next; `exit` says the
shell ended; the state is checked (bounded) like every action field, and the line is an
action like any other (its effect on the container, its replay)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp.engine import ActionError, Simulation
from webapp.engine.actions import EXEC_SHELL_STATE_BYTES

LIVENESS = (Path(__file__).resolve().parents[2] / "scenarios" / "liveness-exec.yaml").read_text()
KEPT = ("workingDir", "variables", "exported", "status")


def opened(sim: Simulation) -> dict:
    answer = sim.act({"action": "exec", "command": ["sh"], "shell": {}})
    assert answer["exitCode"] == 0 and answer["error"] == ""
    return {k: answer["shell"][k] for k in KEPT}


def typed(sim: Simulation, state: dict, line: str) -> tuple[dict, dict]:
    answer = sim.act({"action": "exec", "command": ["sh", "-c", line], "shell": state})
    return answer, {k: answer["shell"][k] for k in KEPT}


def test_the_shell_opens_in_the_containers_directory_and_environment() -> None:
    sim = Simulation.from_yaml(LIVENESS)
    sim.advance(10)
    state = opened(sim)
    assert state["workingDir"] == "/" and state["status"] == 0
    assert state["variables"]["HOSTNAME"] == "liveness-exec" and "PATH" in state["exported"]


def test_cd_export_and_status_carry_from_line_to_line() -> None:
    sim = Simulation.from_yaml(LIVENESS)
    sim.advance(10)
    state = opened(sim)
    for line in ("cd /tmp", "export GREETING=hi; LOCAL=1", "false"):
        answer, state = typed(sim, state, line)
    assert (answer["exitCode"], state["workingDir"], state["status"]) == (1, "/tmp", 1)
    answer, state = typed(sim, state, "echo $? $GREETING $LOCAL; pwd; ls")
    assert answer["stdout"] == "1 hi 1\n/tmp\nhealthy\n"
    answer, state = typed(sim, state, "env")  # only exported ones are the environment
    assert "GREETING=hi\n" in answer["stdout"] and "LOCAL" not in answer["stdout"]


def test_exit_ends_the_shell_and_a_failing_command_does_not() -> None:
    sim = Simulation.from_yaml(LIVENESS)
    sim.advance(10)
    state = opened(sim)
    answer, _ = typed(sim, state, "cat /nope")
    assert answer["exitCode"] == 1 and answer["shell"]["exited"] is False
    answer, _ = typed(sim, state, "exit 3")
    assert answer["exitCode"] == 3 and answer["shell"]["exited"] is True
    answer, _ = typed(sim, state, "(exit 4); echo $?")  # a subshell's exit is its own
    assert answer["stdout"] == "4\n" and answer["shell"]["exited"] is False


def test_a_relative_rm_in_the_shell_makes_the_liveness_probe_fail_and_replays() -> None:
    sim = Simulation.from_yaml(LIVENESS)
    sim.advance(10)
    state = opened(sim)
    _, state = typed(sim, state, "cd /tmp")
    answer, state = typed(sim, state, "rm healthy")
    assert answer["exitCode"] == 0
    sim.advance(20)
    assert any(e["reason"] == "Unhealthy" for e in sim.events())
    said = [t["cause"] for t in sim.transitions if t["field"] == "exec"]
    assert said == ["kubectl exec -it liveness-exec -c liveness -- sh: opened",
                    "kubectl exec -it liveness-exec -c liveness -- sh: cd /tmp: exited with 0",
                    "kubectl exec -it liveness-exec -c liveness -- sh: rm healthy: exited with 0"]  # fmt: skip
    again = Simulation.from_yaml(LIVENESS)
    for action in sim.actions:  # the recorded lines, replayed, give the same run
        again.advance(action["at"] - again.now)
        again.act({k: v for k, v in action.items() if k != "at"})
    again.advance(sim.now - again.now)
    assert again.events() == sim.events()


def test_a_missing_shell_is_the_runtimes_error() -> None:
    sim = Simulation.from_yaml(LIVENESS)
    sim.advance(10)
    answer = sim.act({"action": "exec", "command": ["bash"], "shell": {}})
    assert answer["exitCode"] == 126
    assert answer["error"].endswith('exec: "bash": executable file not found in $PATH: unknown')


@pytest.mark.parametrize(
    "shell",
    [
        [],
        {"cwd": "/"},
        {"workingDir": "tmp"},
        {"variables": {"1x": "a"}},
        {"variables": {"A": "\0"}},
        {"variables": {"A": "x" * EXEC_SHELL_STATE_BYTES}},
        {"variables": {"A": "1"}, "exported": ["B"]},
        {"status": 256},
        {"status": True},
    ],
)
def test_a_bad_shell_state_is_refused_and_changes_nothing(shell: object) -> None:
    sim = Simulation.from_yaml(LIVENESS)
    sim.advance(10)
    before = len(sim.transitions)
    with pytest.raises(ActionError) as caught:
        sim.act({"action": "exec", "command": ["sh", "-c", "rm /tmp/healthy"], "shell": shell})
    assert caught.value.code == "bad_shell_state"
    assert len(sim.transitions) == before
    assert sim.act({"action": "exec", "command": ["ls", "/tmp"]})["stdout"] == "healthy\n"
