"""Real manifests, no Simulation document: containers do what their command says.

Each documented case below is a manifest written in the style of the Kubernetes
documentation's own example (the page it checks is named), pasted unchanged into the
engine; the test checks the statuses, events (reason, type, exact message), restart counts
and timings that the page shows, as far as the current release prints them.

| test                                      | documentation page / example            | checks                                   |
|-------------------------------------------|-----------------------------------------|------------------------------------------|
| test_docs_exec_liveness                   | liveness probes, exec-liveness.yaml     | Unhealthy x3 text, Killing, 1 restart     |
| test_docs_http_liveness                   | liveness probes, http-liveness.yaml     | 200 for 10 s, then 500, restart          |
| test_docs_tcp_liveness_readiness          | liveness probes, tcp-liveness-readiness | Ready after the first tcp probe           |
| test_docs_grpc_liveness                   | liveness probes, grpc-liveness.yaml     | no failure against etcd                  |
| test_docs_startup_probe                   | startup probes (liveness-port snippet)  | started, then liveness takes over        |
| test_docs_lifecycle_handlers              | lifecycle-events.yaml                   | postStart file, preStop nginx -s quit    |
| test_docs_init_containers                 | init containers, myapp-pod              | Init:0/2 until the Services exist        |
| test_docs_memory_limit_oom                | memory-request-limit-2.yaml             | OOMKilled 137, CrashLoopBackOff          |
| test_docs_memory_within_limit             | memory-request-limit.yaml               | Running, no restarts                     |
| test_docs_command_and_args                | define-command-argument, commands.yaml  | printenv output, Completed               |
| test_docs_termination_message             | termination-message, termination.yaml   | message "Sleep expired"                  |
"""

from __future__ import annotations

import textwrap

from tests.unit.engine_support import (
    container_status,
    events,
    last_container_status,
    simulate,
    transitions,
)
from webapp.engine import Simulation
from webapp.kubectl import pod_columns


def pod(body: str) -> str:
    return textwrap.dedent(body).strip("\n") + "\n"


def started_at(sim: Simulation, name: str, index: int = 0) -> float:
    return [t["t"] for t in transitions(sim, field="runtime", after="started", container=name)][
        index
    ]


def log_texts(sim: Simulation, name: str, previous: bool = False) -> list[str]:
    return [text for _ms, _stream, text in sim.container_logs(name, previous=previous) or []]


EXEC_LIVENESS = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      labels:
        test: liveness
      name: liveness-exec
    spec:
      containers:
      - name: liveness
        image: registry.k8s.io/busybox
        args:
        - /bin/sh
        - -c
        - touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600
        livenessProbe:
          exec:
            command:
            - cat
            - /tmp/healthy
          initialDelaySeconds: 5
          periodSeconds: 5
    """)


def test_docs_exec_liveness() -> None:
    sim = simulate(EXEC_LIVENESS, 57)
    start = started_at(sim, "liveness")
    (unhealthy,) = events(sim, "Unhealthy")
    assert unhealthy["type"] == "Warning"
    assert unhealthy["message"] == (
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"
    )
    assert unhealthy["count"] == 3
    failures = [t["t"] for t in transitions(sim, field="probe.liveness", after="failure")]
    assert start + 30 < failures[0] <= start + 35  # the first probe after rm -f
    assert failures == [failures[0], failures[0] + 5, failures[0] + 10]
    (killing,) = events(sim, "Killing")
    assert killing["message"] == "Container liveness failed liveness probe, will be restarted"
    assert transitions(sim, field="signal")[0]["t"] == failures[-1]
    # PID 1 is `sleep 600` (busybox execs its last command): SIGTERM is ignored, so the
    # container stops only at the end of the 30 s grace period, and restarts then.
    sim.advance(30)
    assert pod_columns(sim.pod(), sim.wall_time())["RESTARTS"].startswith("1")
    status = container_status(sim, "liveness")
    assert status["lastState"]["terminated"]["exitCode"] == 137
    assert "running" in status["state"]
    # (+ the image check: the untagged image is pulled again with policy Always)
    assert failures[-1] + 30 <= started_at(sim, "liveness", 1) < failures[-1] + 32
    # the new process made the file again: the probes pass for its first 30 s
    restart = started_at(sim, "liveness", 1)
    sim.advance(30)
    after = [t for t in transitions(sim, field="probe.liveness") if t["t"] > restart]
    assert after and all(t["after"] == "success" for t in after if t["t"] <= restart + 30)


HTTP_LIVENESS = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      labels:
        test: liveness
      name: liveness-http
    spec:
      containers:
      - name: liveness
        image: registry.k8s.io/e2e-test-images/agnhost:2.40
        args:
        - liveness
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8080
            httpHeaders:
            - name: Custom-Header
              value: Awesome
          initialDelaySeconds: 3
          periodSeconds: 3
    """)


