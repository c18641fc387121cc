"""DaemonSets over the API with the real kubectl 1.37: `get ds`, describe, and `kubectl
drain` refusing (without --ignore-daemonsets) or skipping (with it) the daemon Pod."""

from __future__ import annotations

from pathlib import Path

from tests.kubeapi.conftest import Kube, make_session

EXAMPLE = (Path(__file__).parents[1] / "unit" / "daemonset_docs_example.yaml").read_text()
SCENARIO = EXAMPLE + "---\napiVersion: playground/v1\nkind: Simulation\nmetadata:\n  name: ds\n"


def _ready(kube: Kube) -> bool:
    out = kube.run("get", "ds", "-n", "kube-system", "fluentd-elasticsearch", "-o",
                   "jsonpath={.status.numberReady}")  # fmt: skip
    return out.stdout == "3"


def test_get_describe_and_drain(live_server, tmp_path) -> None:
    kube = make_session(live_server, tmp_path, yaml=SCENARIO, speed=20)
    kube.wait_for(lambda: _ready(kube))
    table = kube.run("get", "ds", "-n", "kube-system").stdout.splitlines()
    assert table[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE",
                                "AVAILABLE", "NODE", "SELECTOR", "AGE"]  # fmt: skip
    assert table[1].split()[:7] == ["fluentd-elasticsearch", "3", "3", "3", "3", "3", "<none>"]
    wide = kube.run("get", "ds", "-n", "kube-system", "-o", "wide").stdout.splitlines()
    assert wide[0].split()[-4:] == ["AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    assert wide[1].split()[-2:] == [
        "quay.io/fluentd_elasticsearch/fluentd:v5.0.1",
        "name=fluentd-elasticsearch",
    ]
    everything = kube.run("get", "all", "-n", "kube-system").stdout
    assert "daemonset.apps/fluentd-elasticsearch" in everything
    described = kube.run("describe", "ds", "-n", "kube-system", "fluentd-elasticsearch").stdout
    assert "Desired Number of Nodes Scheduled: 3\n" in described
    pod = kube.run("get", "pods", "-n", "kube-system", "--field-selector",
                   "spec.nodeName=node-2", "-o", "name").stdout.strip().split("/", 1)[1]  # fmt: skip
    refused = kube.run("drain", "node-2", "--timeout=30s", timeout=60)
    assert refused.returncode != 0
    assert ("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): "
            f"kube-system/{pod}") in refused.stderr  # fmt: skip
    drained = kube.run("drain", "node-2", "--ignore-daemonsets", "--timeout=60s", timeout=90)
    assert drained.returncode == 0, drained.stderr
    assert f"Warning: ignoring DaemonSet-managed Pods: kube-system/{pod}" in drained.stderr
    assert drained.stdout.splitlines()[-1] == "node/node-2 drained"
    phase = kube.run("get", "pod", "-n", "kube-system", pod, "-o", "jsonpath={.status.phase}")
    assert phase.stdout == "Running"


def test_apply_watch_and_delete(live_server, tmp_path) -> None:
    kube = make_session(live_server, tmp_path, yaml=SCENARIO, speed=20)
    kube.wait_for(lambda: _ready(kube))
    other = EXAMPLE.replace("  namespace: kube-system\n", "").replace(
        "name: fluentd-elasticsearch\n  labels", "name: agent\n  labels"
    )
    applied = kube.run("apply", "-f", "-", stdin=other)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == "daemonset.apps/agent created\n"
    kube.wait_for(lambda: kube.run("get", "ds", "agent", "-o",
                                   "jsonpath={.status.numberReady}").stdout == "3")  # fmt: skip
    patched = kube.run("set", "image", "ds/agent",
                       "fluentd-elasticsearch=quay.io/fluentd_elasticsearch/fluentd:v5.0.2")  # fmt: skip
    assert patched.returncode == 0, patched.stderr
    done = kube.run("rollout", "status", "ds/agent", "--timeout=90s", timeout=120)
    assert done.returncode == 0, done.stderr
    assert 'daemon set "agent" successfully rolled out' in done.stdout
    deleted = kube.run("delete", "ds", "agent")
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout == 'daemonset.apps "agent" deleted from default namespace\n'
    gone = kube.run("get", "ds", "agent")
    assert 'daemonsets.apps "agent" not found' in gone.stderr
