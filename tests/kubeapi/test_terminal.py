"""The page's terminal (webapp/terminal) against the real kubectl 1.37: the same command
line, typed into the terminal of a tab on a paused session and run by kubectl with that
session's kubeconfig, prints the same stdout, stderr and exit code.

Lines whose output moves with the reader's clock are left out: kubectl computes describe's
and events' ages from the machine's clock, the terminal from the session's (virtual) one,
as the page's views do (the server-side Tables' AGE is the session's in both).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import socketio

from tests.kubeapi.conftest import CLUSTER, KUBECTL, Kube, make_session

# Lines the terminal and kubectl must print alike, to the byte.
SAME = [
    "version",
    "version --client",
    "api-versions",
    "api-resources",
    "api-resources --namespaced=false -o name",
    "api-resources --api-group=apps -o name",
    "api-resources -o wide",
    "get pods",
    "get po -o wide",
    "get pods -o name",
    "get pods --no-headers",
    "get pods -l app=web -o name",
    "get pods -l app!=web",
    "get pods -l 'app in (web,api)' -o name",
    "get pods --field-selector status.phase=Running -o name",
    "get pods --field-selector status.phase=Pending",
    "get pods --field-selector foo=bar",
    "get pods -A",
    "get pods --all-namespaces -o name",
    "get pods -n kube-system",
    "get pods --show-labels",
    "get deploy",
    "get deployments.apps -o wide",
    "get rs",
    "get rs -o wide",
    "get svc",
    "get service web -o name",
    "get pdb",
    "get nodes",
    "get no -o wide",
    "get ns",
    "get pods,deploy",
    "get deploy,rs -o name",
    "get all",
    "get deploy web",
    "get deploy web -o yaml",
    "get deploy web -o json",
    "get pdb web-pdb -o yaml",
    "get pods nope",
    "get deploy web nope",
    "get foo",
    "get pods -o bogus",
    "get pods --foo",
    "get pods -z",
    "get pods -o",
    "get",
    "get jobs",
    "get sts",
    "get pvc",
    "get sc",
    "describe",
    "describe po nope",
    "logs",
    "logs nope",
    "logs a b c",
    "logs --tail=x a",
    "scale deploy web",
    "scale --replicas=x deploy/web",
    "scale deploy nope --replicas=2",
    "delete",
    "delete pod nope",
    "gett pods",
    "foo",
    "rollout status deploy/web",
    "rollout status deployment web",
    "rollout history deploy/web",
    "rollout history deploy/nope",
    "rollout undo deploy/web",
    "rollout pause deploy/nope",
    "rollout resume deploy/web",
    "rollout foo deploy/web",
    "get pods -o jsonpath={.items[*].metadata.name}",
    "get deploy web -o jsonpath={.spec.replicas}",
    "get deploy web -o jsonpath={.metadata.labels}",
    "get deploy web -o jsonpath='{.spec.template.spec.containers[0].image}'",
    """get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}'""",
    """get pods -o jsonpath='{.items[0].status.conditions[?(@.type=="Ready")].status}'""",
    """get nodes -o jsonpath='{.items[*].status.addresses[?(@.type=="InternalIP")].address}'""",
    "get pods -o jsonpath={.items[-1:].metadata.name}",
    "get pods -o jsonpath={.items[0:2].metadata.name}",
    "get deploy web -o jsonpath={.nope}",
    "get deploy web -o jsonpath={.status}",
    "get deploy web -o jsonpath=replicas:{.spec.replicas}",
    "get deploy web -o jsonpath={.spec.replicas",
    "get deploy web -o jsonpath",
    "get pods -o jsonpath={.items[*].spec.containers[*].name}",
    "get pods -o jsonpath={..image}",
    "get pods -o jsonpath={.items[0].metadata.ownerReferences[0].kind}",
    "get svc web -o jsonpath={.spec.ports[0].port}",
    "describe pdb web-pdb",
    "describe pdb",
    "describe svc web",
    "describe services",
    "describe svc nope",
]


