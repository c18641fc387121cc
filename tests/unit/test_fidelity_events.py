"""Event texts locked to KUBERNETES-SEMANTICS §10, one row per (reason, message form).

Each row builds a scenario (and optionally acts on it), runs it, and asserts that an Event
with exactly that type, reason and message exists, recorded by the right component, with
``involvedObject.fieldPath`` naming the container for container events and absent for
Pod-level ones. Sources: ``pkg/kubelet/events/event.go`` (reasons),
``kuberuntime_container.go`` (Created, Started, Killing, FailedPostStartHook,
FailedPreStopHook, ``Error: …``), ``images/image_manager.go`` (Pulling, Pulled, BackOff,
ErrImageNeverPull, Failed), ``prober/prober.go`` (Unhealthy), ``kuberuntime_manager.go``
(computePodActions kill messages, doBackOff), ``volumemanager`` (FailedMount), the scheduler
(Scheduled, FailedScheduling), node lifecycle ``MarkPodsNotReady`` (NodeNotReady) and
``tainteviction`` (TaintManagerEviction, whose reference has no uid).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.unit.engine_support import APP, pod_yaml, scenario, simulate, simulation_doc

IMAGES = """\
images:
  nginx:1.27: {pullSeconds: 2, sizeMiB: 10}
  nginx:1.28: {pullSeconds: 1}
  busybox:1.36: {pullSeconds: 1}
  nginx:9.9: {exists: false}
