"""EndpointSlice for a Service and the Pod (podToEndpoint, §8)."""

from __future__ import annotations

import re

import pytest

from webapp.engine.controllers.endpoints import endpoint_slice, endpoint_slice_name, service_selects


def make_service(**spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "default", "labels": {"team": "a"}},
        "spec": {
            "selector": {"app": "web"},
            "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}],
            **spec,
        },
    }


def make_pod(ready=True, deleting=False, phase="Running", ip="10.244.1.5", labels=None) -> dict:
    metadata = {
        "name": "web",
        "namespace": "default",
        "uid": "uid-1",
        "labels": labels or {"app": "web"},
    }
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:01:00Z"
    status = {
        "phase": phase,
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
    }
    if ip:
        status.update(podIP=ip, podIPs=[{"ip": ip}])
    return {
        "metadata": metadata,
        "spec": {
            "nodeName": "node-1",
            "containers": [
                {
                    "name": "app",
                    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                }
            ],
        },
        "status": status,
    }


def test_ready_pod_gives_a_full_slice():
    slice_ = endpoint_slice(make_service(), make_pod())
    name = slice_["metadata"]["name"]
    assert re.fullmatch(r"web-[bcdfghjklmnpqrstvwxz2456789]{5}", name)
    assert slice_ == {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": name,
            "generateName": "web-",
            "namespace": "default",
            "labels": {
                "team": "a",
                "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                "kubernetes.io/service-name": "web",
            },
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "name": "web",
                    "blockOwnerDeletion": True,
                    "controller": True,
                }
            ],
        },
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": ["10.244.1.5"],
                "conditions": {"ready": True, "serving": True, "terminating": False},
                "nodeName": "node-1",
                "targetRef": {"kind": "Pod", "name": "web", "namespace": "default", "uid": "uid-1"},
            }
        ],
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
    }


def test_name_is_deterministic():
    assert endpoint_slice_name(make_service()) == endpoint_slice_name(make_service())


@pytest.mark.parametrize(
    ("ready", "deleting", "publish_not_ready", "conditions"),
    [
        (True, False, False, {"ready": True, "serving": True, "terminating": False}),
        (False, False, False, {"ready": False, "serving": False, "terminating": False}),
        (True, True, False, {"ready": False, "serving": True, "terminating": True}),
        (False, True, False, {"ready": False, "serving": False, "terminating": True}),
        (False, False, True, {"ready": True, "serving": False, "terminating": False}),
        (True, True, True, {"ready": True, "serving": True, "terminating": True}),
    ],
)
def test_endpoint_conditions(ready, deleting, publish_not_ready, conditions):
    service = make_service(publishNotReadyAddresses=publish_not_ready)
    slice_ = endpoint_slice(service, make_pod(ready=ready, deleting=deleting))
    assert slice_["endpoints"][0]["conditions"] == conditions


@pytest.mark.parametrize(
    "pod",
    [
        None,
        make_pod(ip=None),
        make_pod(phase="Succeeded"),
        make_pod(phase="Failed"),
        make_pod(labels={"app": "other"}),
    ],
)
def test_no_endpoint_gives_a_placeholder_slice(pod):
    slice_ = endpoint_slice(make_service(), pod)
    assert slice_["endpoints"] is None and slice_["ports"] is None
    assert slice_["metadata"]["labels"]["kubernetes.io/service-name"] == "web"


def test_service_selects():
    assert service_selects(make_service(), make_pod())
    assert service_selects(make_service(), make_pod(labels={"app": "web", "tier": "x"}))
    assert not service_selects(make_service(), make_pod(labels={"tier": "x"}))
    assert not service_selects(make_service(selector={}), make_pod())
    other_namespace = make_pod()
    other_namespace["metadata"]["namespace"] = "shop"
    assert not service_selects(make_service(), other_namespace)
    assert not service_selects(make_service(), None)


@pytest.mark.parametrize(
    ("service_port", "expected"),
    [
        ({"port": 80, "targetPort": 9090}, [{"name": "", "port": 9090, "protocol": "TCP"}]),
        ({"port": 80}, [{"name": "", "port": 80, "protocol": "TCP"}]),
        ({"name": "x", "port": 80, "targetPort": "missing"}, []),
        ({"name": "u", "port": 80, "targetPort": "http", "protocol": "UDP"}, []),
        (
            {"name": "h", "port": 80, "targetPort": "http", "appProtocol": "http"},
            [{"name": "h", "port": 8080, "protocol": "TCP", "appProtocol": "http"}],
        ),
    ],
)
def test_ports_resolve_target_port_on_the_pod(service_port, expected):
    assert endpoint_slice(make_service(ports=[service_port]), make_pod())["ports"] == expected


def test_headless_service_label():
    slice_ = endpoint_slice(make_service(clusterIP="None"), make_pod())
    assert slice_["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
