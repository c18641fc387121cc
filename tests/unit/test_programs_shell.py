"""The shell idioms of issue 8, one by one, run in virtual time by the process model."""

from __future__ import annotations

import pytest

from tests.unit.programs_support import (
    FakeWorld,
    lines,
    run_until,
    service_account_mount,
    sh,
    start,
)
from webapp.engine.programs import Answer


def test_sequence_and_or() -> None:
    process, _ = sh("echo a; false && echo b || echo c; true || echo d")
    assert lines(process) == ["a", "c"]
    assert process.exit_code == 0


def test_if_then_elif_else() -> None:
    process, _ = sh(
        "if false; then echo 1; elif [ -e /etc/hostname ]; then echo 2; else echo 3; fi"
    )
    assert lines(process) == ["2"]


def test_while_until_and_for() -> None:
    process, _ = sh(
        "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo w$i; "
        "until [ $i -eq 0 ]; do i=$((i-1)); done; echo u$i; for x in a b; do echo $x; done"
    )
    assert lines(process) == ["w3", "u0", "a", "b"]


def test_while_true_with_sleep_wakes_every_period() -> None:
    process, world = sh("while true; do echo tick; sleep 10; done")
    run_until(process, world, 35_000)
    assert lines(process) == ["tick"] * 4
    assert process.next_wake() == 40_000


def test_sleep_n_then_exit_code() -> None:
    process, world = sh("sleep 30; exit 4")
    assert process.next_wake() == 30_000
    run_until(process, world, 29_999)
    assert process.running
    run_until(process, world, 30_000)
    assert (process.exit_code, process.exit_ms) == (4, 30_000)


@pytest.mark.parametrize(
    ("arg", "ms"), [("1.5", 1500), ("2m", 120_000), ("1h", 3_600_000), ("1 2", 3000)]
)
def test_sleep_units(arg: str, ms: int) -> None:
    process, _ = sh(f"sleep {arg}; echo done")
    assert process.next_wake() == ms


def test_sleep_infinity_never_wakes() -> None:
    process, world = sh("sleep infinity")
    assert process.next_wake() is None
    run_until(process, world, 10**9)
    assert process.running


def test_sleep_invalid_number() -> None:
    process, _ = sh("sleep abc")
    assert lines(process) == ["sleep: invalid number 'abc'"]
    assert process.exit_code == 1


def test_true_false_exit_status() -> None:
    assert sh("false")[0].exit_code == 1
    assert sh("true")[0].exit_code == 0
    assert sh("exit 300")[0].exit_code == 44  # exit status is taken modulo 256


def test_echo_and_printf_to_stdout_and_files() -> None:
    process, _ = sh(
        "echo -n one > /tmp/f; echo two >> /tmp/f; printf '%s=%d\\n' x 5 >> /tmp/f; "
        "cat /tmp/f; echo err >&2; printf 'a\\tb\\n'"
    )
    assert lines(process, "stdout") == ["onetwo", "x=5", "a\tb"]
    assert lines(process, "stderr") == ["err"]


def test_dash_echo_interprets_escapes_and_prints_dash_e() -> None:
    process, _ = sh('echo -e "a\\nb"', image="debian:12")
    assert lines(process) == ["-e a", "b"]
    busybox, _ = sh('echo -e "a\\nb"')
    assert lines(busybox) == ["a", "b"]


def test_touch_rm_mkdir_cat_and_ls() -> None:
    process, _ = sh(
        "mkdir -p /data/a/b && touch /data/a/b/f && ls /data/a/b && rm /data/a/b/f && ls /data/a/b; cat /data/a/b/f"
    )
    assert lines(process) == ["f", "cat: can't open '/data/a/b/f': No such file or directory"]
    assert process.exit_code == 1