def test_docs_http_liveness() -> None:
    sim = simulate(HTTP_LIVENESS, 40)
    start = started_at(sim, "liveness")
    runs = [(t["t"], t["after"]) for t in transitions(sim, field="probe.liveness")]
    failed = [t for t, result in runs if result == "failure"]
    ok = [t for t, result in runs if result == "success" and t < failed[0]]
    assert ok and all(t - start <= 10 for t in ok)  # healthy for 10 s after the start
    assert all(t - start > 10 for t in failed[:3])
    assert (
        events(sim, "Unhealthy")[0]["message"]
        == "Liveness probe failed: HTTP probe failed with statuscode: 500"
    )
    assert (
        events(sim, "Killing")[0]["message"]
        == "Container liveness failed liveness probe, will be restarted"
    )
    # a Go program without a SIGTERM handler as PID 1 exits 2 at once: the restart is
    # immediate, and the new process is healthy for another 10 s
    status = container_status(sim, "liveness")
    assert status["restartCount"] >= 1
    assert status["lastState"]["terminated"]["exitCode"] == 2
    assert started_at(sim, "liveness", 1) == failed[2]


TCP_LIVENESS = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: goproxy
      labels:
        app: goproxy
    spec:
      containers:
      - name: goproxy
        image: registry.k8s.io/goproxy:0.1
        ports:
        - containerPort: 8080
        readinessProbe:
          tcpSocket:
            port: 8080
          initialDelaySeconds: 15
          periodSeconds: 10
        livenessProbe:
          tcpSocket:
            port: 8080
          initialDelaySeconds: 15
          periodSeconds: 10
    """)


def test_docs_tcp_liveness_readiness() -> None:
    sim = simulate(TCP_LIVENESS, 15)
    assert container_status(sim, "goproxy")["ready"] is False
    sim.advance(15)
    assert container_status(sim, "goproxy")["ready"] is True
    assert events(sim, "Unhealthy") == []
    sim.advance(300)
    assert container_status(sim, "goproxy")["restartCount"] == 0


GRPC_LIVENESS = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: etcd-with-grpc
    spec:
      containers:
      - name: etcd
        image: registry.k8s.io/etcd:3.5.1-0
        command: [ "/usr/local/bin/etcd", "--data-dir",  "/var/lib/etcd", "--listen-client-urls", "http://0.0.0.0:2379", "--advertise-client-urls", "http://127.0.0.1:2379", "--log-level", "debug"]
        ports:
        - containerPort: 2379
        livenessProbe:
          grpc:
            port: 2379
          initialDelaySeconds: 10
    """)


def test_docs_grpc_liveness() -> None:
    sim = simulate(GRPC_LIVENESS, 120)
    assert transitions(sim, field="probe.liveness", after="success")
    assert events(sim, "Unhealthy") == []
    wrong = simulate(
        GRPC_LIVENESS.replace(
            "port: 2379\n      initialDelaySeconds", "port: 2380\n      initialDelaySeconds"
        ),
        40,
    )
    assert events(wrong, "Unhealthy")[0]["message"].startswith(
        "Liveness probe failed: error: health rpc probe failed"
    )


STARTUP = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: startup
    spec:
      containers:
      - name: app
        image: registry.k8s.io/e2e-test-images/agnhost:2.40
        args: [liveness]
        ports:
        - name: liveness-port
          containerPort: 8080
        livenessProbe:
          httpGet:
            path: /started
            port: liveness-port
          failureThreshold: 1
          periodSeconds: 10
        startupProbe:
          httpGet:
            path: /healthz
            port: liveness-port
          failureThreshold: 30
          periodSeconds: 10
    """)


def test_docs_startup_probe() -> None:
    sim = simulate(STARTUP, 60)
    assert transitions(sim, field="probe.startup", after="success")
    assert container_status(sim)["started"] is True
    liveness = transitions(sim, field="probe.liveness")
    assert liveness and liveness[0]["t"] >= transitions(sim, field="probe.startup")[0]["t"]
    assert events(sim, "Unhealthy") == []


LIFECYCLE = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: lifecycle-demo
    spec:
      containers:
      - name: lifecycle-demo-container
        image: nginx
        lifecycle:
          postStart:
            exec:
              command: ["/bin/sh", "-c", "echo Hello from the postStart handler > /usr/share/message"]
          preStop:
            exec:
              command: ["/bin/sh","-c","nginx -s quit; while killall -0 nginx; do sleep 1; done"]
    """)


