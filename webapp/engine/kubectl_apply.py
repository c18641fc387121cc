"""``kubectl apply`` (client-side) against a running engine, both kinds of run: a Pod
scenario's :class:`Simulation` and a workload scenario's ClusterSimulation.

For each object kubectl reads the live one and either creates it (``created``) or sends
the strategic merge patch of ``CreateThreeWayMergePatch(original, modified, current)``
(k8s.io/kubectl pkg/cmd/apply/patcher.go ``buildMergePatch``): ``original`` is the
``kubectl.kubernetes.io/last-applied-configuration`` annotation of the live object,
``modified`` the object as written with that annotation set to itself
(pkg/util/apply.go ``GetModifiedConfiguration``), ``current`` the live object. An empty
patch is ``unchanged`` and sends nothing; any other is ``configured``. The API server
applies the patch (``StrategicMergeMapPatch``), defaults the result and validates the
update (a Pod: ``ValidatePodUpdate``, pkg/apis/core/validation/validation.go), then
stores it; a controller reacts to what changed (a Deployment's new template: a new
ReplicaSet, the rolling update).

:func:`check_apply` checks a whole batch first, :func:`perform_apply` writes it: a batch
with one refused object changes nothing. :func:`update_object` is the engine-level write
of one object (create or update, as the API server's POST / PUT / PATCH end in),
checked, for any caller holding a desired object.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.action_error import ActionError
from webapp.engine.apiserver.defaults import apply_pod_defaults, keep_service_account_token
from webapp.engine.apiserver.patch import (
    PatchError,
    create_three_way_merge_patch,
    strategic_merge_patch,
)
from webapp.engine.apiserver.patch.meta import for_kind
from webapp.engine.controllers.node_lifecycle import NodeState, with_node_defaults
from webapp.engine.store.errors import (
    field_error_text,
    invalid_value,
    new_invalid,
    required_value,
)

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
DS_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"

# kind -> (resource, group): what kubectl prints (``deployment.apps/web``) and what the
# warning of a missing annotation names (``deployments``).
RESOURCES = {
    "Pod": ("pods", ""),
    "ConfigMap": ("configmaps", ""),
    "Secret": ("secrets", ""),
    "Service": ("services", ""),
    "Node": ("nodes", ""),
    "Deployment": ("deployments", "apps"),
    "ReplicaSet": ("replicasets", "apps"),
    "StatefulSet": ("statefulsets", "apps"),
    "DaemonSet": ("daemonsets", "apps"),
    "Job": ("jobs", "batch"),
    "PodDisruptionBudget": ("poddisruptionbudgets", "policy"),
}
# What a Pod scenario (one Pod, no controllers) takes; a workload scenario takes every kind.
POD_SCENARIO_KINDS = ("Pod", "ConfigMap", "Secret", "Service", "Node")
WORKLOADS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")

# validation.go updatablePodSpecFields, joined with "," as ValidatePodUpdate joins them.
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
POD_UPDATE_FORBIDDEN = "pod updates may not change fields other than " + ",".join(
    UPDATABLE_POD_SPEC_FIELDS
)
MAX_INT32 = 2**31 - 1
# ValidateJobSpecUpdate: what an update of a Job may change (the rest is immutable).
JOB_MUTABLE = (
    "parallelism",
    "suspend",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "maxFailedIndexes",
)


# -- what kubectl writes and prints -------------------------------------------------------


def printed_name(kind: str, name: str) -> str:
    """``deployment.apps/nginx-deployment``, ``pod/web``: kubectl's ``kind.group/name``."""
    group = RESOURCES.get(kind, ("", ""))[1]
    return f"{kind.lower()}{'.' + group if group else ''}/{name}"


