"""A scenario text in, a `Scenario` (or every located error) out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webapp.manifest.errors import Finding, ScenarioError, located_error
from webapp.manifest.rules import check_run_work, container_names, rule_findings
from webapp.manifest.schema import json_type, schema_findings
from webapp.manifest.simulation_doc import (
    DEFAULT_HORIZON_SECONDS,
    normalise_simulation,
    simulation_findings,
)
from webapp.manifest.yaml_reader import VALUE_PROBLEMS, Document, read_documents

SIMULATION = "Simulation"
# kind -> the apiVersion it is written with.
API_VERSIONS = {
    "Pod": "v1",
    "Node": "v1",
    "Service": "v1",
    "ConfigMap": "v1",
    "Secret": "v1",
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "Job": "batch/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "PodDisruptionBudget": "policy/v1",
    SIMULATION: "playground/v1",
}
OBJECT_KINDS = (
    "Pod", "Node", "Service", "ConfigMap", "Secret", "Deployment", "ReplicaSet", "Job",
    "StatefulSet", "PodDisruptionBudget", "DaemonSet",
)  # fmt: skip
# What a cluster scenario holds besides Services, Nodes, ConfigMaps and Secrets.
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "Job", "StatefulSet", "PodDisruptionBudget",
                  "DaemonSet")  # fmt: skip
# Real kinds the engine does not run yet: refused with a located `kind_not_run_yet`, so a
# pasted example says what is missing instead of "unknown kind".
NOT_RUN_YET = ("CronJob",)


@dataclass(frozen=True)
class Scenario:
    """A checked scenario: its Kubernetes objects as written and the normalised Simulation."""

    text: str
    pod: dict[str, Any]
    nodes: tuple[dict[str, Any], ...]
    services: tuple[dict[str, Any], ...]
    config_maps: tuple[dict[str, Any], ...]
    secrets: tuple[dict[str, Any], ...]
    simulation: dict[str, Any]
    # Deployments and ReplicaSets, in the order written (a scenario has them or a Pod).
    workloads: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class _Typed:
    """A document that is a mapping with a known kind."""

    document: Document
    kind: str

    @property
    def data(self) -> dict[str, Any]:
        return self.document.data  # type: ignore[no-any-return]


def _kind_of(document: Document, kinds: Iterable[str]) -> tuple[str | None, list[Finding]]:
    """The document's kind, or None with findings when it has no usable kind."""
    data = document.data
    if data is None:
        return None, [Finding((), "empty_document")]
    if not isinstance(data, dict):
        return None, [Finding((), "not_a_mapping", {"value_type": json_type(data)})]
    kind, api_version = data.get("kind"), data.get("apiVersion")
    findings: list[Finding] = []
    if kind is None:
        findings.append(Finding(("kind",), "required", {"field": "kind"}))
    elif not isinstance(kind, str):
        findings.append(
            Finding(("kind",), "wrong_type", {"expected": "string", "found": json_type(kind)})
        )
    elif kind in NOT_RUN_YET:
        findings.append(
            Finding(
                ("kind",),
                "kind_not_run_yet",
                {"kind": kind, "allowed": [k for k in kinds if k != SIMULATION]},
            )
        )
    elif kind not in kinds:
        findings.append(
            Finding(
                ("kind",),
                "unknown_kind",
                {"kind": kind, "apiVersion": str(api_version), "allowed": list(kinds)},
            )
        )
    if api_version is None:
        findings.append(Finding(("apiVersion",), "required", {"field": "apiVersion"}))
    elif isinstance(kind, str) and kind in kinds and api_version != API_VERSIONS[kind]:
        findings.append(
            Finding(
                ("apiVersion",),
                "wrong_api_version",
                {"kind": kind, "apiVersion": str(api_version), "expected": API_VERSIONS[kind]},
            )
        )
    known = isinstance(kind, str) and kind in kinds
    return (kind if known else None), findings


def _object_findings(typed: _Typed) -> list[Finding]:
    """Schema and rule findings of one Kubernetes object (apiVersion/kind already checked)."""
    schema = [
        f
        for f in schema_findings(typed.kind, typed.data)
        if f.path[:1] not in (("apiVersion",), ("kind",))
    ]
    return schema + rule_findings(typed.kind, typed.data)


