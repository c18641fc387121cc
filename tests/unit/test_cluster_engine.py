"""The multi-Pod engine (engine/cluster.py): Deployments and ReplicaSets driven by the
controllers' rules, EndpointSlices over many Pods, and traffic through a Service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp.engine import ActionError, Simulation
from webapp.engine.cluster import ClusterSimulation
from webapp.kubectl import pod_columns
from webapp.kubectl.workloads import get_deployments, get_replicasets
from webapp.manifest import ScenarioError

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 2
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: playground/v1
kind: Simulation
metadata:
  name: rolling
traffic:
  service: web
  rps: 20
script:
- at: 30
  action: set-image
  name: web
  container: nginx
  image: nginx:1.28
"""

PRESTOP = DEPLOYMENT.replace(
    "        readinessProbe:",
    "        lifecycle:\n          preStop:\n            sleep: {seconds: 5}\n        readinessProbe:",
)


def controller_events(sim) -> list[tuple[str, str, str]]:
    return [
        (e["involvedObject"]["kind"], e["reason"], e["message"])
        for e in sim.events()
        if e["involvedObject"]["kind"] != "Pod"
    ]


def test_a_workload_scenario_runs_as_a_cluster_and_a_pod_scenario_does_not() -> None:
    assert isinstance(Simulation.from_yaml(DEPLOYMENT), ClusterSimulation)
    pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: nginx\n"
    assert type(Simulation.from_yaml(pod)) is Simulation


def test_the_deployment_creates_its_replica_set_and_pods_named_by_the_template_hash() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT)
    sim.advance(29)
    pods = sim.objects("Pod")
    assert len(pods) == 3
    rs = sim.objects("ReplicaSet")
    assert len(rs) == 1
    hash_ = rs[0]["metadata"]["labels"]["pod-template-hash"]
    assert rs[0]["metadata"]["name"] == f"web-{hash_}"
    for pod in pods:
        name = pod["metadata"]["name"]
        assert name.startswith(f"web-{hash_}-") and len(name) == len(f"web-{hash_}-") + 5
        assert pod["metadata"]["ownerReferences"][0]["name"] == rs[0]["metadata"]["name"]
        assert pod_columns(pod, sim.wall_time())["STATUS"] == "Running"
    # replicas spread over the three default nodes
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-1", "node-2", "node-3"]
    assert get_deployments(sim.objects("Deployment"), sim.wall_time()).splitlines()[1].split()[:4] == [
        "web", "3/3", "3", "3"
    ]  # fmt: skip
    deployment = sim.objects("Deployment")[0]
    conditions = {c["type"]: c for c in deployment["status"]["conditions"]}
    assert conditions["Available"]["status"] == "True"
    assert conditions["Progressing"]["reason"] == "NewReplicaSetAvailable"


def test_a_rolling_update_surges_one_and_scales_the_old_replica_set_down_one_by_one() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT)
    sim.advance(120)
    events = controller_events(sim)
    scaling = [m for kind, reason, m in events if reason == "ScalingReplicaSet"]
    old, new = sorted(
        (r["metadata"]["name"] for r in sim.objects("ReplicaSet")),
        key=lambda n: n != scaling[0].split()[4],
    )
    assert scaling == [
        f"Scaled up replica set {old} to 3",
        f"Scaled up replica set {new} to 1",
        f"Scaled down replica set {old} to 2 from 3",
        f"Scaled up replica set {new} to 2 from 1",
        f"Scaled down replica set {old} to 1 from 2",
        f"Scaled up replica set {new} to 3 from 2",
        f"Scaled down replica set {old} to 0 from 1",
    ]
    assert sum(1 for _, r, _ in events if r == "SuccessfulCreate") == 6
    assert sum(1 for _, r, _ in events if r == "SuccessfulDelete") == 3
    table = get_replicasets(sim.objects("ReplicaSet"), sim.wall_time())
    assert [line.split()[:4] for line in table.splitlines()[1:]] == [
        [old, "0", "0", "0"], [new, "3", "3", "3"]
    ]  # fmt: skip
    deployment = sim.objects("Deployment")[0]
    assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"


