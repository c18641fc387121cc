"""Where naive simulators go wrong (KUBERNETES-SEMANTICS §12), one test per pitfall."""

from __future__ import annotations

import itertools

from tests.unit.engine_support import (
    APP,
    condition,
    container_status,
    events,
    last_container_status,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    state_changes,
    state_of,
    transitions,
)
from webapp.kubectl import pod_columns

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n  busybox:1.36: {pullSeconds: 1}\n"


def crash_loop(extra: str = "", exit_after: float = 5) -> str:
    return scenario(
        pod_yaml(APP, spec_extra=extra),
        simulation_doc(
            f"containers:\n  app: {{exitAfterSeconds: {exit_after}, exitCode: 1}}\n" + IMAGES
        ),
    )


def restart_times(sim) -> list[float]:
    return [t["t"] for t in transitions(sim, field="runtime", after="started")]


def exit_times(sim) -> list[float]:
    return [t["t"] for t in transitions(sim, field="runtime", after="exited")]


def test_first_restart_after_crash_is_immediate():
    sim = simulate(crash_loop(), 10)
    starts, exits = restart_times(sim), exit_times(sim)
    assert exits[0] == 8.0
    assert starts[1] == exits[0]


def test_crash_loop_gaps_double_from_finished_at_up_to_five_minutes():
    sim = simulate(crash_loop(), 1800)
    starts, exits = restart_times(sim), exit_times(sim)
    gaps = [start - finished for finished, start in zip(exits, starts[1:], strict=False)]
    assert gaps[:8] == [0, 10, 20, 40, 80, 160, 300, 300]


def test_crash_loop_backoff_resets_after_ten_minutes_of_running():
    text = scenario(pod_yaml(APP), simulation_doc(IMAGES))
    sim = simulate(text, 10)
    for _ in range(3):  # crashes at 10, 10 (restart immediate), +10 s backoff
        sim.act({"action": "crash", "container": "app"})
        sim.advance(30)
    sim.advance(700)  # runs for more than 2 × 300 s
    sim.act({"action": "crash", "container": "app"})
    finished = sim.now
    sim.advance(1)
    assert restart_times(sim)[-1] == finished  # immediate again: the backoff expired


def test_crash_loop_backoff_waiting_message_names_the_window():
    sim = simulate(crash_loop(), 40)
    waiting = container_status(sim)["state"]["waiting"]
    assert waiting["reason"] == "CrashLoopBackOff"
    assert waiting["message"] == (
        f"back-off 20s restarting failed container=app pod=web_default({sim.uid})"
    )
    backoff = events(sim, "BackOff")[0]
    assert backoff["type"] == "Warning"
    assert backoff["message"] == (
        f"Back-off restarting failed container app in pod web_default({sim.uid})"
    )


def test_phase_stays_running_in_crash_loop_backoff():
    sim = simulate(crash_loop(), 40)
    assert state_of(sim) == ("waiting", "CrashLoopBackOff")
    assert sim.pod()["status"]["phase"] == "Running"
    status = container_status(sim)
    assert status["lastState"]["terminated"]["exitCode"] == 1
    assert status["lastState"]["terminated"]["reason"] == "Error"
    assert status["restartCount"] == 2  # exits at 8 (restart at once), 13 (+10 s), 28 (+20 s)


def test_node_loss_keeps_phase_running_and_flips_ready():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 10)
    sim.act({"action": "node-down", "node": "node-1"})
    sim.advance(49)
    assert condition(sim, "Ready")["status"] == "True"
    sim.advance(1)
    assert condition(sim, "Ready")["status"] == "False"
    assert sim.pod()["status"]["phase"] == "Running"
    # MarkPodsNotReady flips only the Ready condition: containerStatuses keep ready=true,
    # so kubectl still prints READY 1/1 while the Pod is out of the endpoints.
    assert container_status(sim)["ready"] is True
    assert pod_columns(sim.pod(), sim.wall_time())["READY"] == "1/1"
    assert events(sim, "NodeNotReady")[0]["message"] == "Node is not ready"
    node = next(n for n in sim.nodes() if n["metadata"]["name"] == "node-1")
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["message"]) == (
        "Unknown",
        "Kubelet stopped posting node status.",
    )


