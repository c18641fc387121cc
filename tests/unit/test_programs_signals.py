"""PID 1 and signals, stop signals, per-start state, logs and termination messages of the
process model (CONTAINER-SEMANTICS §1, §2, §6)."""

from __future__ import annotations

import copy

import pytest

from tests.unit.programs_support import FakeWorld, lines, run_until, sh, start
from webapp.engine.programs import new_store


def stop(process, world, at_ms: int, signal: str = "SIGTERM", grace_ms: int = 30_000) -> int | None:
    """Send ``signal`` at ``at_ms`` and run the grace period; the exit time or None."""
    run_until(process, world, at_ms)
    process.signal(at_ms, signal, world)
    run_until(process, world, at_ms + grace_ms)
    return process.exit_ms


# CONTAINER-SEMANTICS §1.2: every row ignores SIGTERM as PID 1 and dies only by SIGKILL.
@pytest.mark.parametrize(
    ("image", "command"),
    [
        ("busybox:1.36", ["sh", "-c", "sleep 100"]),
        ("busybox:1.36", ["sh", "-c", "echo hi; sleep 100"]),
        ("busybox:1.36", ["sh", "-c", "while true; do sleep 1; done"]),
        ("debian:12", ["bash", "-c", "echo hi; sleep 100"]),
        ("debian:12", ["sh", "-c", "sleep 100"]),
        ("busybox:1.36", ["sleep", "100"]),
        ("busybox:1.36", ["sleep", "infinity"]),
        ("python:3.12", ["python3", "-m", "http.server"]),
        ("node:20", ["node", "server.js"]),
        ("polinux/stress", ["stress", "--cpu", "1"]),
    ],
)
def test_pid1_without_a_handler_ignores_sigterm(image: str, command: list[str]) -> None:
    process, world = start({"name": "c", "image": image, "command": command})
    assert stop(process, world, 1_000) is None
    assert process.running
    process.kill(31_000)
    assert (process.exit_code, process.exit_ms) == (137, 31_000)


def test_busybox_and_bash_exec_their_last_command_dash_does_not() -> None:
    busybox, _ = sh("echo hi; sleep 100")
    assert (busybox.threads[1].kind, busybox.threads[1].name) == ("program", "sleep")
    bash, _ = start(
        {"name": "c", "image": "debian:12", "command": ["bash", "-c", "echo hi; sleep 100"]}
    )
    assert bash.threads[1].kind == "program"
    dash, _ = sh("echo hi; sleep 100", image="debian:12")
    assert dash.threads[1].kind == "shell"
    trapped, _ = sh("trap 'exit 0' TERM; sleep 100")
    assert trapped.threads[1].kind == "shell"  # with a trap set, busybox forks


def test_trap_runs_after_the_foreground_sleep() -> None:
    process, world = sh("trap 'echo bye; exit 0' TERM; sleep 5")
    assert stop(process, world, 500) == 5_000
    assert (process.exit_code, lines(process)) == (0, ["bye"])


def test_trap_in_a_sleep_loop_exits_at_the_end_of_the_current_sleep() -> None:
    process, world = sh("trap 'exit 0' TERM; while true; do sleep 1; done")
    assert stop(process, world, 2_500) == 3_000
    assert process.exit_code == 0


def test_trap_interrupts_wait_at_once() -> None:
    process, world = sh("trap 'exit 0' TERM; sleep 100 & wait")
    assert stop(process, world, 2_500) == 2_500
    assert process.exit_code == 0


def test_trap_that_does_not_exit_lets_the_script_end() -> None:
    process, world = sh("trap 'echo bye' TERM; sleep 5")
    assert stop(process, world, 1_000) == 5_000
    assert (process.exit_code, lines(process)) == (0, ["bye"])


def test_trap_longer_than_the_grace_period_ends_in_sigkill() -> None:
    process, world = sh("trap 'echo draining; sleep 60; exit 0' TERM; sleep 3600 & wait")
    assert stop(process, world, 1_000, grace_ms=30_000) is None
    process.kill(31_000)
    assert process.exit_code == 137


def test_trap_int_and_exit() -> None:
    process, world = sh("trap 'echo cleanup' EXIT; trap 'exit 3' INT; sleep 100 & wait")
    assert stop(process, world, 1_000, "SIGINT") == 1_000
    assert (process.exit_code, lines(process)) == (3, ["cleanup"])


def test_exit_trap_runs_on_a_normal_end() -> None:
    process, _ = sh("trap 'echo bye' EXIT; echo hi")
    assert (lines(process), process.exit_code) == (["hi", "bye"], 0)


