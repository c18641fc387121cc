"""Lifecycle hooks: how long a postStart / preStop handler runs and whether it fails.

The time and outcome come from the Simulation document (``hooks``); a hook in the Pod's
``lifecycle`` with no Simulation entry takes 0 s and succeeds, except the ``sleep`` action,
which sleeps its own seconds. Messages follow ``pkg/kubelet/lifecycle/handlers.go`` Run.
"""

from __future__ import annotations

from dataclasses import dataclass

POST_START = "postStart"
PRE_STOP = "preStop"


@dataclass(frozen=True, slots=True)
class HookRun:
    """One hook execution as simulated: its duration and whether the handler fails."""

    duration_ms: int
    fails: bool
    handler: dict


def hook_run(container: dict, behaviour: dict, hook: str) -> HookRun | None:
    """The hook ``hook`` of ``container``, or None when the Pod defines none."""
    handler = ((container.get("lifecycle") or {}).get(hook)) or None
    if not handler:
        return None
    simulated = ((behaviour.get("hooks") or {}).get(hook)) or None
    if simulated is not None:
        return HookRun(
            round(float(simulated.get("seconds") or 0) * 1000),
            bool(simulated.get("fails")),
            handler,
        )
    sleep = handler.get("sleep")
    seconds = float(sleep.get("seconds") or 0) if sleep else 0.0
    return HookRun(round(seconds * 1000), False, handler)


def hook_error_message(run: HookRun, container: str, pod: str, pod_ip: str) -> str:
    """``handlers.go`` Run: the error text of a failed handler (used in waiting messages)."""
    handler = run.handler
    if "exec" in handler:
        command = (handler["exec"] or {}).get("command") or []
        return (
            f'Exec lifecycle hook ({list_text(command)}) for Container "{container}" in Pod '
            f"\"{pod}\" failed - error: command '{' '.join(command)}' exited with 1: , "
            'message: ""'
        )
    if "httpGet" in handler:
        http = handler["httpGet"] or {}
        path = http.get("path") or "/"
        url = f"http://{http.get('host') or pod_ip}:{http.get('port')}{path}"
        return (
            f'HTTP lifecycle hook ({path}) for Container "{container}" in Pod "{pod}" failed - '
            f'error: Get "{url}": dial tcp {http.get("host") or pod_ip}:{http.get("port")}: '
            'connect: connection refused, message: ""'
        )
    seconds = ((handler.get("sleep") or {}).get("seconds")) or 0
    return (
        f'Sleep lifecycle hook ({seconds}) for Container "{container}" in Pod "{pod}" failed - '
        "error: container terminated before sleep hook finished"
    )


def list_text(items: list) -> str:
    """Go's ``%v`` of a string slice: ``[sh -c sleep 5]``."""
    return "[" + " ".join(str(item) for item in items) + "]"