@pytest.fixture(scope="module")
def paused(
    live_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Kube, Tab]]:
    kube = make_session(live_server, tmp_path_factory.mktemp("terminal"), yaml=CLUSTER, speed=20)
    done = kube.run("rollout", "status", "deploy/web", "--timeout=60s", timeout=90)
    assert done.returncode == 0, done.stderr
    tab = Tab(live_server.url, kube.info["session"])
    tab.pause()
    yield kube, tab
    tab.close()


class Tab:
    """A page's tab on the session, typing into its terminal."""

    def __init__(self, url: str, session: str) -> None:
        self.client = socketio.Client(reconnection=False)
        self.outputs: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.ticks: list[dict[str, Any]] = []
        self.joined = threading.Event()
        self.client.on("terminal:output", self.outputs.append)
        self.client.on("error", self.errors.append)
        self.client.on("snapshot", lambda _: self.joined.set())
        self.client.on("tick", self.ticks.append)
        self.client.connect(url, transports=["websocket"], wait_timeout=10)
        self.client.emit("join", {"session": session})
        assert self.joined.wait(30), self.errors

    def pause(self) -> None:
        self.ticks.clear()
        self.client.emit("clock", {"op": "pause"})
        deadline = time.monotonic() + 30
        while not any(t.get("clock", {}).get("playing") is False for t in self.ticks):
            assert time.monotonic() < deadline, self.ticks[-3:]
            time.sleep(0.05)

    def type(self, line: str, timeout: float = 30, stdin: str | None = None) -> dict[str, Any]:
        before, errors = len(self.outputs), len(self.errors)
        self.client.emit(
            "terminal", {"line": line} if stdin is None else {"line": line, "stdin": stdin}
        )
        deadline = time.monotonic() + timeout
        while len(self.outputs) == before:
            assert len(self.errors) == errors, self.errors[errors:]
            assert time.monotonic() < deadline, f"no answer to {line!r}"
            time.sleep(0.02)
        return self.outputs[before]

    def close(self) -> None:
        self.client.disconnect()


def _kubectl(kube: Kube, line: str) -> tuple[str, str, int]:
    import shlex

    words = shlex.split(line)
    if words[0] in ("gett", "foo"):  # an unknown command: kubectl takes no flag before it
        ran = subprocess.run([KUBECTL, *words], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "KUBECONFIG": str(kube.kubeconfig)}, check=False)  # fmt: skip
    else:
        ran = kube.run(*words)
    stderr = "\n".join(x for x in ran.stderr.split("\n") if "memcache.go" not in x)
    return ran.stdout, stderr, ran.returncode


def paused_tab(live_server: Any, kube: Kube) -> Tab:
    """A page's tab on `kube`'s session, its clock paused (closed again if that fails)."""
    tab = Tab(live_server.url, kube.info["session"])
    try:
        tab.pause()
    except BaseException:
        tab.close()
        raise
    return tab


def rolled_out(live_server: Any, tmp_path: Any) -> tuple[Kube, Tab]:
    """A session of CLUSTER whose Deployment has rolled out, and a tab on it, paused."""
    kube = make_session(live_server, tmp_path, yaml=CLUSTER, speed=20)
    done = kube.run("rollout", "status", "deploy/web", "--timeout=60s", timeout=90)
    assert done.returncode == 0, done.stderr
    return kube, paused_tab(live_server, kube)


def _same_as_kubectl(kube: Kube, tab: Tab, line: str) -> dict[str, Any]:
    answer = tab.type(f"kubectl {line}")
    stdout, stderr, code = _kubectl(kube, line)
    assert (answer["stdout"], answer["stderr"], answer["exitCode"]) == (stdout, stderr, code), line
    return answer


@pytest.mark.parametrize("line", SAME)
def test_the_terminal_prints_what_kubectl_prints(paused: tuple[Kube, Tab], line: str) -> None:
    kube, tab = paused
    answer = tab.type(f"kubectl {line}")
    assert answer["line"] == f"kubectl {line}"
    stdout, stderr, code = _kubectl(kube, line)
    assert (answer["stdout"], answer["stderr"], answer["exitCode"]) == (stdout, stderr, code)