def test_sigkill_runs_no_trap() -> None:
    process, _world = sh("trap 'echo bye' EXIT TERM; sleep 100")
    process.kill(2_000)
    assert (process.exit_code, lines(process)) == (137, [])


def test_exec_hands_pid1_to_a_program_that_handles_the_signal() -> None:
    process, world = start(
        {
            "name": "c",
            "image": "nginx:1.27",
            "command": ["sh", "-c", "echo starting; exec nginx -g 'daemon off;'"],
        }
    )
    assert stop(process, world, 1_000, "SIGQUIT") == 1_000
    assert process.exit_code == 0


def test_dash_keeps_pid1_so_nginx_never_sees_sigterm() -> None:
    process, world = start(
        {"name": "c", "image": "nginx:1.27", "command": ["sh", "-c", "nginx -g 'daemon off;'"]}
    )
    assert stop(process, world, 1_000, "SIGQUIT") is None  # dash is PID 1, nginx is its child


def test_go_program_without_handler_exits_2_as_pid1() -> None:
    process, world = start(
        {"name": "c", "image": "registry.k8s.io/e2e-test-images/agnhost:2.40", "args": ["liveness"]}
    )
    assert stop(process, world, 1_000) == 1_000
    assert process.exit_code == 2


@pytest.mark.parametrize(
    ("image", "signal", "code", "last_line"),
    [
        ("nginx:1.27", "SIGQUIT", 0, "[notice] 1#1: exit"),
        ("nginx:1.27", "SIGTERM", 0, "[notice] 1#1: exit"),
        ("redis:7.2", "SIGTERM", 0, "# Redis is now ready to exit, bye bye..."),
        ("registry.k8s.io/pause:3.9", "SIGTERM", 0, "Shutting down, got signal: Terminated"),
        ("httpd:2.4", "SIGWINCH", 0, "AH00492: caught SIGWINCH, shutting down gracefully"),
        ("registry.k8s.io/e2e-test-images/agnhost:2.40", "SIGTERM", 2, "exiting 2"),
    ],
)
def test_programs_that_handle_their_stop_signal(
    image: str, signal: str, code: int, last_line: str
) -> None:
    process, world = start({"name": "c", "image": image})
    assert stop(process, world, 2_000, signal) == 2_000
    assert process.exit_code == code
    assert lines(process)[-1].endswith(last_line)


def test_postgres_fast_shutdown_on_sigint() -> None:
    process, world = start(
        {"name": "db", "image": "postgres:16", "env": [{"name": "POSTGRES_PASSWORD", "value": "x"}]}
    )
    assert 5432 in process.listeners
    assert stop(process, world, 2_000, "SIGINT") == 2_000
    assert process.exit_code == 0
    assert lines(process)[-1].endswith("LOG:  database system is shut down")


def test_serve_hostname_sleeps_60s_after_sigterm() -> None:
    process, world = start({"name": "c", "image": "registry.k8s.io/e2e-test-images/agnhost:2.40",
                            "args": ["serve-hostname"]})  # fmt: skip
    assert stop(process, world, 1_000, grace_ms=30_000) is None
    assert not process.listeners  # it stops serving at once
    process.kill(31_000)
    assert process.exit_code == 137


def test_signal_to_a_background_job_uses_the_default_action() -> None:
    process, world = sh(
        "python3 -m http.server 8000 & wait $!; echo status $?", image="python:3.12"
    )
    job = process.threads[1].jobs[0]
    process.exec(1_000, ["kill", str(job)], 1_000, world)
    run_until(process, world, 1_000)
    assert lines(process) == ["status 143"]


def test_kill_from_an_exec_session_reaches_pid1() -> None:
    process, world = start({"name": "web", "image": "nginx:1.27"})
    result = process.exec(
        5_000,
        ["/bin/sh", "-c", "nginx -s quit; while killall -0 nginx; do sleep 1; done"],
        None,
        world,
    )
    # nginx (PID 1) exits 0 on SIGQUIT; the kernel then kills the exec'd shell: 137
    assert (process.exit_code, process.exit_ms) == (0, 5_000)
    assert result.exit_code == 137
    assert result.stderr.endswith("[notice] 7#7: signal process started\n")


# -- each start is a new process ----------------------------------------------------------


def test_files_do_not_survive_a_restart_but_empty_dir_does() -> None:
    store = new_store()
    mounts = (("/cache", store, False, ""),)
    first, _world = sh("echo 1 > /tmp/own; echo 1 >> /cache/count", mounts=mounts)
    assert first.exit_code == 0
    second, _ = sh("cat /tmp/own; echo 2 >> /cache/count; cat /cache/count", mounts=mounts)
    assert lines(second) == ["cat: can't open '/tmp/own': No such file or directory", "1", "2"]


