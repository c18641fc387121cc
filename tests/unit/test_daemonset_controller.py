"""The DaemonSet controller in a cluster run: the docs' fluentd example, drain with and
without --ignore-daemonsets, a rolling update, kubectl get/describe."""

from __future__ import annotations

from pathlib import Path

from webapp.engine.cluster import ClusterSimulation
from webapp.kubectl import workloads
from webapp.manifest import parse_scenario

EXAMPLE = (Path(__file__).parent / "daemonset_docs_example.yaml").read_text()


def _run() -> ClusterSimulation:
    sim = ClusterSimulation(parse_scenario(EXAMPLE))
    sim.advance(30)
    return sim


def test_docs_example_runs_one_pod_per_node():
    sim = _run()
    pods = sim.objects("Pod")
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-1", "node-2", "node-3"]
    for pod in pods:
        assert pod["metadata"]["namespace"] == "kube-system"
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
        term = pod["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"][0]
        assert term["matchFields"][0]["values"] == [pod["spec"]["nodeName"]]
        assert "controller-revision-hash" in pod["metadata"]["labels"]
        assert pod["status"]["phase"] == "Running"
    ds = sim.objects("DaemonSet")[0]
    assert ds["status"]["desiredNumberScheduled"] == 3
    assert ds["status"]["numberReady"] == 3
    messages = [e["message"] for e in sim.events() if e.get("reason") == "SuccessfulCreate"]
    assert messages == [f"Created pod: {p['metadata']['name']}" for p in pods]
    table = workloads.get_table("DaemonSet", [ds], sim.wall_time())
    assert table.splitlines()[0].split() == ["NAME", "DESIRED", "CURRENT", "READY",
                                             "UP-TO-DATE", "AVAILABLE", "NODE", "SELECTOR",
                                             "AGE"]  # fmt: skip
    assert table.splitlines()[1].split() == ["fluentd-elasticsearch", "3", "3", "3", "3", "3",
                                             "<none>", "30s"]  # fmt: skip
    text = workloads.describe_daemonset(ds, pods, [], sim.wall_time())
    assert "Desired Number of Nodes Scheduled: 3\n" in text
    assert "Annotations:    deprecated.daemonset.template.generation: 1\n" in text