def test_node_loss_evicts_after_toleration_and_stays_terminating():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 10)
    sim.act({"action": "node-down", "node": "node-1"})
    sim.advance(349)
    assert "deletionTimestamp" not in sim.pod()["metadata"]
    sim.advance(1)
    assert "deletionTimestamp" in sim.pod()["metadata"]
    sim.advance(3600)
    assert sim.pod() is not None
    assert sim.pod()["status"]["phase"] == "Running"
    sim.act({"action": "node-up", "node": "node-1"})
    sim.advance(5)
    assert sim.pod() is None


def test_prestop_counts_against_grace_and_sigkill_comes_at_grace_plus_two():
    containers = """\
- name: app
  image: nginx:1.27
  lifecycle:
    preStop:
      exec: {command: [sleep, "60"]}
"""
    doc = "containers:\n  app:\n    ignoreSigterm: true\n    hooks:\n      preStop: {seconds: 60}\n"
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc + IMAGES)), 10)
    sim.act({"action": "delete"})
    sim.advance(100)
    sigterm = transitions(sim, field="signal", after="SIGQUIT")[0]  # nginx's STOPSIGNAL
    sigkill = transitions(sim, field="signal", after="SIGKILL")[0]
    assert (sigterm["t"], sigkill["t"]) == (40.0, 42.0)
    assert (sigterm["stage"], sigterm["step"], sigkill["step"]) == (5, "sigterm", "sigkill")
    assert last_container_status(sim)["state"]["terminated"]["exitCode"] == 137


def test_short_prestop_leaves_the_rest_of_the_grace_for_sigterm():
    containers = """\
- name: app
  image: nginx:1.27
  lifecycle:
    preStop:
      exec: {command: [sleep, "5"]}
"""
    doc = "containers:\n  app:\n    sigtermSeconds: 3\n    hooks:\n      preStop: {seconds: 5}\n"
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc + IMAGES)), 10)
    sim.act({"action": "delete", "gracePeriodSeconds": 10})
    sim.advance(60)
    assert transitions(sim, field="signal", after="SIGQUIT")[0]["t"] == 15.0
    assert not transitions(sim, field="signal", after="SIGKILL")
    assert last_container_status(sim)["state"]["terminated"]["exitCode"] == 143
    assert sim.pod_versions[-1][1] == "DELETED" and sim.pod_versions[-1][0] == 18.0


def test_poststart_blocks_next_container_pull():
    containers = """\
- name: app
  image: nginx:1.27
  lifecycle:
    postStart:
      exec: {command: [sh, -c, "sleep 5"]}
- name: second
  image: busybox:1.36
"""
    doc = "containers:\n  app:\n    hooks:\n      postStart: {seconds: 5}\n"
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc + IMAGES)), 3.5)
    assert state_of(sim, "app") == ("waiting", "ContainerCreating")  # hook still running
    pulls = [e for e in events(sim, "Pulling") if "busybox" in e["message"]]
    assert pulls == []
    sim.advance(10)
    second_pull = transitions(sim, field="image", container="second", after="pulling")[0]
    assert second_pull["t"] == 8.0  # started at 3, hook returned at 8
    assert state_changes(sim, "app")[-1] == (9.0, "running", None)


def test_failing_poststart_kills_and_restarts_with_its_events():
    containers = """\
- name: app
  image: nginx:1.27
  lifecycle:
    postStart:
      exec: {command: [sh, -c, "exit 1"]}
"""
    doc = "containers:\n  app:\n    hooks:\n      postStart: {seconds: 1, fails: true}\n"
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc + IMAGES)), 30)
    assert events(sim, "FailedPostStartHook")[0]["message"] == "PostStartHook failed"
    assert events(sim, "FailedPostStartHook")[0]["type"] == "Warning"
    assert events(sim, "Killing")[0]["message"] == "FailedPostStartHook"
    assert ("waiting", "PostStartHookError") in [
        (state, reason) for _, state, reason in state_changes(sim)
    ]


