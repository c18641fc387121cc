"""webapp/kubeapi's pure parts: the versioned view of a session's objects (resourceVersions,
watch history, 410 past it), Table answers, discovery documents, protobuf bodies."""

from __future__ import annotations

import pytest

from tests.kubeapi.conftest import CLUSTER
from webapp.engine import Simulation
from webapp.engine.store.errors import ApiError
from webapp.kubeapi import common, resources, tables
from webapp.kubeapi.objects import FIRST_RESOURCE_VERSION, ApiView, engine_objects
from webapp.manifest import parse_scenario


def _cluster(seconds: float = 20) -> Simulation:
    sim = Simulation.from_scenario(parse_scenario(CLUSTER), seed=0)
    sim.advance(seconds)
    return sim


def test_each_change_takes_the_next_resource_version() -> None:
    sim = _cluster()
    view = ApiView()
    pods = view.items(sim, "Pod")
    assert len(pods) == 3
    versions = sorted(int(p["metadata"]["resourceVersion"]) for p in pods)
    assert versions == [FIRST_RESOURCE_VERSION + 1, FIRST_RESOURCE_VERSION + 2,
                        FIRST_RESOURCE_VERSION + 3]  # fmt: skip
    assert view.items(sim, "Pod") == pods  # nothing changed: nothing new
    assert view.rv == FIRST_RESOURCE_VERSION + 3
    sim.act({"action": "scale", "kind": "Deployment", "name": "web", "replicas": 4})
    view.sync(sim, "Pod")
    changes = view.changes_since("Pod", FIRST_RESOURCE_VERSION + 3)
    assert [c.type for c in changes] == ["ADDED"]
    sim.act({"action": "delete", "name": pods[0]["metadata"]["name"], "force": True,
             "gracePeriodSeconds": 0})  # fmt: skip
    view.sync(sim, "Pod")
    kinds = [c.type for c in view.changes_since("Pod", changes[-1].rv)]
    assert "DELETED" in kinds


def test_a_watch_from_before_the_history_is_410() -> None:
    view = ApiView()
    view.sync(_cluster(), "Pod")
    with pytest.raises(ApiError) as too_old:
        view.changes_since("Pod", 5)
    assert too_old.value.status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"too old resource version: 5 ({FIRST_RESOURCE_VERSION + 1})",
        "reason": "Expired", "code": 410,
    }  # fmt: skip
    with pytest.raises(ApiError) as ahead:
        view.changes_since("Pod", view.rv + 10)
    assert ahead.value.code == 504


def test_both_engines_through_one_path() -> None:
    from webapp.paths import resource_dir
    from webapp.sessions import ScenarioCatalog

    single = Simulation.from_scenario(ScenarioCatalog(resource_dir("scenarios")).get("plain-pod"))
    single.advance(10)
    assert [p["metadata"]["name"] for p in engine_objects(single, "Pod")] == ["web"]
    assert type(single).__name__ == "Simulation"  # the one-Pod engine
    assert [n["metadata"]["name"] for n in engine_objects(single, "Node")] == [
        n["metadata"]["name"] for n in single.nodes()]  # fmt: skip
    assert engine_objects(single, "Deployment") == []
    assert [n["metadata"]["name"] for n in engine_objects(_cluster(), "Namespace")] == [
        "default", "kube-node-lease", "kube-public", "kube-system"]  # fmt: skip


def test_service_gets_a_cluster_ip_and_nodes_a_complete_node_info() -> None:
    view = ApiView()
    sim = _cluster()
    (service,) = view.items(sim, "Service")
    assert service["spec"]["clusterIP"].startswith("10.")
    assert service["spec"]["clusterIPs"] == [service["spec"]["clusterIP"]]
    for node in view.items(sim, "Node"):
        assert set(node["status"]["nodeInfo"]) >= {"bootID", "machineID", "kernelVersion"}


def test_table_columns_and_rows() -> None:
    sim = _cluster()
    pods = ApiView().items(sim, "Pod")
    table = tables.table("Pod", pods, sim.wall_time(), "7")
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node",
        "Readiness Gates"]  # fmt: skip
    assert [c["priority"] for c in table["columnDefinitions"]] == [0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert table["rows"][0]["cells"][1:4] == ["1/1", "Running", "0"]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    nodes = tables.table("Node", ApiView().items(sim, "Node"), sim.wall_time(), "7")
    assert nodes["rows"][0]["cells"][:3] == ["node-1", "Ready", "<none>"]
    events = tables.column_definitions("Event")
    assert [c["name"] for c in events if c["priority"] == 0] == [
        "Last Seen", "Type", "Reason", "Object", "Message"]  # fmt: skip


def test_discovery_documents() -> None:
    core = resources.aggregated(core=True)
    assert [i["metadata"]["name"] for i in core["items"]] == [""]
    pods = next(r for r in core["items"][0]["versions"][0]["resources"] if r["resource"] == "pods")
    assert pods["shortNames"] == ["po"] and pods["categories"] == ["all"]
    assert {s["subresource"] for s in pods["subresources"]} == {"eviction", "log", "status"}
    assert all(s["responseKind"]["kind"] for s in pods["subresources"])
    legacy = resources.api_resource_list("", "v1")
    eviction = next(r for r in legacy["resources"] if r["name"] == "pods/eviction")
    assert (eviction["group"], eviction["version"], eviction["kind"]) == (
        "policy",
        "v1",
        "Eviction",
    )
    groups = [g["name"] for g in resources.api_group_list()["groups"]]
    assert groups == ["apps", "batch", "discovery.k8s.io", "policy", "storage.k8s.io",
                      "authorization.k8s.io"]  # fmt: skip


def _field(number: int, payload: bytes) -> bytes:
    return bytes([number << 3 | 2, len(payload)]) + payload


def test_protobuf_bodies_of_typed_clients() -> None:
    type_meta = _field(1, b"authorization.k8s.io/v1") + _field(2, b"SelfSubjectAccessReview")
    attributes = _field(1, b"default") + _field(2, b"list") + _field(5, b"pods")
    raw = _field(2, _field(1, attributes))
    body = common.PROTOBUF_MAGIC + _field(1, type_meta) + _field(2, raw)
    assert common.protobuf_object(body) == {
        "kind": "SelfSubjectAccessReview",
        "spec": {
            "resourceAttributes": {"namespace": "default", "verb": "list", "resource": "pods"}
        },
    }
    options = _field(1, _field(2, b"DeleteOptions")) + _field(2, bytes([1 << 3, 5]))
    assert common.protobuf_object(common.PROTOBUF_MAGIC + options) == {"gracePeriodSeconds": 5}
    assert common.protobuf_object(common.PROTOBUF_MAGIC + b"\xff\xff") is None


def test_kubeconfig_text() -> None:
    import yaml

    from webapp.kubeapi.sessions import kubeconfig_text, new_token

    token = new_token()
    assert token.startswith("kp-") and len(token) == 35
    config = yaml.safe_load(kubeconfig_text("http://h:1/kube/" + token, token))
    assert config["current-context"] == "playground"
    assert config["contexts"][0]["context"]["namespace"] == "default"
    assert config["clusters"][0]["cluster"]["server"] == "http://h:1/kube/" + token
