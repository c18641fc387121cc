"""The kubelet's security-context checks before a container is created.

``verifyRunAsNonRoot`` (``pkg/kubelet/kuberuntime/security_context_others.go``), called
from ``generateContainerConfig`` after the environment is built (so a missing ConfigMap
key is reported first). Its error becomes CreateContainerConfigError with a Warning
``Failed`` event ``Error: <message>``, and the kubelet retries on its next sync.

The effective values come from ``securitycontext.DetermineEffectiveSecurityContext``: a
field set in the container's securityContext overrides the Pod's.

Modelling choice: when the effective ``runAsUser`` is unset, the real kubelet inspects the
image's configured user (root by uid 0, or a non-numeric user it cannot verify). The
playground has no image metadata, so an unset ``runAsUser`` is treated as a non-root user
and the check passes.
"""

from __future__ import annotations

_FIELDS = ("runAsNonRoot", "runAsUser")


def effective_security_context(pod_spec: dict, container: dict) -> dict:
    """``DetermineEffectiveSecurityContext`` for the fields the playground checks."""
    pod_sc = pod_spec.get("securityContext") or {}
    container_sc = container.get("securityContext") or {}
    effective = {}
    for name in _FIELDS:
        if container_sc.get(name) is not None:
            effective[name] = container_sc[name]
        elif pod_sc.get(name) is not None:
            effective[name] = pod_sc[name]
    return effective


def verify_run_as_non_root(pod_spec: dict, container: dict, pod_format: str) -> str | None:
    """``verifyRunAsNonRoot``'s error message, or None when the container may run."""
    effective = effective_security_context(pod_spec, container)
    if effective.get("runAsNonRoot") is not True:
        return None
    user = effective.get("runAsUser")
    if user is not None and not isinstance(user, bool) and int(user) == 0:
        return (
            "container's runAsUser breaks non-root policy "
            f'(pod: "{pod_format}", container: {container.get("name", "")})'
        )
    return None  # unset runAsUser: the image user is not modelled (see the module docstring)