def go_json(value: Any) -> str:
    """``json.Marshal`` of a decoded object: keys sorted, compact, ``<``, ``>`` and ``&``
    (and U+2028/U+2029) escaped as Go's encoder escapes them for HTML."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                        ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(ch, escaped)
    return text


def modified_configuration(desired: dict) -> dict:
    """``GetModifiedConfiguration(obj, annotate=true)``: the object without the annotation,
    encoded (``runtime.Encode`` ends the JSON with a newline), becomes its own
    ``last-applied-configuration``; ``metadata.annotations`` is ``{}`` when it had none."""
    obj = copy.deepcopy(desired)
    metadata = obj.setdefault("metadata", {})
    annotations = dict(metadata.get("annotations") or {})
    annotations.pop(LAST_APPLIED, None)
    metadata["annotations"] = annotations
    text = go_json(obj) + "\n"
    obj["metadata"]["annotations"] = {**annotations, LAST_APPLIED: text}
    return obj


def missing_annotation_warning(kind: str, name: str) -> str:
    """apply.go ``warningNoLastAppliedConfigAnnotation`` (to stderr, then the patch goes on)."""
    resource = RESOURCES.get(kind, (kind.lower() + "s", ""))[0]
    return (
        f"Warning: resource {resource}/{name} is missing the {LAST_APPLIED} annotation which "
        "is required by kubectl apply. kubectl apply should only be used on resources "
        "created declaratively by either kubectl create --save-config or kubectl apply. "
        "The missing annotation will be patched automatically."
    )


def refused(kind: str, name: str, errors: list[dict], code: str = "invalid") -> ActionError:
    """An update the API server refuses as Invalid (422): the Status message as the API
    server words it (``Pod "web" is invalid: ...``) and, in ``params["kubectl"]``, the
    lines kubectl prints for it (``The Pod "web" is invalid: ...``, cmdutil.CheckErr)."""
    group = RESOURCES.get(kind, ("", ""))[1]
    status = new_invalid(kind, group, name, errors)
    return ActionError(code, {"kind": kind, "name": name, "kubectl": kubectl_invalid(kind, name, errors),
                              "status": status.status()}, status.message)  # fmt: skip


def kubectl_invalid(kind: str, name: str, errors: list[dict]) -> str:
    """``MultilineError("The Kind \"name\" is invalid: ", causes)``: one cause on the line,
    several as ``* cause`` lines."""
    prefix = f'The {kind} "{name}" is invalid: '
    causes = list(dict.fromkeys(field_error_text(e) for e in errors))
    if len(causes) == 1:
        return prefix + causes[0]
    return prefix + "\n" + "\n".join(f"* {cause}" for cause in causes)


def forbidden(field_path: str, detail: str) -> dict:
    """``field.Forbidden``."""
    return {"type": "FieldValueForbidden", "field": field_path, "body": f"Forbidden: {detail}"}


# -- ValidatePodUpdate --------------------------------------------------------------------


def validate_pod_update(new_spec: dict, old_spec: dict) -> list[dict]:
    """``ValidatePodUpdate``'s spec rules (validation.go) on two defaulted Pod specs: the
    same containers, images set and unpadded, activeDeadlineSeconds only set or lowered,
    tolerations only added, scheduling gates only deleted (a gated Pod: nodeSelector only
    added to), and nothing else changed. The field errors, in its order.

    The Forbidden message is the first line of the API server's: it goes on with a
    ``cmp.Diff`` of the two specs, whose layout go-cmp randomises on purpose (it is not
    meant to be matched), so that part is left out here."""
    errors: list[dict] = []
    for key in ("containers", "initContainers"):
        new, old = new_spec.get(key) or [], old_spec.get(key) or []
        path = f"spec.{key}"
        if len(new) != len(old):  # ValidateContainerUpdates
            return [*errors, forbidden(path, "pod updates may not add or remove containers")]
        for index, container in enumerate(new):
            image = container.get("image") or ""
            if not image:
                errors.append(required_value(f"{path}[{index}].image"))
            if image.strip() != image:
                errors.append(invalid_value(f"{path}[{index}].image", image,
                                            "must not have leading or trailing whitespace"))  # fmt: skip
    new_deadline = new_spec.get("activeDeadlineSeconds")
    old_deadline = old_spec.get("activeDeadlineSeconds")
    if new_deadline is not None and not 1 <= new_deadline <= MAX_INT32:
        # ValidatePodSpec (validatePodMetadataAndSpec runs first): a positive int32
        errors.append(invalid_value("spec.activeDeadlineSeconds", new_deadline,
                                    f"must be between 1 and {MAX_INT32}, inclusive"))  # fmt: skip
    if new_deadline is not None:
        if not 0 <= new_deadline <= MAX_INT32:
            return [*errors, invalid_value("spec.activeDeadlineSeconds", new_deadline,
                                           f"must be between 0 and {MAX_INT32}, inclusive")]  # fmt: skip
        if old_deadline is not None and old_deadline < new_deadline:
            return [*errors, invalid_value("spec.activeDeadlineSeconds", new_deadline,
                                           "must be less than or equal to previous value")]  # fmt: skip
    elif old_deadline is not None:
        errors.append(invalid_value("spec.activeDeadlineSeconds", "null",
                                    "must not update from a positive integer to nil value"))  # fmt: skip
    errors.extend(_only_added_tolerations(new_spec.get("tolerations") or [],
                                          old_spec.get("tolerations") or []))  # fmt: skip
    old_gates = [g.get("name") for g in old_spec.get("schedulingGates") or []]
    for index, gate in enumerate(new_spec.get("schedulingGates") or []):
        if gate.get("name") not in old_gates:  # validateOnlyDeletedSchedulingGates
            errors.append(forbidden(f"spec.schedulingGates[{index}].name",
                                    f"only deletion is allowed, but found new scheduling gate "
                                    f"'{gate.get('name')}'"))  # fmt: skip
    if new_spec == old_spec:
        return errors
    munged = copy.deepcopy(new_spec)
    for key in ("containers", "initContainers"):
        for container, before in zip(munged.get(key) or [], old_spec.get(key) or [], strict=True):
            _set_or_drop(container, "image", before.get("image"))
    _set_or_drop(munged, "activeDeadlineSeconds", old_deadline)
    _set_or_drop(munged, "schedulingGates", old_spec.get("schedulingGates"))
    _set_or_drop(munged, "tolerations", old_spec.get("tolerations"))
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if old_grace is not None and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if old_spec.get("schedulingGates"):  # a gated Pod: nodeSelector may gain keys
        old_selector = old_spec.get("nodeSelector") or {}
        new_selector = munged.get("nodeSelector") or {}
        if new_selector != old_selector:
            if any(new_selector.get(k) != v for k, v in old_selector.items()):
                # validateNodeSelectorMutation: the Invalid value is the new map, as %#v
                errors.append({"type": "FieldValueInvalid", "field": "spec.nodeSelector",
                               "body": f"Invalid value: {_go_string_map(munged.get('nodeSelector'))}: "
                                       "only additions to spec.nodeSelector are allowed "
                                       "(no mutations or deletions)"})  # fmt: skip
            _set_or_drop(munged, "nodeSelector", old_spec.get("nodeSelector"))
    if munged != old_spec:
        errors.append(forbidden("spec", POD_UPDATE_FORBIDDEN))
    return errors


def _set_or_drop(obj: dict, key: str, value: Any) -> None:
    if value is None:
        obj.pop(key, None)
    else:
        obj[key] = copy.deepcopy(value)


_TOLERATION_FIELDS = ("key", "operator", "value", "effect")


def _only_added_tolerations(new: list[dict], old: list[dict]) -> list[dict]:
    """``validateOnlyAddedTolerations``: every old toleration is still there (its
    tolerationSeconds may change)."""
    for before in old:
        wanted = tuple(before.get(k) or "" for k in _TOLERATION_FIELDS)
        if not any(tuple(t.get(k) or "" for k in _TOLERATION_FIELDS) == wanted for t in new):
            return [forbidden("spec.tolerations",
                              "existing toleration can not be modified except its tolerationSeconds")]  # fmt: skip
    errors = []
    for index, toleration in enumerate(new):  # ValidateTolerations, the rule an update meets
        effect = toleration.get("effect") or ""
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(invalid_value(f"spec.tolerations[{index}].effect", effect,
                                        "effect must be 'NoExecute' when `tolerationSeconds` is set"))  # fmt: skip
    return errors


def _go_string_map(value: dict | None) -> str:
    """Go's ``%#v`` of a ``map[string]string`` (keys sorted, as fmt prints maps)."""
    if value is None:
        return "map[string]string(nil)"
    items = ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted(value.items()))
    return f"map[string]string{{{items}}}"