def test_tool_messages_follow_the_image_userland() -> None:
    busybox, _ = sh("cat /nope; rm /nope; touch /no/dir/f; mkdir /tmp")
    assert lines(busybox) == [
        "cat: can't open '/nope': No such file or directory",
        "rm: can't remove '/nope': No such file or directory",
        "touch: /no/dir/f: No such file or directory",
        "mkdir: can't create directory '/tmp': File exists",
    ]
    gnu, _ = sh("cat /nope; rm /nope; touch /no/dir/f; mkdir /tmp", image="debian:12")
    assert lines(gnu) == [
        "cat: /nope: No such file or directory",
        "rm: cannot remove '/nope': No such file or directory",
        "touch: cannot touch '/no/dir/f': No such file or directory",
        "mkdir: cannot create directory '/tmp': File exists",
    ]


def test_rm_f_is_quiet() -> None:
    process, _ = sh("rm -f /nope")
    assert (lines(process), process.exit_code) == ([], 0)


@pytest.mark.parametrize(
    ("test", "status"),
    [("test -f /etc/hostname", 0), ("[ -f /tmp ]", 1), ("[ -e /tmp ]", 0), ("[ -d /tmp ]", 0),
     ("[ -z '' ]", 0), ("[ abc = abc ]", 0), ("[ 3 -gt 4 ]", 1), ("[ ! -e /nope ]", 0),
     ("[ -f /etc/hosts -a -e /nope ]", 1), ("[ -f /nope -o -d / ]", 0)],
)  # fmt: skip
def test_test_and_brackets(test: str, status: int) -> None:
    assert sh(test)[0].exit_code == status


def test_bracket_needs_its_closing_bracket() -> None:
    process, _ = sh("[ -f /x")
    assert (process.exit_code, lines(process)) == (2, ["sh: missing ]"])


def test_variables_from_env_and_defaults() -> None:
    process, _ = start(
        {"name": "c", "image": "busybox:1.36", "env": [{"name": "GREETING", "value": "hello world"}],
         "command": ["sh", "-c", 'echo $GREETING; echo "${GREETING}!"; echo ${MISSING:-fallback} ${#GREETING}']}
    )  # fmt: skip
    assert lines(process) == ["hello world", "hello world!", "fallback 11"]


def test_unquoted_expansion_splits_into_fields() -> None:
    process, _ = sh(
        'X="a   b"; for w in $X; do echo "[$w]"; done; for w in "$X"; do echo "[$w]"; done; echo [$X]'
    )
    assert lines(process) == ["[a]", "[b]", "[a   b]", "[a b]"]


def test_printenv_and_env() -> None:
    process, _ = start(
        {
            "name": "c",
            "image": "debian:12",
            "command": ["printenv"],
            "args": ["HOSTNAME", "KUBERNETES_PORT"],
        },
        service_env=(("KUBERNETES_PORT", "tcp://10.96.0.1:443"),),
    )
    assert lines(process) == ["web", "tcp://10.96.0.1:443"]
    assert process.exit_code == 0
    missing, _ = start({"name": "c", "image": "debian:12", "command": ["printenv", "NOPE"]})
    assert (lines(missing), missing.exit_code) == ([], 1)


def test_date_in_virtual_time() -> None:
    process, world = sh("sleep 65; date; date +%s; date -u +%Y-%m-%dT%H:%M:%SZ")
    run_until(process, world, 65_000)
    assert lines(process) == ["Thu Jan  1 00:01:05 UTC 2026", "1767225665", "2026-01-01T00:01:05Z"]


def test_namespace_from_the_service_account_mount() -> None:
    process, _ = sh(
        "echo myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc",
        mounts=(service_account_mount("shop"),),
    )
    assert lines(process) == ["myservice.shop.svc"]


def test_command_substitution_and_arithmetic() -> None:
    process, _ = sh('n=$(echo 41); echo $((n + 1)) `echo back` "$(printf "%s" x)"')
    assert lines(process) == ["42 back x"]


