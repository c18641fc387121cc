"""``kubectl drain`` of a node running StatefulSet Pods (tasks/administer-cluster/safely-
drain-node.md with the StatefulSet of tutorials/stateful-application/basic-stateful-set.md).

kubectl's ``waitForDelete`` counts an evicted Pod as gone when it is not found *or* when
the Pod found under its name has another UID: the StatefulSet recreates ``web-0`` under
the same name at once, so waiting for the name to disappear never ended.
"""

from __future__ import annotations

from webapp.engine import Simulation
from webapp.engine.controllers.rules.disruption import deleted_since_eviction

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
STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "nginx"
  replicas: 2
  podManagementPolicy: Parallel
  selector:
    matchLabels:
      app: nginx
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
"""


def test_drain_of_a_statefulset_pod_ends_when_its_uid_changes() -> None:
    sim = Simulation.from_yaml(NODES + STATEFULSET)
    sim.advance(20)
    on_node_1 = sorted(n for n, run in sim.runs.items() if run.node_name == "node-1")
    assert on_node_1  # the two Pods spread over the two nodes
    (name,) = on_node_1
    uid = sim.pod(name)["metadata"]["uid"]
    sim.act({"action": "drain", "node": "node-1"})
    sim.advance(60)
    lines = sim.drains["node-1"].lines
    assert lines == [
        "node/node-1 cordoned",
        f"evicting pod default/{name}",
        f"pod/{name} evicted",
        "node/node-1 drained",
    ]
    assert sim.drains["node-1"].done
    again = sim.pod(name)  # recreated under the same name, on the other node
    assert again["metadata"]["uid"] != uid and again["spec"]["nodeName"] == "node-2"


def test_deleted_since_eviction_compares_uids_as_wait_for_delete() -> None:
    pod = {"metadata": {"name": "web-0", "uid": "a"}}
    assert deleted_since_eviction(None, "a")  # not found
    assert not deleted_since_eviction(pod, "a")  # still the evicted Pod (terminating)
    assert deleted_since_eviction(pod, "b")  # another Pod of that name
