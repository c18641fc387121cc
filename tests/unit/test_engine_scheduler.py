"""The scheduler's filters, node choice and FitError messages."""

from __future__ import annotations

import copy

import pytest

from webapp.engine.scheduler import (
    ScheduleResult,
    default_nodes,
    pod_requests,
    schedule,
    tolerates_taint,
)

TAIL_NOT_HELPFUL = (
    " no new claims to deallocate, preemption: 0/3 nodes are available: "
    "3 Preemption is not helpful for scheduling."
)


def make_pod(cpu=None, memory=None, **spec) -> dict:
    requests = {}
    if cpu is not None:
        requests["cpu"] = cpu
    if memory is not None:
        requests["memory"] = memory
    container = {
        "name": "app",
        "image": "nginx",
        "resources": {"requests": requests} if requests else {},
    }
    return {"metadata": {"name": "web"}, "spec": {"containers": [container], **spec}}


def nodes_with(change) -> list[dict]:
    nodes = default_nodes()
    for node in nodes:
        change(node)
    return nodes


def test_default_nodes_are_deterministic_and_ready():
    nodes = default_nodes()
    assert [n["metadata"]["name"] for n in nodes] == ["node-1", "node-2", "node-3"]
    assert nodes == default_nodes()
    node = nodes[1]
    assert node["status"]["allocatable"] == {"cpu": "2", "memory": "4Gi", "pods": "110"}
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-2"
    assert node["metadata"]["labels"]["kubernetes.io/os"] == "linux"
    assert node["status"]["addresses"][0] == {"type": "InternalIP", "address": "10.0.0.12"}
    assert node["status"]["conditions"][0]["type"] == "Ready"
    assert node["status"]["conditions"][0]["status"] == "True"


def test_schedule_result_is_frozen():
    result = ScheduleResult("node-1", "")
    with pytest.raises(AttributeError):
        result.node_name = "node-2"  # type: ignore[misc]


def test_empty_nodes_pick_the_first_by_name():
    assert schedule(make_pod("100m"), default_nodes()) == ScheduleResult("node-1", "")


def test_node_name_bypasses_the_scheduler():
    nodes = nodes_with(lambda n: n["spec"].update(unschedulable=True))
    assert schedule(make_pod(nodeName="node-3"), nodes) == ScheduleResult("node-3", "")


def test_least_allocated_node_wins():
    requested = {
        "node-1": {"cpu": "1"},
        "node-2": {"cpu": "500m"},
        "node-3": {"cpu": "1", "memory": "1Gi"},
    }
    assert schedule(make_pod("100m"), default_nodes(), requested=requested).node_name == "node-2"


def test_insufficient_cpu_larger_than_any_node():
    result = schedule(make_pod("3"), default_nodes())
    assert result == ScheduleResult(
        None, "0/3 nodes are available: 3 Insufficient cpu." + TAIL_NOT_HELPFUL
    )


def test_insufficient_cpu_because_of_other_pods_has_no_preemption_victims():
    requested = {name: {"cpu": "1500m", "pods": 1} for name in ("node-1", "node-2", "node-3")}
    result = schedule(make_pod("1"), default_nodes(), requested=requested)
    assert result.message == (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    )


def test_insufficient_cpu_and_memory_both_counted():
    result = schedule(make_pod("4", "8Gi"), default_nodes())
    assert result.message == (
        "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory." + TAIL_NOT_HELPFUL
    )


def test_requests_exactly_allocatable_fit():
    assert schedule(make_pod("2", "4Gi"), default_nodes()).node_name == "node-1"


def test_node_selector_mismatch():
    result = schedule(make_pod(nodeSelector={"disktype": "ssd"}), default_nodes())
    assert result.message == (
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
        + TAIL_NOT_HELPFUL
    )


def test_node_selector_match():
    nodes = default_nodes()
    nodes[2]["metadata"]["labels"]["disktype"] = "ssd"
    assert schedule(make_pod(nodeSelector={"disktype": "ssd"}), nodes).node_name == "node-3"


def required(*terms) -> dict:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
        }
    }


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-2", "node-3"]},
            "node-2",
        ),
        ({"key": "kubernetes.io/hostname", "operator": "NotIn", "values": ["node-1"]}, "node-2"),
        ({"key": "zone", "operator": "Exists"}, "node-3"),
        ({"key": "zone", "operator": "DoesNotExist"}, "node-1"),
        ({"key": "zone", "operator": "In", "values": ["b"]}, None),
        ({"key": "gen", "operator": "Gt", "values": ["2"]}, "node-3"),
        ({"key": "gen", "operator": "Lt", "values": ["2"]}, None),
    ],
)
def test_required_node_affinity_match_expressions(expression, expected):
    nodes = default_nodes()
    nodes[2]["metadata"]["labels"].update(zone="a", gen="3")
    result = schedule(make_pod(affinity=required({"matchExpressions": [expression]})), nodes)
    assert result.node_name == expected
    if expected is None:
        assert "node(s) didn't match Pod's node affinity/selector" in result.message