def test_kubernetes_var_expansion_before_the_shell() -> None:
    process, _ = start(
        {"name": "c", "image": "busybox:1.36", "env": [{"name": "MSG", "value": "hi"}],
         "command": ["sh", "-c", "echo $(MSG) $$(MSG)"]}  # $(MSG) is the kubelet's, $$ escapes
    )  # fmt: skip
    assert lines(process) == ["sh: MSG: not found", "hi"]  # $(MSG) runs before echo prints


def test_background_job_and_wait() -> None:
    process, world = sh("(sleep 5; echo job) & echo main; wait; echo after")
    assert lines(process) == ["main"]
    run_until(process, world, 5_000)
    assert lines(process) == ["main", "job", "after"]
    assert process.exit_code == 0


def test_wait_for_one_pid_returns_its_status() -> None:
    process, world = sh("sh -c 'sleep 2; exit 7' & wait $!; echo status $?")
    run_until(process, world, 2_000)
    assert lines(process) == ["status 7"]


def test_kill_0_and_killall_0() -> None:
    process, _world = sh(
        "sleep 100 & pid=$!; kill -0 $pid && echo alive; kill -0 4242; killall -0 sleep && echo found"
    )
    assert lines(process) == ["alive", "sh: kill: can't kill pid 4242: No such process", "found"]


def test_kill_a_background_job() -> None:
    process, _world = sh("sleep 100 & kill $!; wait $!; echo $?")
    assert lines(process) == ["143"]


def test_exec_replaces_the_shell() -> None:
    process, _ = sh("echo before; exec sleep 60; echo never")
    assert process.threads[1].kind == "program" and process.threads[1].name == "sleep"
    assert lines(process) == ["before"]


def test_pipes_feed_the_next_command() -> None:
    process, _ = sh("printf 'a\\nb\\nc\\n' | grep -v b | wc -l; echo x | cat")
    assert lines(process) == ["2", "x"]


def test_set_e_stops_at_the_first_failure() -> None:
    process, _ = sh("set -e; echo start; false; echo never")
    assert (lines(process), process.exit_code) == (["start"], 1)
    guarded, _ = sh("set -e; false || echo guarded; if false; then :; fi; echo end")
    assert lines(guarded) == ["guarded", "end"]


def test_set_x_traces_commands() -> None:
    process, _ = sh("set -x; echo hi")
    assert lines(process, "stderr") == ["+ echo hi"]


def test_glob_matches_files() -> None:
    process, _ = sh(
        "touch /tmp/a.log /tmp/b.log /tmp/c.txt; echo /tmp/*.log; rm /tmp/*.log; ls /tmp"
    )
    assert lines(process) == ["/tmp/a.log /tmp/b.log", "c.txt"]


def test_redirect_into_a_missing_directory_is_the_shells_error() -> None:
    busybox, _ = sh("echo x > /nope/f; echo $?")
    assert lines(busybox) == ["sh: can't create /nope/f: nonexistent directory", "1"]
    dash, _ = sh("echo x > /nope/f; echo $?", image="debian:12")
    assert lines(dash) == ["sh: 1: cannot create /nope/f: Directory nonexistent", "2"]


def test_command_not_found_per_shell() -> None:
    assert lines(sh("nosuch")[0]) == ["sh: nosuch: not found"]  # busybox: every applet is known
    process, _ = sh("curl http://x", image="debian:12")
    assert (lines(process), process.exit_code) == (["sh: 1: curl: not found"], 127)
    bash, _ = start({"name": "c", "image": "debian:12", "command": ["bash", "-c", "echo; wget x"]})
    assert lines(bash) == ["", "bash: line 1: wget: command not found"]


def test_proc_1_fd_1_goes_to_the_container_log() -> None:
    process, _ = start({"name": "c", "image": "busybox:1.36", "command": ["sleep", "100"]})
    result = process.exec(
        1_000, ["sh", "-c", "echo from exec > /proc/1/fd/1; echo private"], 1_000, FakeWorld()
    )
    assert result.stdout == "private\n"
    assert lines(process) == ["from exec"]