# -- the live objects of a run ------------------------------------------------------------


def is_cluster(sim: Any) -> bool:
    return hasattr(sim, "runs")


def _tables(sim: Any) -> dict[str, dict]:
    tables = {"ConfigMap": sim.config_maps, "Secret": sim.secrets, "Service": sim.services}
    if is_cluster(sim):
        tables.update({"Deployment": sim.deployments, "ReplicaSet": sim.replica_sets,
                       "StatefulSet": sim.stateful_sets, "Job": sim.jobs,
                       "DaemonSet": sim.daemon_sets,
                       "PodDisruptionBudget": sim.pdbs})  # fmt: skip
    return tables


def _pod_run(sim: Any, name: str) -> Any:
    """The run (a Simulation) holding the Pod ``name``, if it is in the API."""
    if is_cluster(sim):
        run = sim.runs.get(name)
        return run if run is not None and not run.pod_removed else None
    return sim if name == sim.pod_name and not sim.pod_removed else None


def live_object(sim: Any, kind: str, name: str) -> dict | None:
    """The object as a GET returns it now (None: not found)."""
    if kind == "Pod":
        run = _pod_run(sim, name)
        return None if run is None else run.pod()
    if kind == "Node":
        state = sim.nodes_by_name.get(name)
        return None if state is None else state.obj
    table = _tables(sim).get(kind)
    return None if table is None else table.get(name)