def test_drain_refuses_daemon_pods_without_ignore_daemonsets():
    sim = _run()
    pod = next(p for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-2")
    sim.act({"action": "drain", "node": "node-2", "ignoreDaemonsets": False})
    sim.advance(5)
    assert sim.drains["node-2"].lines == [
        "node/node-2 cordoned",
        'error: unable to drain node "node-2" due to error: cannot delete DaemonSet-managed '
        "Pods (use --ignore-daemonsets to ignore): kube-system/"
        f"{pod['metadata']['name']}, continuing command...",
    ]


def test_drain_keeps_the_daemon_pod_on_the_cordoned_node():
    sim = _run()
    pod = next(p for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-2")
    sim.act({"action": "drain", "node": "node-2"})
    sim.advance(20)
    assert sim.drains["node-2"].lines == [
        "node/node-2 cordoned",
        f"Warning: ignoring DaemonSet-managed Pods: kube-system/{pod['metadata']['name']}",
        "node/node-2 drained",
    ]
    still = sim.pod(pod["metadata"]["name"])
    assert still is not None and still["status"]["phase"] == "Running"
    assert sim.objects("DaemonSet")[0]["status"]["desiredNumberScheduled"] == 3


def test_deleted_daemon_pod_is_recreated_on_its_node():
    sim = _run()
    pod = next(p for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-3")
    sim.act({"action": "delete", "name": pod["metadata"]["name"]})
    sim.advance(60)
    on_node_3 = [p for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-3"]
    assert len(on_node_3) == 1 and on_node_3[0]["metadata"]["name"] != pod["metadata"]["name"]
    assert any(e["message"] == f"Deleted pod: {pod['metadata']['name']}" for e in sim.events()
               ) is False  # the user deleted it, not the controller  # fmt: skip


def test_rolling_update_replaces_pods_one_node_at_a_time():
    sim = _run()
    new = EXAMPLE.replace("fluentd:v5.0.1", "fluentd:v5.0.2")
    sim.act({"action": "apply", "yaml": new})
    seen_unavailable = set()
    for _ in range(120):
        sim.advance(1)
        status = sim.objects("DaemonSet")[0]["status"]
        seen_unavailable.add(status.get("numberUnavailable", 0))
        if status.get("updatedNumberScheduled") == 3 and status.get("numberAvailable") == 3:
            break
    assert status["updatedNumberScheduled"] == 3
    assert max(seen_unavailable) <= 1  # maxUnavailable 1
    images = {p["spec"]["containers"][0]["image"] for p in sim.objects("Pod")
              if p["metadata"].get("deletionTimestamp") is None}  # fmt: skip
    assert images == {"quay.io/fluentd_elasticsearch/fluentd:v5.0.2"}
    deleted = [e for e in sim.events() if e.get("reason") == "SuccessfulDelete"]
    assert len(deleted) == 3 and all(e["message"].startswith("Deleted pod: ") for e in deleted)


def test_the_lesson_a_daemonset_during_a_drain():
    text = (Path(__file__).parents[2] / "scenarios/workloads/daemonset-drain.yaml").read_text()
    sim = ClusterSimulation(parse_scenario(text))
    sim.advance(25)
    agent = {p["spec"]["nodeName"]: p["metadata"]["name"] for p in sim.objects("Pod")
             if p["metadata"]["namespace"] == "kube-system"}  # fmt: skip
    assert sorted(agent) == ["node-1", "node-2", "node-3"]
    assert (
        sim.drains["node-2"]
        .lines[1]
        .startswith(
            'error: unable to drain node "node-2" due to error: cannot delete DaemonSet-managed Pods'
        )
    )
    sim.advance(20)
    lines = sim.drains["node-1"].lines
    assert lines[1] == f"Warning: ignoring DaemonSet-managed Pods: kube-system/{agent['node-1']}"
    assert lines[-1] == "node/node-1 drained"
    on_node_1 = [p["metadata"]["name"] for p in sim.objects("Pod")
                 if p["spec"].get("nodeName") == "node-1"]  # fmt: skip
    assert on_node_1 == [agent["node-1"]]
    assert sim.pod(agent["node-1"])["status"]["phase"] == "Running"
    web = [p for p in sim.objects("Pod") if p["metadata"]["namespace"] == "default"
           and p["metadata"].get("deletionTimestamp") is None]  # fmt: skip
    assert len(web) == 3
    sim.advance(20)
    assert all(not (n.get("spec") or {}).get("unschedulable") for n in sim.nodes())
    status = sim.objects("DaemonSet")[0]["status"]
    assert (status["desiredNumberScheduled"], status["numberReady"]) == (3, 3)


NODE_4 = """\
apiVersion: v1
kind: Node
metadata:
  name: node-4
  labels:
    kubernetes.io/hostname: node-4
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady}
"""


def test_a_node_added_gets_its_daemon_pod():
    sim = _run()
    sim.act({"action": "apply", "yaml": NODE_4})
    sim.advance(30)
    nodes = sorted(p["spec"].get("nodeName") or "" for p in sim.objects("Pod"))
    assert nodes == ["node-1", "node-2", "node-3", "node-4"]
    assert sim.objects("DaemonSet")[0]["status"]["desiredNumberScheduled"] == 4


def test_a_tainted_node_loses_its_daemon_pod_only_for_no_execute():
    sim = _run()
    tainted = NODE_4.replace("name: node-4\n", "name: node-3\n", 1).replace(
        "kubernetes.io/hostname: node-4", "kubernetes.io/hostname: node-3"
    )
    no_schedule = tainted.replace("status:", "spec:\n  taints:\n  - {key: dedicated, value: db, "
                                  "effect: NoSchedule}\nstatus:", 1)  # fmt: skip
    sim.act({"action": "apply", "yaml": no_schedule})
    sim.advance(10)
    status = sim.objects("DaemonSet")[0]["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"]) == (2, 2)
    assert status["numberMisscheduled"] == 1  # it keeps running there (shouldContinueRunning)
    sim.act({"action": "apply", "yaml": no_schedule.replace("NoSchedule", "NoExecute")})
    sim.advance(60)
    assert sorted(p["spec"]["nodeName"] for p in sim.objects("Pod")) == ["node-1", "node-2"]
    assert sim.objects("DaemonSet")[0]["status"]["numberMisscheduled"] == 0


def test_deleting_the_daemon_set_deletes_its_pods():
    sim = _run()
    sim.act({"action": "delete", "kind": "DaemonSet", "name": "fluentd-elasticsearch"})
    sim.advance(60)
    assert sim.objects("DaemonSet") == [] and sim.objects("Pod") == []


def test_on_delete_replaces_a_pod_only_once_it_is_deleted():
    on_delete = EXAMPLE.replace(
        "spec:\n  selector:", "spec:\n  updateStrategy:\n    type: OnDelete\n  selector:", 1
    )
    sim = ClusterSimulation(parse_scenario(on_delete))
    sim.advance(30)
    sim.act({"action": "apply", "yaml": on_delete.replace("fluentd:v5.0.1", "fluentd:v5.0.2")})
    sim.advance(60)
    status = sim.objects("DaemonSet")[0]["status"]
    # updatedNumberScheduled is omitempty: 0 is left out, as the API server writes it
    assert "updatedNumberScheduled" not in status and status["numberReady"] == 3
    pod = next(p for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-1")
    sim.act({"action": "delete", "name": pod["metadata"]["name"]})
    sim.advance(60)
    new = [p for p in sim.objects("Pod") if p["spec"]["nodeName"] == "node-1"]
    assert [p["spec"]["containers"][0]["image"] for p in new] == [
        "quay.io/fluentd_elasticsearch/fluentd:v5.0.2"
    ]
    assert sim.objects("DaemonSet")[0]["status"]["updatedNumberScheduled"] == 1


def test_a_run_with_a_daemon_set_is_the_same_replayed_and_restored():
    text = (Path(__file__).parents[2] / "scenarios/workloads/daemonset-drain.yaml").read_text()
    forward = ClusterSimulation(parse_scenario(text))
    forward.advance(40)
    checkpoint = forward.checkpoint()
    forward.advance(40)
    replayed = ClusterSimulation.replay(forward.scenario, forward.actions, 80)
    assert replayed.trace() == forward.trace()
    assert checkpoint is not None
    restored = ClusterSimulation.restore(checkpoint)
    restored.advance(40)
    assert restored.trace() == forward.trace()


def test_a_node_down_keeps_its_daemon_pod_while_other_pods_are_evicted():
    text = (Path(__file__).parents[2] / "scenarios/workloads/daemonset-drain.yaml").read_text()
    text = text[: text.index("script:")]  # no drains
    sim = ClusterSimulation(parse_scenario(text))
    sim.advance(15)
    agent = next(p["metadata"]["name"] for p in sim.objects("Pod")
                 if p["metadata"]["namespace"] == "kube-system"
                 and p["spec"]["nodeName"] == "node-1")  # fmt: skip
    sim.act({"action": "node-down", "node": "node-1"})
    sim.advance(400)  # past the node monitor grace period and the 300 s toleration
    pod = sim.pod(agent)
    assert pod is not None and pod["metadata"].get("deletionTimestamp") is None
    # the tolerations the controller added: NoExecute without tolerationSeconds
    assert {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
            "effect": "NoExecute"} in pod["spec"]["tolerations"]  # fmt: skip
    evicted = [e for e in sim.events() if e.get("reason") == "TaintManagerEviction"]
    assert evicted and all("log-agent" not in e["message"] for e in evicted)
    status = sim.objects("DaemonSet")[0]["status"]
    assert status["desiredNumberScheduled"] == 2  # a not-ready node takes no new Pod


def test_apply_of_a_daemon_set_counts_in_the_runs_work():
    from webapp.engine.cluster_actions import run_work
    from webapp.manifest.rules import DAEMONSET_NODES, pod_work

    sim = _run()
    ds = sim.daemon_sets["fluentd-elasticsearch"]
    assert run_work(sim) == DAEMONSET_NODES * pod_work(ds["spec"]["template"])