# -- cluster DNS and HTTP ------------------------------------------------------------------


def test_init_container_waits_for_a_service_old_busybox() -> None:
    world = FakeWorld()
    process, _ = start(
        {"name": "init-myservice", "image": "busybox:1.28", "command": ["sh", "-c",
         "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)"
         ".svc.cluster.local; do echo waiting for myservice; sleep 2; done"]},
        world, mounts=(service_account_mount(),),
    )  # fmt: skip
    run_until(process, world, 5_000)
    assert process.running
    assert lines(process)[:5] == [
        "Server:    10.96.0.10",
        "Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local",
        "",
        "nslookup: can't resolve 'myservice.default.svc.cluster.local'",
        "waiting for myservice",
    ]
    world.services["myservice.default.svc.cluster.local"] = "10.96.4.7"
    run_until(process, world, 6_000)
    assert (process.exit_code, process.exit_ms) == (0, 6_000)
    assert lines(process)[-2:] == [
        "Name:      myservice.default.svc.cluster.local",
        "Address 1: 10.96.4.7 myservice.default.svc.cluster.local",
    ]


def test_new_busybox_nslookup_ignores_search_domains() -> None:
    world = FakeWorld({"db.default.svc.cluster.local": "10.96.0.20"})
    short, _ = start({"name": "c", "image": "busybox:1.36", "command": ["nslookup", "db"]}, world)
    assert short.exit_code == 1
    assert "** server can't find db: NXDOMAIN" in lines(short)
    full, _ = start(
        {
            "name": "c",
            "image": "busybox:1.36",
            "command": ["nslookup", "db.default.svc.cluster.local"],
        },
        world,
    )
    assert full.exit_code == 0
    assert lines(full)[:5] == ["Server:\t\t10.96.0.10", "Address:\t10.96.0.10:53", "",
                               "Name:\tdb.default.svc.cluster.local", "Address: 10.96.0.20"]  # fmt: skip


def test_getent_hosts() -> None:
    world = FakeWorld({"db.default.svc.cluster.local": "10.96.0.20"})
    found, _ = start(
        {"name": "c", "image": "debian:12", "command": ["getent", "hosts", "db"]}, world
    )
    assert (lines(found), found.exit_code) == (["10.96.0.20      db.default.svc.cluster.local"], 0)
    missing, _ = start(
        {"name": "c", "image": "debian:12", "command": ["getent", "hosts", "nope"]}, world
    )
    assert (lines(missing), missing.exit_code) == ([], 2)


def test_wget_against_services() -> None:
    world = FakeWorld({"web.default.svc.cluster.local": "10.96.0.30"},
                      {("10.96.0.30", 80): Answer("ok", 200, "OK", "<h1>hi</h1>\n")})  # fmt: skip
    ok, _ = sh("wget -q -O- http://web", world=world)
    assert (lines(ok), ok.exit_code) == (["<h1>hi</h1>"], 0)
    saved, _ = sh("cd /tmp && wget http://web/ && cat index.html", world=world)
    assert lines(saved) == [
        "Connecting to web (10.96.0.30:80)",
        "saving to 'index.html'",
        "index.html           100% |********************************|    12  0:00:00 ETA",
        "'index.html' saved",
        "<h1>hi</h1>",
    ]
    refused, _ = sh("wget -q -O- http://web:8080/", world=world)
    assert lines(refused) == ["wget: can't connect to remote host (10.96.0.30): Connection refused"]
    bad, _ = sh("wget -q http://nope/", world=world)
    assert (lines(bad), bad.exit_code) == (["wget: bad address 'nope'"], 1)
    world.answers[("10.96.0.30", 80)] = Answer("ok", 404, "Not Found", "")
    missing, _ = sh("wget -q -O- http://web/x", world=world)
    assert lines(missing) == ["wget: server returned error: HTTP/1.1 404 Not Found"]


