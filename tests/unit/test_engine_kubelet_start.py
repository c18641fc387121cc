"""Starting a Pod: scheduling, image pull, create, start (KUBERNETES-SEMANTICS §3, §7, §10)."""

from __future__ import annotations

from tests.unit.engine_support import (
    APP,
    condition,
    container_status,
    events,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    state_changes,
    state_of,
    transitions,
)

PLAIN = scenario(
    pod_yaml(APP),
    simulation_doc("images:\n  nginx:1.27: {pullSeconds: 6, sizeMiB: 72}\n"),
)


def test_plain_pod_is_scheduled_pulled_and_running():
    sim = simulate(PLAIN, 30)
    pod = sim.pod()
    assert pod["spec"]["nodeName"] == "node-1"
    assert pod["status"]["phase"] == "Running"
    assert state_of(sim) == ("running", None)
    assert container_status(sim)["ready"] is True
    assert [e["reason"] for e in sim.events()] == [
        "Scheduled", "Pulling", "Pulled", "Created", "Started",
    ]  # fmt: skip


def test_event_texts_are_the_newest_kubelet_texts():
    sim = simulate(PLAIN, 30)
    by_reason = {e["reason"]: e for e in sim.events()}
    assert by_reason["Scheduled"]["message"] == "Successfully assigned default/web to node-1"
    assert by_reason["Scheduled"]["source"] == {"component": "default-scheduler"}
    assert by_reason["Pulling"]["message"] == 'Pulling image "nginx:1.27"'
    assert by_reason["Pulled"]["message"] == (
        'Successfully pulled image "nginx:1.27" in 6s (6s including waiting). '
        "Image size: 75497472 bytes."
    )
    assert by_reason["Created"]["message"] == "Container created"
    assert by_reason["Started"]["message"] == "Container started"
    assert by_reason["Started"]["involvedObject"]["fieldPath"] == "spec.containers{app}"


def test_container_waits_with_container_creating_while_pulling():
    sim = simulate(PLAIN, 3)
    assert state_of(sim) == ("waiting", "ContainerCreating")
    assert sim.pod()["status"]["phase"] == "Pending"
    assert condition(sim, "PodReadyToStartContainers")["status"] == "True"
    assert condition(sim, "Ready")["reason"] == "ContainersNotReady"


def test_running_appears_when_the_pull_is_done():
    sim = simulate(PLAIN, 30)
    assert state_changes(sim) == [(0.0, "waiting", "ContainerCreating"), (7.0, "running", None)]


def test_pod_versions_start_with_added_and_bump_resource_versions():
    sim = simulate(PLAIN, 30)
    kinds = [kind for _, kind, _ in sim.pod_versions]
    assert kinds[0] == "ADDED" and set(kinds[1:]) == {"MODIFIED"}
    versions = [int(p["metadata"]["resourceVersion"]) for _, _, p in sim.pod_versions]
    assert versions == sorted(set(versions))


def test_step_runs_one_event_time_at_a_time():
    sim = simulate(PLAIN)
    times = []
    while sim.step() and sim.now < 30:
        times.append(sim.now)
    assert times[:3] == [0.0, 1.0, 7.0]
    assert sim.next_event_time() is None


def test_transitions_carry_stage_and_step():
    sim = simulate(PLAIN, 30)
    assert transitions(sim, step="submitted")[0]["stage"] == 1
    pulls = transitions(sim, step="pull", field="image")
    assert [t["after"] for t in pulls] == ["pulling", "pulled"]
    assert transitions(sim, field="phase", after="Running")[0]["stage"] == 4
    assert [t["seq"] for t in sim.transitions] == list(range(len(sim.transitions)))


def test_image_already_present_on_the_node_is_not_pulled_again():
    sim = simulate(PLAIN, 30)
    assert events(sim, "Pulled")[0]["message"].startswith("Successfully pulled")
    sim.act({"action": "crash", "container": "app"})
    sim.advance(1)
    assert events(sim, "Pulled")[-1]["message"] == (
        'Container image "nginx:1.27" already present on machine'
    )