def test_timers_restart_with_the_process() -> None:
    first, world = sh("sleep 30; exit 1")
    run_until(first, world, 30_000)
    second, _ = sh("sleep 30; exit 1", now=40_000)
    assert second.next_wake() == 70_000


def test_read_only_mounts() -> None:
    config = new_store({"app.conf": "x=1\n"})
    process, _ = sh(
        "cat /etc/app/app.conf; echo y > /etc/app/app.conf",
        mounts=(("/etc/app", config, True, ""),),
    )
    assert lines(process) == ["x=1", "sh: can't create /etc/app/app.conf: Read-only file system"]


def test_sub_path_mount_of_one_file() -> None:
    config = new_store({"nginx.conf": "events {}\n", "other": "x"})
    process, _ = sh(
        "cat /etc/nginx/nginx.conf; ls /etc/nginx",
        mounts=(("/etc/nginx/nginx.conf", config, True, "nginx.conf"),),
    )
    assert lines(process)[0] == "events {}"


# -- logs and termination messages -----------------------------------------------------


def test_log_lines_carry_virtual_timestamps_and_streams() -> None:
    process, world = sh("echo a; sleep 2.5; echo b >&2; echo -n partial")
    run_until(process, world, 2_500)
    assert process.log_lines() == [
        [0, "stdout", "a"],
        [2_500, "stderr", "b"],
        [2_500, "stdout", "partial"],
    ]


def test_termination_message_from_the_file() -> None:
    process, world = start({"name": "c", "image": "debian:12", "command": ["/bin/sh"],
                            "args": ["-c", "sleep 10 && echo Sleep expired > /dev/termination-log"]})  # fmt: skip
    run_until(process, world, 10_000)
    assert process.exit_code == 0
    assert process.termination_message("/dev/termination-log", "File") == "Sleep expired\n"


def test_termination_message_falls_back_to_logs_only_on_error() -> None:
    failed, _ = sh("echo one; echo fatal: boom >&2; exit 3")
    assert (
        failed.termination_message("/dev/termination-log", "FallbackToLogsOnError")
        == "one\nfatal: boom\n"
    )
    assert failed.termination_message("/dev/termination-log", "File") == ""
    ok, _ = sh("echo fine")
    assert ok.termination_message("/dev/termination-log", "FallbackToLogsOnError") == ""
    written, _ = sh("echo from-file > /dev/termination-log; echo log; exit 1")
    assert (
        written.termination_message("/dev/termination-log", "FallbackToLogsOnError")
        == "from-file\n"
    )


def test_termination_message_limits() -> None:
    big, _ = sh(
        "i=0; while [ $i -lt 100 ]; do echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; i=$((i+1)); done; exit 1"
    )
    run_until(big, FakeWorld(), 10_000)
    message = big.termination_message("/dev/termination-log", "FallbackToLogsOnError")
    assert len(message.encode()) == 2048  # the last 2048 bytes of the last 80 lines
    assert message.endswith("\n") and message.splitlines()[-1].startswith("line-99-")
    lines80, _ = sh("i=0; while [ $i -lt 100 ]; do echo $i; i=$((i+1)); done; exit 1")
    text = lines80.termination_message("/dev/termination-log", "FallbackToLogsOnError")
    assert text.splitlines() == [str(i) for i in range(20, 100)]  # the last 80 lines
    file_cap, _ = sh(
        "i=0; while [ $i -lt 600 ]; do echo 0123456789 >> /dev/termination-log; i=$((i+1)); done"
    )
    run_until(file_cap, FakeWorld(), 10_000)
    assert len(file_cap.termination_message("/dev/termination-log", "File").encode()) == 4096


def test_custom_termination_message_path() -> None:
    process, _ = sh("echo custom > /tmp/msg; exit 1")
    assert process.termination_message("/tmp/msg", "File") == "custom\n"


# -- state is plain data ------------------------------------------------------------------


def test_a_copy_runs_on_independently_and_identically() -> None:
    process, world = sh("i=0; while true; do i=$((i+1)); echo $i; sleep 1; done")
    run_until(process, world, 3_000)
    twin = copy.deepcopy(process)
    run_until(process, world, 10_000)
    run_until(twin, world, 10_000)
    assert process.log_lines() == twin.log_lines()
    assert twin.threads[1].frames is not process.threads[1].frames