def test_without_prestop_a_rollout_drops_requests_and_with_a_prestop_sleep_none() -> None:
    plain = Simulation.from_yaml(DEPLOYMENT)
    plain.advance(29)
    before = plain.traffic()["failed"]
    plain.advance(120 - 29)
    dropped = plain.traffic()["failed"] - before
    assert dropped > 0
    assert plain.traffic()["noEndpoints"] == before  # the drops are refused connections

    slept = Simulation.from_yaml(PRESTOP)
    slept.advance(29)
    before = slept.traffic()["failed"]
    slept.advance(120 - 29)
    assert slept.traffic()["failed"] - before == 0
    # 20 requests/s in batches every 250 ms from t=0 to t=120 inclusive: 481 batches of 5
    assert slept.traffic()["sent"] == plain.traffic()["sent"] == 2405


def test_a_deleted_pod_is_replaced_by_one_with_a_new_name() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.advance(20)
    victim = sim.objects("Pod")[0]["metadata"]["name"]
    sim.act({"action": "delete", "name": victim, "gracePeriodSeconds": 30})
    # nginx quits on SIGTERM at once: the Pod is gone and its successor already created
    assert sim.pod(victim) is None
    sim.advance(60)
    names = [p["metadata"]["name"] for p in sim.objects("Pod")]
    assert len(names) == 3 and victim not in names
    assert ("ReplicaSet", "SuccessfulCreate") in {(k, r) for k, r, _ in controller_events(sim)}


def test_scale_down_then_up_and_rollout_undo() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.advance(20)
    sim.act({"action": "scale", "name": "web", "replicas": 1})
    sim.advance(60)
    assert len(sim.objects("Pod")) == 1
    sim.act({"action": "scale", "kind": "Deployment", "name": "web", "replicas": 2})
    sim.advance(60)
    assert len(sim.objects("Pod")) == 2
    first_rs = sim.objects("ReplicaSet")[0]["metadata"]["name"]
    sim.act({"action": "set-image", "name": "web", "container": "nginx", "image": "nginx:1.28"})
    sim.advance(120)
    sim.act({"action": "rollout-undo", "name": "web"})
    sim.advance(120)
    live = {p["metadata"]["labels"]["pod-template-hash"] for p in sim.objects("Pod")}
    assert live == {first_rs.rsplit("-", 1)[1]}
    deployment = sim.objects("Deployment")[0]
    assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"


def test_refused_actions_change_nothing() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT)
    sim.advance(10)
    before = json.dumps(sim.trace(), sort_keys=True)
    for action in (
        {"action": "scale", "name": "nope", "replicas": 2},
        {"action": "scale", "name": "web", "replicas": -1},
        {"action": "delete", "name": "web-xxxxx"},
        {"action": "set-image", "name": "web", "container": "other", "image": "x"},
        {"action": "rollout-undo", "name": "web"},  # no history yet
        {"action": "cordon", "node": "node-9"},
        {"action": "fly"},
    ):
        with pytest.raises(ActionError):
            sim.act(action)
    assert json.dumps(sim.trace(), sort_keys=True) == before
    assert sim.actions == []


def test_runs_are_deterministic_and_replay_gives_the_same_trace() -> None:
    one = Simulation.from_yaml(DEPLOYMENT)
    one.advance(50)
    one.act({"action": "delete", "name": one.objects("Pod")[0]["metadata"]["name"]})
    one.advance(50)
    two = Simulation.replay(one.scenario, one.actions, 100)
    assert json.dumps(one.trace(), sort_keys=True) == json.dumps(two.trace(), sort_keys=True)


def test_a_cordoned_node_gets_no_new_pods() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.act({"action": "cordon", "node": "node-1"})  # after second 0: 3 Pods exist
    first = {p["metadata"]["name"] for p in sim.objects("Pod")}
    sim.advance(5)
    sim.act({"action": "scale", "name": "web", "replicas": 6})
    sim.advance(5)
    created = [p for p in sim.objects("Pod") if p["metadata"]["name"] not in first]
    assert len(first) == 3 and len(created) == 3
    assert all(p["spec"].get("nodeName") != "node-1" for p in created)


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (lambda t: t.replace("      app: web\n  template", "      app: other\n  template"), "selector_mismatch"),
        (lambda t: t.replace("kind: Deployment", "kind: DaemonSet"), "unknown_field"),  # replicas
        (lambda t: t.replace("replicas: 3", "replicas: -1"), "minimum"),
    ],
)  # fmt: skip
def test_workloads_are_validated_at_the_door(edit, code) -> None:
    with pytest.raises(ScenarioError) as caught:
        Simulation.from_yaml(edit(DEPLOYMENT))
    if code is not None:
        assert code in {e["code"] for e in caught.value.errors}
    assert all(e["line"] >= 1 for e in caught.value.errors)


