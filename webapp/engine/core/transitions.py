"""The transition log: every change the page animates, with its stage and step.

See docs/internals.md for the format and the step vocabulary.
"""

from __future__ import annotations

from typing import Any

STAGE_OF_STEP = {
    "submitted": 1, "scheduling": 1, "scheduled": 1, "kubelet": 1, "pull": 1, "volumes": 1,
    "init": 2, "sidecar": 2,
    "start": 3, "postStart": 3, "startupProbe": 3,
    "running": 4, "liveness": 4, "readiness": 4, "exit": 4, "backoff": 4,
    "endpoints": 5, "preStop": 5, "sigterm": 5, "grace": 5, "sigkill": 5, "removed": 5,
    "outcome": 5,
}  # fmt: skip


def container_place(
    step: str, kind: str, *, deleting: bool, stopping: bool
) -> tuple[str, int | None]:
    """(step, stage) of a transition about one container of the given kind.

    Init containers and sidecars have their place in stage 2 (step ``init`` / ``sidecar``):
    their start, exit, back-off, probes and readiness. Stage-1 steps (image pull, config)
    stay in stage 1; a sidecar stopped because the Pod is shutting down (``stopping``) is
    stage 5, and so is everything once the Pod is being deleted. ``None``: the step's stage.
    """
    if deleting:
        return step, 5
    if kind not in ("init", "sidecar") or STAGE_OF_STEP[step] == 1:
        return step, None
    if kind == "sidecar" and stopping:
        return step, 5
    return kind, 2


class TransitionLog:
    """An append-only list of transition dicts (``sim.transitions``)."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[dict] = []

    def record(
        self,
        ms: int,
        step: str,
        obj: str,
        field: str,
        before: Any,
        after: Any,
        cause: str,
        *,
        container: str | None = None,
        stage: int | None = None,
        seconds: float | None = None,
    ) -> None:
        item = {
            "seq": len(self.items),
            "t": ms / 1000,
            "stage": stage if stage is not None else STAGE_OF_STEP[step],
            "step": step,
            "object": obj,
            "container": container,
            "field": field,
            "before": before,
            "after": after,
            "cause": cause,
        }
        if seconds is not None:
            item["seconds"] = seconds  # a back-off wait starts: its length (docs/internals.md)
        self.items.append(item)