# -- one object ---------------------------------------------------------------------------


@dataclass
class Change:
    """One object of an apply: what kubectl prints for it and what the API server stores."""

    kind: str
    name: str
    verb: str  # created | configured | unchanged
    obj: dict | None  # the object to store (None: unchanged)
    warnings: list[str] = field(default_factory=list)

    @property
    def line(self) -> str:
        return f"{printed_name(self.kind, self.name)} {self.verb}"


def plan_object(sim: Any, desired: dict, *, annotate: bool = True) -> Change:
    """kubectl apply's decision for one object, checked as the API server would check the
    write; nothing changes yet. Without ``annotate`` the object is written without the
    last-applied annotation (a scenario's own script, as its objects were created)."""
    kind, name = desired["kind"], desired["metadata"]["name"]
    _check_kind(sim, kind, name)
    modified = modified_configuration(desired) if annotate else copy.deepcopy(desired)
    current = live_object(sim, kind, name)
    if current is None:
        check_write(sim, kind, name, None, modified)
        return Change(kind, name, "created", modified)
    annotations = (current.get("metadata") or {}).get("annotations") or {}
    original_text = annotations.get(LAST_APPLIED)
    warnings = []
    original = None
    if original_text is None:
        if annotate:
            warnings.append(missing_annotation_warning(kind, name))
    else:
        try:
            original = json.loads(original_text)
        except (TypeError, ValueError):
            original = None
        if not isinstance(original, dict):
            original = None  # not what kubectl writes: as if there were none
    meta = for_kind(kind)
    try:
        patch = create_three_way_merge_patch(original, modified, current, meta)
        if not patch:
            return Change(kind, name, "unchanged", None, warnings)
        patched = strategic_merge_patch(current, patch, meta)
    except PatchError as error:
        raise ActionError("bad_patch", {"kind": kind, "name": name}, str(error)) from error
    check_write(sim, kind, name, current, patched)
    return Change(kind, name, "configured", patched, warnings)


def _check_kind(sim: Any, kind: str, name: str) -> None:
    if kind not in RESOURCES:
        raise ActionError("apply_kind", {"kind": kind},
                          f"The playground does not run {kind} objects.")  # fmt: skip
    if not is_cluster(sim) and kind not in POD_SCENARIO_KINDS:
        raise ActionError("apply_kind", {"kind": kind},
                          f"This run is a Pod scenario (one Pod, no controllers): it takes "
                          f"{', '.join(POD_SCENARIO_KINDS)}, not {kind}; start over from this "
                          "YAML to run it.")  # fmt: skip
    if kind == "Pod" and not is_cluster(sim) and name != sim.pod_name:
        raise ActionError("second_pod", {"pod": name},
                          f'The playground runs one Pod ("{sim.pod_name}"); cannot create "{name}".')  # fmt: skip


def check_write(sim: Any, kind: str, name: str, current: dict | None, new: dict) -> None:
    """The API server's validation of a create (``current`` None) or update of ``new``;
    raises ActionError with its message, changes nothing."""
    if current is None:
        if kind == "Pod" and not is_cluster(sim):
            raise ActionError("pod_gone", {"pod": name}, f'The Pod "{name}" no longer exists.')
        if kind == "Pod":
            # A bare Pod beside workloads: a ReplicaSet would adopt it when it matches
            # (replicaset.md), which the cluster run does not do yet.
            kinds = ", ".join(k for k in RESOURCES if k != "Pod")
            raise ActionError("apply_kind", {"kind": kind},
                              f"In a workload scenario apply creates {kinds}, not Pod (a bare Pod "
                              "beside workloads, which a ReplicaSet may adopt, is not run yet).")  # fmt: skip
        return
    if kind == "Pod":
        run = _pod_run(sim, name)
        old_spec = dict(run.pod_spec)
        new_spec = _pod_spec_after(new, old_spec)
        errors = validate_pod_update(new_spec, old_spec)
        if errors:
            raise refused("Pod", name, errors, "pod_update_forbidden")
    elif kind in WORKLOADS or kind == "Job":
        errors = []
        if (current.get("spec") or {}).get("selector") != (new.get("spec") or {}).get("selector"):
            errors.append({"type": "FieldValueInvalid", "field": "spec.selector",
                           "body": f"Invalid value: {_go_selector(new)}: field is immutable"})  # fmt: skip
        if kind == "Job":
            errors.extend(_job_update_errors(current["spec"], new.get("spec") or {}))
        if errors:
            raise refused(kind, name, errors,
                          "immutable_field" if kind == "Job" else "immutable_selector")  # fmt: skip


