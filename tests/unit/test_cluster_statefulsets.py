"""StatefulSets in the multi-Pod engine: the controller's rules
(controllers/rules/statefulset.py) applied to real Pod lifecycles."""

from __future__ import annotations

import pytest

from webapp.engine import Simulation
from webapp.kubectl.workloads import get_statefulsets, rollout_status_transcript

STS = """\
apiVersion: v1
kind: Service
metadata:
  name: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: nginx
  serviceName: "nginx"
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports:
        - containerPort: 80
          name: web
        readinessProbe:
          tcpSocket: {port: 80}
          periodSeconds: 2
"""


def sts_events(sim) -> list[tuple[str, str]]:
    return [
        (e["lastTimestamp"], e["message"])
        for e in sim.events()
        if e["involvedObject"]["kind"] == "StatefulSet"
    ]


def test_ordered_ready_creates_one_pod_at_a_time_each_after_the_previous_is_ready() -> None:
    sim = Simulation.from_yaml(STS)
    sim.advance(60)
    events = sts_events(sim)
    assert [m for _, m in events] == [
        f"create Pod web-{i} in StatefulSet web successful" for i in range(3)
    ]
    times = [t for t, _ in events]
    assert times[0] < times[1] < times[2]  # each waited for the previous one
    pods = {p["metadata"]["name"]: p for p in sim.objects("Pod")}
    assert sorted(pods) == ["web-0", "web-1", "web-2"]
    for name, pod in pods.items():
        assert pod["spec"]["hostname"] == name and pod["spec"]["subdomain"] == "nginx"
        assert pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == name[-1]
        ready_at = next(
            c["lastTransitionTime"] for c in pod["status"]["conditions"] if c["type"] == "Ready"
        )
        if name != "web-2":  # the next Pod is created once this one is Ready
            later = next(t for t, m in events if f"web-{int(name[-1]) + 1} " in m)
            assert ready_at <= later
    assert get_statefulsets(sim.objects("StatefulSet"), sim.wall_time()).splitlines()[1].split()[:2] == [
        "web", "3/3"
    ]  # fmt: skip


def test_parallel_creates_every_pod_at_once() -> None:
    sim = Simulation.from_yaml(
        STS.replace(
            '  serviceName: "nginx"\n', '  serviceName: "nginx"\n  podManagementPolicy: Parallel\n'
        )
    )
    sim.advance(1)
    assert len({t for t, _ in sts_events(sim)}) == 1 and len(sts_events(sim)) == 3


def test_scale_down_deletes_from_the_highest_ordinal() -> None:
    sim = Simulation.from_yaml(STS)
    sim.advance(60)
    sim.act({"action": "scale", "kind": "StatefulSet", "name": "web", "replicas": 1})
    sim.advance(30)
    deletes = [m for _, m in sts_events(sim) if m.startswith("delete")]
    assert deletes == [
        "delete Pod web-2 in StatefulSet web successful",
        "delete Pod web-1 in StatefulSet web successful",
    ]
    assert [p["metadata"]["name"] for p in sim.objects("Pod")] == ["web-0"]


def test_a_deleted_pod_comes_back_with_the_same_name() -> None:
    sim = Simulation.from_yaml(STS)
    sim.advance(60)
    uid = sim.pod("web-1")["metadata"]["uid"]
    sim.act({"action": "delete", "name": "web-1"})
    sim.advance(30)
    again = sim.pod("web-1")
    assert again is not None and again["metadata"]["uid"] != uid


@pytest.mark.parametrize("partition", [None, 1])
def test_a_rolling_update_goes_in_reverse_ordinal_order_down_to_the_partition(partition) -> None:
    text = STS
    if partition is not None:
        text = text.replace(
            "  replicas: 3\n",
            f"  replicas: 3\n  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      partition: {partition}\n",
        )
    text += """---
apiVersion: playground/v1
kind: Simulation
metadata: {name: sts-update}
script:
- {at: 60, action: apply, yaml: "PLACEHOLDER"}
"""
    updated = text.split("---\n")[1].replace("nginx-slim:0.24", "nginx-slim:0.27")
    import json

    text = text.replace('"PLACEHOLDER"', json.dumps(updated))
    sim = Simulation.from_yaml(text)
    sim.advance(180)
    deletes = [m.split()[2] for _, m in sts_events(sim) if m.startswith("delete")]
    expected = ["web-2", "web-1", "web-0"] if partition is None else ["web-2", "web-1"]
    assert deletes == expected
    images = {
        p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in sim.objects("Pod")
    }
    assert images["web-0"].endswith("0.27" if partition is None else "0.24")
    assert images["web-2"].endswith("0.27")
    sts = sim.objects("StatefulSet")[0]
    text, _done = rollout_status_transcript("StatefulSet", [sts])
    if partition is None:
        assert text.startswith("statefulset rolling update complete 3 pods at revision web-")
    else:
        assert text == "partitioned roll out complete: 2 new pods have been updated...\n"
