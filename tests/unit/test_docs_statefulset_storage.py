"""PersistentVolumeClaims from ``volumeClaimTemplates``, pasted unchanged from
concepts/workloads/controllers/statefulset.md (``storageClassName: "my-storage-class"``,
which a kind cluster does not have) and tutorials/stateful-application/basic-stateful-set.md
(``web.yaml``: no class, so kind's default ``standard``, rancher.io/local-path,
WaitForFirstConsumer).

Texts: the StatefulSet controller's recordClaimEvent, the PV controller's
(pv_controller.go), the local-path provisioner's (sig-storage-lib-external-provisioner),
the scheduler's VolumeBinding PreFilter (``pod has unbound immediate
PersistentVolumeClaims``) and Filter (``node(s) had volume node affinity conflict``).
"""

from __future__ import annotations

import re

from webapp.engine import Simulation
from webapp.engine.controllers.rules import storage
from webapp.kubectl import pod_columns
from webapp.kubectl.workloads import get_many

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
---
"""
# statefulset.md's example, unchanged
STATEFULSET_MD = (
    SERVICE
    + """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx # has to match .spec.template.metadata.labels
  serviceName: "nginx"
  replicas: 3 # by default is 1
  minReadySeconds: 10 # by default is 0
  template:
    metadata:
      labels:
        app: nginx # has to match .spec.selector.matchLabels
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      storageClassName: "my-storage-class"
      resources:
        requests:
          storage: 1Gi