CRASHING_LOGS = """\
apiVersion: playground/v1
kind: Simulation
metadata:
  name: terminal-crash
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo "connecting to database..."; sleep 5; echo "fatal: DB_HOST is not set" >&2; exit 1']
  - name: side
    image: busybox:1.36
    command: [sh, -c, 'echo side up; sleep 3600']
"""


def test_logs_of_a_crashed_container_as_kubectl(live_server: Any, tmp_path: Any) -> None:
    kube = make_session(live_server, tmp_path, yaml=CRASHING_LOGS, speed=20)
    kube.wait_for(lambda: "connecting" in kube.run("logs", "web", "-c", "app", "-p").stdout)
    tab = paused_tab(live_server, kube)
    try:
        for line in ("logs web", "logs web -c app -p", "logs web app --previous", "logs web -c side",
                     "logs pod/web -c app -p --timestamps", "logs web -c app -p --tail=1",
                     "logs web -c nope"):  # fmt: skip
            _same_as_kubectl(kube, tab, line)
    finally:
        tab.close()


def test_writes_from_the_terminal_are_the_sessions_actions(live_server: Any, tmp_path: Any) -> None:
    kube, tab = rolled_out(live_server, tmp_path)
    try:
        answer = tab.type("kubectl scale deploy web --replicas=2")
        assert answer == {
            "line": "kubectl scale deploy web --replicas=2",
            "stdout": "deployment.apps/web scaled\n",
            "stderr": "",
            "exitCode": 0,
        }
        assert kube.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}").stdout == "2"
        # kubectl's own line for the same command, back to 3
        assert (
            kube.run("scale", "deploy/web", "--replicas=3").stdout == "deployment.apps/web scaled\n"
        )
        pod = kube.run("get", "pods", "-o", "name").stdout.split()[0].split("/")[1]
        answer = tab.type(f"kubectl delete pod {pod} --grace-period=5")
        assert answer["stdout"] == f'pod "{pod}" deleted from default namespace\n', answer
        assert answer["exitCode"] == 0
        # the same delete as the page's button: the Pod (nginx stops at once on SIGTERM) is
        # gone and its ReplicaSet has made another, as kubectl sees it too
        names = tab.type("kubectl get pods -o name")
        assert f"pod/{pod}\n" not in names["stdout"] and names["stdout"].count("pod/") == 3
        assert names["stdout"] == kube.run("get", "pods", "-o", "name").stdout
        again = tab.type(f"kubectl delete pod {pod}")
        ran = kube.run("delete", "pod", pod, "--wait=false")
        assert (again["stdout"], again["exitCode"]) == (ran.stdout, ran.returncode)
    finally:
        tab.close()


def test_exec_as_kubectl_and_the_liveness_probe_sees_it(live_server: Any, tmp_path: Any) -> None:
    from tests.kubeapi.test_kubectl import LIVENESS

    kube = make_session(live_server, tmp_path, yaml=LIVENESS, speed=5)
    kube.wait_for(lambda: "Running" in kube.run("get", "pod", "web", "--no-headers").stdout)
    tab = paused_tab(live_server, kube)
    try:
        for line in ("exec web -- cat /tmp/healthy", "exec web -c app -- ls /tmp",
                     "exec web -- sh -c 'echo hi; echo oops >&2; exit 3'", "exec web -c nope -- ls",
                     "exec web", "exec web ls", "exec", "exec nope -- ls", "exec pod/web -- ls /tmp"):  # fmt: skip
            _same_as_kubectl(kube, tab, line)
        assert tab.type("kubectl exec web -- rm /tmp/healthy")["exitCode"] == 0
        gone = tab.type("kubectl exec web -- cat /tmp/healthy")
        assert (gone["stderr"], gone["exitCode"]) == (
            "cat: can't open '/tmp/healthy': No such file or directory\ncommand terminated with exit code 1\n",
            1,
        )
        assert (
            _kubectl(kube, "exec web -- cat /tmp/healthy")[2] == 1
        )  # kubectl sees the same file gone
        tab.client.emit("clock", {"op": "play"})
        kube.wait_for(lambda: json.loads(tab.type("kubectl get pod web -o json")["stdout"])
                      ["status"]["containerStatuses"][0]["restartCount"] > 0)  # fmt: skip
    finally:
        tab.close()