def _duplicate_objects(objects: list[_Typed]) -> list[dict[str, Any]]:
    """The same kind and name twice."""
    first_line: dict[tuple[str, str], int] = {}
    errors = []
    for typed in objects:
        name = (
            (typed.data.get("metadata") or {}).get("name")
            if isinstance(typed.data.get("metadata"), dict)
            else None
        )
        if not isinstance(name, str):
            continue
        key = (typed.kind, name)
        if key in first_line:
            errors.append(
                typed.document.locate(
                    Finding(
                        ("metadata", "name"),
                        "duplicate_object",
                        {"kind": typed.kind, "name": name, "first_line": first_line[key]},
                    )
                )
            )
        else:
            first_line[key] = typed.document.mark_of(("metadata", "name")).line
    return errors


def _read(
    text: str, kinds: tuple[str, ...], single: tuple[str, ...] = ()
) -> tuple[list[_Typed], list[dict[str, Any]], int]:
    """Documents with a known kind among `kinds`, checked; every error so far; and how many
    documents had no usable kind. Kinds in `single` are reported as extra elsewhere, so not
    also as duplicates."""
    read, errors = read_documents(text)
    # An empty document (a stray or trailing `---`) is skipped, as kubectl apply does.
    documents = [d for d in read if d.data is not None]
    if not documents:
        errors.append(located_error(0, (), 1, 1, "empty", {}))
    typed: list[_Typed] = []
    for document in documents:
        kind, findings = _kind_of(document, kinds)
        errors.extend(document.locate(finding) for finding in findings)
        if kind is not None:
            typed.append(_Typed(document, kind))
    # A value the reader refused (not finite, too long, not valid Unicode) was read as
    # null: the schema's view of that null would only repeat the same error.
    refused = {(e["doc"], e["path"]) for e in errors if e["code"] in VALUE_PROBLEMS}
    for item in typed:
        if item.kind != SIMULATION:
            located = (item.document.locate(f) for f in _object_findings(item))
            errors.extend(e for e in located if (e["doc"], e["path"]) not in refused)
    errors.extend(_duplicate_objects([t for t in typed if t.kind not in (SIMULATION, *single)]))
    return typed, errors, len(documents) - len(typed)


def _extra(items: list[_Typed], code: str) -> list[dict[str, Any]]:
    """Errors for every item after the first of a kind allowed once."""
    return [
        item.document.locate(
            Finding(("kind",), code, {"first_line": items[0].document.mark_of(()).line})
        )
        for item in items[1:]
    ]


def _apply_objects(text: str) -> list[dict[str, Any]]:
    try:
        return parse_objects(text)
    except ScenarioError:
        return []


def _apply_errors(text: str) -> list[dict[str, Any]]:
    try:
        parse_objects(text)
    except ScenarioError as error:
        return error.errors
    return []


def parse_scenario(text: str, horizon: float = DEFAULT_HORIZON_SECONDS) -> Scenario:
    """Read and check a scenario text; raise ScenarioError with every located error.

    Every time and duration of the Simulation document (script and lesson times included)
    must be at most `horizon`, the virtual second the run ends at."""
    typed, errors, untyped = _read(text, tuple(API_VERSIONS), single=("Pod",))
    pods = [t for t in typed if t.kind == "Pod"]
    simulations = [t for t in typed if t.kind == SIMULATION]
    workloads = [t for t in typed if t.kind in WORKLOAD_KINDS]
    if workloads:
        return _workload_scenario(text, typed, errors, pods, simulations, workloads, horizon)
    if not pods and not untyped and typed:
        # With an untyped document, that one is most likely the Pod: its error says enough.
        errors.append(located_error(0, (), 1, 1, "no_pod", {}))
    errors.extend(_extra(pods, "extra_pod"))
    errors.extend(_extra(simulations, "extra_simulation"))
    pod = pods[0].data if len(pods) == 1 else None
    names = list(dict.fromkeys(container_names(pod))) if pod is not None else None
    node_names = [(t.data.get("metadata") or {}).get("name") for t in typed if t.kind == "Node"]
    refused = {(e["doc"], e["path"]) for e in errors if e["code"] in VALUE_PROBLEMS}
    for simulation in simulations[:1]:
        findings = simulation_findings(
            simulation.data, names, _apply_errors, horizon, pod=pod, nodes=node_names,
            apply_objects=_apply_objects,
        )  # fmt: skip
        located = (simulation.document.locate(f) for f in findings)
        errors.extend(e for e in located if (e["doc"], e["path"]) not in refused)
    if errors or pod is None:
        raise ScenarioError(errors or [located_error(0, (), 1, 1, "no_pod", {})])

    def of(kind: str) -> tuple[dict[str, Any], ...]:
        return tuple(t.data for t in typed if t.kind == kind)

    simulation = normalise_simulation(simulations[0].data if simulations else None, pod)
    if not simulations:
        described = comment_description(text)
        if described["en"]:
            simulation["description"] = described
        titled = comment_title(text)
        if titled:
            simulation["title"] = titled
    return Scenario(
        text=text,
        pod=pod,
        nodes=of("Node"),
        services=of("Service"),
        config_maps=of("ConfigMap"),
        secrets=of("Secret"),
        simulation=simulation,
    )


