"""The Pod's QoS class: a port of `pkg/apis/core/helper/qos` GetPodQOS / ComputePodQOS."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from webapp.kubectl.quantity import quantity_value

_QOS_RESOURCES = ("cpu", "memory")


def _positive(resources: dict[str, Any]) -> dict[str, Fraction]:
    values = {name: quantity_value(q) for name, q in resources.items() if name in _QOS_RESOURCES}
    return {name: value for name, value in values.items() if value > 0}


def _add(total: dict[str, Fraction], values: dict[str, Fraction]) -> None:
    for name, value in values.items():
        total[name] = total.get(name, Fraction(0)) + value


def _all_containers(spec: dict[str, Any]) -> Iterable[dict[str, Any]]:
    return [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]


def compute_pod_qos(pod: dict[str, Any]) -> str:
    """ComputePodQOS: Guaranteed, Burstable or BestEffort from the containers' resources.

    A request left out next to a limit counts as equal to the limit, as API defaulting
    makes it for a stored Pod.
    """
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for container in _all_containers(pod.get("spec") or {}):
        resources = container.get("resources") or {}
        container_limits = resources.get("limits") or {}
        container_requests = {**container_limits, **(resources.get("requests") or {})}
        _add(requests, _positive(container_requests))
        found = _positive(container_limits)
        _add(limits, found)
        if not set(_QOS_RESOURCES) <= set(found):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    matching = all(limits.get(name) == value for name, value in requests.items())
    if guaranteed and matching and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def get_pod_qos(pod: dict[str, Any]) -> str:
    """GetPodQOS: status.qosClass when the API server set it, else computed."""
    return (pod.get("status") or {}).get("qosClass") or compute_pod_qos(pod)
