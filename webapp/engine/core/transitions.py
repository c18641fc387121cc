"""The transition log: every change the page animates, with its stage and step.

See docs/internals.md for the format and the step vocabulary.
"""

from __future__ import annotations

import sys
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


REPEATABLE_PREFIX = "probe."  # only probe runs repeat unchanged, tick after tick


class TransitionLog:
    """An append-only list of transition dicts (``sim.transitions``), with runs.

    A probe run that repeats the previous run of the same probe unchanged, one period later,
    does not add an item: it extends that item's ``repeat``
    ``{"every": seconds, "count": n, "until": t}`` (``count`` runs in all, at ``t``,
    ``t + every`` ... ``until``; docs/internals.md). ``revision`` counts changes and
    ``extended`` maps the seq of each extended item to the revision of its last extension,
    oldest first, so a reader can send only what changed since it last looked.
    """

    __slots__ = ("_runs", "_values", "extended", "items", "revision")

    def __init__(self) -> None:
        self.items: list[dict] = []
        # Small values that recur (a container state summary, {"state": "running", ...}),
        # each kept once: items never change their before / after (docs/limits.md, memory).
        self._values: dict[tuple, dict] = {}
        # (object, field) -> [item, last ms, every ms or None]: the run a repeat may extend
        self._runs: dict[tuple[str, str], list] = {}
        self.revision = 0
        self.extended: dict[int, int] = {}

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
        stage = stage if stage is not None else STAGE_OF_STEP[step]
        if field.startswith(REPEATABLE_PREFIX) and seconds is None:
            key = (obj, field)
            if before == after:
                run = self._runs.get(key)
                if run is not None and _same(run[0], stage, step, container, after, cause):
                    every = run[2]
                    if (every is None and ms > run[1]) or (
                        every is not None and ms - run[1] == every
                    ):
                        self._extend(run, ms, 1, ms - run[1])
                        return
                item = self._append(
                    ms, step, obj, field, before, after, cause, container, stage, None
                )
                self._runs[key] = [item, ms, None]
                return
            self._runs.pop(key, None)
        self._append(ms, step, obj, field, before, after, cause, container, stage, seconds)

    def run_of(self, obj: str, field: str) -> list | None:
        """The open run of a probe: ``[item, last ms, every ms or None]``, or None."""
        return self._runs.get((obj, field))

    def extend_run(self, obj: str, field: str, count: int, last_ms: int) -> None:
        """``count`` more runs of an open run whose period is known, the last at ``last_ms``
        (what ``count`` calls of :meth:`record`, one period apart, would do)."""
        run = self._runs[(obj, field)]
        assert run[2] is not None and last_ms == run[1] + count * run[2]
        self._extend(run, last_ms, count, run[2])

    def _extend(self, run: list, ms: int, count: int, every_ms: int) -> None:
        item = run[0]
        repeat = item.get("repeat")
        if repeat is None:
            item["repeat"] = {"every": every_ms / 1000, "count": 1 + count, "until": ms / 1000}
        else:
            repeat["count"] += count
            repeat["until"] = ms / 1000
        run[1], run[2] = ms, every_ms
        self.revision += 1
        seq = item["seq"]
        self.extended.pop(seq, None)
        self.extended[seq] = self.revision

    def _shared(self, value: Any) -> Any:
        """``value``, or an equal one this log already holds (a flat dict of scalars)."""
        if type(value) is not dict or len(value) > 8 or not all(map(_scalar, value.values())):
            return sys.intern(value) if type(value) is str else value
        key = tuple((k, type(v), v) for k, v in value.items())  # True is not 1, nor 1.0
        shared = self._values.get(key)
        if shared is None and len(self._values) < 1024:
            shared = self._values[key] = value
        return value if shared is None else shared

    def _append(self, ms, step, obj, field, before, after, cause, container, stage, seconds) -> dict:  # fmt: skip
        # Names and messages repeat thousands of times in a long run: one string each.
        intern = sys.intern
        item = {
            "seq": len(self.items),
            "t": ms / 1000,
            "stage": stage,
            "step": intern(step),
            "object": intern(obj),
            "container": container if container is None else intern(container),
            "field": intern(field),
            "before": self._shared(before),
            "after": self._shared(after),
            "cause": intern(cause),
        }
        if seconds is not None:
            item["seconds"] = seconds  # a back-off wait starts: its length (docs/internals.md)
        self.items.append(item)
        self.revision += 1
        return item


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _same(item: dict, stage: int, step: str, container: str | None, after: Any, cause: str) -> bool:
    return (
        item["after"] == after
        and item["before"] == after
        and item["cause"] == cause
        and item["step"] == step
        and item["stage"] == stage
        and item["container"] == container
    )


def expand_runs(items: list[dict]) -> list[dict]:
    """Every transition as if none were compacted: a run becomes ``count`` items (each
    without ``repeat``), ordered by time (stable). For tests and readers that want each."""
    out: list[dict] = []
    for item in items:
        repeat = item.get("repeat")
        if repeat is None:
            out.append(item)
            continue
        plain = {k: v for k, v in item.items() if k != "repeat"}
        every_ms = round(repeat["every"] * 1000)
        first_ms = round(item["t"] * 1000)
        out.extend({**plain, "t": (first_ms + i * every_ms) / 1000} for i in range(repeat["count"]))
    return sorted(out, key=lambda item: item["t"])