def test_node_selector_terms_are_ored_and_match_fields_use_the_name():
    terms = [
        {"matchExpressions": [{"key": "zone", "operator": "Exists"}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-3"]}]},
    ]
    assert schedule(make_pod(affinity=required(*terms)), default_nodes()).node_name == "node-3"
    assert schedule(make_pod(affinity=required({})), default_nodes()).node_name is None


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def test_untolerated_taint():
    nodes = nodes_with(lambda n: n["spec"].update(taints=[TAINT]))
    result = schedule(make_pod(), nodes)
    assert (
        result.message
        == "0/3 nodes are available: 3 node(s) had untolerated taint(s)." + TAIL_NOT_HELPFUL
    )


@pytest.mark.parametrize(
    ("toleration", "tolerated"),
    [
        ({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}, True),
        ({"key": "dedicated", "value": "gpu"}, True),  # operator defaults to Equal
        ({"key": "dedicated", "operator": "Exists"}, True),
        ({"operator": "Exists"}, True),
        ({"key": "dedicated", "value": "cpu"}, False),
        ({"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "other", "operator": "Exists"}, False),
    ],
)
def test_tolerates_taint(toleration, tolerated):
    assert tolerates_taint(toleration, TAINT) is tolerated
    nodes = nodes_with(lambda n: n["spec"].update(taints=[TAINT]))
    assert (schedule(make_pod(tolerations=[toleration]), nodes).node_name is not None) is tolerated


def test_prefer_no_schedule_taint_does_not_filter():
    nodes = nodes_with(lambda n: n["spec"].update(taints=[{**TAINT, "effect": "PreferNoSchedule"}]))
    assert schedule(make_pod(), nodes).node_name == "node-1"


def set_ready(node: dict, status: str) -> None:
    node["status"]["conditions"][0]["status"] = status


def test_not_ready_and_unreachable_nodes_are_tainted_no_schedule():
    nodes = default_nodes()
    set_ready(nodes[0], "False")
    set_ready(nodes[1], "Unknown")
    # The DefaultTolerationSeconds tolerations are NoExecute: they do not help.
    tolerations = [
        {
            "key": "node.kubernetes.io/not-ready",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
        {
            "key": "node.kubernetes.io/unreachable",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
    ]
    assert schedule(make_pod(tolerations=tolerations), nodes).node_name == "node-3"
    set_ready(nodes[2], "False")
    result = schedule(make_pod(tolerations=tolerations), nodes)
    assert (
        result.message
        == "0/3 nodes are available: 3 node(s) had untolerated taint(s)." + TAIL_NOT_HELPFUL
    )


def test_unschedulable_node():
    nodes = default_nodes()
    nodes[0]["spec"]["unschedulable"] = True
    assert schedule(make_pod(), nodes).node_name == "node-2"
    tolerate = [
        {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert schedule(make_pod(tolerations=tolerate), nodes).node_name == "node-1"


def test_mixed_reasons_histogram_is_sorted_as_strings():
    nodes = default_nodes()
    nodes[0]["spec"]["unschedulable"] = True
    nodes[1]["spec"]["taints"] = [TAINT]
    requested = {"node-3": {"cpu": "1900m"}}
    result = schedule(make_pod("500m"), nodes, requested=requested)
    assert result.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
        "1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/3 nodes are "
        "available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )


def test_first_failing_filter_decides_a_node():
    nodes = nodes_with(lambda n: n["spec"].update(taints=[TAINT]))
    result = schedule(make_pod("8", nodeSelector={"x": "y"}), nodes)
    assert "3 node(s) had untolerated taint(s)." in result.message
    assert "Insufficient" not in result.message and "affinity" not in result.message


def test_too_many_pods():
    requested = {name: {"pods": 110} for name in ("node-1", "node-2", "node-3")}
    result = schedule(make_pod(), default_nodes(), requested=requested)
    assert result.message.startswith("0/3 nodes are available: 3 Too many pods.")


def test_no_nodes_at_all():
    assert schedule(make_pod(), []) == ScheduleResult(None, "no nodes available to schedule pods")


def test_input_is_not_modified():
    nodes = default_nodes()
    nodes[0]["status"]["conditions"][0]["status"] = "False"
    before = copy.deepcopy(nodes)
    schedule(make_pod(), nodes)
    assert nodes == before


def container(name, cpu, memory=None, restart_policy=None) -> dict:
    requests = {"cpu": cpu} | ({"memory": memory} if memory else {})
    c = {"name": name, "resources": {"requests": requests}}
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


@pytest.mark.parametrize(
    ("init", "containers", "expected_cpu"),
    [
        ([], [container("a", "100m"), container("b", "200m")], 300),
        ([container("i", "1")], [container("a", "100m")], 1000),  # init peak wins
        ([container("i", "50m")], [container("a", "100m")], 100),
        # sidecar 200m runs beside init 1 → 1200m peak; steady state 200m + 100m.
        (
            [container("s", "200m", restart_policy="Always"), container("i", "1")],
            [container("a", "100m")],
            1200,
        ),
        # init before the sidecar does not overlap it.
        (
            [container("i", "1"), container("s", "200m", restart_policy="Always")],
            [container("a", "100m")],
            1000,
        ),
        (
            [
                container("s1", "200m", restart_policy="Always"),
                container("s2", "300m", restart_policy="Always"),
            ],
            [container("a", "1")],
            1500,
        ),
    ],
)
def test_pod_requests_with_init_containers_and_sidecars(init, containers, expected_cpu):
    pod = {"spec": {"initContainers": init, "containers": containers}}
    assert pod_requests(pod)["cpu"] == expected_cpu


def test_pod_requests_memory_and_overhead():
    pod = {"spec": {"containers": [container("a", "100m", "128Mi")], "overhead": {"cpu": "10m"}}}
    assert pod_requests(pod) == {"cpu": 110, "memory": 128 * 2**20}
