"""The `playground/v1` `Simulation` document: its checks and its normalised form.

The document's shape is declared below as small checkers (`fields`, `map_of`, `list_of`,
...), each yielding `Finding`s for one value at one path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from webapp.manifest.errors import Finding, Path
from webapp.manifest.rules import container_names
from webapp.manifest.schema import json_type, unknown_field

Check = Callable[[Any, Path], Iterator[Finding]]
ApplyCheck = Callable[[str], list[dict[str, Any]]]

ACTIONS = ("delete", "set-probe", "crash", "oom", "node-down", "node-up", "apply")
# Actions on workloads (a scenario of Deployments / ReplicaSets, engine/cluster_actions.py).
WORKLOAD_ACTIONS = (
    "scale", "rollout-restart", "rollout-undo", "rollout-pause", "rollout-resume", "set-image",
    "cordon", "uncordon", "drain",
)  # fmt: skip
MAX_SCALE = 100  # manifest/rules.py MAX_REPLICAS
MAX_RPS = 1000

# Limits (docs/architecture.md, "Limits"). A run never goes past its horizon, so every time
# and duration of the document is at most the horizon; the default is a session's end.
DEFAULT_HORIZON_SECONDS = 7200.0
MAX_SCRIPT_STEPS = 100
MAX_LESSON_STEPS = 100
MAX_QUESTIONS = 20
# What a prediction question's choice may check on the run `after` seconds later
# (webapp/classes/quiz.py evaluates them): kubectl's STATUS and RESTARTS, the phase, the Ready
# condition, and whether the Pod is a ready endpoint of a Service.
QUESTION_CHECKS = ("status", "restarts", "phase", "ready", "inEndpoints")
# What a lesson task's check may look at (webapp/sessions/tasks.py evaluates them); `pod`,
# `selector`, `deployment` and `node` only say which objects the others are about.
TASK_CHECKS = ("status", "ready", "maxRestarts", "event", "ran", "rolledOut", "schedulable",
               "podsOnNode", "endpoints")  # fmt: skip
MAX_TASK_HINTS = 5
MAX_TASK_ALTERNATIVES = 10
# A process's exit status is 8 bits: the kernel keeps exit(n) & 0xff and containerd reports
# it, or 128 + the signal (CONTAINER-SEMANTICS §1.7), so 0..255 is every code a runtime shows.
MAX_EXIT_CODE = 255
INT64_MAX = 2**63 - 1
MAX_MIB = INT64_MAX // (1024 * 1024)  # memoryMiB and sizeMiB in bytes still fit an int64
PROBES = ("liveness", "readiness", "startup")
HEALTH = ("healthy", "failing")
LANGUAGES = ("en", "zh")


# --- checkers -------------------------------------------------------------------------


def _wrong_type(path: Path, expected: str, value: Any) -> Finding:
    return Finding(path, "wrong_type", {"expected": expected, "found": json_type(value)})


def number(minimum: float | None = 0, *, horizon: float | None = None) -> Check:
    """A finite number (integer or decimal), at least `minimum`; with a `horizon`, a time
    or duration of the run, so at most the horizon (nothing after it is ever simulated)."""

    def check(value: Any, path: Path) -> Iterator[Finding]:
        if isinstance(value, bool) or not isinstance(value, int | float):
            yield _wrong_type(path, "number", value)
        elif not math.isfinite(value):
            yield Finding(path, "not_finite", {"value": str(value)})
        elif minimum is not None and value < minimum:
            yield Finding(path, "minimum", {"minimum": minimum, "value": value})
        elif horizon is not None and value > horizon:
            yield Finding(path, "beyond_horizon", {"value": value, "horizon": horizon})

    return check


def integer(minimum: int | None = 0, maximum: int = INT64_MAX) -> Check:
    """An integer from `minimum` to `maximum` (an integral decimal, 3.0, counts as 3)."""

    def check(value: Any, path: Path) -> Iterator[Finding]:
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            yield _wrong_type(path, "integer", value)
        elif minimum is not None and value < minimum:
            yield Finding(path, "minimum", {"minimum": minimum, "value": value})
        elif value > maximum:
            yield Finding(path, "maximum", {"maximum": maximum, "value": value})

    return check


def boolean(value: Any, path: Path) -> Iterator[Finding]:
    """true or false."""
    if not isinstance(value, bool):
        yield _wrong_type(path, "boolean", value)


def string(value: Any, path: Path) -> Iterator[Finding]:
    """A non-empty string."""
    if not isinstance(value, str):
        yield _wrong_type(path, "string", value)
    elif not value.strip():
        yield Finding(path, "required", {"field": str(path[-1]) if path else ""})


def one_of(allowed: tuple[str, ...]) -> Check:
    """One of a few words."""

    def check(value: Any, path: Path) -> Iterator[Finding]:
        if not isinstance(value, str):
            yield _wrong_type(path, "string", value)
        elif value not in allowed:
            yield Finding(path, "enum", {"value": value, "allowed": list(allowed)})

    return check


def fields(spec: Mapping[str, Check], required: Iterable[str] = ()) -> Check:
    """A mapping with only the fields of `spec` (unknown ones suggest a near name)."""

    def check(value: Any, path: Path) -> Iterator[Finding]:
        if not isinstance(value, dict):
            yield _wrong_type(path, "mapping", value)
            return
        for name, item in value.items():
            if name in spec:
                yield from spec[name](item, (*path, name))
            else:
                yield unknown_field(path, name, spec)
        for name in required:
            if name not in value:
                yield Finding((*path, name), "required", {"field": name})

    return check


def map_of(item_check: Check) -> Check:
    """A mapping from any names to values checked by `item_check`."""

    def check(value: Any, path: Path) -> Iterator[Finding]:
        if not isinstance(value, dict):
            yield _wrong_type(path, "mapping", value)
            return
        for name, item in value.items():
            yield from item_check(item, (*path, name))

    return check


def list_of(item_check: Check, limit: int | None = None) -> Check:
    """A list of values checked by `item_check`, at most `limit` of them."""

    def check(value: Any, path: Path) -> Iterator[Finding]:
        if not isinstance(value, list):
            yield _wrong_type(path, "list", value)
            return
        if limit is not None and len(value) > limit:
            yield Finding(path, "too_many_items", {"count": len(value), "limit": limit})
            return
        for i, item in enumerate(value):
            yield from item_check(item, (*path, i))

    return check


def text(value: Any, path: Path) -> Iterator[Finding]:
    """A string, or a mapping of language code (en, zh) to string."""
    if isinstance(value, str):
        return
    if not isinstance(value, dict):
        yield _wrong_type(path, "string", value)
        return
    yield from fields({language: string for language in LANGUAGES})(value, path)
    if not value:
        yield Finding(path, "text_language", {})


# --- the document ---------------------------------------------------------------------

# Fields of each script action besides `at` and `action`, and which are required.
ACTION_FIELDS: dict[str, tuple[dict[str, Check], tuple[str, ...]]] = {
    "delete": (
        {
            "gracePeriodSeconds": integer(0, INT64_MAX),
            "force": boolean,
            "kind": one_of(("Pod",)),
            "name": string,
        },
        (),
    ),
    "scale": (
        {
            "kind": one_of(("Deployment", "ReplicaSet", "StatefulSet")),
            "name": string,
            "replicas": integer(0, MAX_SCALE),
        },
        ("name", "replicas"),
    ),
    "rollout-restart": ({"name": string}, ("name",)),
    "rollout-pause": ({"name": string}, ("name",)),
    "rollout-resume": ({"name": string}, ("name",)),
    "rollout-undo": ({"name": string, "toRevision": integer(0, INT64_MAX)}, ("name",)),
    "set-image": (
        {"name": string, "container": string, "image": string},
        ("name", "container", "image"),
    ),
    "cordon": ({"node": string}, ("node",)),
    "uncordon": ({"node": string}, ("node",)),
    "drain": ({"node": string, "ignoreDaemonsets": boolean}, ("node",)),
    "set-probe": (
        {"container": string, "probe": one_of(PROBES), "healthy": boolean},
        ("container", "probe", "healthy"),
    ),
    "crash": ({"container": string, "exitCode": integer(0, MAX_EXIT_CODE)}, ("container",)),
    "oom": ({"container": string}, ("container",)),
    "node-down": ({"node": string}, ("node",)),
    "node-up": ({"node": string}, ("node",)),
    "apply": ({"yaml": string}, ("yaml",)),
}


@cache
def document_check(horizon: float = DEFAULT_HORIZON_SECONDS) -> Check:
    """The whole Simulation document, its times and durations at most `horizon` seconds."""
    seconds = number(horizon=horizon)
    hook = fields({"seconds": seconds, "fails": boolean})
    container = fields(
        {
            "startSeconds": seconds,
            "exitAfterSeconds": seconds,
            "exitCode": integer(0, MAX_EXIT_CODE),
            "sigtermSeconds": seconds,
            "sigtermExitCode": integer(0, MAX_EXIT_CODE),
            "ignoreSigterm": boolean,
            "memoryMiB": integer(0, MAX_MIB),
            "probes": fields({probe: one_of(HEALTH) for probe in PROBES}),
            "hooks": fields({"postStart": hook, "preStop": hook}),
        }
    )
    image = fields({"pullSeconds": seconds, "sizeMiB": integer(0, MAX_MIB), "exists": boolean})

    def script_step(value: Any, path: Path) -> Iterator[Finding]:
        """{at, action, ...}: the action's own fields depend on the action."""
        if not isinstance(value, dict):
            yield _wrong_type(path, "mapping", value)
            return
        common: dict[str, Check] = {"at": seconds, "action": one_of(ACTIONS + WORKLOAD_ACTIONS)}
        action = value.get("action")
        if not isinstance(action, str) or action not in ACTION_FIELDS:
            yield from fields(common, ("at", "action"))(
                {k: v for k, v in value.items() if k in common}, path
            )
            return
        own, required = ACTION_FIELDS[action]
        yield from fields({**common, **own}, ("at", "action", *required))(value, path)

    def ran_check(value: Any, path: Path) -> Iterator[Finding]:
        """A command line's words (after `kubectl`), or a list of alternatives."""
        if isinstance(value, list):
            yield from list_of(string, MAX_TASK_ALTERNATIVES)(value, path)
        else:
            yield from string(value, path)

    task_check = fields(
        {
            "pod": string,
            "selector": string,
            "status": string,
            "ready": boolean,
            "maxRestarts": integer(0),
            "event": string,
            "ran": ran_check,
            "deployment": string,
            "rolledOut": boolean,
            "node": string,
            "schedulable": boolean,
            "podsOnNode": integer(0),
            "endpoints": string,
        }
    )

    def task_check_given(value: Any, path: Path) -> Iterator[Finding]:
        yield from task_check(value, path)
        if isinstance(value, dict) and not any(k in value for k in TASK_CHECKS):
            yield Finding(path, "task_check", {"checks": ", ".join(TASK_CHECKS)})

    def lesson_step(value: Any, path: Path) -> Iterator[Finding]:
        """{at | when, text}, or a task: {task, hints?, check}."""
        if isinstance(value, dict) and "task" in value:
            yield from fields(
                {"task": text, "hints": list_of(text, MAX_TASK_HINTS), "check": task_check_given},
                ("task", "check"),
            )(value, path)
            return
        yield from fields({"at": seconds, "when": string, "text": text}, ("text",))(value, path)
        if isinstance(value, dict) and ("at" in value) == ("when" in value):
            yield Finding(path, "lesson_timing", {})

    choice = fields(
        {
            "text": text,
            "status": string,
            "restarts": integer(0),
            "phase": one_of(("Pending", "Running", "Succeeded", "Failed", "Gone")),
            "ready": boolean,
            "inEndpoints": boolean,
        },
        ("text",),
    )

    def question_choice(value: Any, path: Path) -> Iterator[Finding]:
        yield from choice(value, path)
        if isinstance(value, dict) and not any(k in value for k in QUESTION_CHECKS):
            yield Finding(path, "question_check", {"checks": ", ".join(QUESTION_CHECKS)})

    def question(value: Any, path: Path) -> Iterator[Finding]:
        """{id, at | when, after, question, choices: [{text, <check>}] (2-5), why?}."""
        yield from fields(
            {
                "id": string,
                "at": seconds,
                "when": string,
                "after": seconds,
                "question": text,
                "choices": list_of(question_choice, 5),
                "why": text,
            },
            ("id", "after", "question", "choices"),
        )(value, path)
        if not isinstance(value, dict):
            return
        if ("at" in value) == ("when" in value):
            yield Finding(path, "lesson_timing", {})
        choices = value.get("choices")
        if isinstance(choices, list) and len(choices) < 2:
            yield Finding((*path, "choices"), "question_choices", {})

    steps = list_of(lesson_step, MAX_LESSON_STEPS)
    lesson_map = fields({"steps": steps, "questions": list_of(question, MAX_QUESTIONS)})

    def lesson(value: Any, path: Path) -> Iterator[Finding]:
        """A list of steps, or {steps, questions}."""
        yield from (steps if isinstance(value, list) else lesson_map)(value, path)

    return fields(
        {
            "apiVersion": one_of(("playground/v1",)),
            "kind": one_of(("Simulation",)),
            "metadata": fields({"name": string}, ("name",)),
            "title": text,
            "description": text,
            "containers": map_of(container),
            "images": map_of(image),
            "script": list_of(script_step, MAX_SCRIPT_STEPS),
            "lesson": lesson,
            "traffic": fields(
                {"service": string, "rps": integer(1, MAX_RPS), "propagationSeconds": seconds},
                ("service",),
            ),
        },
        ("metadata",),
    )


