"""The cap on the total work of a run (issue 26, F1; manifest/rules.py MAX_RUN_WORK): per
virtual second, 1 per container plus 1 / periodSeconds per probe, over every Pod the
workloads run at once. Refused at the door with a located error naming the cap, and by a
live `scale` or `apply` that would go past it."""

from __future__ import annotations

import pytest

from tests.worst_case import PROBES
from tests.worst_case import cluster_crash_loop as deployment
from webapp import i18n
from webapp.engine import ActionError, Simulation
from webapp.manifest import ScenarioError, localize_errors, parse_scenario
from webapp.manifest.rules import MAX_RUN_WORK, pod_work, workload_work


def test_the_work_of_a_pod_counts_containers_and_probe_runs() -> None:
    container = {"name": "a", "image": "x"}
    assert pod_work({"spec": {"containers": [container]}}) == 1
    probed = {**container, "livenessProbe": {"periodSeconds": 2}, "readinessProbe": {}}
    assert pod_work({"spec": {"containers": [probed]}}) == 1 + 0.5 + 0.1  # default 10 s
    worst = {**container, **{p: {"periodSeconds": 1} for p in PROBES}}
    assert pod_work({"spec": {"containers": [worst] * 20}}) == 80  # the worst single Pod
    template = {"spec": {"containers": [worst] * 20}}
    assert workload_work({"spec": {"replicas": 2, "template": template}}, "Deployment") == 160
    assert workload_work({"spec": {"template": template}}, "Deployment") == 80  # default 1
    assert workload_work({"spec": {"parallelism": 3, "template": template}}, "Job") == 240


def test_the_audits_run_is_refused_at_the_door_naming_the_cap() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(deployment(100, 20))
    (error,) = caught.value.errors
    assert (error["code"], error["path"], error["line"], error["column"]) == (
        "run_too_heavy", "spec.replicas", 5, 13,
    )  # fmt: skip
    assert error["params"] == {"work": "8000", "limit": MAX_RUN_WORK}
    assert error["message"] == (
        "this run would do 8000 units of work per virtual second (for every Pod at once: 1 "
        "per container plus 1 per probe run); the limit here is 160 (MAX_RUN_WORK: fewer "
        "replicas, containers or probes, or longer periodSeconds)"
    )
    (chinese,) = localize_errors(caught.value.errors, "zh")
    assert chinese["message"].startswith("这个运行每个虚拟秒的工作量为 8000 个单位")
    assert "160" in chinese["message"]


@pytest.mark.parametrize(
    ("replicas", "containers", "probes", "period", "valid"),
    [
        (2, 20, 3, 1, True),  # twice the worst Pod: the cap exactly
        (3, 20, 3, 1, False),
        (100, 1, 0, 1, True),  # 100 Pods of one container without probes
        (40, 1, 3, 1, True),
        (100, 1, 3, 1, False),
        (100, 1, 3, 10, True),  # the same probes every 10 s: 130
    ],
)
def test_runs_within_the_cap_are_valid(
    replicas: int, containers: int, probes: int, period: int, valid: bool
) -> None:
    text = deployment(replicas, containers, probes, period)
    if valid:
        parse_scenario(text)
        return
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    assert [e["code"] for e in caught.value.errors] == ["run_too_heavy"]


def test_workloads_count_together_and_the_heaviest_is_named() -> None:
    light = deployment(1, 20).split("---")[0].replace("name: web", "name: light")
    heavy = deployment(2, 20).split("---")[0].replace("name: web", "name: heavy")
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(light + "---\n" + heavy)
    (error,) = caught.value.errors
    assert (error["doc"], error["path"], error["params"]["work"]) == (1, "spec.replicas", "240")


def test_a_live_scale_or_apply_past_the_cap_is_refused_and_changes_nothing() -> None:
    sim = Simulation.from_yaml(deployment(2, 20))
    sim.advance(3)
    before = sim.objects("Deployment")
    with pytest.raises(ActionError) as caught:
        sim.act({"action": "scale", "name": "web", "replicas": 3})
    assert (caught.value.code, caught.value.params) == (
        "run_too_heavy", {"work": "240", "limit": MAX_RUN_WORK},
    )  # fmt: skip
    assert sim.objects("Deployment") == before
    other = deployment(1, 20).split("---")[0].replace("name: web", "name: more")
    with pytest.raises(ActionError) as caught:
        sim.act({"action": "apply", "yaml": other.replace("app: web", "app: more")})
    assert caught.value.code == "run_too_heavy"
    assert len(sim.objects("Deployment")) == 1
    sim.act({"action": "scale", "name": "web", "replicas": 1})  # lowering is always allowed
    sim.act({"action": "apply", "yaml": other.replace("app: web", "app: more")})  # 160 again
    assert len(sim.objects("Deployment")) == 2
    refusal = i18n.action_refusal("run_too_heavy", "zh", "", work="240", limit=160)
    assert refusal.startswith("这样运行每个虚拟秒的工作量将为 240 个单位")
