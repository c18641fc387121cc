"""Ported cases of pkg/controller/daemon: TestNodeShouldRunDaemonPod (predicateName kept)
and the util tests of AddOrUpdateDaemonPodTolerations / ReplaceDaemonSetPodNodeNameNodeAffinity."""

from __future__ import annotations

import copy

import pytest

from webapp.engine.controllers.rules import daemonset as rules
from webapp.engine.scheduler import default_nodes


def new_daemon_set(**template_spec) -> dict:
    spec = {"containers": [{"name": "foo", "image": "foo/bar"}], **template_spec}
    return {
        "metadata": {"name": "foo", "namespace": "default", "uid": "u", "generation": 1},
        "spec": {"selector": {"matchLabels": {"name": "simple-daemon"}},
                 "template": {"metadata": {"labels": {"name": "simple-daemon"}}, "spec": spec}},
    }  # fmt: skip


def new_node(name: str = "node-1", **spec) -> dict:
    node = copy.deepcopy(default_nodes()[0])
    node["metadata"]["name"] = name
    node["metadata"]["labels"]["kubernetes.io/hostname"] = name
    node["spec"].update(spec)
    return node


NO_SCHEDULE = [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]
NO_EXECUTE = [{"key": "dedicated", "value": "user1", "effect": "NoExecute"}]


CASES = [
    ("ShouldRunDaemonPod", new_daemon_set(), new_node(), True, True),
    ("InsufficientResourceError",
     new_daemon_set(containers=[{"name": "foo", "image": "foo/bar",
                                 "resources": {"requests": {"cpu": "100"}}}]),
     new_node(), True, True),
    ("ErrPodNotMatchHostName", new_daemon_set(nodeName="other-node"), new_node(), False, False),
    ("ErrPodNotFitsHostPorts",
     new_daemon_set(containers=[{"name": "foo", "image": "foo/bar",
                                 "ports": [{"containerPort": 666, "hostPort": 666}]}]),
     new_node(), True, True),
    ("ErrNodeSelectorNotMatch", new_daemon_set(nodeSelector={"color": "blue"}), new_node(),
     False, False),
    ("ErrNodeAffinityNotMatch",
     new_daemon_set(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": [{"matchExpressions": [
             {"key": "type", "operator": "In", "values": ["production"]}]}]}}}),
     new_node(), False, False),
    ("ShouldRunDaemonPodOnUnschedulableNode", new_daemon_set(), new_node(unschedulable=True),
     True, True),
    ("ErrTaintsTolerationsNotMatch NoSchedule", new_daemon_set(), new_node(taints=NO_SCHEDULE),
     False, True),
    ("ErrTaintsTolerationsNotMatch NoExecute", new_daemon_set(), new_node(taints=NO_EXECUTE),
     False, False),
    ("TaintsTolerated", new_daemon_set(tolerations=NO_EXECUTE), new_node(taints=NO_EXECUTE),
     True, True),
]  # fmt: skip


@pytest.mark.parametrize(("ds", "node", "should_run", "should_continue"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])  # fmt: skip
def test_node_should_run_daemon_pod(ds, node, should_run, should_continue):
    assert rules.node_should_run_daemon_pod(node, ds) == (should_run, should_continue)


def test_not_ready_and_unreachable_nodes_keep_their_daemon_pod():
    # the condition's NoSchedule taint stops a new Pod; the NoExecute one is tolerated
    for status in ("False", "Unknown"):
        node = new_node()
        node["status"]["conditions"][0]["status"] = status
        assert rules.node_should_run_daemon_pod(node, new_daemon_set()) == (False, True)


def test_add_or_update_daemon_pod_tolerations():
    spec = {
        "hostNetwork": True,
        "tolerations": [
            {
                "key": "node.kubernetes.io/unschedulable",
                "operator": "Exists",
                "effect": "NoSchedule",
            }
        ],
    }
    rules.add_or_update_daemon_pod_tolerations(spec)
    assert [(t["key"], t["effect"]) for t in spec["tolerations"]] == [
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/network-unavailable", "NoSchedule"),
    ]
    plain = {}
    rules.add_or_update_daemon_pod_tolerations(plain)
    assert all(t["key"] != "node.kubernetes.io/network-unavailable" for t in plain["tolerations"])


def test_replace_daemon_set_pod_node_name_node_affinity():
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}
    assert rules.replace_daemon_set_pod_node_name_node_affinity(None, "host_1") == {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                         {"nodeSelectorTerms": [term]}}}  # fmt: skip
    old = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In",
                                                     "values": ["b"]}]}]}},
           "podAffinity": {"x": 1}}  # fmt: skip
    new = rules.replace_daemon_set_pod_node_name_node_affinity(old, "host_1")
    assert new["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [term]
    }
    assert new["podAffinity"] == {"x": 1}


def _pod(name, node, hash_, ready=True):
    return {"metadata": {"name": name, "creationTimestamp": "2026-01-01T00:00:00Z",
                         "labels": {rules.REVISION_LABEL: hash_}},
            "spec": {"nodeName": node},
            "status": {"phase": "Running", "conditions": [
                {"type": "Ready", "status": "True" if ready else "False",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}  # fmt: skip


def test_rolling_update_deletes_one_old_pod_at_a_time():
    ds = new_daemon_set()
    rules.spec_defaults(ds["spec"])
    nodes = [new_node(f"node-{i}") for i in (1, 2, 3)]
    pods = [_pod(f"p{i}", f"node-{i}", "old") for i in (1, 2, 3)]
    assert rules.rolling_update(ds, nodes, pods, "new", 1e10) == ["p1"]
    pods[0] = _pod("q1", "node-1", "new", ready=False)  # the new Pod is not available yet
    assert rules.rolling_update(ds, nodes, pods, "new", 1e10) == []
    pods[0] = _pod("q1", "node-1", "new")
    assert rules.rolling_update(ds, nodes, pods, "new", 1e10) == ["p2"]
    pods[2] = _pod("p3", "node-3", "old", ready=False)  # unavailable old Pods always go
    # unavailable old Pods always go (allowedReplacementPods, first; not counted unavailable)
    assert rules.rolling_update(ds, nodes, pods, "new", 1e10) == ["p3", "p2"]


def test_status_counts_and_misscheduled():
    ds = new_daemon_set(nodeSelector={"kubernetes.io/hostname": "node-1"})
    nodes = [new_node(f"node-{i}") for i in (1, 2)]
    pods = [_pod("a", "node-1", "h"), _pod("b", "node-2", "h")]
    status = rules.daemon_set_status(ds, nodes, pods, "h", 1e10)
    assert status == {"currentNumberScheduled": 1, "numberMisscheduled": 1,
                      "desiredNumberScheduled": 1, "numberReady": 1, "observedGeneration": 1,
                      "updatedNumberScheduled": 1, "numberAvailable": 1}  # fmt: skip


def test_get_unscheduled_pods_without_node():
    ds = new_daemon_set()
    nodes = [new_node("node-1")]
    bound = _pod("bound", "node-9", "h")
    unscheduled = _pod("waiting", "", "h")
    unscheduled["spec"] = {
        "affinity": rules.replace_daemon_set_pod_node_name_node_affinity(None, "node-9")
    }
    plan = rules.manage(ds, nodes, [bound, unscheduled])
    assert plan.delete == ["waiting"]  # the bound one is PodGC's
    assert plan.create_on == ["node-1"]