def test_get_watch_streams_what_kubectl_get_w_prints_until_ctrl_c(
    live_server: Any, tmp_path: Any
) -> None:
    kube, tab = rolled_out(live_server, tmp_path)
    real = None
    try:
        real = kube.popen("get", "pods", "-w")
        lines: list[str] = []
        threading.Thread(
            target=lambda: lines.extend(iter(real.stdout.readline, "")), daemon=True
        ).start()
        first = tab.type("kubectl get pods -w")
        assert first["exitCode"] is None and first["stdout"].startswith("NAME ")
        kube.wait_for(lambda: len(lines) == 4)  # the header and three Pods
        assert "".join(lines) == first["stdout"]
        assert kube.run("scale", "deploy/web", "--replicas=2").returncode == 0
        tab.client.emit("clock", {"op": "play"})  # the ReplicaSet controller acts in time

        def shown() -> str:
            return "".join(o["stdout"] for o in tab.outputs if o["line"] == "kubectl get pods -w")

        kube.wait_for(lambda: len(lines) > 4)
        tab.pause()
        kube.wait_for(lambda: shown().count("\n") == len(lines) and len(lines) > 4)
        # AGE (the last column) is each watcher's own poll's moment; the rest is the same

        def no_age(text: str) -> str:
            return re.sub(r" +\S+\n", "\n", text)

        assert no_age(shown()) == no_age("".join(lines)), (shown(), lines)
        assert all(o["exitCode"] is None for o in tab.outputs if o["line"] == "kubectl get pods -w")
        before = len(tab.outputs)
        tab.client.emit("terminal", {"signal": "SIGINT"})
        kube.wait_for(lambda: len(tab.outputs) > before)
        assert tab.outputs[-1] == {
            "line": "kubectl get pods -w",
            "stdout": "",
            "stderr": "",
            "exitCode": 130,
        }
        # the prompt is back: the next line is answered as usual
        assert tab.type("kubectl get deploy web -o name")["stdout"] == "deployment.apps/web\n"
        # and a new watch stops as the tab types another line
        assert tab.type("kubectl get rs -w")["exitCode"] is None
        stopped = tab.type("kubectl version --client")  # the watch's end comes first
        assert stopped == {"line": "kubectl get rs -w", "stdout": "", "stderr": "", "exitCode": 130}
        kube.wait_for(lambda: tab.outputs[-1]["line"] == "kubectl version --client")
        assert tab.outputs[-1]["exitCode"] == 0
    finally:
        if real is not None:
            real.kill()
        tab.close()


SPEAKER = """\
apiVersion: v1
kind: Pod
metadata:
  name: speaker
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "echo one; sleep 4; echo two; sleep 4; echo three; exit 3"]
"""


def test_logs_follow_prints_what_kubectl_logs_f_prints_until_the_container_ends(
    live_server: Any, tmp_path: Any
) -> None:
    kube = make_session(live_server, tmp_path, yaml=SPEAKER, speed=4)
    kube.wait_for(lambda: kube.run("logs", "speaker").stdout.startswith("one\n"))
    tab = paused_tab(live_server, kube)
    try:
        real = kube.popen("logs", "-f", "speaker")
        first = tab.type("kubectl logs -f speaker")
        assert first["exitCode"] is None and first["stdout"].startswith("one\n"), first
        tab.client.emit("clock", {"op": "play"})
        out, err = real.communicate(timeout=90)  # kubectl ends when the container does
        assert (real.returncode, out) == (0, "one\ntwo\nthree\n"), err

        def lines() -> list[dict[str, Any]]:
            return [o for o in tab.outputs if o["line"] == "kubectl logs -f speaker"]

        kube.wait_for(lambda: lines()[-1]["exitCode"] is not None)
        assert "".join(o["stdout"] for o in lines()) == out
        assert lines()[-1]["exitCode"] == 0 and not any(o["stderr"] for o in lines())
        # Ctrl+C stops a follow as it stops a watch: 130, and the prompt is back
        again = tab.type("kubectl logs -f speaker --tail=1")
        assert again["stdout"] == "three\n" and again["exitCode"] in (None, 0)
        if again["exitCode"] is None:  # the container ended: the follow ends by itself
            kube.wait_for(lambda: tab.outputs[-1]["exitCode"] is not None)
        assert tab.type("kubectl get pod speaker -o name")["stdout"] == "pod/speaker\n"
    finally:
        tab.close()


