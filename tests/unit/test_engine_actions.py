"""Actions and apply: config recovery, image changes, forbidden updates, force deletion."""

from __future__ import annotations

import pytest

from tests.unit.engine_support import (
    APP,
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
from webapp.engine import ActionError

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n  nginx:1.28: {pullSeconds: 3}\n"
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: '1'}\n"
ENV_CONTAINER = """\
- name: app
  image: nginx:1.27
  env:
  - name: A
    valueFrom: {configMapKeyRef: {name: cfg, key: %s}}
"""


def test_missing_config_map_gives_create_container_config_error_and_recovers():
    sim = simulate(scenario(pod_yaml(ENV_CONTAINER % "a"), simulation_doc(IMAGES)), 20)
    waiting = container_status(sim)["state"]["waiting"]
    assert waiting == {
        "reason": "CreateContainerConfigError",
        "message": 'configmap "cfg" not found',
    }
    assert events(sim, "Failed")[0]["message"] == 'Error: configmap "cfg" not found'
    sim.act({"action": "apply", "yaml": CONFIG_MAP})
    sim.advance(10)
    assert state_of(sim) == ("running", None)


def test_missing_config_map_key_names_the_namespace_and_key():
    text = scenario(pod_yaml(ENV_CONTAINER % "b"), CONFIG_MAP, simulation_doc(IMAGES))
    sim = simulate(text, 10)
    assert container_status(sim)["state"]["waiting"]["message"] == (
        "couldn't find key b in ConfigMap default/cfg"
    )


def test_missing_config_map_volume_keeps_container_creating_with_failed_mount():
    spec = "volumes:\n- name: config\n  configMap: {name: cfg}\n"
    sim = simulate(scenario(pod_yaml(APP, spec_extra=spec), simulation_doc(IMAGES)), 30)
    assert state_of(sim) == ("waiting", "ContainerCreating")
    mount = events(sim, "FailedMount")[0]
    assert (
        mount["message"]
        == 'MountVolume.SetUp failed for volume "config" : configmap "cfg" not found'
    )
    assert mount["count"] > 1
    sim.act({"action": "apply", "yaml": CONFIG_MAP})
    sim.advance(60)
    assert state_of(sim) == ("running", None)


def test_changing_a_running_containers_image_restarts_it():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 10)
    new_pod = pod_yaml(APP.replace("1.27", "1.28"))
    sim.act({"action": "apply", "yaml": new_pod})
    sim.advance(10)
    assert events(sim, "Killing")[0]["message"] == (
        "Container app definition changed, will be restarted"
    )
    status = container_status(sim)
    assert (status["image"], status["restartCount"]) == ("nginx:1.28", 1)


def test_other_pod_spec_changes_are_refused_with_the_api_servers_message():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 10)
    changed = pod_yaml(APP + "  ports:\n  - containerPort: 8080\n")
    with pytest.raises(ActionError) as error:
        sim.act({"action": "apply", "yaml": changed})
    assert error.value.code == "pod_update_forbidden"
    assert error.value.message.startswith(
        'Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`"
    )
    assert sim.actions == []


def test_force_delete_removes_the_object_at_once_and_kills_in_the_background():
    doc = "containers:\n  app: {ignoreSigterm: true}\n" + IMAGES
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(doc)), 10)
    sim.act({"action": "delete", "force": True, "gracePeriodSeconds": 0})
    assert sim.pod() is None
    assert sim.pod_versions[-1][1] == "DELETED"
    sim.advance(5)
    assert transitions(sim, field="signal", after="SIGKILL")[0]["t"] == 12.0


def test_delete_sets_deletion_timestamp_and_grace():
    doc = "containers:\n  app: {sigtermSeconds: 5}\n" + IMAGES
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(doc)), 10)
    sim.act({"action": "delete", "gracePeriodSeconds": 20})
    metadata = sim.pod()["metadata"]
    assert metadata["deletionTimestamp"] == "2026-01-01T00:00:30Z"
    assert metadata["deletionGracePeriodSeconds"] == 20
    assert events(sim, "Killing")[0]["message"] == "Stopping container app"


@pytest.mark.parametrize(
    ("action", "reason", "exit_code"),
    [
        ({"action": "crash", "container": "app"}, "Error", 1),
        ({"action": "crash", "container": "app", "exitCode": 0}, "Completed", 0),
        ({"action": "oom", "container": "app"}, "OOMKilled", 137),
    ],
)
def test_crash_and_oom_set_the_runtime_reason(action, reason, exit_code):
    text = scenario(pod_yaml(APP, spec_extra="restartPolicy: Never"), simulation_doc(IMAGES))
    sim = simulate(text, 10)
    sim.act(action)
    sim.advance(1)
    terminated = container_status(sim)["state"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == (reason, exit_code)
    assert sim.pod()["status"]["phase"] == ("Succeeded" if exit_code == 0 else "Failed")


def test_memory_over_the_limit_is_oom_killed_soon_after_start():
    containers = APP + "  resources:\n    limits: {memory: 64Mi}\n"
    doc = "containers:\n  app: {memoryMiB: 128}\n" + IMAGES
    sim = simulate(scenario(pod_yaml(containers), simulation_doc(doc)), 5)
    assert ("terminated", "OOMKilled") in [(s, r) for _, s, r in state_changes(sim)]


def test_readiness_flip_updates_endpoint_conditions():
    containers = APP + "  readinessProbe:\n    httpGet: {path: /, port: 80}\n    periodSeconds: 5\n"
    service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n"
    sim = simulate(scenario(pod_yaml(containers), service, simulation_doc(IMAGES)), 10)
    endpoint = sim.endpoint_slices()[0]["endpoints"][0]
    assert endpoint["conditions"] == {"ready": True, "serving": True, "terminating": False}
    sim.act({"action": "set-probe", "container": "app", "probe": "readiness", "healthy": False})
    sim.advance(20)
    endpoint = sim.endpoint_slices()[0]["endpoints"][0]
    assert endpoint["conditions"]["ready"] is False
    assert events(sim, "Unhealthy")[0]["message"] == (
        "Readiness probe failed: HTTP probe failed with statuscode: 500"
    )
    assert container_status(sim)["restartCount"] == 0  # readiness never restarts