def _go_selector(obj: dict) -> str:
    """The ``Invalid value`` of an immutable selector: Go's ``%v`` of the LabelSelector."""
    selector = (obj.get("spec") or {}).get("selector") or {}
    labels = ", ".join(
        f'"{k}":"{v}"' for k, v in sorted((selector.get("matchLabels") or {}).items())
    )
    return (f"v1.LabelSelector{{MatchLabels:map[string]string{{{labels}}}, "
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}")  # fmt: skip


def _job_update_errors(old: dict, new: dict) -> list[dict]:
    """``ValidateJobSpecUpdate``: only the fields of JOB_MUTABLE may change."""
    errors = []
    for key in sorted(set(old) | set(new)):
        if key in JOB_MUTABLE or key == "selector" or old.get(key) == new.get(key):
            continue
        value = new.get(key)
        if key == "template":
            errors.append({"type": "FieldValueInvalid", "field": "spec.template",
                           "body": "Invalid value: core.PodTemplateSpec{...}: field is immutable"})  # fmt: skip
        elif isinstance(value, int | bool) or value is None:
            shown = "null" if value is None else json.dumps(value)
            errors.append({"type": "FieldValueInvalid", "field": f"spec.{key}",
                           "body": f"Invalid value: {shown}: field is immutable"})  # fmt: skip
        else:
            errors.append(invalid_value(f"spec.{key}", value if isinstance(value, str) else str(value),
                                        "field is immutable"))  # fmt: skip
    return errors


def _pod_spec_after(new: dict, old_spec: dict) -> dict:
    """The Pod spec the API server would store for ``new``: defaulted (a patch that
    dropped a defaulted field gets its default back), the admitted token volume kept."""
    defaulted = apply_pod_defaults({"metadata": dict(new.get("metadata") or {}),
                                    "spec": copy.deepcopy(new.get("spec") or {})})  # fmt: skip
    spec = keep_service_account_token(defaulted["spec"], old_spec)
    if "nodeName" in old_spec:
        spec["nodeName"] = old_spec["nodeName"]
    return spec


# -- writing ------------------------------------------------------------------------------


def write(sim: Any, change: Change) -> None:
    """Store a checked change in the run; the components react as to any write."""
    if change.obj is None:
        return
    kind, name, obj = change.kind, change.name, change.obj
    cluster = is_cluster(sim)
    if kind == "Pod":
        if change.verb == "created":
            sim.create_pod(obj)
        else:
            _write_pod(_pod_run(sim, name), obj)
    elif kind == "Node":
        _write_node(sim, obj)
    elif kind in ("ConfigMap", "Secret", "Service"):
        _tables(sim)[kind][name] = obj
        if kind == "Service" and not cluster:
            sim.update_services()
    elif change.verb == "created":
        sim._create_workload(obj)
    else:
        _write_workload(sim, kind, obj)
    if not cluster:
        sim.transition("submitted", f"{kind}/{name}", "applied", None, "applied",
                       f"{kind} {name} applied", stage=1)  # fmt: skip
        if kind == "Pod" and sim.kubelet is not None:
            sim.kubelet.request_sync()  # a Pod update reaches the kubelet at once


def _write_pod(run: Any, new: dict) -> None:
    """A Pod update: labels, annotations and the spec; an image change restarts that
    container as the kubelet does (``computePodActions``: "definition changed")."""
    old_spec = run.pod_spec
    spec = _pod_spec_after(new, old_spec)
    metadata = dict(run.pod_object_dict["metadata"])
    for key in ("labels", "annotations"):
        value = (new.get("metadata") or {}).get(key)
        if value:
            metadata[key] = dict(value)
        else:
            metadata.pop(key, None)
    gated = bool(old_spec.get("schedulingGates"))
    run.pod_object_dict = {**run.pod_object_dict, "metadata": metadata, "spec": spec}
    run.mark_dirty()
    run.update_services()
    if gated and not spec.get("schedulingGates"):
        run.retry_scheduling()  # the last gate is gone: the scheduler sees the Pod now
    kubelet = run.kubelet
    if kubelet is None:
        return
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            record = kubelet.by_name[container["name"]]
            changed = record.spec.get("image") != container.get("image")
            record.spec = container
            if changed and record.newest is not None and record.newest.running:
                record.kill_message = (
                    f"Container {record.name} definition changed, will be restarted"
                )
                record.kill_grace_s = kubelet.probe_kill_grace_seconds(None)
    kubelet.request_sync()