def test_app_containers_wait_with_pod_initializing_when_init_containers_exist():
    init = "- name: setup\n  image: busybox:1.36\n"
    doc = "containers:\n  setup: {exitAfterSeconds: 5}\n" + IMAGES
    sim = simulate(scenario(pod_yaml(APP, init=init), simulation_doc(doc)), 4)
    assert state_of(sim, "app") == ("waiting", "PodInitializing")
    assert state_of(sim, "setup") == ("running", None)
    sim.advance(3)  # setup done at 7; the app image is being pulled
    assert state_of(sim, "setup") == ("terminated", "Completed")
    assert state_of(sim, "app") == ("waiting", "PodInitializing")


def test_app_container_without_init_containers_waits_with_container_creating():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 2)
    assert state_of(sim) == ("waiting", "ContainerCreating")


def test_image_pull_backoff_event_is_normal():
    text = scenario(
        pod_yaml("- name: app\n  image: nginx:nope\n"),
        simulation_doc("images:\n  nginx:nope: {exists: false, pullSeconds: 1}\n"),
    )
    sim = simulate(text, 60)
    backoff = events(sim, "BackOff")[0]
    assert (backoff["type"], backoff["message"]) == (
        "Normal",
        'Back-off pulling image "nginx:nope"',
    )
    failed = [e["message"] for e in events(sim, "Failed")]
    assert failed[0].startswith('Failed to pull image "nginx:nope": rpc error: code = NotFound')
    assert "Error: ErrImagePull" in failed and "Error: ImagePullBackOff" in failed
    reasons = [reason for _, state, reason in state_changes(sim) if state == "waiting"]
    assert reasons[:3] == ["ContainerCreating", "ErrImagePull", "ImagePullBackOff"]


def test_image_pull_backoff_window_is_measured_from_the_failed_pull():
    text = scenario(
        pod_yaml("- name: app\n  image: nginx:nope\n"),
        simulation_doc("images:\n  nginx:nope: {exists: false, pullSeconds: 1}\n"),
    )
    sim = simulate(text, 200)
    pulls = [t["t"] for t in transitions(sim, field="image", after="failed")]
    gaps = [b - a for a, b in itertools.pairwise(pulls)]
    assert gaps[0] >= 10 and gaps[1] >= 20 and gaps[2] >= 40


def test_probe_first_run_is_on_first_tick_after_initial_delay():
    containers = """\
- name: app
  image: nginx:1.27
  livenessProbe:
    httpGet: {path: /healthz, port: 80}
    initialDelaySeconds: 5
    periodSeconds: 10
"""
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(IMAGES)), 45)
    runs = [t["t"] for t in transitions(sim, field="probe.liveness")]
    # worker ticks at 0, 10, 20, …; the container started at 3, so 8 is the earliest allowed
    assert runs[:3] == [10.0, 20.0, 30.0]


def test_probe_initial_results_readiness_failure_until_first_success():
    containers = """\
- name: app
  image: nginx:1.27
  readinessProbe:
    httpGet: {path: /, port: 80}
    initialDelaySeconds: 15
"""
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(IMAGES)), 12)
    assert state_of(sim) == ("running", None)
    assert container_status(sim)["ready"] is False
    assert container_status(sim)["started"] is True
    sim.advance(10)
    assert container_status(sim)["ready"] is True  # first tick after 3 + 15 s is at 20


def test_liveness_failure_kills_with_exact_killing_message():
    containers = """\
- name: app
  image: nginx:1.27
  livenessProbe:
    httpGet: {path: /healthz, port: 8080}
"""
    doc = "containers:\n  app:\n    probes: {liveness: failing}\n" + IMAGES
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc)), 35)
    unhealthy = events(sim, "Unhealthy")[0]
    assert unhealthy["message"] == "Liveness probe failed: HTTP probe failed with statuscode: 500"
    assert unhealthy["count"] == 3
    assert events(sim, "Killing")[0]["message"] == (
        "Container app failed liveness probe, will be restarted"
    )
    assert container_status(sim)["restartCount"] == 1