"""
)
# basic-stateful-set.md's web.yaml, unchanged
WEB_YAML = (
    SERVICE
    + """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "nginx"
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
"""
)
NODES = """\
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
---
"""


def events_of(sim: Simulation, kind: str, name: str | None = None) -> list[tuple[str, str, str]]:
    return [
        (e["lastTimestamp"][-9:-1], e["reason"], e["message"])
        for e in sim.events()
        if e["involvedObject"]["kind"] == kind and name in (None, e["involvedObject"]["name"])
    ]


def claims(sim: Simulation) -> dict[str, dict]:
    return {c["metadata"]["name"]: c for c in sim.objects("PersistentVolumeClaim")}


def test_basic_stateful_set_creates_claim_www_web_0_before_its_pod() -> None:
    sim = Simulation.from_yaml(WEB_YAML)
    sim.advance(30)
    assert [m for _t, r, m in events_of(sim, "StatefulSet") if r == "SuccessfulCreate"] == [
        "create Claim www-web-0 Pod web-0 in StatefulSet web success",
        "create Pod web-0 in StatefulSet web successful",
        "create Claim www-web-1 Pod web-1 in StatefulSet web success",
        "create Pod web-1 in StatefulSet web successful",
    ]
    claim = claims(sim)["www-web-0"]
    assert claim["metadata"]["labels"] == {"app": "nginx"}  # the set's matchLabels
    assert claim["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert "ownerReferences" not in claim["metadata"]  # Retain / Retain
    assert claim["spec"]["storageClassName"] == "standard"  # the default class
    pod = sim.pod("web-0")
    assert pod["spec"]["volumes"][0] == {
        "name": "www", "persistentVolumeClaim": {"claimName": "www-web-0"}
    }  # fmt: skip


def test_basic_stateful_set_claims_bind_to_volumes_the_provisioner_creates() -> None:
    sim = Simulation.from_yaml(WEB_YAML)
    sim.advance(30)
    evts = events_of(sim, "PersistentVolumeClaim", "www-web-0")
    reasons = [r for _t, r, _m in evts]
    assert reasons == ["WaitForFirstConsumer", "ExternalProvisioning", "Provisioning",
                       "ProvisioningSucceeded"]  # fmt: skip
    claim = claims(sim)["www-web-0"]
    volume = claim["spec"]["volumeName"]
    assert volume == f"pvc-{claim['metadata']['uid']}"
    assert evts[0][2] == "waiting for first consumer to be created before binding"
    assert evts[1][2] == (
        "Waiting for a volume to be created either by the external provisioner "
        "'rancher.io/local-path' or manually by the system administrator. If volume creation "
        "is delayed, please verify that the provisioner is running and correctly registered."
    )
    assert evts[2][2] == 'External provisioner is provisioning volume for claim "default/www-web-0"'
    assert evts[3][2] == f"Successfully provisioned volume {volume}"
    source = next(e["source"]["component"] for e in sim.events() if e["reason"] == "Provisioning")
    assert re.fullmatch(
        r"rancher\.io/local-path_local-path-provisioner-[a-z0-9]{10}-[a-z0-9]{5}_[0-9a-f-]{36}",
        source,
    )
    # the Pod is bound once its volume is (PreBind), on the volume's node
    scheduled = next(t for t, r, _m in events_of(sim, "Pod", "web-0") if r == "Scheduled")
    assert scheduled == evts[3][0]
    pv = next(v for v in sim.objects("PersistentVolume") if v["metadata"]["name"] == volume)
    assert storage.volume_node(pv) == sim.pod("web-0")["spec"]["nodeName"]
    assert (
        claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]
        == (sim.pod("web-0")["spec"]["nodeName"])
    )
    assert all(pod_columns(p, sim.wall_time())["STATUS"] == "Running" for p in sim.objects("Pod"))


def test_kubectl_get_pvc_pv_as_a_kind_cluster_prints_them() -> None:
    sim = Simulation.from_yaml(WEB_YAML)
    sim.advance(30)
    text = get_many(
        [("PersistentVolumeClaim", sim.objects("PersistentVolumeClaim")),
         ("PersistentVolume", sim.objects("PersistentVolume"))],
        sim.wall_time(),
    )  # fmt: skip
    lines = text.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES",
                                "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"]  # fmt: skip
    volume = claims(sim)["www-web-0"]["spec"]["volumeName"]
    assert lines[1].split() == ["persistentvolumeclaim/www-web-0", "Bound", volume, "1Gi", "RWO",
                                "standard", "<unset>", "30s"]  # fmt: skip
    assert lines[3] == ""
    assert lines[4].split() == ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY",
                                "STATUS", "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS",
                                "REASON", "AGE"]  # fmt: skip
    assert lines[5].split() == [f"persistentvolume/{volume}", "1Gi", "RWO", "Delete", "Bound",
                                "default/www-web-0", "standard", "<unset>", "27s"]  # fmt: skip


def test_statefulset_md_missing_storage_class_leaves_claim_and_pod_pending() -> None:
    sim = Simulation.from_yaml(STATEFULSET_MD)
    sim.advance(60)
    assert sorted(claims(sim)) == ["www-web-0"]  # OrderedReady: web-1 waits for web-0
    assert events_of(sim, "PersistentVolumeClaim", "www-web-0") == [
        (
            "00:00:00",
            "ProvisioningFailed",
            'storageclass.storage.k8s.io "my-storage-class" not found',
        )
    ]
    assert claims(sim)["www-web-0"]["status"]["phase"] == "Pending"
    assert sim.objects("PersistentVolume") == []
    pod = sim.pod("web-0")
    assert pod_columns(pod, sim.wall_time())["STATUS"] == "Pending"
    failed = [m for _t, r, m in events_of(sim, "Pod", "web-0") if r == "FailedScheduling"]
    assert failed and failed[0].startswith(
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
    )
    assert failed[0].endswith("preemption: 0/3 nodes are available: 3 Preemption is not "
                              "helpful for scheduling.")  # fmt: skip
    condition = pod["status"]["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "PodScheduled", "False", "Unschedulable"
    )  # fmt: skip
    row = get_many([("PersistentVolumeClaim", sim.objects("PersistentVolumeClaim"))],
                   sim.wall_time()).splitlines()[1]  # fmt: skip
    assert row.split() == ["www-web-0", "Pending", "my-storage-class", "<unset>", "60s"]


def test_an_empty_storage_class_binds_only_existing_volumes() -> None:
    sim = Simulation.from_yaml(WEB_YAML.replace(
        '      accessModes: [ "ReadWriteOnce" ]\n',
        '      accessModes: [ "ReadWriteOnce" ]\n      storageClassName: ""\n',
    ))  # fmt: skip
    sim.advance(10)
    assert events_of(sim, "PersistentVolumeClaim", "www-web-0") == [
        ("00:00:00", "FailedBinding",
         "no persistent volumes available for this claim and no storage class is set")
    ]  # fmt: skip
    assert sim.pod("web-0")["status"]["conditions"][0]["reason"] == "Unschedulable"


def retention(policy: str) -> str:
    return WEB_YAML.replace(
        '  serviceName: "nginx"\n',
        f'  serviceName: "nginx"\n  persistentVolumeClaimRetentionPolicy: {policy}\n',
    )


def test_retention_when_deleted_delete_gives_the_claims_to_the_statefulset() -> None:
    sim = Simulation.from_yaml(retention("{whenDeleted: Delete, whenScaled: Retain}"))
    sim.advance(20)
    sts = sim.objects("StatefulSet")[0]
    assert claims(sim)["www-web-0"]["metadata"]["ownerReferences"] == [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
         "uid": sts["metadata"]["uid"]}
    ]  # fmt: skip


def test_retention_when_scaled_delete_removes_a_scaled_down_pod_s_claim() -> None:
    sim = Simulation.from_yaml(retention("{whenDeleted: Retain, whenScaled: Delete}"))
    sim.advance(20)
    assert sorted(claims(sim)) == ["www-web-0", "www-web-1"]
    volume = claims(sim)["www-web-1"]["spec"]["volumeName"]
    sim.act({"action": "scale", "kind": "StatefulSet", "name": "web", "replicas": 1})
    sim.advance(60)
    assert sorted(claims(sim)) == ["www-web-0"]
    assert volume not in {v["metadata"]["name"] for v in sim.objects("PersistentVolume")}


def test_retain_keeps_a_scaled_down_pod_s_claim_for_its_return() -> None:
    sim = Simulation.from_yaml(WEB_YAML)
    sim.advance(20)
    volume = claims(sim)["www-web-1"]["spec"]["volumeName"]
    sim.act({"action": "scale", "kind": "StatefulSet", "name": "web", "replicas": 1})
    sim.advance(60)
    assert sorted(claims(sim)) == ["www-web-0", "www-web-1"]
    sim.act({"action": "scale", "kind": "StatefulSet", "name": "web", "replicas": 2})
    sim.advance(30)
    assert claims(sim)["www-web-1"]["spec"]["volumeName"] == volume  # the same volume again
    assert [m for _t, r, m in events_of(sim, "StatefulSet") if "Claim" in m] == [
        "create Claim www-web-0 Pod web-0 in StatefulSet web success",
        "create Claim www-web-1 Pod web-1 in StatefulSet web success",
    ]


def test_a_pod_with_a_local_volume_comes_back_to_its_node() -> None:
    sim = Simulation.from_yaml(NODES + WEB_YAML)
    sim.advance(30)
    node = sim.pod("web-0")["spec"]["nodeName"]
    sim.act({"action": "delete", "name": "web-0"})
    sim.advance(60)
    assert sim.pod("web-0")["spec"]["nodeName"] == node


def test_drain_md_a_drained_node_s_volume_keeps_its_statefulset_pod_pending() -> None:
    """A local volume pins its Pod: drained, web-0 is evicted and its successor cannot go
    elsewhere (the drain itself ends: the new web-0 has another UID)."""
    sim = Simulation.from_yaml(NODES + WEB_YAML)
    sim.advance(30)
    node = sim.pod("web-0")["spec"]["nodeName"]
    sim.act({"action": "drain", "node": node})
    sim.advance(60)
    lines = sim.drains[node].lines
    assert "pod/web-0 evicted" in lines and lines[-1] == f"node/{node} drained"
    failed = [m for _t, r, m in events_of(sim, "Pod", "web-0") if r == "FailedScheduling"]
    assert failed[-1].startswith(
        "0/2 nodes are available: 1 node(s) had volume node affinity conflict, "
        "1 node(s) were unschedulable."
    )


def test_the_storage_class_is_kind_s_default() -> None:
    (cls,) = Simulation.from_yaml(WEB_YAML).objects("StorageClass")
    assert (cls["metadata"]["name"], cls["provisioner"], cls["volumeBindingMode"],
            cls["reclaimPolicy"]) == ("standard", "rancher.io/local-path",
                                      "WaitForFirstConsumer", "Delete")  # fmt: skip
    assert cls["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}


def test_storage_runs_coast_and_resume_from_checkpoints_exactly(monkeypatch) -> None:
    """Claims, volumes and a PreBind waiting on provisioning survive checkpoints: a run
    resumed from any of them, or coasted, is the plain run, claims and volumes included."""
    import json

    from tests.unit import test_cluster_seek as seek
    from webapp.manifest import parse_scenario

    plain = seek.observed

    def observed(sim) -> str:
        extra = {"pvc": sim.objects("PersistentVolumeClaim"), "pv": sim.objects("PersistentVolume")}
        return plain(sim) + json.dumps(extra, sort_keys=True)

    monkeypatch.setattr(seek, "observed", observed)
    scenario = parse_scenario(
        NODES
        + retention("{whenDeleted: Retain, whenScaled: Delete}").replace(
            "replicas: 2", "replicas: 3"
        )
    )
    script = [
        (25.0, {"action": "delete", "name": "web-0"}),
        (26.5, {"action": "scale", "kind": "StatefulSet", "name": "web", "replicas": 1}),
        (60.0, {"action": "scale", "kind": "StatefulSet", "name": "web", "replicas": 3}),
    ]
    coasted = seek.play(scenario, script, 150.0, coasting=True)
    assert observed(coasted) == observed(seek.play(scenario, script, 150.0, coasting=False))
    assert seek.check_checkpoints(scenario, script, 150.0) > 1


def test_manifest_claim_templates_are_named_and_retention_values_checked() -> None:
    import pytest

    from webapp.manifest import ScenarioError

    unnamed = WEB_YAML.replace("  - metadata:\n      name: www\n", "  - metadata: {}\n")
    with pytest.raises(ScenarioError, match=r"spec\.volumeClaimTemplates\[0\]\.metadata\.name"):
        Simulation.from_yaml(unnamed)
    with pytest.raises(ScenarioError, match='"Maybe" is not allowed; use one of: Retain, Delete'):
        Simulation.from_yaml(retention("{whenDeleted: Maybe}"))


def test_the_page_s_kubectl_views_print_get_pvc_pv() -> None:
    from webapp.sessions.views import cluster_state

    sim = Simulation.from_yaml(WEB_YAML)
    sim.advance(30)
    text = cluster_state(sim)["views"]["storage"]
    assert text.splitlines()[1].startswith("persistentvolumeclaim/www-web-0   Bound    pvc-")
    assert "persistentvolume/pvc-" in text
    sim = Simulation.from_yaml(WEB_YAML.split("        volumeMounts:")[0])  # no claims
    sim.advance(10)
    assert cluster_state(sim)["views"]["storage"] == ""  # nothing to list: no section


def test_describe_pod_shows_the_claim_as_the_tutorial_does() -> None:
    from webapp.kubectl.describe import describe_pod

    sim = Simulation.from_yaml(WEB_YAML)
    sim.advance(20)
    events = [e for e in sim.events() if e["involvedObject"]["name"] == "web-0"]
    text = describe_pod(sim.pod("web-0"), events, sim.wall_time())
    assert "      /usr/share/nginx/html from www (rw)\n" in text
    assert (
        "  www:\n"
        "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the "
        "same namespace)\n"
        "    ClaimName:  www-web-0\n"
        "    ReadOnly:   false\n"
    ) in text
