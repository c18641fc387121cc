"""``kubectl logs POD [-c NAME] [--previous]`` against engine runs (CONTAINER-SEMANTICS §7)."""

from __future__ import annotations

import textwrap

from tests.unit.engine_support import simulate
from webapp.kubectl import kubectl_logs, logs_text
from webapp.kubectl.logs import rfc3339_nano

TWO = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata: {name: web}
    spec:
      initContainers:
      - name: setup
        image: busybox:1.36
        command: [sh, -c, "echo setting up; sleep 2"]
      containers:
      - name: app
        image: busybox:1.36
        command: [sh, -c, "echo connecting; sleep 5; echo 'fatal: DB_HOST is not set' >&2; exit 1"]
      - name: side
        image: busybox:1.36
        command: [sleep, infinity]
    """)


def logs(sim, container=None, **kwargs) -> str:
    pod = sim.pod()
    return logs_text(kubectl_logs(pod, "web", sim.logs_by_container_id(), container, **kwargs))


def test_default_container_notice_and_logs() -> None:
    sim = simulate(TWO, 8)
    assert logs(sim) == ('Defaulted container "app" out of: app, side, setup (init)\nconnecting')
    assert logs(sim, "setup") == "setting up"


def test_previous_instance_and_its_absence() -> None:
    sim = simulate(TWO, 8)
    assert logs(sim, "app", previous=True) == (
        'Error from server (BadRequest): previous terminated container "app" in pod "web" not found'
    )
    sim.advance(10)  # the first run exited with 1 and restarted
    assert logs(sim, "app", previous=True) == "connecting\nfatal: DB_HOST is not set"


def app_waiting(sim, reason: str, limit: float = 120) -> None:
    """Advance until the app container waits with ``reason``."""
    while sim.now < limit:
        statuses = sim.pod()["status"].get("containerStatuses") or []
        state = next((s["state"] for s in statuses if s["name"] == "app"), {})
        if state.get("waiting", {}).get("reason") == reason:
            return
        sim.advance(1)
    raise AssertionError(f"never waiting with {reason}")


def test_crash_loop_back_off_shows_the_last_run() -> None:
    sim = simulate(TWO, 20)
    app_waiting(sim, "CrashLoopBackOff")
    assert logs(sim, "app") == "connecting\nfatal: DB_HOST is not set"


def test_waiting_containers_and_unknown_names() -> None:
    sim = simulate(TWO, 0)
    assert (
        logs(sim, "app") == "Error from server (BadRequest): pod web does not have a host assigned"
    )
    sim.advance(3)
    assert logs(sim, "app") == (
        'Error from server (BadRequest): container "app" in pod "web" is waiting to start: PodInitializing'
    )
    assert (
        logs(sim, "nope")
        == "error: container nope is not valid for pod web out of: app, side, setup (init)"
    )


def test_image_pull_waiting_texts() -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: app, image: registry.example.com/nope:1}\n"
    text += "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: x}\nimages:\n  registry.example.com/nope:1: {exists: false}\n"
    sim = simulate(text, 1)
    app_waiting(sim, "ErrImagePull")
    assert logs(sim).endswith(
        'container "app" in pod "web" is waiting to start: image can\'t be pulled'
    )
    app_waiting(sim, "ImagePullBackOff")
    assert logs(sim).endswith(
        'container "app" in pod "web" is waiting to start: trying and failing to pull image'
    )


def test_gone_pod() -> None:
    assert (
        logs_text(kubectl_logs(None, "web", {}, None))
        == 'Error from server (NotFound): pods "web" not found'
    )


def test_timestamps_and_tail() -> None:
    sim = simulate(TWO, 8)
    view = kubectl_logs(sim.pod(), "web", sim.logs_by_container_id(), "setup", tail=1)
    assert view["command"] == "kubectl logs web -c setup --tail=1"
    ((stamp, text),) = view["lines"]
    assert text == "setting up" and stamp.startswith("2026-01-01T00:00:0")
    assert logs_text(view, timestamps=True) == f"{stamp} setting up"
    assert rfc3339_nano(5_500) == "2026-01-01T00:00:05.5Z"
    assert rfc3339_nano(5_000) == "2026-01-01T00:00:05Z"


def test_default_container_annotation() -> None:
    annotated = TWO.replace(
        "metadata: {name: web}",
        "metadata:\n  name: web\n  annotations: {kubectl.kubernetes.io/default-container: side}",
    )
    sim = simulate(annotated, 8)
    assert logs(sim) == ""  # side's sleep prints nothing, and no notice is printed