def _write_node(sim: Any, obj: dict) -> None:
    name = obj["metadata"]["name"]
    existing = sim.nodes_by_name.get(name)
    if existing is None:
        sim.nodes_by_name[name] = NodeState(with_node_defaults(obj))
    else:
        existing.obj = with_node_defaults(obj)
    runs = sim.live_runs() if is_cluster(sim) else [sim]
    for run in runs:
        run.retry_scheduling()


def _write_workload(sim: Any, kind: str, new: dict) -> None:
    """An update of a Deployment, ReplicaSet, StatefulSet, Job or PodDisruptionBudget: the
    metadata's labels and annotations, and the spec defaulted again; a changed spec is a
    new generation, which the object's controller acts on."""
    current = _tables(sim)[kind][new["metadata"]["name"]]
    metadata = current["metadata"]
    for key in ("labels", "annotations"):
        value = (new.get("metadata") or {}).get(key)
        if value:
            metadata[key] = dict(value)
        else:
            metadata.pop(key, None)
    spec = copy.deepcopy(new.get("spec") or {})
    if kind in WORKLOADS:
        sim.workload_spec_defaults(kind, spec)
    if spec != current.get("spec"):
        template_changed = spec.get("template") != (current.get("spec") or {}).get("template")
        current["spec"] = spec
        metadata["generation"] = metadata.get("generation", 1) + 1
        if kind == "DaemonSet" and template_changed:  # the DaemonSet strategy's PrepareForUpdate
            metadata.setdefault("annotations", {})[DS_TEMPLATE_GENERATION] = str(
                metadata["generation"]
            )


# -- a batch ------------------------------------------------------------------------------


def check_apply(sim: Any, objects: list[dict], *, annotate: bool = True) -> list[Change]:
    """Every object's change, all checked before any is written (one refusal: nothing)."""
    return [plan_object(sim, obj, annotate=annotate) for obj in objects]


def perform_apply(sim: Any, changes: list[Change]) -> list[str]:
    """Write checked changes; the lines kubectl prints (warnings first, as on stderr)."""
    lines = []
    for change in changes:
        write(sim, change)
        lines.extend(change.warnings)
        lines.append(change.line)
    sim.apply_result = lines
    return lines


def plan_update(sim: Any, obj: dict) -> Change:
    """The API server's write of one whole desired object (a PUT, or what a PATCH or a POST
    ends in: the object as given replaces the stored one; created when there is none),
    checked; nothing changes yet. ``unchanged`` when it equals the live object."""
    kind, name = obj["kind"], obj["metadata"]["name"]
    _check_kind(sim, kind, name)
    current = live_object(sim, kind, name)
    if current is not None:
        merged = {**copy.deepcopy(current), **{k: v for k, v in obj.items() if k != "status"}}
        if merged == current:
            return Change(kind, name, "unchanged", None)
        check_write(sim, kind, name, current, merged)
        return Change(kind, name, "configured", merged)
    check_write(sim, kind, name, None, obj)
    return Change(kind, name, "created", copy.deepcopy(obj))


def update_object(sim: Any, obj: dict) -> Change:
    """The engine-level write of one desired object as the API server takes it (a PUT:
    the object as given replaces the stored one; created when there is none): checked,
    then stored, or ActionError and nothing changed. ``unchanged`` when it equals the live
    object. (Not recorded in the run's action log: a caller that must replay goes
    through ``sim.act({"action": "update", ...})``, which does the same.)"""
    change = plan_update(sim, obj)
    if change.obj is not None:
        write(sim, change)
        if is_cluster(sim):
            sim.sync()
    return change


def result_text(lines: list[str]) -> str:
    """The lines as kubectl prints them."""
    return "\n".join(lines)


__all__ = [
    "LAST_APPLIED",
    "Change",
    "check_apply",
    "live_object",
    "modified_configuration",
    "perform_apply",
    "plan_object",
    "plan_update",
    "printed_name",
    "update_object",
    "validate_pod_update",
]