def test_rollout_status_reads_the_deployment_versions_as_kubectl_would() -> None:
    from webapp.kubectl.workloads import rollout_status_transcript

    sim = Simulation.from_yaml(DEPLOYMENT)
    sim.advance(29.5)
    sim.advance(120)
    versions = [obj for t, obj in sim.deployment_versions["web"] if t >= 30]
    text, done = rollout_status_transcript("Deployment", versions)
    assert done
    lines = list(dict.fromkeys(text.splitlines()))  # kubectl repeats a line per watch event
    prefix = 'Waiting for deployment "web" rollout to finish: '
    assert lines[0] == "Waiting for deployment spec update to be observed..." or lines[
        0
    ].startswith(prefix)
    assert f"{prefix}1 out of 3 new replicas have been updated..." in lines
    assert f"{prefix}2 out of 3 new replicas have been updated..." in lines
    assert f"{prefix}1 old replicas are pending termination..." in lines
    assert lines[-1] == 'deployment "web" successfully rolled out'


BAD_IMAGE = (
    DEPLOYMENT.split("---\napiVersion: playground")[0].replace(
        "  replicas: 3\n", "  replicas: 3\n  progressDeadlineSeconds: 60\n"
    )
    + """---
apiVersion: playground/v1
kind: Simulation
metadata:
  name: stuck
images:
  nginx:9.99: {exists: false}
script:
- {at: 30, action: set-image, name: web, container: nginx, image: "nginx:9.99"}
"""
)


