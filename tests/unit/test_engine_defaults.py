"""API server defaulting of a Pod (SetDefaults_* and admission plugins)."""

from __future__ import annotations

import copy

import pytest

from webapp.engine.apiserver.defaults import (
    apply_pod_defaults,
    default_image_pull_policy,
    default_toleration_seconds,
    pod_qos_class,
)

NOT_READY = {
    "effect": "NoExecute",
    "key": "node.kubernetes.io/not-ready",
    "operator": "Exists",
    "tolerationSeconds": 300,
}
UNREACHABLE = {**NOT_READY, "key": "node.kubernetes.io/unreachable"}


def minimal_pod() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
    }


def test_minimal_pod_gets_every_default_in_kubectl_key_order():
    pod = apply_pod_defaults(minimal_pod())
    assert pod == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "containers": [
                {
                    "image": "nginx:1.27",
                    "imagePullPolicy": "IfNotPresent",
                    "name": "app",
                    "resources": {},
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "serviceAccount": "default",
            "serviceAccountName": "default",
            "terminationGracePeriodSeconds": 30,
            "tolerations": [NOT_READY, UNREACHABLE],
        },
    }
    assert list(pod["spec"]) == sorted(pod["spec"])
    assert list(pod["spec"]["containers"][0]) == sorted(pod["spec"]["containers"][0])


def test_input_is_not_modified_and_written_values_win():
    original = minimal_pod()
    original["metadata"]["namespace"] = "shop"
    original["spec"].update(restartPolicy="Never", terminationGracePeriodSeconds=5)
    before = copy.deepcopy(original)
    pod = apply_pod_defaults(original)
    assert original == before
    assert pod["metadata"]["namespace"] == "shop"
    assert pod["spec"]["restartPolicy"] == "Never"
    assert pod["spec"]["terminationGracePeriodSeconds"] == 5


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("docker.io/library/nginx:latest", "Always"),
        ("localhost:5000/app", "Always"),
        ("localhost:5000/app:v1", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
    ],
)
def test_default_image_pull_policy(image, policy):
    assert default_image_pull_policy(image) == policy


def test_written_image_pull_policy_is_kept():
    pod = minimal_pod()
    pod["spec"]["containers"][0].update(image="nginx", imagePullPolicy="Never")
    assert apply_pod_defaults(pod)["spec"]["containers"][0]["imagePullPolicy"] == "Never"


@pytest.mark.parametrize(
    ("tolerations", "added"),
    [
        ([], [NOT_READY, UNREACHABLE]),
        ([{**NOT_READY, "tolerationSeconds": 10}], [UNREACHABLE]),
        ([{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}], [NOT_READY]),
        ([{"operator": "Exists"}], []),  # tolerates every taint
        (
            [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}],
            [NOT_READY, UNREACHABLE],
        ),
    ],
)
def test_default_toleration_seconds(tolerations, added):
    assert default_toleration_seconds(tolerations) == tolerations + added


def test_probe_port_hook_and_env_defaults_on_init_and_app_containers():
    pod = minimal_pod()
    probe = {"httpGet": {"port": 8080}}
    pod["spec"]["containers"][0].update(
        ports=[{"containerPort": 80}],
        livenessProbe=copy.deepcopy(probe),
        readinessProbe={"tcpSocket": {"port": 80}, "periodSeconds": 2},
        lifecycle={"preStop": {"httpGet": {"port": 80, "path": "/stop"}}},
        env=[{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
    )
    pod["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "startupProbe": probe}]
    spec = apply_pod_defaults(pod)["spec"]
    app = spec["containers"][0]
    assert app["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert app["livenessProbe"] == {
        "failureThreshold": 3,
        "httpGet": {"path": "/", "port": 8080, "scheme": "HTTP"},
        "periodSeconds": 10,
        "successThreshold": 1,
        "timeoutSeconds": 1,
    }
    assert app["readinessProbe"]["periodSeconds"] == 2
    assert app["lifecycle"]["preStop"]["httpGet"] == {"path": "/stop", "port": 80, "scheme": "HTTP"}
    assert app["env"][0]["valueFrom"]["fieldRef"] == {
        "apiVersion": "v1",
        "fieldPath": "spec.nodeName",
    }
    init = spec["initContainers"][0]
    assert init["imagePullPolicy"] == "Always"
    assert init["terminationMessagePath"] == "/dev/termination-log"
    assert init["startupProbe"]["failureThreshold"] == 3


def test_requests_default_to_limits_and_quantities_are_canonical():
    pod = minimal_pod()
    pod["spec"]["containers"][0]["resources"] = {
        "limits": {"cpu": "0.5", "memory": "1024Mi"},
        "requests": {"cpu": "100m"},
    }
    resources = apply_pod_defaults(pod)["spec"]["containers"][0]["resources"]
    assert resources == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "100m", "memory": "1Gi"},
    }


def test_volume_default_mode():
    pod = minimal_pod()
    pod["spec"]["volumes"] = [
        {"name": "cfg", "configMap": {"name": "cfg"}},
        {"name": "tls", "secret": {"secretName": "tls", "defaultMode": 256}},
        {"name": "tmp", "emptyDir": {}},
    ]
    volumes = apply_pod_defaults(pod)["spec"]["volumes"]
    assert volumes[0]["configMap"]["defaultMode"] == 420
    assert volumes[1]["secret"]["defaultMode"] == 256
    assert volumes[2] == {"emptyDir": {}, "name": "tmp"}


@pytest.mark.parametrize(
    ("resources", "qos"),
    [
        ({}, "BestEffort"),
        ({"requests": {"cpu": "0"}}, "BestEffort"),
        ({"requests": {"cpu": "100m"}}, "Burstable"),
        ({"limits": {"cpu": "1", "memory": "1Gi"}}, "Guaranteed"),
        ({"limits": {"cpu": "1"}}, "Burstable"),
        ({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}, "Burstable"),
    ],
)
def test_pod_qos_class(resources, qos):
    pod = minimal_pod()
    pod["spec"]["containers"][0]["resources"] = resources
    assert pod_qos_class(apply_pod_defaults(pod)) == qos
