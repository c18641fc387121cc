"""Lifecycle hooks: how long a postStart / preStop handler runs and whether it fails.

An ``exec`` or ``httpGet`` handler runs against the container's process model (its files,
what listens, its exit code and output); a ``sleep`` handler sleeps its own seconds. A hook
the Simulation document describes itself (``hooks``) takes that time and outcome instead.
Messages follow ``pkg/kubelet/lifecycle/handlers.go`` Run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

NEVER_MS = 366 * 24 * 3600 * 1000  # a handler that never returns (beyond any run)

POST_START = "postStart"
PRE_STOP = "preStop"


@dataclass(frozen=True, slots=True)
class HookRun:
    """One hook execution as simulated: its duration and whether the handler fails."""

    duration_ms: int
    fails: bool
    handler: dict
    message: str = ""  # the handler's error text, when it ran against the process model


Runner = Callable[[dict], tuple[int | None, bool, str]]


def hook_run(
    container: dict, behaviour: dict, hook: str, runner: Runner | None = None
) -> HookRun | None:
    """The hook ``hook`` of ``container``, or None when the Pod defines none. ``runner``
    runs an exec / httpGet handler against the process model: (ms or None, fails, error)."""
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
    if runner is not None and ("exec" in handler or "httpGet" in handler):
        duration, fails, message = runner(handler)
        return HookRun(NEVER_MS if duration is None else duration, fails, handler, message)
    sleep = handler.get("sleep")
    seconds = float(sleep.get("seconds") or 0) if sleep else 0.0
    return HookRun(round(seconds * 1000), False, handler)


def hook_error_message(run: HookRun, container: str, pod: str, pod_ip: str) -> str:
    """``handlers.go`` Run: the error text of a failed handler (used in waiting messages)."""
    if run.message:
        return run.message
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