def test_a_rollout_stuck_on_a_bad_image_exceeds_its_progress_deadline_and_undo_recovers() -> None:
    sim = Simulation.from_yaml(BAD_IMAGE)
    sim.advance(80)
    progressing = {c["type"]: c for c in sim.objects("Deployment")[0]["status"]["conditions"]}
    assert progressing["Progressing"]["status"] == "True"
    sim.advance(30)
    deployment = sim.objects("Deployment")[0]
    progressing = {c["type"]: c for c in deployment["status"]["conditions"]}["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert progressing["message"].endswith("has timed out progressing.")
    # maxUnavailable 25 % of 3 rounds down to 0: the three old Pods keep serving
    assert (
        sum(1 for p in sim.objects("Pod") if pod_columns(p, sim.wall_time())["READY"] == "1/1") == 3
    )
    statuses = {pod_columns(p, sim.wall_time())["STATUS"] for p in sim.objects("Pod")}
    assert statuses & {"ImagePullBackOff", "ErrImagePull"}
    sim.act({"action": "rollout-undo", "name": "web"})
    sim.advance(60)
    assert len(sim.objects("Pod")) == 3
    assert all(p["spec"]["containers"][0]["image"] == "nginx:1.27" for p in sim.objects("Pod"))
    progressing = {c["type"]: c for c in sim.objects("Deployment")[0]["status"]["conditions"]}
    assert progressing["Progressing"]["reason"] == "NewReplicaSetAvailable"


def test_recreate_stops_every_old_pod_before_the_new_replica_set_scales_up() -> None:
    text = DEPLOYMENT.replace("  replicas: 3\n", "  replicas: 3\n  strategy: {type: Recreate}\n")
    sim = Simulation.from_yaml(text)
    sim.advance(120)
    scaling = [m for _, r, m in controller_events(sim) if r == "ScalingReplicaSet"]
    assert [(m.split()[1], m.split()[4], m.split()[6:]) for m in scaling] == [
        ("up", "web-6b4876d74d", ["3"]),
        ("down", "web-6b4876d74d", ["0", "from", "3"]),
        ("up", scaling[2].split()[4], ["3"]),
    ]
    assert scaling[2].split()[4] != "web-6b4876d74d"
    # with nothing serving between the two, requests go to no endpoint for a while
    assert sim.traffic()["noEndpoints"] > 165


def test_rollout_restart_makes_a_new_replica_set_with_the_restarted_at_annotation() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.advance(20)
    sim.act({"action": "rollout-restart", "name": "web"})
    sim.advance(120)
    rss = sim.objects("ReplicaSet")
    assert len(rss) == 2
    newest = max(
        rss, key=lambda r: r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
    )
    annotations = newest["spec"]["template"]["metadata"]["annotations"]
    assert annotations["kubectl.kubernetes.io/restartedAt"] == "2026-01-01T00:00:20Z"
    assert all(
        p["metadata"]["labels"]["pod-template-hash"]
        == newest["metadata"]["labels"]["pod-template-hash"]
        for p in sim.objects("Pod")
    )


def test_a_drain_waits_for_the_disruption_budget() -> None:
    from pathlib import Path

    text = (
        Path(__file__).resolve().parents[2] / "scenarios/workloads/drain-with-pdb.yaml"
    ).read_text()
    sim = Simulation.from_yaml(text)
    sim.advance(29)
    lines = sim.drains["node-1"].lines
    assert lines[0] == "node/node-1 cordoned"
    assert lines[1].startswith("evicting pod default/web-")
    assert lines[2].endswith(
        "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."
    )
    assert len(sim.objects("Pod")) == 3
    pdb = sim.objects("PodDisruptionBudget")[0]["status"]
    assert (pdb["currentHealthy"], pdb["desiredHealthy"], pdb["disruptionsAllowed"]) == (3, 3, 0)
    sim.advance(60)
    lines = sim.drains["node-1"].lines
    assert lines[-1] == "node/node-1 drained"
    assert lines[-2].startswith("pod/web-") and lines[-2].endswith(" evicted")
    assert all(p["spec"]["nodeName"] != "node-1" for p in sim.objects("Pod"))
    assert len(sim.objects("Pod")) == 4


def test_the_playground_bounds_replicas_and_the_pods_of_a_run() -> None:
    with pytest.raises(ScenarioError) as caught:
        Simulation.from_yaml(DEPLOYMENT.replace("replicas: 3", "replicas: 2147483647"))
    assert caught.value.errors[0]["code"] == "playground_limit"
    assert caught.value.errors[0]["path"] == "spec.replicas"
    sim = Simulation.from_yaml(DEPLOYMENT)
    with pytest.raises(ActionError):
        sim.act({"action": "scale", "name": "web", "replicas": 101})


def test_a_run_stops_creating_pods_at_its_limit(monkeypatch) -> None:
    from webapp.engine import cluster

    monkeypatch.setattr(cluster, "MAX_PODS_CREATED", 4)
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.act({"action": "scale", "name": "web", "replicas": 6})
    sim.advance(10)
    assert len(sim.objects("Pod")) == 4
    warnings = [e for e in sim.events() if e["reason"] == "FailedCreate"]
    assert [w["message"] for w in warnings] == [
        "Error creating: the playground's limit of 4 Pods per run is reached"
    ]


def test_traffic_must_name_a_service_of_the_scenario() -> None:
    with pytest.raises(ScenarioError) as caught:
        Simulation.from_yaml(DEPLOYMENT.replace("  service: web\n", "  service: shop\n"))
    (error,) = caught.value.errors
    assert (error["code"], error["path"]) == ("traffic_unknown_service", "traffic.service")
    assert error["line"] == DEPLOYMENT.splitlines().index("  service: web") + 1


def test_advancing_in_slices_is_the_same_run() -> None:
    whole = Simulation.from_yaml(DEPLOYMENT)
    whole.advance(90)
    sliced = Simulation.from_yaml(DEPLOYMENT)
    calls = {"n": 0}

    def stop() -> bool:
        calls["n"] += 1
        return calls["n"] % 7 == 0

    while not sliced.advance_to(90, stop):
        pass
    assert calls["n"] > 7
    assert json.dumps(whole.trace(), sort_keys=True) == json.dumps(sliced.trace(), sort_keys=True)


def test_a_paused_rollout_waits_for_resume() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.advance(20)
    sim.act({"action": "rollout-pause", "name": "web"})
    with pytest.raises(ActionError) as caught:
        sim.act({"action": "rollout-pause", "name": "web"})
    assert caught.value.message == "deployment.apps/web already paused"
    sim.act({"action": "set-image", "name": "web", "container": "nginx", "image": "nginx:1.28"})
    sim.advance(60)
    assert len(sim.objects("ReplicaSet")) == 1  # no rollout while paused
    progressing = {c["type"]: c for c in sim.objects("Deployment")[0]["status"]["conditions"]}
    assert (progressing["Progressing"]["status"], progressing["Progressing"]["reason"]) == (
        "Unknown", "DeploymentPaused"
    )  # fmt: skip
    with pytest.raises(ActionError):
        sim.act({"action": "rollout-restart", "name": "web"})
    sim.act({"action": "rollout-resume", "name": "web"})
    sim.advance(120)
    assert len(sim.objects("ReplicaSet")) == 2
    assert {p["spec"]["containers"][0]["image"] for p in sim.objects("Pod")} == {"nginx:1.28"}
    with pytest.raises(ActionError) as caught:
        sim.act({"action": "rollout-resume", "name": "web"})
    assert caught.value.code == "not_paused"


def test_crash_acts_on_the_focus_pod_which_restarts_in_place() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.advance(20)
    focus = sim.focus_name
    sim.act({"action": "crash", "container": "nginx", "exitCode": 1})
    sim.advance(30)
    assert sim.pod()["metadata"]["name"] == focus
    assert sim.pod()["status"]["containerStatuses"][0]["restartCount"] == 1
    assert len(sim.objects("Pod")) == 3  # restarted in place: the ReplicaSet has nothing to do
    with pytest.raises(ActionError):
        sim.act({"action": "crash", "container": "nope"})


DOCS_DEPLOYMENT = (Path(__file__).parent / "data" / "docs" / "nginx-deployment.yaml").read_text(
    encoding="utf-8"
)


def test_the_docs_deployment_example_behaves_as_its_page_shows() -> None:
    """concepts/workloads/controllers/deployment.md, pasted unchanged."""
    from webapp.kubectl.workloads import rollout_status_transcript

    sim = Simulation.from_yaml(DOCS_DEPLOYMENT)
    sim.advance(18)
    assert get_deployments(sim.objects("Deployment"), sim.wall_time()) == (
        "NAME               READY   UP-TO-DATE   AVAILABLE   AGE\n"
        "nginx-deployment   3/3     3            3           18s\n"
    )
    rs = get_replicasets(sim.objects("ReplicaSet"), sim.wall_time()).splitlines()
    assert rs[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert rs[1].split()[1:] == ["3", "3", "3", "18s"]
    for pod in sim.objects("Pod"):
        labels = pod["metadata"]["labels"]
        assert labels["app"] == "nginx" and len(labels["pod-template-hash"]) >= 8
    sim.act({"action": "set-image", "name": "nginx-deployment", "container": "nginx",
             "image": "nginx:1.16.1"})  # fmt: skip
    sim.advance(60)
    versions = [obj for t, obj in sim.deployment_versions["nginx-deployment"] if t >= 18]
    text, done = rollout_status_transcript("Deployment", versions)
    prefix = 'Waiting for deployment "nginx-deployment" rollout to finish: '
    assert done and list(dict.fromkeys(text.splitlines())) == [
        f"{prefix}1 out of 3 new replicas have been updated...",
        f"{prefix}2 out of 3 new replicas have been updated...",
        f"{prefix}1 old replicas are pending termination...",
        'deployment "nginx-deployment" successfully rolled out',
    ]


def test_a_lost_node_s_pods_are_replaced_after_the_toleration() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.advance(20)
    lost = next(
        p["metadata"]["name"] for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-1"
    )
    sim.act({"action": "node-down", "node": "node-1"})
    sim.advance(55)  # the node monitor grace period is 50 s
    ready = {c["type"]: c["status"] for c in sim.pod(lost)["status"]["conditions"]}
    assert ready["Ready"] == "False"
    assert any(e["reason"] == "NodeNotReady" for e in sim.events())
    assert len(sim.objects("Pod")) == 3  # still within the 300 s toleration
    sim.advance(300)
    assert sim.pod(lost)["metadata"].get("deletionTimestamp")  # Terminating: its kubelet is away
    on_others = [p for p in sim.objects("Pod") if p["spec"]["nodeName"] != "node-1"]
    assert len(on_others) == 3  # the ReplicaSet replaced it elsewhere
    sim.act({"action": "node-up", "node": "node-1"})
    sim.advance(60)
    assert sim.pod(lost) is None  # the kubelet came back and finished the deletion
    with pytest.raises(ActionError):
        sim.act({"action": "node-up", "node": "node-1"})


def test_scripted_actions_must_name_objects_and_nodes_of_the_scenario() -> None:
    text = DEPLOYMENT.replace("  name: web\n  container: nginx", "  name: shop\n  container: nginx")
    text += "- {at: 40, action: drain, node: node-7}\n"
    with pytest.raises(ScenarioError) as caught:
        Simulation.from_yaml(text)
    found = {(e["code"], e["path"]) for e in caught.value.errors}
    assert found == {
        ("script_unknown_object", "script[0].name"), ("script_unknown_node", "script[1].node")
    }  # fmt: skip


def test_the_traffic_counts_each_rollout_apart() -> None:
    sim = Simulation.from_yaml(DEPLOYMENT)
    sim.advance(120)
    rollouts = sim.traffic()["rollouts"]
    assert [(r["revision"], r["at"]) for r in rollouts] == [(1, 0.0), (2, 30.0)]
    assert rollouts[1]["failed"] > 0  # the rolling update without preStop
    assert rollouts[0]["failed"] == sim.traffic()["noEndpoints"]  # before any Pod was Ready
    assert sum(r["sent"] for r in rollouts) == sim.traffic()["sent"]


def test_the_watch_across_pods_is_kubectl_get_pods_w() -> None:
    from webapp.kubectl import watch_lines
    from webapp.sessions.views import ClusterWatch

    sim = Simulation.from_yaml(DEPLOYMENT)
    watch = ClusterWatch()
    sim.advance(20)
    watch.text(sim)  # fed in two steps ...
    sim.advance(60)
    text = watch.text(sim)
    versions = [(sim.wall_time(t), kind, pod) for t, kind, pod in sim.watch_versions]
    assert text == "\n".join(watch_lines(versions))  # ... the same as all at once
    names = {line.split()[0] for line in text.splitlines()[1:]}
    assert len(names) == 6  # three Pods of each ReplicaSet
    assert any("Terminating" in line for line in text.splitlines())


def test_a_run_holds_at_most_its_live_pod_limit(monkeypatch) -> None:
    from webapp.engine import cluster

    monkeypatch.setattr(cluster, "MAX_LIVE_PODS", 5)
    sim = Simulation.from_yaml(DEPLOYMENT.split("---\napiVersion: playground")[0])
    sim.act({"action": "scale", "name": "web", "replicas": 8})
    sim.advance(10)
    assert len(sim.objects("Pod")) == 5
    assert [e["message"] for e in sim.events() if e["reason"] == "FailedCreate"] == [
        "Error creating: the playground runs at most 5 Pods at once"
    ]


@pytest.mark.parametrize(
    "action",
    [
        {"action": "scale", "name": "web", "replicas": 1.5},
        {"action": "scale", "name": "web", "replicas": True},
        {"action": "scale", "name": ["web"], "replicas": 1},
        {"action": "scale", "kind": "Job", "name": "web", "replicas": 1},
        {"action": "delete", "name": None},
        {"action": "delete", "gracePeriodSeconds": -1},
        {"action": "delete", "force": "yes"},
        {"action": "set-image", "name": "web", "container": "nginx", "image": "a b"},
        {"action": "set-image", "name": "web", "container": "nginx"},
        {"action": "rollout-undo", "name": "web", "toRevision": 99},
        {"action": "focus"},
        {"action": "drain", "node": 3},
        {"action": "apply", "yaml": "kind: Pod\n"},
        # issue 17: a ConfigMap is applied (kubectl apply), but not beside a refused object
        {"action": "apply", "yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
                                    + DEPLOYMENT.split("---")[0].replace("app: web", "app: x")},
        {"action": "apply", "yaml": DEPLOYMENT.split("---")[0].replace("app: web", "app: x")},
        {"action": "crash", "container": "nginx", "exitCode": 999},
        {"action": "node-up", "node": "node-1"},
        {"action": "scale", "name": "web", "replicas": 1, "extra": 1},
        [],
        "scale",
    ],
)  # fmt: skip
def test_hostile_actions_are_refused_and_change_nothing(action) -> None:
    sim = Simulation.from_yaml(DEPLOYMENT)
    sim.advance(20)
    before = json.dumps(sim.trace(), sort_keys=True)
    with pytest.raises(ActionError):
        sim.act(action)
    assert json.dumps(sim.trace(), sort_keys=True) == before


def test_an_action_at_second_0_of_a_new_run_equals_its_replay() -> None:
    """The cluster run's second 0 (the controllers' first sync) runs before an action
    taken in a new run, as it does in every replay."""
    live = Simulation.from_yaml(DEPLOYMENT)
    live.act({"action": "scale", "name": "web", "replicas": 5})
    live.advance(30)
    replayed = Simulation.replay(live.scenario, live.actions, live.now)
    assert json.dumps(live.trace(), sort_keys=True) == json.dumps(replayed.trace(), sort_keys=True)
    twin = Simulation.from_yaml(DEPLOYMENT)
    with pytest.raises(ActionError):
        twin.act({"action": "scale", "name": "nope", "replicas": 2})
    assert json.dumps(twin.trace(), sort_keys=True) == json.dumps(
        Simulation.from_yaml(DEPLOYMENT).trace(), sort_keys=True
    )