def test_docs_lifecycle_handlers() -> None:
    sim = simulate(LIFECYCLE, 20)
    name = "lifecycle-demo-container"
    instance = sim.kubelet.by_name[name].newest
    assert instance.process.fs.read("/usr/share/message") == "Hello from the postStart handler\n"
    assert [t["after"] for t in transitions(sim, field="hook.postStart")] == [
        "running",
        "succeeded",
    ]
    sim.act({"action": "delete"})
    sim.advance(5)
    # nginx -s quit: SIGQUIT to PID 1, a graceful exit 0; the kernel then kills the exec'd
    # shell (137), so the hook fails, and no stop signal is needed any more
    assert [e["message"] for e in events(sim, "FailedPreStopHook")] == ["PreStopHook failed"]
    assert transitions(sim, field="signal") == []
    terminated = last_container_status(sim, name)["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert sim.pod() is None


INIT_CONTAINERS = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: myapp-pod
      labels:
        app.kubernetes.io/name: MyApp
    spec:
      containers:
      - name: myapp-container
        image: busybox:1.28
        command: ['sh', '-c', 'echo The app is running! && sleep 3600']
      initContainers:
      - name: init-myservice
        image: busybox:1.28
        command: ['sh', '-c', "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done"]
      - name: init-mydb
        image: busybox:1.28
        command: ['sh', '-c', "until nslookup mydb.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for mydb; sleep 2; done"]
    """)
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  ports:\n  - protocol: TCP\n    port: 80\n    targetPort: {port}\n"


def test_docs_init_containers() -> None:
    sim = simulate(INIT_CONTAINERS, 60)
    assert pod_columns(sim.pod(), sim.wall_time())["STATUS"] == "Init:0/2"
    assert log_texts(sim, "init-myservice")[3:5] == [
        "nslookup: can't resolve 'myservice.default.svc.cluster.local'",
        "waiting for myservice",
    ]
    sim.act({"action": "apply", "yaml": SERVICE.format(name="myservice", port=9376)})
    sim.advance(5)
    assert pod_columns(sim.pod(), sim.wall_time())["STATUS"] == "Init:1/2"
    sim.act({"action": "apply", "yaml": SERVICE.format(name="mydb", port=9377)})
    sim.advance(10)
    assert pod_columns(sim.pod(), sim.wall_time())["STATUS"] == "Running"
    assert log_texts(sim, "myapp-container") == ["The app is running!"]


MEMORY = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: memory-demo-2
      namespace: mem-example
    spec:
      containers:
      - name: memory-demo-2-ctr
        image: polinux/stress
        resources:
          requests:
            memory: "50Mi"
          limits:
            memory: "100Mi"
        command: ["stress"]
        args: ["--vm", "1", "--vm-bytes", "250M", "--vm-hang", "1"]
    """)


def test_docs_memory_limit_oom() -> None:
    sim = simulate(MEMORY, 60)
    status = container_status(sim, "memory-demo-2-ctr")
    terminated = status["lastState"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("OOMKilled", 137)
    assert status["restartCount"] >= 2
    sim.advance(60)
    assert pod_columns(sim.pod(), sim.wall_time())["STATUS"] in ("CrashLoopBackOff", "OOMKilled")


def test_docs_memory_within_limit() -> None:
    text = MEMORY.replace('memory: "50Mi"', 'memory: "100Mi"', 1).replace(
        'memory: "100Mi"\n    command', 'memory: "200Mi"\n    command'
    )
    text = text.replace('"250M"', '"150M"')
    assert 'memory: "200Mi"' in text
    sim = simulate(text, 120)
    status = container_status(sim, "memory-demo-2-ctr")
    assert "running" in status["state"] and status["restartCount"] == 0


COMMANDS = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: command-demo
      labels:
        purpose: demonstrate-command
    spec:
      containers:
      - name: command-demo-container
        image: debian
        command: ["printenv"]
        args: ["HOSTNAME", "KUBERNETES_PORT"]
      restartPolicy: OnFailure
    """)


def test_docs_command_and_args() -> None:
    sim = simulate(COMMANDS, 30)
    assert log_texts(sim, "command-demo-container") == ["command-demo", "tcp://10.96.0.1:443"]
    terminated = last_container_status(sim, "command-demo-container")["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert sim.pod()["status"]["phase"] == "Succeeded"


TERMINATION = pod("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: termination-demo
    spec:
      containers:
      - name: termination-demo-container
        image: debian
        command: ["/bin/sh"]
        args: ["-c", "sleep 10 && echo Sleep expired > /dev/termination-log"]
    """)