def test_ctrl_c_stops_a_log_follow(live_server: Any, tmp_path: Any) -> None:
    kube = make_session(live_server, tmp_path, yaml=SPEAKER, speed=1)
    kube.wait_for(lambda: kube.run("logs", "speaker").stdout.startswith("one\n"))
    tab = paused_tab(live_server, kube)
    try:
        first = tab.type("kubectl logs -f speaker")
        assert (first["stdout"], first["exitCode"]) == ("one\n", None)
        before = len(tab.outputs)
        tab.client.emit("terminal", {"signal": "SIGINT"})
        kube.wait_for(lambda: len(tab.outputs) > before)
        assert tab.outputs[-1] == {"line": "kubectl logs -f speaker", "stdout": "", "stderr": "",
                                   "exitCode": 130}  # fmt: skip
        assert tab.type("kubectl logs speaker")["stdout"] == "one\n"
    finally:
        tab.close()


def test_rollout_restart_status_history_undo_pause_resume(live_server: Any, tmp_path: Any) -> None:
    kube, tab = rolled_out(live_server, tmp_path)
    try:
        restarted = tab.type("kubectl rollout restart deploy/web")
        assert (restarted["stdout"], restarted["exitCode"]) == (
            "deployment.apps/web restarted\n",
            0,
        )
        # `rollout status` goes on until the new ReplicaSet has taken over, as kubectl's does
        first = tab.type("kubectl rollout status deploy/web")
        assert first["exitCode"] is None and first["stdout"].startswith(
            'Waiting for deployment "web" rollout to finish: '
        ), first
        tab.client.emit("clock", {"op": "play"})

        def status_lines() -> list[dict[str, Any]]:
            return [o for o in tab.outputs if o["line"] == "kubectl rollout status deploy/web"]

        kube.wait_for(lambda: status_lines()[-1]["exitCode"] is not None, timeout=90)
        text = "".join(o["stdout"] for o in status_lines())
        assert text.endswith('deployment "web" successfully rolled out\n'), text
        assert status_lines()[-1]["exitCode"] == 0
        tab.pause()
        _same_as_kubectl(kube, tab, "rollout status deploy/web")
        _same_as_kubectl(kube, tab, "rollout history deploy/web")  # revisions 1 and 2
        undo = tab.type("kubectl rollout undo deploy/web")
        assert (undo["stdout"], undo["exitCode"]) == ("deployment.apps/web rolled back\n", 0), undo
        tab.client.emit("clock", {"op": "play"})
        done = kube.run("rollout", "status", "deploy/web", "--timeout=60s", timeout=90)
        assert done.returncode == 0, done.stderr
        tab.pause()
        _same_as_kubectl(kube, tab, "rollout history deploy/web")  # 2 and 3: 1 came back as 3
        _same_as_kubectl(kube, tab, "rollout undo deploy/web --to-revision=3")  # skipped
        _same_as_kubectl(kube, tab, "rollout undo deploy/web --to-revision=9")
        paused = tab.type("kubectl rollout pause deploy/web")
        assert (paused["stdout"], paused["exitCode"]) == ("deployment.apps/web paused\n", 0)
        _same_as_kubectl(kube, tab, "rollout pause deploy/web")  # already
        _same_as_kubectl(kube, tab, "rollout restart deploy/web")  # refused while paused
        _same_as_kubectl(kube, tab, "rollout undo deploy/web")  # refused while paused
        resumed = tab.type("kubectl rollout resume deploy/web")
        assert (resumed["stdout"], resumed["exitCode"]) == ("deployment.apps/web resumed\n", 0)
        _same_as_kubectl(kube, tab, "rollout resume deploy/web")  # already
    finally:
        tab.close()