def _workload_scenario(
    text: str,
    typed: list[_Typed],
    errors: list[dict[str, Any]],
    pods: list[_Typed],
    simulations: list[_Typed],
    workloads: list[_Typed],
    horizon: float,
) -> Scenario:
    """A scenario of Deployments / ReplicaSets (no Pod of its own): the Simulation document's
    container entries name the templates' containers."""
    errors = list(errors)
    if pods:
        first = workloads[0].document.mark_of(()).line
        errors.extend(
            p.document.locate(Finding(("kind",), "pod_and_workload", {"first_line": first}))
            for p in pods
        )
    errors.extend(_extra(simulations, "extra_simulation"))
    templates = [
        {"spec": ((w.data.get("spec") or {}).get("template") or {}).get("spec") or {}}
        for w in workloads
        if isinstance(w.data.get("spec"), dict)
        and isinstance((w.data.get("spec") or {}).get("template"), dict)
    ]
    names = list(dict.fromkeys(n for t in templates for n in container_names(t)))
    heavy = check_run_work([(w.kind, w.data) for w in workloads])
    if heavy is not None:
        errors.append(workloads[heavy[0]].document.locate(heavy[1]))
    refused = {(e["doc"], e["path"]) for e in errors if e["code"] in VALUE_PROBLEMS}
    services = [(t.data.get("metadata") or {}).get("name") for t in typed if t.kind == "Service"]
    for simulation in simulations[:1]:
        findings = simulation_findings(simulation.data, names, _apply_errors, horizon)
        traffic = simulation.data.get("traffic")
        wanted = traffic.get("service") if isinstance(traffic, dict) else None
        if isinstance(wanted, str) and wanted not in services:
            findings.append(Finding(("traffic", "service"), "traffic_unknown_service",
                                    {"service": wanted}))  # fmt: skip
        findings.extend(_script_target_findings(simulation.data, typed))
        located = (simulation.document.locate(f) for f in findings)
        errors.extend(e for e in located if (e["doc"], e["path"]) not in refused)
    if errors:
        raise ScenarioError(errors)

    def of(kind: str) -> tuple[dict[str, Any], ...]:
        return tuple(t.data for t in typed if t.kind == kind)

    first = workloads[0].data
    name_holder = {
        "metadata": {"name": (first.get("metadata") or {}).get("name", "")},
        "spec": {"containers": [{"name": n} for n in names]},
    }
    simulation = normalise_simulation(simulations[0].data if simulations else None, name_holder)
    if not simulations:
        described = comment_description(text)
        if described["en"]:
            simulation["description"] = described
        titled = comment_title(text)
        if titled:
            simulation["title"] = titled
    return Scenario(
        text=text,
        pod=None,  # type: ignore[arg-type]
        nodes=of("Node"),
        services=of("Service"),
        config_maps=of("ConfigMap"),
        secrets=of("Secret"),
        simulation=simulation,
        workloads=tuple(w.data for w in workloads),
    )


# Which kinds a workload action's `name` may refer to (its `kind`, or the first one).
_TARGET_KINDS = {
    "scale": ("Deployment", "ReplicaSet", "StatefulSet"),
    "set-image": ("Deployment",),
    "rollout-restart": ("Deployment",),
    "rollout-undo": ("Deployment",),
    "rollout-pause": ("Deployment",),
    "rollout-resume": ("Deployment",),
}
_NODE_ACTIONS = ("cordon", "uncordon", "drain", "node-down", "node-up")
_DEFAULT_NODES = ("node-1", "node-2", "node-3")  # engine/scheduler.py default_nodes