def test_curl_against_services() -> None:
    world = FakeWorld({"web.default.svc.cluster.local": "10.96.0.30"},
                      {("10.96.0.30", 80): Answer("ok", 503, "Service Unavailable", "busy")})  # fmt: skip
    body, _ = sh("curl -s http://web", image="nginx:1.27", world=world)
    assert (lines(body), body.exit_code) == (["busy"], 0)
    failed, _ = sh("curl -sf http://web", image="nginx:1.27", world=world)
    assert failed.exit_code == 22 and lines(failed) == []
    shown, _ = sh("curl -sSf http://web; curl -sS http://nope; curl -sS http://web:81",
                  image="nginx:1.27", world=world)  # fmt: skip
    assert lines(shown) == [
        "curl: (22) The requested URL returned error: 503",
        "curl: (6) Could not resolve host: nope",
        "curl: (7) Failed to connect to web port 81 after 0 ms: Couldn't connect to server",
    ]


# -- programs that listen ------------------------------------------------------------------


def test_python_http_server_listens() -> None:
    process, world = start(
        {"name": "c", "image": "python:3.12", "command": ["python", "-m", "http.server", "8080"]}
    )
    assert set(process.listeners) == {8080}
    answer = process.http(1_000, 8080, "/", "10.244.1.1", world)
    assert answer.status == 200 and "Directory listing for /" in answer.body
    assert process.http(1_000, 8080, "/missing", "10.244.1.1", world).status == 404
    assert process.http(1_000, 8000, "/", "10.244.1.1", world).kind == "refused"
    # stdout is block-buffered without a terminal: only the request lines (stderr) show
    assert lines(process) == [
        '10.244.1.1 - - [01/Jan/2026 00:00:01] "GET / HTTP/1.1" 200 -',
        '10.244.1.1 - - [01/Jan/2026 00:00:01] "GET /missing HTTP/1.1" 404 -',
    ]


def test_nc_listens_and_answers_one_connection() -> None:
    process, world = sh(
        'while true; do printf "HTTP/1.1 200 OK\\r\\n\\r\\nok" | nc -l -p 8080; done'
    )
    assert 8080 in process.listeners
    answer = process.http(1_000, 8080, "/healthz", "10.244.1.1", world)
    assert (answer.kind, answer.status, answer.body) == ("ok", 200, "ok")
    assert process.tcp(2_000, 8080, world)  # the loop started a new nc
    assert lines(process)[0] == "GET /healthz HTTP/1.1\r"


def test_stress_within_the_limit_runs_on() -> None:
    process, world = start(
        {"name": "c", "image": "polinux/stress", "command": ["stress"],
         "args": ["--vm", "1", "--vm-bytes", "150M", "--vm-hang", "1"]},
        memory=200 * 1024 * 1024,
    )  # fmt: skip
    run_until(process, world, 600_000)
    assert process.running
    assert lines(process) == ["stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd"]


def test_stress_over_the_limit_is_oom_killed() -> None:
    process, world = start(
        {"name": "c", "image": "polinux/stress", "command": ["stress"],
         "args": ["--vm", "1", "--vm-bytes", "250M", "--vm-hang", "1"]},
        memory=100 * 1024 * 1024,
    )  # fmt: skip
    run_until(process, world, 5_000)
    assert (process.exit_code, process.oom, process.exit_ms) == (137, True, 1_000)


def test_stress_timeout_completes() -> None:
    process, world = start({"name": "c", "image": "polinux/stress", "command": ["stress"],
                            "args": ["--cpu", "1", "--timeout", "20s"]})  # fmt: skip
    run_until(process, world, 20_000)
    assert process.exit_code == 0
    assert lines(process)[-1] == "stress: info: [1] successful run completed in 20s"


# -- warnings for what is not modelled --------------------------------------------------


