"""The official Python client (`kubernetes`) against a session: list, watch, create,
patch, delete, and the API server's errors as ApiException."""

from __future__ import annotations

import json

import pytest
from kubernetes import client, config, watch

from tests.kubeapi.conftest import Kube, deployment, make_session

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def kube(live_server, tmp_path_factory) -> Kube:
    from tests.kubeapi.conftest import CLUSTER

    kube = make_session(live_server, tmp_path_factory.mktemp("pyclient"), yaml=CLUSTER, speed=20)
    done = kube.run("rollout", "status", "deploy/web", "--timeout=90s", timeout=120)
    assert done.returncode == 0, done.stderr
    return kube


@pytest.fixture(scope="module")
def api(kube: Kube) -> client.ApiClient:
    return config.new_client_from_config(str(kube.kubeconfig))


def test_list_and_read(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    pods = core.list_namespaced_pod("default", label_selector="app=web")
    assert len(pods.items) == 3
    assert {p.status.phase for p in pods.items} == {"Running"}
    assert int(pods.metadata.resource_version) > 0
    one = core.read_namespaced_pod(pods.items[0].metadata.name, "default")
    assert one.metadata.uid == pods.items[0].metadata.uid
    nodes = core.list_node()
    assert sorted(n.metadata.name for n in nodes.items) == ["node-1", "node-2", "node-3"]
    everywhere = core.list_pod_for_all_namespaces(field_selector="status.phase=Running")
    assert len(everywhere.items) == 3
    version = client.VersionApi(api).get_code()
    assert (version.major, version.minor, version.git_version) == ("1", "37", "v1.37.1")


def test_watch_sees_a_scale(api: client.ApiClient) -> None:
    apps = client.AppsV1Api(api)
    core = client.CoreV1Api(api)
    listed = core.list_namespaced_pod("default")
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 4}})
    stream = watch.Watch()
    added = []
    for event in stream.stream(core.list_namespaced_pod, "default",
                               resource_version=listed.metadata.resource_version,
                               timeout_seconds=60):  # fmt: skip
        if event["type"] == "ADDED":
            added.append(event["object"].metadata.name)
        if (
            event["type"] == "MODIFIED"
            and event["object"].metadata.name in added
            and (event["object"].status.phase == "Running")
        ):
            stream.stop()
    assert len(added) == 1
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 3}})


def test_create_patch_delete(api: client.ApiClient) -> None:
    import yaml

    apps = client.AppsV1Api(api)
    core = client.CoreV1Api(api)
    body = yaml.safe_load(deployment("api", 1))
    created = apps.create_namespaced_deployment("default", body)
    assert created.metadata.name == "api"
    assert created.spec.replicas == 1
    with pytest.raises(client.ApiException) as again:
        apps.create_namespaced_deployment("default", body)
    assert again.value.status == 409
    assert json.loads(again.value.body)["message"] == 'deployments.apps "api" already exists'
    patched = apps.patch_namespaced_deployment("api", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "nginx", "image": "nginx:1.28"}]}}}})  # fmt: skip
    assert patched.spec.template.spec.containers[0].image == "nginx:1.28"
    scaled = apps.patch_namespaced_deployment_scale("api", "default", {"spec": {"replicas": 2}})
    assert scaled.spec.replicas == 2
    assert apps.read_namespaced_deployment_scale("api", "default").spec.replicas == 2
    pod = core.list_namespaced_pod("default", label_selector="app=web").items[0].metadata.name
    answer = core.delete_namespaced_pod(pod, "default", _preload_content=False)
    assert answer.status == 200
    gone = json.loads(answer.data)
    assert gone["kind"] in ("Pod", "Status")
    with pytest.raises(client.ApiException) as missing:
        core.read_namespaced_pod("nope", "default")
    assert missing.value.status == 404
    assert json.loads(missing.value.body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "nope" not found', "reason": "NotFound",
        "details": {"name": "nope", "kind": "pods"}, "code": 404,
    }  # fmt: skip


def test_eviction_and_cordon(api: client.ApiClient, kube: Kube) -> None:
    core = client.CoreV1Api(api)
    core.patch_node("node-3", {"spec": {"unschedulable": True}})
    assert core.read_node("node-3").spec.unschedulable is True
    core.patch_node("node-3", {"spec": {"unschedulable": None}})
    assert not core.read_node("node-3").spec.unschedulable
    kube.wait_for(lambda: len([p for p in core.list_namespaced_pod(
        "default", label_selector="app=web").items if p.status.phase == "Running"
        and not p.metadata.deletion_timestamp]) >= 3)  # fmt: skip
    pod = core.list_namespaced_pod("default", label_selector="app=web").items[0].metadata.name
    eviction = client.V1Eviction(metadata=client.V1ObjectMeta(name=pod, namespace="default"))
    core.create_namespaced_pod_eviction(pod, "default", eviction)


def test_session_made_paused(live_server, tmp_path) -> None:
    """`paused: true`: the session stays at second 0 until someone plays it."""
    kube = make_session(live_server, tmp_path, scenario="plain-pod", paused=True)
    api = config.new_client_from_config(str(kube.kubeconfig))
    core = client.CoreV1Api(api)
    first = core.read_namespaced_pod("web", "default")
    again = core.read_namespaced_pod("web", "default")
    assert first.metadata.resource_version == again.metadata.resource_version
    assert first.status.phase == again.status.phase