def _script_target_findings(simulation: dict[str, Any], typed: list[_Typed]) -> list[Finding]:
    """A scripted workload action must name an object (or node) of the scenario: an
    action that cannot work is an error now, not a step skipped in silence later."""
    script = simulation.get("script")
    if not isinstance(script, list):
        return []
    names: dict[str, set[str]] = {}
    for t in typed:
        name = (t.data.get("metadata") or {}).get("name")
        if isinstance(name, str):
            names.setdefault(t.kind, set()).add(name)
    nodes = names.get("Node") or set(_DEFAULT_NODES)
    findings = []
    for i, step in enumerate(script):
        if not isinstance(step, dict):
            continue
        action = step.get("action")
        if action in _TARGET_KINDS and isinstance(step.get("name"), str):
            kind = step.get("kind") if isinstance(step.get("kind"), str) else None
            kinds = (kind,) if kind else _TARGET_KINDS[action][:1]
            if not any(step["name"] in names.get(k, set()) for k in kinds):
                findings.append(Finding(("script", i, "name"), "script_unknown_object",
                                        {"kind": kinds[0], "name": step["name"]}))  # fmt: skip
        node = step.get("node")
        if action in _NODE_ACTIONS and isinstance(node, str) and node not in nodes:
            findings.append(Finding(("script", i, "node"), "script_unknown_node",
                                    {"node": node, "at": step.get("at", 0),
                                     "available": ", ".join(sorted(nodes))}))  # fmt: skip
    return findings


TITLE_PREFIXES = {" title:": "en", " zh-title:": "zh"}


def comment_title(text: str) -> dict[str, str]:
    """The ``# title: …`` and ``# zh-title: …`` lines of a manifest's leading comment: its
    title in the scenario picker when it has no Simulation document. Either language falls
    back to the other; none gives {}."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        for prefix, lang in TITLE_PREFIXES.items():
            if line[1:].startswith(prefix) and line[1 + len(prefix) :].strip():
                found.setdefault(lang, line[1 + len(prefix) :].strip())
    if not found:
        return {}
    return {"en": found.get("en") or found["zh"], "zh": found.get("zh") or found["en"]}


def comment_description(text: str) -> dict[str, str]:
    """A manifest without a Simulation document may say what it shows in its leading comment:
    the prose lines (``# …``; an indented ``#   …`` line is a code sample and ends it), and
    ``# zh: …`` lines for 简体中文 (``# title:`` / ``# zh-title:`` lines are its title,
    :func:`comment_title`). Either language falls back to the other."""
    en: list[str] = []
    zh: list[str] = []
    code = False
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        body = line[1:]
        if any(body.startswith(prefix) for prefix in TITLE_PREFIXES):
            continue
        if body.startswith(" zh:"):
            zh.append(body[4:].strip())
        elif body.startswith("   ") or code:
            code = True
        elif body.strip():
            en.append(body.strip())
    english = " ".join(en)
    chinese = "".join(zh)
    return {"en": english or chinese, "zh": chinese or english}


def parse_objects(text: str, *, skip_simulation: bool = False) -> list[dict[str, Any]]:
    """Read and check 1..20 Kubernetes objects for the `apply` action. A Simulation
    document is refused, or with ``skip_simulation`` left out (the editor's whole scenario
    applied with kubectl apply: that document is the playground's, not an API object)."""
    typed, errors, _ = _read(text, tuple(API_VERSIONS))
    if not skip_simulation:
        errors.extend(
            t.document.locate(Finding(("kind",), "simulation_not_allowed"))
            for t in typed
            if t.kind == SIMULATION
        )
    if errors:
        raise ScenarioError(errors)
    objects = [t.data for t in typed if t.kind != SIMULATION]
    if not objects:  # only a Simulation document
        raise ScenarioError([t.document.locate(Finding(("kind",), "simulation_not_allowed"))
                             for t in typed])  # fmt: skip
    return objects


def has_simulation(text: str) -> bool:
    """Whether the text holds a Simulation document (a cheap look at the documents)."""
    read, _ = read_documents(text)
    return any(isinstance(d.data, dict) and d.data.get("kind") == SIMULATION for d in read)