def test_liveness_kill_message_has_no_suffix_with_restart_policy_never():
    containers = """\
- name: app
  image: nginx:1.27
  livenessProbe:
    tcpSocket: {port: 8080}
"""
    doc = "containers:\n  app:\n    probes: {liveness: failing}\n" + IMAGES
    text = scenario(pod_yaml(containers, spec_extra="restartPolicy: Never"), simulation_doc(doc))
    sim = simulate(text, 60)
    assert events(sim, "Killing")[0]["message"] == "Container app failed liveness probe"
    assert events(sim, "Unhealthy")[0]["message"].startswith(
        "Liveness probe failed: dial tcp 10.244."
    )
    # the kill sends nginx its STOPSIGNAL, SIGQUIT: a graceful exit 0, so the Pod Succeeded
    assert last_container_status(sim)["state"]["terminated"]["exitCode"] == 0
    assert sim.pod()["status"]["phase"] == "Succeeded"


def test_readiness_keeps_probing_during_termination_while_liveness_stops():
    containers = """\
- name: app
  image: nginx:1.27
  readinessProbe:
    httpGet: {path: /ready, port: 80}
    periodSeconds: 2
  livenessProbe:
    httpGet: {path: /healthz, port: 80}
    periodSeconds: 2
"""
    doc = "containers:\n  app:\n    ignoreSigterm: true\n" + IMAGES
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc)), 10)
    sim.act({"action": "delete", "gracePeriodSeconds": 10})
    sim.advance(20)
    # a run of the same probe result (``repeat``) counts until its last run
    after = [t for t in sim.transitions if t["field"].startswith("probe.")
             and max(t["t"], (t.get("repeat") or {}).get("until", 0)) > 10.5]  # fmt: skip
    assert {t["field"] for t in after} == {"probe.readiness"}


def test_terminating_is_immediate_for_terminal_pods():
    doc = "containers:\n  app: {exitAfterSeconds: 2}\n" + IMAGES
    text = scenario(pod_yaml(APP, spec_extra="restartPolicy: Never"), simulation_doc(doc))
    sim = simulate(text, 10)
    assert sim.pod()["status"]["phase"] == "Succeeded"
    sim.act({"action": "delete"})
    assert sim.pod() is None


def test_unscheduled_pod_is_deleted_at_once_and_retried_when_a_node_appears():
    containers = """\
- name: app
  image: nginx:1.27
  resources:
    requests: {cpu: "64"}
"""
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(IMAGES)), 5)
    scheduled = condition(sim, "PodScheduled")
    assert (scheduled["status"], scheduled["reason"]) == ("False", "Unschedulable")
    assert events(sim, "FailedScheduling")[0]["message"].startswith(
        "0/3 nodes are available: 3 Insufficient cpu."
    )
    node = """\
apiVersion: v1
kind: Node
metadata: {name: big}
status:
  allocatable: {cpu: "96", memory: 256Gi, pods: "110"}
  capacity: {cpu: "96", memory: 256Gi, pods: "110"}
"""
    sim.act({"action": "apply", "yaml": node})
    sim.advance(10)
    assert sim.pod()["spec"]["nodeName"] == "big"
    assert sim.pod()["status"]["phase"] == "Running"


def test_sidecar_keeps_restart_policy_never_pod_running_until_stopped_last():
    init = (
        "- name: proxy\n  image: busybox:1.36\n  restartPolicy: Always\n"
        "  command: [sh, -c, \"trap 'exit 143' TERM; sleep 3600 & wait\"]\n"
    )
    doc = "containers:\n  app: {exitAfterSeconds: 10}\n" + IMAGES
    text = scenario(
        pod_yaml(APP, init=init, spec_extra="restartPolicy: Never"), simulation_doc(doc)
    )
    sim = simulate(text, 60)
    kills = events(sim, "Killing")
    assert [k["message"] for k in kills] == ["Stopping container proxy"]
    assert sim.pod()["status"]["phase"] == "Succeeded"  # the sidecar's 143 does not count
