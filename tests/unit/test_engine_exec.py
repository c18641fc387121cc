"""The `exec` action: `kubectl exec POD [-c CONTAINER] -- COMMAND` run in the container's
process model (webapp/engine/actions.py `_exec`, kubelet/processes.py `user_exec`).

The command sees that container instance's files and processes; what it changes is
changed for the container (remove the file an exec liveness probe reads and the probe
fails, as on a cluster); it is an action like any other (recorded, replayed event for
event, refused without changing anything when it cannot run); its command line, its run
and its output are bounded (docs/limits.md).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from webapp.engine import ActionError, Simulation
from webapp.engine.actions import EXEC_MAX_BYTES, EXEC_OUTPUT_BYTES

ROOT = Path(__file__).resolve().parents[2]
LIVENESS = (ROOT / "scenarios" / "liveness-exec.yaml").read_text()
CRASH_LOOP = (ROOT / "scenarios" / "crash-loop-backoff.yaml").read_text()
ROLLING = (ROOT / "scenarios" / "workloads" / "rolling-update.yaml").read_text()
TWO_CONTAINERS = """
apiVersion: v1
kind: Pod
metadata:
  name: two
  annotations:
    kubectl.kubernetes.io/default-container: second
spec:
  containers:
  - name: first
    image: busybox:1.36
    command: ["sh", "-c", "echo one > /tmp/who; sleep 3600"]
  - name: second
    image: busybox:1.36
    command: ["sh", "-c", "echo two > /tmp/who; sleep 3600"]