def test_cordon_and_uncordon(live_server: Any, tmp_path: Any) -> None:
    kube = make_session(live_server, tmp_path, yaml=CLUSTER, speed=20)
    tab = paused_tab(live_server, kube)
    try:
        _same_as_kubectl(kube, tab, "cordon nope")
        _same_as_kubectl(kube, tab, "cordon")
        _same_as_kubectl(kube, tab, "uncordon node-1")  # already
        assert tab.type("kubectl cordon node-1")["stdout"] == "node/node-1 cordoned\n"
        _same_as_kubectl(kube, tab, "cordon node-1")  # already
        _same_as_kubectl(kube, tab, "get nodes")  # Ready,SchedulingDisabled
        assert tab.type("kubectl uncordon node-1")["stdout"] == "node/node-1 uncordoned\n"
        _same_as_kubectl(kube, tab, "get nodes")
    finally:
        tab.close()


def test_cordon_of_a_pod_scenario_is_refused_as_kubectl_words_it(
    live_server: Any, tmp_path: Any
) -> None:
    kube = make_session(live_server, tmp_path, scenario="plain-pod", speed=20)
    tab = paused_tab(live_server, kube)
    try:
        assert tab.type("kubectl cordon node-1") == {
            "line": "kubectl cordon node-1", "stdout": "",
            "stderr": 'error: unable to cordon node "node-1": patch is not supported on resources of kind "nodes"\n',
            "exitCode": 1,
        }  # fmt: skip
        _same_as_kubectl(kube, tab, "uncordon node-1")  # already: no write asked
    finally:
        tab.close()


def _finished(kube: Kube, tab: Tab, line: str, timeout: float = 90) -> dict[str, Any]:
    """Type a line that may go on (drain's waits) and wait for its end: all it printed."""
    first = tab.type(line)
    if first["exitCode"] is None:
        kube.wait_for(lambda: [o for o in tab.outputs if o["line"] == line][-1]["exitCode"] is not None,
                      timeout=timeout)  # fmt: skip
    mine = [o for o in tab.outputs if o["line"] == line]
    return {"stdout": "".join(o["stdout"] for o in mine), "stderr": "".join(o["stderr"] for o in mine),
            "exitCode": mine[-1]["exitCode"]}  # fmt: skip


def test_drain_held_by_a_pod_disruption_budget_retries_and_times_out_as_kubectl(
    live_server: Any, tmp_path: Any
) -> None:
    kube = make_session(live_server, tmp_path, scenario="drain-with-pdb", speed=10)
    done = kube.run("rollout", "status", "deploy/web", "--timeout=60s", timeout=90)
    assert done.returncode == 0, done.stderr
    tab = Tab(live_server.url, kube.info["session"])
    try:
        tab.pause()  # before the scenario's own drain at 20 s: the budget allows no eviction
        mine = _finished(kube, tab, "kubectl drain node-1 --timeout=7s")
        assert kube.run("uncordon", "node-1").returncode == 0
        real = kube.run("drain", "node-1", "--timeout=7s", timeout=60)
        stderr = "\n".join(x for x in real.stderr.split("\n") if "memcache.go" not in x)
        assert (mine["stdout"], mine["stderr"], mine["exitCode"]) == (
            real.stdout,
            stderr,
            real.returncode,
        )
        assert (
            "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."
            in stderr
        )
        assert "global timeout reached: 7s" in stderr
    finally:
        tab.close()