def simulation_findings(
    simulation: dict[str, Any],
    containers: list[str] | None,
    check_apply: ApplyCheck | None = None,
    horizon: float = DEFAULT_HORIZON_SECONDS,
    *,
    pod: dict[str, Any] | None = None,
    nodes: list[str] | None = None,
    apply_objects: Callable[[str], list[dict[str, Any]]] | None = None,
) -> list[Finding]:
    """Every error of a Simulation document.

    `containers` are the Pod's container names (None when the Pod is unknown: references are
    not checked); `check_apply` validates the text of `apply` actions; every time and
    duration is at most `horizon` virtual seconds (the end of the run). With the Pod and the
    names of the cluster's nodes, scripted actions are checked against them too: an action
    that cannot work is an error now, not a step skipped in silence later.
    """
    findings = list(document_check(float(horizon))(simulation, ()))
    if containers is not None:
        findings.extend(container_reference_findings(simulation, containers))
    if check_apply is not None:
        findings.extend(apply_findings(simulation, check_apply))
    if pod is not None and nodes is not None and not findings:
        findings.extend(script_context_findings(simulation, pod, nodes, apply_objects))
    return findings


# The cluster's nodes when the scenario has no Node document (engine/scheduler.py
# default_nodes; tests/unit/test_manifest_simulation.py keeps the two in step).
DEFAULT_NODE_NAMES = ("node-1", "node-2", "node-3")
PROBE_FIELDS = {
    "liveness": "livenessProbe",
    "readiness": "readinessProbe",
    "startup": "startupProbe",
}