def test_unknown_command_is_a_long_running_process_with_a_note() -> None:
    process, world = sh("java -jar /app.jar", image="eclipse-temurin:21")
    run_until(process, world, 3_600_000)
    assert process.running
    assert {"code": "not_modelled", "pos": 0, "command": "java"} in process.notes


def test_partially_modelled_utility_succeeds_without_output() -> None:
    process, _ = sh("echo a | tr a b; echo $?")  # (sed's s/// is modelled: programs/sed.py)
    assert lines(process) == ["0"]
    assert any(n["code"] == "partially_modelled" and n["command"] == "tr" for n in process.notes)


def test_unsupported_syntax_runs_as_a_long_running_process() -> None:
    process, world = sh("case $X in a) echo a;; esac")
    run_until(process, world, 60_000)
    assert process.running
    assert process.notes[0]["code"] == "not_modelled_script"


def test_unbalanced_quotes_fail_like_the_shell() -> None:
    busybox, _ = sh("echo 'oops")
    assert (busybox.exit_code, lines(busybox)) == (
        2,
        ["sh: syntax error: unterminated quoted string"],
    )
    dash, _ = sh("echo 'oops", image="debian:12")
    assert lines(dash) == ["sh: 1: Syntax error: Unterminated quoted string"]


# -- bounds -------------------------------------------------------------------------------


def test_busy_loop_costs_virtual_cpu_not_real_time() -> None:
    process, world = sh("while true; do :; done")
    run_until(process, world, 3_600_000)
    assert process.running
    assert process.next_wake() is None  # parked: it spins until something changes
    assert {"code": "busy_loop", "pos": None} in process.notes
    assert process.cpu_ms >= 1_000


def test_busy_loop_notices_a_file_change() -> None:
    process, world = sh("while [ ! -f /tmp/go ]; do :; done; echo started")
    run_until(process, world, 10_000)
    assert process.running
    process.exec(20_000, ["touch", "/tmp/go"], 1_000, world)
    run_until(process, world, 20_000)
    assert (lines(process), process.exit_code) == (["started"], 0)


def test_counting_loop_without_sleep_is_slowed_in_virtual_time() -> None:
    process, world = sh("i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done; echo $i")
    assert process.running  # 2000 commands per virtual second
    run_until(process, world, 60_000)
    assert lines(process) == ["5000"]
    assert process.exit_ms is not None and 1_000 <= process.exit_ms <= 20_000


def test_fork_bomb_like_loop_is_bounded() -> None:
    process, world = sh("while true; do sleep 1000 & done")
    run_until(process, world, 5_000)
    alive = [t for t in process.threads.values() if not t.done]
    assert len(alive) <= 64
    assert any(n["code"] == "too_many_processes" for n in process.notes)
    assert "sh: can't fork: Resource temporarily unavailable" in lines(process)


def test_huge_sleep_is_clamped_to_the_horizon() -> None:
    process, _world = sh("sleep 999999999999; echo never")
    assert process.next_wake() is None
    assert any(n["code"] == "sleep_beyond_horizon" for n in process.notes)


def test_output_is_bounded() -> None:
    process, world = sh("while true; do echo spam; done")
    run_until(process, world, 3_600_000)
    assert len(process.log_lines()) <= 2_000


def test_a_substitution_that_never_ends_is_cut_off_with_a_note() -> None:
    process, _ = sh('x="$(tail -f /dev/null)"; echo "got [$x]"')
    assert lines(process) == ["got []"]
    assert any(n["code"] == "substitution_blocks" for n in process.notes)


def test_a_trap_action_the_model_cannot_parse_is_noted() -> None:
    process, world = sh("trap 'case $x in a) ;; esac' TERM; sleep 100 & wait")
    assert any(n["code"] == "not_modelled_trap" for n in process.notes)
    process.signal(1_000, "SIGTERM", world)
    assert process.running  # no handler was installed: PID 1 ignores SIGTERM
