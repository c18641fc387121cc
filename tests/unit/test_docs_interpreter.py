"""What the documentation's containers run, pasted unchanged (issue 20, item 4).

Fixtures under ``tests/unit/data/docs/`` are kubernetes/website files, byte for byte as
stored at the commit named:
- ``indexed-job.yaml``: content/en/examples/application/job/indexed-job.yaml (81dca134),
  the Job of content/en/docs/tasks/job/indexed-parallel-processing-static.md;
- ``two-files-counter-pod-streaming-sidecar.yaml``:
  content/en/examples/admin/logging/two-files-counter-pod-streaming-sidecar.yaml (6ef03d7b),
  the streaming sidecars of content/en/docs/concepts/cluster-administration/logging.md;
- ``job-backoff-limit-per-index-example.yaml`` (08f4d484) and
  ``job-backoff-limit-per-index-failindex.yaml`` (048a0f59): content/en/examples/controllers/,
  the ``python3 -c`` Jobs of content/en/docs/concepts/workloads/controllers/job.md;
- ``zookeeper.yaml``: content/en/examples/application/zookeeper/zookeeper.yaml (5e84d3b4),
  the manifest of content/en/docs/tutorials/stateful-application/zookeeper.md;
- ``mysql-configmap.yaml`` (044d11de), ``mysql-services.yaml`` (16a98501) and
  ``mysql-statefulset.yaml`` (044d11de): content/en/examples/application/mysql/, the
  manifests of content/en/docs/tasks/run-application/run-replicated-stateful-application.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.unit.programs_support import run_until, start
from webapp.engine import Simulation
from webapp.engine.programs import derive
from webapp.engine.programs.describe import describe
from webapp.kubectl import kubectl_logs, logs_text, pod_columns
from webapp.kubectl.workloads import describe_job, events_of_object, get_jobs

DOCS = Path(__file__).parent / "data" / "docs"
ITEMS = ["foo", "bar", "baz", "qux", "xyz"]  # the init container's `items=(…)`


def lines(process) -> list[str]:
    return [line[2] for line in process.log_lines()]


# -- indexed-parallel-processing-static.md --------------------------------------------


def indexed_job(seconds: float = 120) -> Simulation:
    sim = Simulation.from_yaml((DOCS / "indexed-job.yaml").read_text())
    sim.advance(seconds)
    return sim


def test_indexed_parallel_processing_static_md_job_completes() -> None:
    sim = indexed_job()
    _header, row = get_jobs(sim.objects("Job"), sim.wall_time()).splitlines()
    name, status, completions, *_ = row.split()
    assert (name, status, completions) == ("indexed-job", "Complete", "5/5")
    (job,) = sim.objects("Job")
    text = describe_job(job, events_of_object(job, "Job", sim.events()), sim.wall_time())
    described = [re.sub(r"\s+", " ", line.strip()) for line in text.splitlines()]
    for line in ("Parallelism: 3", "Completions: 5", "Completed Indexes: 0-4",
                 "Pods Statuses: 0 Active (0 Ready) / 5 Succeeded / 0 Failed",
                 "items=(foo bar baz qux xyz)",
                 "echo ${items[$JOB_COMPLETION_INDEX]} > /input/data.txt"):  # fmt: skip
        assert line in described


def test_indexed_parallel_processing_static_md_each_pod_logs_its_item_reversed() -> None:
    sim = indexed_job()
    seen = {}
    for pod in sim.objects("Pod"):
        name = pod["metadata"]["name"]
        index = int(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"])
        sim.focus(name)
        text = logs_text(kubectl_logs(pod, name, sim.logs_by_container_id()))
        seen[index] = text.splitlines()[-1]
        init = pod["status"]["initContainerStatuses"][0]["state"]["terminated"]
        assert (init["reason"], init["exitCode"]) == ("Completed", 0)
    assert seen == {i: item[::-1] for i, item in enumerate(ITEMS)}
    assert seen[3] == "xuq"  # the page's `kubectl logs indexed-job-fdhq5`


def test_bash_arrays_and_their_expansions() -> None:
    script = (
        "items=(foo bar baz qux xyz)\necho ${items[$JOB_COMPLETION_INDEX]} ${items[-1]} $items\n"
        'echo ${#items[@]} ${#items[1]}; for x in "${items[@]:-}"; do :; done\n'
        'for x in "${items[@]}"; do printf "%s." $x; done; echo\n'
        'a[3]=q; a+=(r "s t"); echo "${a[@]}" ${#a[*]}; echo "${b[0]:-unset}"\n'
        "items[1]+=X; v=1; v+=2; echo ${items[1]} $v ${items[i+1]}end; unset items; echo [${items[0]}]"
    )
    process, world = start({"name": "c", "image": "docker.io/library/bash",
                            "command": ["bash", "-c", script],
                            "env": [{"name": "JOB_COMPLETION_INDEX", "value": "3"}]})  # fmt: skip
    run_until(process, world, 5_000)
    assert lines(process) == ["qux xyz foo", "5 3", "foo.bar.baz.qux.xyz.", "q r s t 3",
                              "unset", "barX 12 barXend", "[]"]  # fmt: skip
    assert process.exit_code == 0


def test_ash_and_dash_have_no_arrays() -> None:
    for image, message in (("busybox:1.36", 'sh: syntax error: unexpected "("'),
                           ("debian:12", 'sh: 1: Syntax error: "(" unexpected')):  # fmt: skip
        process, world = start({"name": "c", "image": image,
                                "command": ["sh", "-c", "items=(foo bar)\necho hi"]})  # fmt: skip
        run_until(process, world, 1_000)
        assert (process.exit_code, lines(process)) == (2, [message])


def test_rev_reverses_each_line_as_busybox_does() -> None:
    process, world = start({"name": "c", "image": "busybox:1.36",
                            "command": ["sh", "-c", "printf 'abc\\nxy\\n' > /f; rev /f; rev /nope"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert lines(process) == ["cba", "yx", "rev: can't open '/nope': No such file or directory"]
    assert process.exit_code == 1


# -- logging.md: the streaming sidecars -----------------------------------------------


def counter(seconds: float) -> Simulation:
    sim = Simulation.from_yaml((DOCS / "two-files-counter-pod-streaming-sidecar.yaml").read_text())
    sim.advance(seconds)
    return sim


def test_two_files_counter_pod_streaming_sidecar_streams_every_line() -> None:
    sim = counter(60)
    pod = sim.pod()
    store = sim.kubelet.processes.stores["varlog"]["files"]
    for container, file, pattern in (
        ("count-log-1", "1.log", r"(\d+): \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}"),
        ("count-log-2", "2.log", r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4} INFO (\d+)"),
    ):
        text = logs_text(kubectl_logs(pod, "counter", sim.logs_by_container_id(), container))
        streamed = text.splitlines()
        written = store[file].splitlines()
        # every line the counter wrote, in order, but for the last second's (tail polls
        # its file once a second)
        assert streamed == written[: len(streamed)] and len(written) - len(streamed) <= 1
        numbers = [int(re.fullmatch(pattern, line).group(1)) for line in streamed]
        assert numbers == list(range(len(streamed))) and len(streamed) >= 55


def test_tail_follow_prints_what_a_file_gains_and_waits_for_it_with_F() -> None:
    script = ("tail -F /w/f & sleep 2; echo one >> /w/f; sleep 2; echo two >> /w/f; "
              "sleep 2; : > /w/f; echo three >> /w/f; sleep 100")  # fmt: skip
    process, world = start({"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", script]},
                           mounts=(("/w", {"files": {}, "dirs": []}, False, ""),))  # fmt: skip
    run_until(process, world, 10_000)
    assert lines(process) == [
        "tail: can't open '/w/f': No such file or directory",
        "tail: /w/f has appeared; following end of new file", "one", "two", "three",
    ]  # fmt: skip


def test_tail_f_without_a_file_ends_and_gnu_words_it_differently() -> None:
    process, world = start({"name": "c", "image": "busybox:1.36", "command": ["tail", "-f", "/x"]})
    run_until(process, world, 1_000)
    assert process.exit_code == 1
    assert lines(process) == ["tail: can't open '/x': No such file or directory", "tail: no files"]
    process, world = start({"name": "c", "image": "debian:12",
                            "command": ["sh", "-c", "seq 20 > /f; tail -n 3 /f; tail -n +19 -f /f"]})  # fmt: skip
    run_until(process, world, 3_000)
    assert process.running and lines(process) == ["18", "19", "20", "19", "20"]


# -- tutorials/stateful-application/zookeeper.md --------------------------------------


def zookeeper(seconds: float) -> Simulation:
    sim = Simulation.from_yaml((DOCS / "zookeeper.yaml").read_text())
    sim.advance(seconds)
    return sim


def exec_in(sim: Simulation, pod: str, argv: list[str]):
    run = sim.runs[pod]
    process = run.kubelet.records[0].newest.process
    return process.exec(run.clock.now_ms, argv, 5_000, run.kubelet.processes.world())


def test_zookeeper_tutorial_pods_become_ready() -> None:
    sim = Simulation.from_yaml((DOCS / "zookeeper.yaml").read_text())
    ready_at, running_at = {}, {}
    for second in range(1, 121):
        sim.advance(1)
        for pod in sim.objects("Pod"):
            name = pod["metadata"]["name"]
            columns = pod_columns(pod, sim.wall_time())
            if columns["STATUS"] == "Running":
                running_at.setdefault(name, second)
            if columns["READY"] == "1/1":
                ready_at.setdefault(name, second)
    assert list(ready_at) == ["zk-0", "zk-1", "zk-2"]  # OrderedReady: one after the other
    previous = 0  # each Pod is created once the one before it is Ready
    for name in ready_at:
        # the page: Running about 19 s after ContainerCreating (the pull), Ready by 40 s
        assert 15 <= running_at[name] - previous <= 26
        assert ready_at[name] - running_at[name] <= 21
        previous = ready_at[name]
    sim.advance(3600)  # and they stay so: the liveness probe answers every period
    for pod in sim.objects("Pod"):
        columns = pod_columns(pod, sim.wall_time())
        assert (columns["READY"], columns["STATUS"], columns["RESTARTS"]) == ("1/1", "Running", "0")


def test_zookeeper_tutorial_identities_and_config_are_the_pages() -> None:
    sim = zookeeper(180)
    for i in range(3):
        assert exec_in(sim, f"zk-{i}", ["hostname"]).stdout == f"zk-{i}\n"
        assert (
            exec_in(sim, f"zk-{i}", ["cat", "/var/lib/zookeeper/data/myid"]).stdout == f"{i + 1}\n"
        )
        fqdn = exec_in(sim, f"zk-{i}", ["hostname", "-f"]).stdout
        assert fqdn == f"zk-{i}.zk-hs.default.svc.cluster.local\n"
    config = exec_in(sim, "zk-0", ["cat", "/opt/zookeeper/conf/zoo.cfg"]).stdout.splitlines()
    assert config[-3:] == [
        f"server.{i + 1}=zk-{i}.zk-hs.default.svc.cluster.local:2888:3888" for i in range(3)
    ]
    assert "clientPort=2181" in config and "maxSessionTimeout=40000" in config
    assert exec_in(sim, "zk-0", ["sh", "-c", "zookeeper-ready 2181"]).exit_code == 0


def test_zookeeper_tutorial_logs_each_ruok_as_the_page_shows() -> None:
    sim = zookeeper(180)
    sim.focus("zk-0")
    text = logs_text(kubectl_logs(sim.pod("zk-0"), "zk-0", sim.logs_by_container_id()))
    tail = text.splitlines()[-3:]
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[myid:1\] - INFO  "
    factory = r"\[NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:"
    for line, pattern in zip(tail, (
        stamp + factory + r"NIOServerCnxnFactory@192\] - Accepted socket connection from /127.0.0.1:(\d+)",
        stamp + factory + r"NIOServerCnxn@827\] - Processing ruok command from /127.0.0.1:(\d+)",
        stamp + r"\[Thread-\d+:NIOServerCnxn@1008\] - Closed socket connection for client "
        r"/127.0.0.1:(\d+) \(no session established for client\)",
    ), strict=True):  # fmt: skip
        assert re.fullmatch(pattern, line), line
    assert "Creating ZooKeeper log4j configuration" in text
    assert "Using config: /usr/bin/../etc/zookeeper/zoo.cfg" in text


def test_zookeeper_tutorial_liveness_fails_once_zookeeper_ready_is_removed() -> None:
    sim = zookeeper(120)
    assert exec_in(sim, "zk-0", ["rm", "/opt/zookeeper/bin/zookeeper-ready"]).exit_code == 0
    sim.advance(90)
    messages = [e["message"] for e in sim.events() if e.get("reason") == "Unhealthy"]
    assert "Liveness probe failed: sh: 1: zookeeper-ready: not found\n" in messages
    assert pod_columns(sim.pod("zk-0"), sim.wall_time())["RESTARTS"].startswith("1 (")
    assert exec_in(sim, "zk-0", ["sh", "-c", "zookeeper-ready 2181"]).exit_code == 0  # a new layer


def test_a_script_file_runs_with_its_shebang_shell_and_keeps_its_variables() -> None:
    script = '#!/bin/sh\nX=inner; echo "$0 $1 $X"; exit 3\n'
    process, world = start({"name": "c", "image": "busybox:1.36", "command": ["sh", "-c",
        f"printf '%s' '{script}' > /s.sh; X=outer; /s.sh arg; echo $? $X"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert lines(process) == ["/s.sh arg inner", "3 outer"]


# -- job.md: the python3 -c Jobs -------------------------------------------------------


def job_status(name: str, seconds: float = 300) -> tuple[Simulation, dict]:
    sim = Simulation.from_yaml((DOCS / f"{name}.yaml").read_text())
    sim.advance(seconds)
    (job,) = sim.objects("Job")
    return sim, job["status"]


def test_job_backoff_limit_per_index_example_yaml_fails_the_even_indexes() -> None:
    sim, status = job_status("job-backoff-limit-per-index-example")
    # job.md: "kubectl get -o yaml job job-backoff-limit-per-index-example"
    assert status["completedIndexes"] == "1,3,5,7,9"
    assert status["failedIndexes"] == "0,2,4,6,8"
    assert (status["succeeded"], status["failed"]) == (5, 10)
    assert [(c["type"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("FailureTarget", "FailedIndexes", "Job has failed indexes"),
        ("Failed", "FailedIndexes", "Job has failed indexes"),
    ]
    for pod in sim.objects("Pod"):
        name = pod["metadata"]["name"]
        sim.focus(name)
        assert logs_text(kubectl_logs(pod, name, sim.logs_by_container_id())) == "Hello world"
        code = pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"]
        index = int(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"])
        assert code == (1 if index % 2 == 0 else 0)


def test_job_backoff_limit_per_index_failindex_yaml_fails_index_1_without_retry() -> None:
    _sim, status = job_status("job-backoff-limit-per-index-failindex")
    assert (status["completedIndexes"], status["failedIndexes"]) == ("2,3", "0,1")
    assert (status["succeeded"], status["failed"]) == (2, 3)


def test_python_c_outside_the_subset_is_not_modelled_with_its_line() -> None:
    docs = [
        "python3",
        "-c",
        'import os, sys\nif os.getenv("A", "x") == "x":\n  print("a", 1 + 2)\n',
    ]
    assert derive({"name": "c", "image": "python:3", "command": docs}).warnings == ()
    process, world = start({"name": "c", "image": "python:3", "command": docs})
    run_until(process, world, 1_000)
    assert (process.exit_code, lines(process)) == (0, ["a 3"])
    process, world = start({"name": "c", "image": "python:3",
                            "command": ["python3", "-c", "import sys; sys.exit('bye')"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert (process.exit_code, lines(process)) == (1, ["bye"])
    other = ["python3", "-c", "import os\nimport json\nprint(json.dumps({}))"]
    (warning,) = derive({"name": "c", "image": "python:3", "command": other}).warnings
    assert (warning["code"], warning["field"], warning["line"]) == ("not_modelled", "command[2]", 2)
    where = describe(derive({"name": "c", "image": "python:3", "command": other}))["warnings"][0][
        "where"
    ]
    assert where == "command[2], script line 2 column 1"
    assert (
        "not modelled"
        in describe(derive({"name": "c", "image": "python:3", "command": other}))["warnings"][0][
            "text"
        ]
    )
    process, world = start({"name": "c", "image": "python:3", "command": other})
    run_until(process, world, 5_000)
    assert process.running  # as before: an unknown program keeps running


def test_arrays_and_script_files_stay_bounded() -> None:
    process, world = start({"name": "c", "image": "docker.io/library/bash", "command": [
        "bash", "-c", "i=0; while [ $i -lt 400 ]; do a+=($i); i=$((i+1)); done; echo ${#a[@]}"]})  # fmt: skip
    run_until(process, world, 10_000)
    assert lines(process) == ["256"]
    assert any(n["code"] == "array_too_large" for n in process.notes)
    process, world = start({"name": "c", "image": "busybox:1.36", "command": [
        "sh", "-c", "printf '#!/bin/sh\\n/s.sh\\n' > /s.sh; /s.sh; echo end $?"]})  # fmt: skip
    run_until(process, world, 10_000)
    assert lines(process) == ["/s.sh: can't fork: Resource temporarily unavailable", "end 2"]


# -- run-replicated-stateful-application.md: bash's [[ ]] -----------------------------


def test_bash_double_brackets_match_regex_and_set_bash_rematch() -> None:
    script = (
        "h=mysql-12\n"
        '[[ $h =~ -([0-9]+)$ ]] && echo "${BASH_REMATCH[0]} ${BASH_REMATCH[1]} ${#BASH_REMATCH[@]}"\n'
        '[[ "mysql-bin.000003\t154" =~ ^(.*?)[[:space:]]+(.*?)$ ]] && echo "[${BASH_REMATCH[1]}] [${BASH_REMATCH[2]}]"\n'
        "[[ abc =~ x ]] || echo no ${#BASH_REMATCH[@]}\n"
        '[[ a.c =~ "a.c" ]] && echo quoted; [[ abc =~ "a.c" ]] || echo literal\n'
        "o=0; [[ $o -eq 0 ]] && echo zero; [[ 1+1 -eq 2 ]] && echo arith\n"
        "[[ -d / && ! -f /nope ]] && echo files\n"
        '[[ $undefined ]] || echo empty; x="a b"; [[ $x == a* ]] && echo glob; [[ $x == "a*" ]] || echo lit\n'
        "[[ b > a ]] && echo gt; [[ ( 1 -eq 2 ) || 3 -eq 3 ]] && echo paren\n"
        "[[ x =~ [ ]]; echo bad $?\n"
    )
    process, world = start({"name": "c", "image": "docker.io/library/bash",
                            "command": ["bash", "-c", script]})  # fmt: skip
    run_until(process, world, 5_000)
    assert lines(process) == ["-12 12 2", "[mysql-bin.000003] [154]", "no 0", "quoted", "literal",
                              "zero", "arith", "files", "empty", "glob", "lit", "gt", "paren",
                              "bad 2"]  # fmt: skip
    assert process.exit_code == 0


def test_double_brackets_trace_under_set_x_and_fail_the_script_on_no_match() -> None:
    process, world = start({"name": "c", "image": "mysql:5.7", "command": [
        "bash", "-c", "set -ex\n[[ `hostname` =~ -([0-9]+)$ ]] || exit 1\necho no"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert "+ [[ web =~ -([0-9]+)$ ]]" in lines(process)  # the Pod's hostname has no ordinal
    assert process.exit_code == 1


def test_ash_refuses_the_double_bracket_regex_of_the_mysql_init_script() -> None:
    process, world = start({"name": "c", "image": "busybox:1.36", "command": [
        "sh", "-c", "[[ `hostname` =~ -([0-9]+)$ ]] || exit 1"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert (process.exit_code, lines(process)) == (2, ['sh: syntax error: unexpected "("'])


# -- tasks/run-application/run-replicated-stateful-application.md ---------------------

MYSQL_FILES = ("mysql-configmap.yaml", "mysql-services.yaml", "mysql-statefulset.yaml")


def replicated_mysql() -> Simulation:
    return Simulation.from_yaml("\n---\n".join((DOCS / f).read_text() for f in MYSQL_FILES))


def exec_container(sim: Simulation, pod: str, container: str, argv: list[str]):
    run = sim.runs[pod]
    record = next(r for r in run.kubelet.records if r.name == container)
    process = record.newest.process
    return process.exec(run.clock.now_ms, argv, 5_000, run.kubelet.processes.world())


def test_run_replicated_stateful_application_md_pods_become_ready_in_order() -> None:
    from webapp.kubectl import watch_lines

    sim = replicated_mysql()
    sim.advance(240)
    versions = [(sim.wall_time(t), kind, pod) for t, kind, pod in sim.watch_versions]
    rows = [line.split()[:4] for line in watch_lines(versions)[1:]]
    seen: dict[str, list[tuple[str, str]]] = {}
    order = []
    for name, ready, status, _restarts in rows:
        if name not in seen:
            order.append(name)
        steps = seen.setdefault(name, [])
        if not steps or steps[-1] != (ready, status):
            steps.append((ready, status))
    assert order == ["mysql-0", "mysql-1", "mysql-2"]
    for name in order:  # the page's `kubectl get pods -l app=mysql --watch`
        steps = seen[name]
        assert steps[0] == ("0/2", "Pending")
        assert ("0/2", "Init:0/2") in steps and ("0/2", "Init:1/2") in steps
        assert ("0/2", "PodInitializing") in steps
        assert steps[-2:] == [("1/2", "Running"), ("2/2", "Running")]
    created = {}  # OrderedReady: each Pod is created once the one before it is Ready
    ready = {}
    for now, _kind, pod in versions:
        name = pod["metadata"]["name"]
        created.setdefault(name, now)
        if pod_columns(pod, now)["READY"] == "2/2":
            ready.setdefault(name, now)
    assert created["mysql-1"] >= ready["mysql-0"] and created["mysql-2"] >= ready["mysql-1"]
    sim.advance(600)  # and they stay so: the liveness probe `mysqladmin ping` answers
    for pod in sim.objects("Pod"):
        columns = pod_columns(pod, sim.wall_time())
        assert (columns["READY"], columns["STATUS"], columns["RESTARTS"]) == ("2/2", "Running", "0")
    unhealthy = {e["message"] for e in sim.events() if e.get("reason") == "Unhealthy"}
    # only while mysqld initializes its data directory, as on a cluster
    assert unhealthy == {"Readiness probe failed: ERROR 2003 (HY000): Can't connect to MySQL "
                         "server on '127.0.0.1' (111)\n"}  # fmt: skip
    assert not [e for e in sim.events() if e.get("reason") == "BackOff"]


def test_run_replicated_stateful_application_md_server_ids_and_clones() -> None:
    sim = replicated_mysql()
    sim.advance(240)
    for i in range(3):
        query = exec_container(
            sim, f"mysql-{i}", "mysql", ["mysql", "-h", "127.0.0.1", "-e", "SELECT @@server_id"]
        )
        assert (query.stdout, query.exit_code) == (f"@@server_id\n{100 + i}\n", 0)
        config = exec_container(
            sim, f"mysql-{i}", "mysql", ["cat", "/etc/mysql/conf.d/server-id.cnf"]
        ).stdout
        assert config == f"[mysqld]\nserver-id={100 + i}\n"
        role = "primary.cnf" if i == 0 else "secondary.cnf"
        assert exec_container(
            sim, f"mysql-{i}", "mysql", ["ls", "/etc/mysql/conf.d"]
        ).stdout.split() == sorted([role, "server-id.cnf"])
        assert (
            exec_container(sim, f"mysql-{i}", "mysql", ["mysqladmin", "ping"]).stdout
            == "mysqld is alive\n"
        )
    # mysql-1 cloned from mysql-0 (the primary's binlog position), mysql-2 from mysql-1
    files = exec_container(sim, "mysql-1", "mysql", ["ls", "/var/lib/mysql"]).stdout.split()
    assert "change_master_to.sql.orig" in files and "mysql" in files
    sim.focus("mysql-1")
    text = logs_text(kubectl_logs(sim.pod("mysql-1"), "mysql-1", sim.logs_by_container_id(),
                                  "xtrabackup"))  # fmt: skip
    assert "+ ncat --recv-only mysql-0.mysql 3307" not in text  # that was clone-mysql's
    assert "Initializing replication from clone position" in text
    clone = logs_text(kubectl_logs(sim.pod("mysql-1"), "mysql-1", sim.logs_by_container_id(),
                                   "clone-mysql"))  # fmt: skip
    assert "+ ncat --recv-only mysql-0.mysql 3307" in clone.splitlines()
    assert (
        exec_container(sim, "mysql-0", "mysql", ["ls", "/var/lib/mysql"]).stdout.split()[:1] != []
    )


def test_mysql_clients_word_a_refused_connection_as_mysql_does() -> None:
    process, world = start({"name": "c", "image": "mysql:5.7", "command": ["bash", "-c",
        "mysql -h 127.0.0.1 -e 'SELECT 1'; echo $?; mysqladmin ping; echo $?; "
        "mysql -h nowhere.invalid.svc -e 'SELECT 1'"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert lines(process) == [
        "ERROR 2003 (HY000): Can't connect to MySQL server on '127.0.0.1' (111)", "1",
        "mysqladmin: connect to server at 'localhost' failed",
        "error: 'Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)'",
        "Check that mysqld is running and that the socket: '/var/run/mysqld/mysqld.sock' exists!",
        "1", "ERROR 2005 (HY000): Unknown MySQL server host 'nowhere.invalid.svc' (-2)",
    ]  # fmt: skip


def test_bash_reads_a_file_with_dollar_paren_less_than() -> None:
    process, world = start({"name": "c", "image": "docker.io/library/bash", "command": [
        "bash", "-c", 'printf "a b\\n" > /f; echo "[$(</f)]"; echo "[$(</nope)]" $?']})  # fmt: skip
    run_until(process, world, 1_000)
    assert lines(process)[0] == "[a b]"
    assert lines(process)[1].endswith("/nope: No such file or directory")


def test_sed_substitutes_as_the_mysql_sidecar_uses_it_and_leaves_the_rest_not_modelled() -> None:
    script = (
        "echo \"CHANGE MASTER TO MASTER_LOG_FILE='x', MASTER_LOG_POS=154;\" | sed -E 's/;$//g'\n"
        "echo aaa | sed s/a/b/; echo aaa | sed 's/a/b/g'; echo 'ab(c)' | sed 's/\\(a\\)b/[\\1&]/'\n"
        "printf 'x1\\ny2\\n' > /f; sed -e 's/[0-9]/#/' /f; echo hi | sed -n p; echo $?\n"
    )
    process, world = start({"name": "c", "image": "debian:12", "command": ["bash", "-c", script]})
    run_until(process, world, 5_000)
    assert lines(process) == ["CHANGE MASTER TO MASTER_LOG_FILE='x', MASTER_LOG_POS=154", "baa",
                              "bbb", "[aab](c)", "x#", "y#", "0"]  # fmt: skip
    assert [n["command"] for n in process.notes if n["code"] == "partially_modelled"] == ["sed"]


def test_regex_matching_is_bounded_where_backtracking_would_not_end() -> None:
    from webapp.engine.programs.regex import MAX_WORK, Regex, RegexError

    assert Regex("(a*)*b").search("a" * 2_000) is None  # exponential for a backtracker
    assert Regex("(a|aa)+$").search("a" * 500) == [0, 500, 499, 500]
    long = Regex("x" * 1_000)
    try:
        long.search("y" * (MAX_WORK // 900))
        raise AssertionError("the work bound was not applied")
    except RegexError:
        pass
    process, world = start({"name": "c", "image": "docker.io/library/bash", "command": [
        "bash", "-c", f"s={'a' * 3000}; [[ $s =~ (a*)*b ]]; echo $?; [[ $s == *a*a*a*a*a*a*b ]]; "
        "echo $?; [[ abc == a[b-c]? && a.c == a?c ]]; echo $?"]})  # fmt: skip
    run_until(process, world, 1_000)
    assert lines(process) == ["1", "1", "0"]


def test_run_replicated_stateful_application_md_containers_have_no_not_modelled_warning() -> None:
    import yaml

    manifest = yaml.safe_load((DOCS / "mysql-statefulset.yaml").read_text())
    spec = manifest["spec"]["template"]["spec"]
    for container in spec["initContainers"] + spec["containers"]:
        derived = derive(container)
        assert (derived.warnings, derived.script_error) == ((), None), container["name"]