"""
APP_CONTAINER = "spec.containers{app}"
INIT_CONTAINER = "spec.initContainers{setup}"
POD = None  # no fieldPath
KUBELET = "kubelet"
NGINX_NOT_FOUND = (
    'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/'
    'nginx:9.9": failed to resolve reference "docker.io/library/nginx:9.9": '
    "docker.io/library/nginx:9.9: not found"
)
UID = "UID"  # placeholder replaced with the simulation's Pod uid


@dataclass
class Row:
    id: str
    type: str
    reason: str
    message: str
    component: str
    field_path: str | None
    containers: str = APP
    spec_extra: str = ""
    init: str = ""
    simulation: str = ""
    extra_docs: tuple[str, ...] = ()
    seconds: float = 30
    actions: list[tuple[float, dict]] = field(default_factory=list)
    with_uid: bool = True


def _sim_doc(body: str) -> str:
    return simulation_doc(body + IMAGES)


LIVENESS = APP + "  livenessProbe:\n    httpGet: {path: /healthz, port: 80}\n    periodSeconds: 5\n"
READINESS = APP + "  readinessProbe:\n    httpGet: {path: /ready, port: 80}\n    periodSeconds: 5\n"
STARTUP = (
    APP + "  startupProbe:\n    httpGet: {path: /healthz, port: 80}\n"
    "    periodSeconds: 5\n    failureThreshold: 2\n"
)
POST_START = APP + "  lifecycle:\n    postStart:\n      exec: {command: [sh, -c, 'exit 1']}\n"
PRE_STOP = APP + "  lifecycle:\n    preStop:\n      exec: {command: [sh, -c, 'exit 1']}\n"
UNSCHEDULABLE = APP + "  resources:\n    requests: {cpu: '64'}\n"
CONFIG_ENV = (
    APP + "  env:\n  - name: A\n    valueFrom:\n      configMapKeyRef: {name: cfg, key: a}\n"
)
CONFIG_VOLUME = APP + "  volumeMounts:\n  - {name: config, mountPath: /cfg}\n"
INIT_SETUP = "- name: setup\n  image: busybox:1.36\n  command: [sleep, infinity]\n"

ROWS = [
    Row("Scheduled", "Normal", "Scheduled", "Successfully assigned default/web to node-1",
        "default-scheduler", POD),
    Row("FailedScheduling", "Warning", "FailedScheduling",
        # a request above every node's allocatable: UnschedulableAndUnresolvable (scheduler.py)
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        "default-scheduler", POD, containers=UNSCHEDULABLE),
    Row("Pulling", "Normal", "Pulling", 'Pulling image "nginx:1.27"', KUBELET, APP_CONTAINER),
    Row("Pulled-new", "Normal", "Pulled",
        'Successfully pulled image "nginx:1.27" in 2s (2s including waiting). '
        "Image size: 10485760 bytes.", KUBELET, APP_CONTAINER),
    Row("Pulled-present", "Normal", "Pulled",
        'Container image "nginx:1.28" already present on machine', KUBELET, APP_CONTAINER,
        containers=APP.replace("1.27", "1.28"),
        simulation="containers:\n  app: {exitAfterSeconds: 1, exitCode: 1}\n"),
    Row("Failed-pull", "Warning", "Failed", f'Failed to pull image "nginx:9.9": {NGINX_NOT_FOUND}',
        KUBELET, APP_CONTAINER, containers=APP.replace("1.27", "9.9")),
    Row("Failed-ErrImagePull", "Warning", "Failed", "Error: ErrImagePull", KUBELET,
        APP_CONTAINER, containers=APP.replace("1.27", "9.9")),
    Row("Failed-ImagePullBackOff", "Warning", "Failed", "Error: ImagePullBackOff", KUBELET,
        APP_CONTAINER, containers=APP.replace("1.27", "9.9"), seconds=60),
    Row("BackOff-image", "Normal", "BackOff", 'Back-off pulling image "nginx:9.9"', KUBELET,
        APP_CONTAINER, containers=APP.replace("1.27", "9.9"), seconds=60),
    Row("Failed-config", "Warning", "Failed", 'Error: configmap "cfg" not found', KUBELET,
        APP_CONTAINER, containers=CONFIG_ENV),
    Row("ErrImageNeverPull", "Warning", "ErrImageNeverPull",
        'Container image "nginx:1.27" is not present with pull policy of Never', KUBELET,
        APP_CONTAINER, containers=APP + "  imagePullPolicy: Never\n"),
    Row("Failed-ErrImageNeverPull", "Warning", "Failed", "Error: ErrImageNeverPull", KUBELET,
        APP_CONTAINER, containers=APP + "  imagePullPolicy: Never\n"),
    Row("Created", "Normal", "Created", "Container created", KUBELET, APP_CONTAINER),
    Row("Started", "Normal", "Started", "Container started", KUBELET, APP_CONTAINER),
    Row("Started-init", "Normal", "Started", "Container started", KUBELET, INIT_CONTAINER,
        init=INIT_SETUP),
    Row("BackOff-restart", "Warning", "BackOff",
        f"Back-off restarting failed container app in pod web_default({UID})", KUBELET,
        APP_CONTAINER, simulation="containers:\n  app: {exitAfterSeconds: 1, exitCode: 1}\n",
        seconds=60),
    Row("Killing-delete", "Normal", "Killing", "Stopping container app", KUBELET, APP_CONTAINER,
        actions=[(10, {"action": "delete"})]),
    Row("Killing-liveness", "Normal", "Killing",
        "Container app failed liveness probe, will be restarted", KUBELET, APP_CONTAINER,
        containers=LIVENESS, simulation="containers:\n  app: {probes: {liveness: failing}}\n",
        seconds=60),
    Row("Killing-liveness-never", "Normal", "Killing", "Container app failed liveness probe",
        KUBELET, APP_CONTAINER, containers=LIVENESS, spec_extra="restartPolicy: Never",
        simulation="containers:\n  app: {probes: {liveness: failing}}\n", seconds=60),
    Row("Killing-startup", "Normal", "Killing",
        "Container app failed startup probe, will be restarted", KUBELET, APP_CONTAINER,
        containers=STARTUP, simulation="containers:\n  app: {probes: {startup: failing}}\n",
        seconds=60),
    Row("Killing-definition", "Normal", "Killing",
        "Container app definition changed, will be restarted", KUBELET, APP_CONTAINER,
        actions=[(10, {"action": "apply", "yaml": pod_yaml(APP.replace("1.27", "1.28"))})]),
    Row("Killing-postStart", "Normal", "Killing", "FailedPostStartHook", KUBELET, APP_CONTAINER,
        containers=POST_START,
        simulation="containers:\n  app: {hooks: {postStart: {seconds: 1, fails: true}}}\n"),
    Row("Unhealthy-liveness", "Warning", "Unhealthy",
        "Liveness probe failed: HTTP probe failed with statuscode: 500", KUBELET, APP_CONTAINER,
        containers=LIVENESS, simulation="containers:\n  app: {probes: {liveness: failing}}\n"),
    Row("Unhealthy-readiness", "Warning", "Unhealthy",
        "Readiness probe failed: HTTP probe failed with statuscode: 500", KUBELET, APP_CONTAINER,
        containers=READINESS, simulation="containers:\n  app: {probes: {readiness: failing}}\n"),
    Row("Unhealthy-startup", "Warning", "Unhealthy",
        "Startup probe failed: HTTP probe failed with statuscode: 500", KUBELET, APP_CONTAINER,
        containers=STARTUP, simulation="containers:\n  app: {probes: {startup: failing}}\n"),
    Row("FailedPostStartHook", "Warning", "FailedPostStartHook", "PostStartHook failed", KUBELET,
        APP_CONTAINER, containers=POST_START,
        simulation="containers:\n  app: {hooks: {postStart: {seconds: 1, fails: true}}}\n"),
    Row("FailedPreStopHook", "Warning", "FailedPreStopHook", "PreStopHook failed", KUBELET,
        APP_CONTAINER, containers=PRE_STOP,
        simulation="containers:\n  app: {hooks: {preStop: {seconds: 1, fails: true}}}\n",
        actions=[(10, {"action": "delete"})]),
    Row("FailedMount", "Warning", "FailedMount",
        'MountVolume.SetUp failed for volume "config" : configmap "cfg" not found', KUBELET, POD,
        containers=CONFIG_VOLUME, spec_extra="volumes:\n- name: config\n  configMap: {name: cfg}"),
    Row("NodeNotReady", "Warning", "NodeNotReady", "Node is not ready", "node-controller", POD,
        actions=[(10, {"action": "node-down", "node": "node-1"})], seconds=90),
    Row("TaintManagerEviction", "Normal", "TaintManagerEviction",
        "Marking for deletion Pod default/web", "taint-eviction-controller", POD,
        actions=[(10, {"action": "node-down", "node": "node-1"})], seconds=400,
        with_uid=False),
    Row("TaintManagerEviction-cancel", "Normal", "TaintManagerEviction",
        "Cancelling deletion of Pod default/web", "taint-eviction-controller", POD,
        actions=[(10, {"action": "node-down", "node": "node-1"}),
                 (100, {"action": "node-up", "node": "node-1"})], seconds=120,
        with_uid=False),
]  # fmt: skip


def _run(row: Row):
    text = scenario(
        pod_yaml(row.containers, spec_extra=row.spec_extra, init=row.init),
        _sim_doc(row.simulation),
        *row.extra_docs,
    )
    sim = simulate(text)
    for at, action in row.actions:
        sim.advance(at - sim.now)
        sim.act(dict(action))
    sim.advance(row.seconds - sim.now)
    return sim


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_event_text(row: Row):
    sim = _run(row)
    message = row.message.replace(UID, sim.uid)
    matching = [e for e in sim.events() if (e["reason"], e["message"]) == (row.reason, message)]
    seen = sorted({(e["reason"], e["message"]) for e in sim.events()})
    assert matching, f"no {row.reason} {message!r}; events: {seen}"
    for event in matching:
        assert event["type"] == row.type
        assert event["source"]["component"] == row.component
        assert event["reportingComponent"] == row.component
        involved = event["involvedObject"]
        assert (involved["kind"], involved["name"], involved["namespace"]) == (
            "Pod",
            "web",
            "default",
        )
        assert involved.get("fieldPath") == row.field_path
        assert ("uid" in involved) == row.with_uid
        if row.component == KUBELET:
            assert event["source"]["host"] == "node-1"
        else:
            assert "host" not in event["source"]


def test_every_reason_the_engine_emits_has_a_row():
    """A new reason in the engine needs a row here (and a line in §10)."""
    covered = {row.reason for row in ROWS}
    emitted = set()
    for row in ROWS:
        emitted |= {e["reason"] for e in _run(row).events()}
    assert emitted <= covered, emitted - covered