"""


def at(yaml: str, seconds: float) -> Simulation:
    sim = Simulation.from_yaml(yaml)
    sim.advance(seconds)
    return sim


def run(sim: Simulation, *command: str, **fields: str) -> dict:
    answer = sim.act({"action": "exec", "command": list(command), **fields})
    assert answer is not None
    return answer


def unhealthy(sim: Simulation) -> list[float]:
    return [e["count"] for e in sim.events() if e["reason"] == "Unhealthy"]


def test_the_command_sees_the_containers_files_and_processes() -> None:
    sim = at(LIVENESS, 10)
    assert run(sim, "ls", "/tmp")["stdout"] == "healthy\n"
    listing = run(sim, "ps")["stdout"].splitlines()
    assert listing[0] == "PID   USER     TIME  COMMAND"
    assert listing[1].split() == ["1", "root", "0:00", "sh"]
    answer = run(sim, "sh", "-c", "echo hi; echo oops >&2; exit 3")
    assert (answer["stdout"], answer["stderr"], answer["exitCode"]) == ("hi\n", "oops\n", 3)
    assert answer["container"] == "liveness" and answer["pod"] == "liveness-exec"


def test_removing_the_probed_file_fails_the_liveness_probe_and_restarts_the_container() -> None:
    """The docs' liveness-exec: on its own the probe first fails after 30 s; remove
    /tmp/healthy at 10 s and it fails from the next probe on, three times, then the
    kubelet kills and restarts the container."""
    untouched = at(LIVENESS, 30)
    assert unhealthy(untouched) == []
    sim = at(LIVENESS, 10)
    assert run(sim, "rm", "/tmp/healthy")["exitCode"] == 0
    sim.advance(20)
    failures = [e for e in sim.events() if e["reason"] == "Unhealthy"]
    assert failures and failures[0]["message"] == (
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"
    )
    assert failures[0]["firstTimestamp"] == "2026-01-01T00:00:15Z"  # the next probe
    assert any(
        e["reason"] == "Killing"
        and e["message"] == "Container liveness failed liveness probe, will be restarted"
        for e in sim.events()
    )
    while sim.pod()["status"]["containerStatuses"][0]["restartCount"] == 0:
        assert sim.now < 300
        sim.advance(1)
    # The new instance makes the file again: the exec sees the new container's files.
    sim.advance(1)
    assert run(sim, "ls", "/tmp")["stdout"] == "healthy\n"


def test_kill_1_is_ignored_by_a_shell_as_pid_1_without_a_handler() -> None:
    """A signal without a handler is ignored by PID 1 of a PID namespace (the kernel's
    rule): `kill 1` in the busybox shell changes nothing; `kill -9 1` from inside too."""
    sim = at(LIVENESS, 10)
    assert run(sim, "kill", "1")["exitCode"] == 0
    sim.advance(5)
    status = sim.pod()["status"]["containerStatuses"][0]
    assert "running" in status["state"] and status["restartCount"] == 0


def test_a_command_the_image_does_not_have_is_the_runtimes_error() -> None:
    answer = run(at(LIVENESS, 10), "nosuch", "--flag")
    assert answer["exitCode"] == 126 and answer["stdout"] == ""
    assert answer["error"].startswith(
        "rpc error: code = Unknown desc = failed to exec in container: failed to start exec "
    )
    assert answer["error"].endswith(
        "OCI runtime exec failed: exec failed: unable to start container process: exec: "
        '"nosuch": executable file not found in $PATH: unknown'
    )


def test_without_a_container_the_default_container_annotation_then_the_first() -> None:
    sim = at(TWO_CONTAINERS, 10)
    assert run(sim, "cat", "/tmp/who")["stdout"] == "two\n"  # the annotation's
    assert run(sim, "cat", "/tmp/who", container="first")["stdout"] == "one\n"
    plain = TWO_CONTAINERS.replace("kubectl.kubernetes.io/default-container: second", "x: y")
    assert run(at(plain, 10), "cat", "/tmp/who")["stdout"] == "one\n"


def trace(sim: Simulation) -> list:
    return copy.deepcopy([sim.transitions, sim.events(), sim.pod()])


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"command": []}, "bad_command"),
        ({"command": "ls /tmp"}, "bad_command"),
        ({"command": ["ls", 3]}, "bad_command"),
        ({"command": ["echo", "a\0b"]}, "bad_command"),
        ({"command": ["x" * (1 << 20)]}, "command_too_long"),
        ({"command": ["echo"] * 2000}, "command_too_long"),
        ({"command": ["ls"], "pod": "other"}, "unknown_object"),
        ({"command": ["ls"], "container": "nope"}, "unknown_container"),
        ({"command": ["ls"], "stdin": True}, "unknown_field"),
    ],
)
def test_a_refused_exec_says_why_and_changes_nothing(action: dict, code: str) -> None:
    sim = at(LIVENESS, 10)
    before = trace(sim)
    with pytest.raises(ActionError) as refused:
        sim.act({"action": "exec", **action})
    assert refused.value.code == code
    assert trace(sim) == before and sim.actions == []


def test_a_megabyte_command_line_is_refused_with_its_size() -> None:
    with pytest.raises(ActionError) as refused:
        at(LIVENESS, 10).act({"action": "exec", "command": ["echo", "y" * (1 << 20)]})
    assert refused.value.params["bytes"] > EXEC_MAX_BYTES
    assert f"at most 1024 arguments and {EXEC_MAX_BYTES} bytes" in refused.value.message


def test_a_container_that_is_not_running_is_refused() -> None:
    sim = at(CRASH_LOOP, 0)
    before = trace(sim)
    with pytest.raises(ActionError) as refused:
        sim.act({"action": "exec", "command": ["ls"]})
    assert refused.value.code == "container_not_running"
    assert trace(sim) == before


def test_a_command_that_never_ends_is_stopped_and_output_is_bounded() -> None:
    sim = at(LIVENESS, 10)
    endless = run(sim, "sleep", "infinity")
    assert endless["exitCode"] is None and endless["timedOut"]
    big = run(sim, "seq", "1", "100000")
    assert len(big["stdout"]) == EXEC_OUTPUT_BYTES and big["truncated"]
    assert big["stdout"].startswith("1\n2\n3\n")  # the first of it, as a terminal shows it


def test_an_exec_is_recorded_and_replays_event_for_event() -> None:
    live = at(LIVENESS, 10)
    run(live, "rm", "/tmp/healthy")
    live.advance(40)
    assert [(a["at"], a["action"]) for a in live.actions] == [(10.0, "exec")]
    again = Simulation.replay(Simulation.from_yaml(LIVENESS).scenario, live.actions, until=50)
    assert again.transitions == live.transitions
    assert again.events() == live.events()
    step = next(t for t in live.transitions if t["field"] == "exec")
    assert (
        step["cause"] == "kubectl exec liveness-exec -c liveness -- rm /tmp/healthy: exited with 0"
    )


def test_exec_into_any_pod_of_a_workload() -> None:
    sim = at(ROLLING, 20)
    pods = [p["metadata"]["name"] for p in sim.objects("Pod")]
    second = pods[1]
    answer = sim.act({"action": "exec", "pod": second, "command": ["hostname"]})
    assert answer is not None and answer["stdout"] == f"{second}\n"
    assert answer["pod"] == second
    with pytest.raises(ActionError) as refused:
        sim.act({"action": "exec", "pod": "web-nope", "command": ["ls"]})
    assert refused.value.message == 'pods "web-nope" not found'