def test_drain_refuses_what_kubectl_refuses_and_force_evicts_an_unmanaged_pod(
    live_server: Any, tmp_path: Any
) -> None:
    kube = make_session(live_server, tmp_path, scenario="plain-pod", speed=10)
    kube.wait_for(lambda: "node-1" in kube.run("get", "pods", "-o", "wide").stdout)
    tab = paused_tab(live_server, kube)
    try:
        for line in ("drain", "drain nope", "drain node-1", "drain node-1 --timeout=x"):
            _same_as_kubectl(kube, tab, line)  # a Pod scenario: its cordon fails, nothing changes
        tab.client.emit("clock", {"op": "play"})
        assert _finished(kube, tab, "kubectl drain node-1 --force --timeout=60s") == {
            "stdout": "evicting pod default/web\npod/web evicted\nnode/node-1 drained\n",
            "stderr": 'error: unable to cordon node "node-1": patch is not supported on resources of kind '
            '"nodes"\nWarning: deleting Pods that declare no controller: default/web\n',
            "exitCode": 0,
        }  # fmt: skip  (what the real kubectl 1.37 printed for the same drain)
    finally:
        tab.close()


def test_drain_of_a_daemonset_node_as_kubectl(live_server: Any, tmp_path: Any) -> None:
    kube = make_session(live_server, tmp_path, scenario="daemonset-drain", speed=10)
    kube.wait_for(lambda: "node-1" in kube.run("get", "pods", "-A", "-o", "wide").stdout)
    tab = paused_tab(live_server, kube)
    try:
        mine = tab.type("kubectl drain node-1")
        assert kube.run("uncordon", "node-1").returncode == 0
        _, stderr, code = _kubectl(kube, "drain node-1")
        assert (mine["stderr"], mine["exitCode"]) == (stderr, code)
        assert (
            "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/"
            in stderr
        )
    finally:
        tab.close()


def test_describe_service_shows_ready_endpoints_only_as_kubectl(
    live_server: Any, tmp_path: Any
) -> None:
    kube = make_session(live_server, tmp_path, scenario="readiness-endpoints", speed=10)
    tab = paused_tab(live_server, kube)
    try:
        first = _same_as_kubectl(kube, tab, "describe svc web")
        tab.client.emit("clock", {"op": "play"})
        kube.wait_for(lambda: "1/1" in kube.run("get", "pod", "web", "--no-headers").stdout)
        tab.pause()
        ready = _same_as_kubectl(kube, tab, "describe svc web")
        assert re.search(r"Endpoints: +10\.244\.\d+\.\d+:80\n", ready["stdout"]), ready
        assert first["stdout"] != ready["stdout"]
    finally:
        tab.close()


SET_AND_LABEL = [
    "label node node-1 disktype=ssd",
    "label node node-1 disktype=ssd",
    "label node node-1 disktype=hdd",
    "label node node-1 disktype=hdd --overwrite",
    "label node node-1 disktype-",
    "label node node-1 missing-",
    "label nodes/node-9 a=b",
    "label node node-1",
    "label deploy/web tier=front",
    "label node node-1 a=b=c",
    "set image deployment/web nginx=nginx:1.28",
    "set image deployment/web nginx=nginx:1.28",
    "set image deploy web nginx=nginx:1.27",
    "set image deployment/web nosuch=nginx:1.28",
    "set image deployment/nothere nginx=nginx:1.28",
    "set image deployment/web",
    "set image pod/" + "web-0 nginx=x",
    'patch deployment web -p {"spec":{"replicas":4}}',
    'patch deployment web -p {"spec":{"replicas":4}}',
    'patch deployment/web --type=merge -p {"metadata":{"labels":{"team":"a"}}}',
    'patch deployment web --type=json -p [{"op":"replace","path":"/spec/replicas","value":3}]',
    'patch deployment web --type=json -p [{"op":"remove","path":"/spec/nothere"}]',
    "patch deployment web --type=xml -p {}",
    "patch deployment web",
    "patch deployment -p {}",
    'patch node node-1 -p {"metadata":{"labels":{"zone":"b"}}}',
    "patch deployment/nothere -p {}",
]