def script_context_findings(
    simulation: dict[str, Any],
    pod: dict[str, Any],
    nodes: list[str],
    apply_objects: Callable[[str], list[dict[str, Any]]] | None,
) -> Iterator[Finding]:
    """Scripted actions against the scenario's Pod and nodes, in time order: set-probe needs
    the probe, node-down/up a node that exists by then, apply the same Pod."""

    # The Pod's own errors are reported by its validation, which runs beside this one: read
    # it defensively (a `spec` that is a list, a container that is null).
    def mapping(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    known = list(nodes or DEFAULT_NODE_NAMES)
    specs = {}
    spec = mapping(pod.get("spec"))
    for key in ("initContainers", "containers"):
        containers = spec.get(key)
        for container in containers if isinstance(containers, list) else []:
            if isinstance(container, dict):
                specs[container.get("name")] = container
    pod_name = mapping(pod.get("metadata")).get("name")
    script = simulation.get("script")
    script = script if isinstance(script, list) else []
    steps = [i for i, step in enumerate(script) if isinstance(step, dict)]
    order = sorted(steps, key=lambda i: script[i].get("at", 0))
    for i in order:
        step = script[i]
        action = step.get("action")
        if action == "set-probe" and step.get("probe") in PROBE_FIELDS:
            container = specs.get(step.get("container")) or {}
            field = PROBE_FIELDS[step["probe"]]
            if not container.get(field):
                yield Finding(("script", i, "probe"), "script_no_probe",
                              {"container": step.get("container"), "probe": step["probe"], "field": field})  # fmt: skip
        elif action in ("node-down", "node-up") and step.get("node") not in known:
            yield Finding(("script", i, "node"), "script_unknown_node",
                          {"node": step.get("node"), "at": step.get("at", 0), "available": known})  # fmt: skip
        elif action == "apply" and apply_objects is not None:
            for obj in apply_objects(step["yaml"]):
                name = (obj.get("metadata") or {}).get("name")
                if obj.get("kind") == "Node" and name not in known:
                    known.append(name)
                elif obj.get("kind") == "Pod" and name != pod_name:
                    yield Finding(
                        ("script", i, "yaml"), "script_other_pod", {"pod": pod_name, "other": name}
                    )


def _unknown_container(path: Path, name: str, containers: list[str], point: str) -> Finding:
    return Finding(
        path,
        "unknown_container",
        {"container": name, "available": containers},
        point="key" if point == "key" else "value",
    )


def container_reference_findings(
    simulation: dict[str, Any], containers: list[str]
) -> Iterator[Finding]:
    """`containers` entries and script steps name containers the Pod has."""
    entries = simulation.get("containers")
    if isinstance(entries, dict):
        for name in entries:
            if name not in containers:
                yield _unknown_container(("containers", name), name, containers, "key")
    script = simulation.get("script")
    for i, step in enumerate(script if isinstance(script, list) else []):
        name = step.get("container") if isinstance(step, dict) else None
        if isinstance(name, str) and name.strip() and name not in containers:
            yield _unknown_container(("script", i, "container"), name, containers, "value")


def apply_findings(simulation: dict[str, Any], check_apply: ApplyCheck) -> Iterator[Finding]:
    """The yaml of each scripted `apply` is itself a valid set of objects."""
    script = simulation.get("script")
    for i, step in enumerate(script if isinstance(script, list) else []):
        if not (isinstance(step, dict) and step.get("action") == "apply"):
            continue
        yaml_text = step.get("yaml")
        if not (isinstance(yaml_text, str) and yaml_text.strip()):
            continue
        errors = check_apply(yaml_text)
        if errors:
            first = errors[0]
            yield Finding(
                ("script", i, "yaml"),
                "apply_yaml_invalid",
                {
                    "count": len(errors),
                    "line": first["line"],
                    "column": first["column"],
                    "error": {"code": first["code"], "params": first["params"]},
                },
            )


# --- normalised form ------------------------------------------------------------------


def _lesson_step(step: dict[str, Any]) -> dict[str, Any]:
    """A lesson step as the page gets it; a task's `check` stays on the server (the page
    is told which tasks are done: webapp/sessions/tasks.py)."""
    if "task" in step:
        return {"at": None, "when": None, "task": True, "text": _texts(step.get("task"), ""),
                "hints": [_texts(h, "") for h in step.get("hints") or []]}  # fmt: skip
    return {"at": _optional_float(step.get("at")), "when": step.get("when"),
            "text": _texts(step.get("text"), "")}  # fmt: skip


def lesson_checks(simulation: dict[str, Any]) -> list[dict[str, Any] | None]:
    """Each lesson step's task check (None for a step that is not a task), as written."""
    return [dict(step["check"]) if "task" in step else None for step in lesson_steps(simulation)]


def lesson_steps(simulation: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps of a document's `lesson`: the list itself, or its `steps`."""
    lesson = simulation.get("lesson") or []
    return list(lesson.get("steps") or []) if isinstance(lesson, dict) else list(lesson)


def lesson_questions(simulation: dict[str, Any]) -> list[dict[str, Any]]:
    """The prediction questions of a document's `lesson` (only in its mapping form)."""
    lesson = simulation.get("lesson")
    return list(lesson.get("questions") or []) if isinstance(lesson, dict) else []


def _texts(value: Any, fallback: str) -> dict[str, str]:
    if isinstance(value, str):
        return {language: value for language in LANGUAGES}
    given: dict[str, str] = value if isinstance(value, dict) else {}
    en = given.get("en", given.get("zh", fallback))
    return {"en": en, "zh": given.get("zh", en)}


def _hook(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"seconds": float(value.get("seconds", 0)), "fails": bool(value.get("fails", False))}


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def normalise_container(entry: dict[str, Any]) -> dict[str, Any]:
    """One `containers` entry with every default filled."""
    probes = entry.get("probes") or {}
    hooks = entry.get("hooks") or {}
    memory = entry.get("memoryMiB")
    return {
        "startSeconds": float(entry.get("startSeconds", 0)),
        "exitAfterSeconds": _optional_float(entry.get("exitAfterSeconds")),
        "exitCode": int(entry.get("exitCode", 0)),
        "sigtermSeconds": float(entry.get("sigtermSeconds", 0)),
        # 143 = 128 + SIGTERM: the process died of the signal. An app that handles SIGTERM
        # and shuts down cleanly exits 0 (terminated reason Completed, not Error).
        "sigtermExitCode": int(entry.get("sigtermExitCode", 143)),
        "ignoreSigterm": bool(entry.get("ignoreSigterm", False)),
        "memoryMiB": None if memory is None else int(memory),
        "probes": {probe: probes.get(probe, "healthy") for probe in PROBES},
        "hooks": {hook: _hook(hooks.get(hook)) for hook in ("postStart", "preStop")},
        # What the document says itself: only these override the behaviour the engine
        # derives from the container's image and command ("probes.liveness", "hooks.preStop").
        "explicit": sorted(
            [key for key in entry if key not in ("probes", "hooks")]
            + [f"probes.{probe}" for probe in probes]
            + [f"hooks.{hook}" for hook in hooks]
        ),
    }


DEFAULT_PULL_SECONDS = 2.0
DEFAULT_IMAGE_SIZE_MIB = 50


def normalise_image(entry: dict[str, Any]) -> dict[str, Any]:
    """One `images` entry with every default filled."""
    return {
        "pullSeconds": float(entry.get("pullSeconds", DEFAULT_PULL_SECONDS)),
        "sizeMiB": int(entry.get("sizeMiB", DEFAULT_IMAGE_SIZE_MIB)),
        "exists": bool(entry.get("exists", True)),
    }


def normalise_simulation(simulation: dict[str, Any] | None, pod: dict[str, Any]) -> dict[str, Any]:
    """The normalised Simulation of docs/internals.md (a valid document, or None for none)."""
    simulation = simulation or {}
    pod_name = str((pod.get("metadata") or {}).get("name", ""))
    name = str((simulation.get("metadata") or {}).get("name", pod_name))
    entries = simulation.get("containers") or {}
    script = [{**step, "at": float(step["at"])} for step in simulation.get("script") or []]
    normalised = {
        "name": name,
        "title": _texts(simulation.get("title"), name),
        "description": _texts(simulation.get("description"), ""),
        "containers": {
            container: normalise_container(entries.get(container) or {})
            for container in container_names(pod)
        },
        "images": {
            ref: normalise_image(entry or {})
            for ref, entry in (simulation.get("images") or {}).items()
        },
        "script": sorted(script, key=lambda step: step["at"]),
        "lesson": [_lesson_step(step) for step in lesson_steps(simulation)],
        "questions": [
            {
                "id": str(q["id"]),
                "at": _optional_float(q.get("at")),
                "when": q.get("when"),
                "after": float(q["after"]),
                "question": _texts(q.get("question"), ""),
                "choices": [
                    {
                        "text": _texts(c.get("text"), ""),
                        **{k: c[k] for k in QUESTION_CHECKS if k in c},
                    }
                    for c in q.get("choices") or []
                ],
                "why": _texts(q.get("why"), ""),
            }
            for q in lesson_questions(simulation)
        ],
    }
    if simulation.get("traffic"):
        normalised["traffic"] = dict(simulation["traffic"])
    checks = lesson_checks(simulation)
    if any(check is not None for check in checks):
        normalised["taskChecks"] = checks  # the server's only (webapp/sessions/tasks.py)
    return normalised