def test_docs_termination_message() -> None:
    sim = simulate(TERMINATION, 16)
    status = container_status(sim, "termination-demo-container")
    terminated = status["lastState"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"], terminated["message"]) == (
        0, "Completed", "Sleep expired\n",
    )  # fmt: skip
    assert list(terminated) == [
        "exitCode",
        "reason",
        "message",
        "startedAt",
        "finishedAt",
        "containerID",
    ]


def test_fallback_to_logs_on_error() -> None:
    text = TERMINATION.replace(
        'args: ["-c", "sleep 10 && echo Sleep expired > /dev/termination-log"]',
        'args: ["-c", "echo starting; echo failed: no config >&2; exit 3"]\n    terminationMessagePolicy: FallbackToLogsOnError',
    )
    sim = simulate(text, 8)
    terminated = container_status(sim, "termination-demo-container")["lastState"]["terminated"]
    assert terminated["message"] == "starting\nfailed: no config\n"


# -- stopping: what the program really does with the stop signal ------------------------


def single(container: str, seconds: float) -> Simulation:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n"
        + textwrap.indent(textwrap.dedent(container).strip("\n"), "  ")
        + "\n"
    )
    return simulate(text, seconds)


def test_deleting_nginx_ends_with_sigquit_and_exit_0() -> None:
    sim = single("- name: nginx\n  image: nginx:1.27\n", 20)
    sim.act({"action": "delete"})
    sim.advance(1)
    (signal,) = transitions(sim, field="signal")
    assert (signal["after"], signal["t"]) == ("SIGQUIT", 20.0)
    terminated = last_container_status(sim, "nginx")["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert sim.pod() is None and sim.pod_versions[-1][2]["status"]["phase"] == "Succeeded"
    assert log_texts(sim, "nginx")[-1].endswith("[notice] 1#1: exit")


def test_shell_as_pid1_waits_the_whole_grace_period() -> None:
    sim = single(
        '- name: worker\n  image: busybox:1.36\n  command: ["sh", "-c", "echo working; sleep 3600"]\n',
        20,
    )
    sim.act({"action": "delete"})
    sim.advance(29)
    assert sim.pod() is not None
    sim.advance(2)
    terminated = last_container_status(sim, "worker")["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (137, "Error")
    assert transitions(sim, field="signal", after="SIGKILL")[0]["t"] == 50.0


def test_trap_in_the_script_exits_within_the_grace_period() -> None:
    command = "trap 'echo draining; sleep 3; exit 0' TERM; sleep 3600 & wait"
    sim = single(f'- name: api\n  image: busybox:1.36\n  command: ["sh", "-c", "{command}"]\n', 20)
    sim.act({"action": "delete"})
    sim.advance(5)
    terminated = last_container_status(sim, "api")["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert sim.pod_versions[-1][0] == 23.0
    assert log_texts(sim, "api") == ["draining"]


def test_lifecycle_stop_signal_wins_over_the_image() -> None:
    sim = single("- name: nginx\n  image: nginx:1.27\n  lifecycle:\n    stopSignal: SIGTERM\n", 20)
    sim.act({"action": "delete"})
    sim.advance(1)
    assert transitions(sim, field="signal")[0]["after"] == "SIGTERM"
    assert last_container_status(sim, "nginx")["state"]["terminated"]["exitCode"] == 0


def test_busybox_without_a_command_restarts_for_ever() -> None:
    sim = single("- name: box\n  image: busybox\n", 120)
    status = container_status(sim, "box")
    assert status["lastState"]["terminated"]["reason"] == "Completed"
    assert status["restartCount"] >= 3
    assert pod_columns(sim.pod(), sim.wall_time())["STATUS"] in ("CrashLoopBackOff", "Completed")


def test_missing_shell_is_a_start_error_with_back_off() -> None:
    sim = single('- name: app\n  image: busybox:1.36\n  command: ["bash", "-c", "echo hi"]\n', 30)
    failed = [e["message"] for e in events(sim, "Failed")]
    assert failed and failed[0] == (
        "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
        'failed: runc create failed: unable to start container process: exec: "bash": '
        "executable file not found in $PATH: unknown"
    )
    status = container_status(sim, "app")
    terminated = status["lastState"]["terminated"] or status["state"].get("terminated")
    assert (terminated["reason"], terminated["exitCode"]) == ("StartError", 128)
    assert events(sim, "Started") == []


# -- probe handlers against the model ----------------------------------------------------


def probed(probe: str, command: str = '["sleep", "3600"]', seconds: float = 20) -> Simulation:
    container = f"- name: app\n  image: busybox:1.36\n  command: {command}\n  ports: [{{containerPort: 8080}}]\n"
    return single(
        container + textwrap.indent(textwrap.dedent(probe).strip("\n"), "  ") + "\n", seconds
    )


def test_exec_probe_timeout_message() -> None:
    sim = probed(
        'livenessProbe: {exec: {command: ["sh", "-c", "sleep 5"]}, timeoutSeconds: 1, periodSeconds: 5}'
    )
    assert events(sim, "Unhealthy")[0]["message"] == (
        'Liveness probe failed: command timed out: "sh -c sleep 5" timed out after 1s'
    )


def test_exec_probe_of_a_missing_binary_errors() -> None:
    sim = probed('readinessProbe: {exec: {command: ["curl", "-f", "localhost"]}, periodSeconds: 5}')
    message = events(sim, "Unhealthy")[0]["message"]
    assert message.startswith(
        "Readiness probe errored and resulted in unknown state: rpc error: code = Unknown desc = failed to exec in container"
    )
    assert message.endswith('exec: "curl": executable file not found in $PATH: unknown')


def test_http_probe_refused_and_status_texts() -> None:
    sim = probed("readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}")
    pod_ip = sim.pod()["status"]["podIP"]
    assert events(sim, "Unhealthy")[0]["message"] == (
        f'Readiness probe failed: Get "http://{pod_ip}:8080/healthz": dial tcp {pod_ip}:8080: connect: connection refused'
    )
    served = probed(
        "readinessProbe: {httpGet: {path: /missing, port: 8000}, periodSeconds: 5}",
        command='["sh", "-c", "cd /tmp && httpd -f -p 8000"]',
    )
    assert (
        events(served, "Unhealthy")[0]["message"]
        == "Readiness probe failed: HTTP probe failed with statuscode: 404"
    )


def test_tcp_probe_against_a_listening_nc() -> None:
    sim = probed(
        "livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 5}",
        command='["sh", "-c", "while true; do nc -l -p 8080; done"]',
        seconds=60,
    )
    assert events(sim, "Unhealthy") == []
    assert len(transitions(sim, field="probe.liveness", after="success")) >= 10


def test_a_sidecar_port_answers_the_apps_probe() -> None:
    text = textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: web}
        spec:
          initContainers:
          - name: proxy
            image: python:3.12-slim
            restartPolicy: Always
            command: [python3, -m, http.server, "9000"]
          containers:
          - name: app
            image: busybox:1.36
            command: [sleep, infinity]
            readinessProbe: {httpGet: {path: /, port: 9000}, periodSeconds: 5}
        """)
    sim = simulate(text, 60)
    assert container_status(sim, "app")["ready"] is True


def test_set_probe_still_overrides_the_model() -> None:
    sim = probed(
        "livenessProbe: {exec: {command: [cat, /nope]}, periodSeconds: 5, failureThreshold: 100}"
    )
    assert events(sim, "Unhealthy")
    sim.act({"action": "set-probe", "container": "app", "probe": "liveness", "healthy": True})
    before = len(transitions(sim, field="probe.liveness", after="failure"))
    sim.advance(30)
    assert len(transitions(sim, field="probe.liveness", after="failure")) == before
    (override,) = transitions(sim, field="health.liveness")
    assert "set-probe" in override["cause"]


def test_empty_dir_outlives_a_restart_the_container_layer_does_not() -> None:
    text = textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: web}
        spec:
          containers:
          - name: app
            image: busybox:1.36
            command: [sh, -c, "echo start >> /cache/starts; echo x >> /tmp/own; cat /cache/starts /tmp/own; sleep 5; exit 1"]
            volumeMounts: [{name: cache, mountPath: /cache}]
          volumes: [{name: cache, emptyDir: {}}]
        """)
    sim = simulate(text, 30)
    starts = container_status(sim, "app")["restartCount"] + 1
    assert starts >= 2
    assert log_texts(sim, "app") == ["start"] * starts + ["x"]
    assert log_texts(sim, "app", previous=True) == ["start"] * (starts - 1) + ["x"]