def test_set_image_and_label_change_the_session_as_kubectl_does(
    live_server: Any, tmp_path: Any
) -> None:
    """Each line in one session typed in the page and in another by the real kubectl: the
    same answers, and the same objects after (both start from the same rolled-out run)."""
    _mine, tab = rolled_out(live_server, tmp_path / "mine")
    theirs, other = rolled_out(live_server, tmp_path / "theirs")
    try:
        for line in SET_AND_LABEL:
            answer = tab.type(f"kubectl {line}")
            stdout, stderr, code = _kubectl(theirs, line)
            assert (answer["stdout"], answer["stderr"], answer["exitCode"]) == (
                stdout, stderr, code), line  # fmt: skip
        for line in (
            "get node node-1 --show-labels",
            "get deploy web -o jsonpath={.spec.template.spec.containers[0].image}",
        ):
            assert (
                tab.type(f"kubectl {line}")["stdout"].split()[-1]
                == _kubectl(theirs, line)[0].split()[-1]
            )
    finally:
        tab.close()
        other.close()


EVENTS = [
    "events",
    "events --types=Warning",
    "events --types=normal,Warning",
    "events --types=Bad",
    "events -A",
    "events --no-headers",
    "events --for deploy/web",
    "events --for pod/nope",
    "events --for web",
    "events -n kube-system",
]


def _without_ages(text: str, column: int) -> list[list[str]]:
    """A table's rows as cells, the age column (`column`) left out: the real kubectl counts
    ages from its machine's clock, the terminal from the paused session's."""
    return [[c for i, c in enumerate(re.split(r"\s{2,}", line.strip())) if i != column]
            for line in text.splitlines()]  # fmt: skip


@pytest.mark.parametrize("line", EVENTS)
def test_kubectl_events_prints_what_kubectl_prints(paused: tuple[Kube, Tab], line: str) -> None:
    kube, tab = paused
    answer = tab.type(f"kubectl {line}")
    stdout, stderr, code = _kubectl(kube, line)
    column = 1 if "-A" in line.split() else 0
    assert _without_ages(answer["stdout"], column) == _without_ages(stdout, column), line
    assert (answer["stderr"], answer["exitCode"]) == (stderr, code), line
    if stdout:
        assert len(answer["stdout"].splitlines()) == len(stdout.splitlines())


OBJECTS = "---".join(d for d in CLUSTER.split("---") if "playground/v1" not in d)
NEW_IMAGE = CLUSTER.split("---")[0].replace("nginx:1.27", "nginx:1.28")
APPLIED = [
    ("apply -f -", NEW_IMAGE),  # a changed template: configured (a rollout)
    ("apply -f -", NEW_IMAGE),  # again: unchanged
    ("apply -f -", OBJECTS),  # the whole set: each object's line, and a warning each
    ("apply -f -", ""),  # nothing
    ("apply", None),
]


def test_kubectl_apply_from_a_here_document_prints_what_kubectl_prints(
    live_server: Any, tmp_path: Any
) -> None:
    """`kubectl apply -f - <<EOF` in the page (its lines the command's stdin) against one
    session, the real kubectl reading the same text on its stdin against another made the
    same way: the same lines, and the rollout it starts."""
    _mine, tab = rolled_out(live_server, tmp_path / "mine")
    theirs, other = rolled_out(live_server, tmp_path / "theirs")
    try:
        for line, text in APPLIED:
            typed = f"kubectl {line} <<EOF" if text is not None else f"kubectl {line}"
            answer = tab.type(typed, stdin=text)
            ran = subprocess.run([KUBECTL, *line.split()], input=text or "", capture_output=True, text=True,
                                 timeout=60, check=False,
                                 env={**os.environ, "KUBECONFIG": str(theirs.kubeconfig)})  # fmt: skip
            stderr = "\n".join(x for x in ran.stderr.split("\n") if "memcache.go" not in x)
            assert (answer["stdout"], answer["stderr"], answer["exitCode"]) == (
                ran.stdout, stderr, ran.returncode), line  # fmt: skip
        image = "get deploy web -o jsonpath={.spec.template.spec.containers[0].image}"
        assert (
            tab.type(f"kubectl {image}")["stdout"] == _kubectl(theirs, image)[0] == "nginx:1.27"
        )  # the last apply went back
    finally:
        tab.close()
        other.close()
