"""Pod utilities shared by every component: ``pkg/api/v1/pod/util.go`` (podutil).

Pure functions of Pod API dicts. The kubelet, the scheduler, the EndpointSlice controller
and the status code all ask these the same questions: is this init container a sidecar,
would this exit be followed by a restart, which status belongs to which container.
"""

from __future__ import annotations


def is_sidecar(container: dict) -> bool:
    """``podutil.IsRestartableInitContainer``: restartPolicy Always on an init container.

    Only meaningful for entries of ``spec.initContainers``; a regular container may carry a
    container-level restartPolicy too (ContainerRestartRules), which does not make it a
    sidecar.
    """
    return container.get("restartPolicy") == "Always"


def container_should_restart(container: dict, pod_spec: dict, exit_code: int) -> bool:
    """``podutil.ContainerShouldRestart``: would this exit be followed by a restart?

    Order: the container's restartPolicyRules (only the action ``Restart`` decides here),
    then the container's restartPolicy, then the pod's restartPolicy (default Always).
    As in the source, rules are consulted only when the container sets a restartPolicy.
    """
    container_policy = container.get("restartPolicy")
    if container_policy is not None:
        rule = find_matching_container_restart_rule(container, exit_code)
        if rule is not None and rule.get("action") == "Restart":
            return True
        if container_policy == "Always":
            return True
        if container_policy == "OnFailure":
            return exit_code != 0
        if container_policy == "Never":
            return False
    pod_policy = pod_spec.get("restartPolicy", "Always")
    if pod_policy == "OnFailure":
        return exit_code != 0
    return pod_policy != "Never"


def find_matching_container_restart_rule(container: dict, exit_code: int) -> dict | None:
    """``findMatchingContainerRestartRule``: the first rule whose exitCodes match."""
    for rule in container.get("restartPolicyRules") or []:
        exit_codes = rule.get("exitCodes")
        if not exit_codes:
            continue
        matched = exit_code in (exit_codes.get("values") or [])
        operator = exit_codes.get("operator")
        if (operator == "In" and matched) or (operator == "NotIn" and not matched):
            return rule
    return None


def get_container_status(statuses: list[dict], name: str) -> dict | None:
    """``podutil.GetContainerStatus``: the first status with this name."""
    for status in statuses:
        if status.get("name") == name:
            return status
    return None


def update_pod_condition(
    conditions: list[dict], condition: dict, now: str
) -> tuple[list[dict], bool]:
    """``podutil.UpdatePodCondition``: ``conditions`` with ``condition`` set, and whether
    anything changed. A new type is appended; an existing one is replaced in place, keeping
    its ``lastTransitionTime`` when the status did not change (else ``now``)."""
    new = {"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
           "lastTransitionTime": now}  # fmt: skip
    for key in ("reason", "message"):
        if condition.get(key):
            new[key] = condition[key]
    for index, old in enumerate(conditions):
        if old.get("type") != condition["type"]:
            continue
        if old.get("status") == new["status"]:
            new["lastTransitionTime"] = old.get("lastTransitionTime")
        changed = any(old.get(key) != new.get(key) for key in
                      ("status", "reason", "message", "lastProbeTime", "lastTransitionTime"))  # fmt: skip
        return [*conditions[:index], new, *conditions[index + 1 :]], changed
    return [*conditions, new], True
