"""Actions on a cluster of workloads (engine/cluster.py): each names its target.

``delete`` {name?, gracePeriodSeconds?, force?} (a Pod; default the focus Pod), ``scale``
{kind?, name, replicas}, ``rollout-restart`` {name}, ``rollout-undo`` {name, toRevision?},
``set-image`` {name, container, image}, ``cordon`` / ``uncordon`` {node}, ``evict`` {name,
gracePeriodSeconds?} (the API's eviction subresource: refused, as ``eviction_refused`` with
the API server's code, message and cause, when a PodDisruptionBudget forbids it), ``apply``
{yaml} (``kubectl apply``, engine/kubectl_apply.py: a Deployment's changed template starts a
rollout), ``update`` {yaml} (the API server's write of whole objects, webapp/kubeapi's PUT,
PATCH and POST). Every check runs before
the first change: an invalid action raises ActionError and changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any

from webapp.engine import kubectl_apply, node_outage
from webapp.engine.actions import (
    INT64_MAX,
    ActionError,
    apply_objects,
    perform_action,
    validate_action,
)
from webapp.engine.controllers import deployment as deployment_controller
from webapp.engine.controllers.rules import deployment as deployment_rules
from webapp.engine.controllers.rules import disruption as disruption_rules
from webapp.engine.core.timefmt import rfc3339
from webapp.manifest.rules import MAX_RUN_WORK, workload_work

# ClusterSimulation: engine/cluster.py (not imported: it imports this module's callers)
ClusterSimulation = Any

MAX_REPLICAS = 100  # manifest/rules.py: the most Pods one workload runs at once
FIELDS = {
    "delete": ("kind", "name", "gracePeriodSeconds", "force"),
    "evict": ("name", "gracePeriodSeconds"),
    "scale": ("kind", "name", "replicas"),
    "rollout-restart": ("kind", "name"),
    "rollout-undo": ("kind", "name", "toRevision"),
    "rollout-pause": ("kind", "name"),
    "rollout-resume": ("kind", "name"),
    "set-image": ("kind", "name", "container", "image"),
    "cordon": ("node",),
    "drain": ("node", "ignoreDaemonsets"),
    "node-down": ("node",),
    "node-up": ("node",),
    "uncordon": ("node",),
    "apply": ("yaml",),
    "update": ("yaml",),
    "focus": ("name",),
}
# Actions on one container of the focus Pod: the single-Pod engine's own (engine/actions.py).
FOCUS_POD_ACTIONS = ("crash", "oom", "set-probe")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _string(action: dict, key: str) -> str:
    value = action.get(key)
    if not isinstance(value, str) or not value or len(value) > 253:
        raise ActionError("bad_field", {"field": key},
                          f"{action.get('action')} needs {key} as a name, not {_shown(value)}.")  # fmt: skip
    return value


def _int(action: dict, key: str, maximum: int) -> int:
    value = action.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise ActionError("bad_field", {"field": key},
                          f"{action.get('action')} needs {key} as a whole number from 0 to "
                          f"{maximum}, not {_shown(value)}.")  # fmt: skip
    return value


def _deployment(sim: ClusterSimulation, action: dict) -> dict:
    name = _string(action, "name")
    found = sim.deployments.get(name)
    if found is None:
        raise ActionError("unknown_object", {"kind": "Deployment", "name": name},
                          f'deployments.apps "{name}" not found')  # fmt: skip
    return found


def validate(sim: ClusterSimulation, action: Any) -> dict:
    """Check an action against the current state; return it normalised."""
    if not isinstance(action, dict):
        raise ActionError("bad_action", {}, "An action is a mapping with an 'action' word.")
    word = action.get("action")
    if word == "exec":  # any Pod of the cluster (`pod`), the focus Pod without one
        name = action.get("pod", sim.focus_name)
        run = sim.runs.get(name) if isinstance(name, str) else None
        if run is None or run.pod_removed:
            raise ActionError("unknown_object", {"kind": "Pod", "name": _shown(name)},
                              f'pods "{str(name)[:253]}" not found')  # fmt: skip
        checked = validate_action(run, action)
        checked["_run"] = run
        return checked
    if word in FOCUS_POD_ACTIONS:
        run = sim.runs.get(sim.focus_name or "")
        if run is None:
            raise ActionError("pod_gone", {"pod": str(sim.focus_name)},
                              "There is no Pod to act on yet.")  # fmt: skip
        checked = validate_action(run, action)
        checked["_run"] = run
        return checked
    if word not in FIELDS:
        raise ActionError("unknown_action", {"action": str(word)[:60]},
                          f"Unknown action {_shown(word)}; expected one of {', '.join(FIELDS)}.")  # fmt: skip
    extra = [k for k in action if k not in ("action", *FIELDS[word])]
    if extra:
        raise ActionError("unknown_field", {"action": word, "field": str(extra[0])[:60]},
                          f"{word} takes no field {_shown(extra[0])}.")  # fmt: skip
    checked = dict(action)
    if word == "delete" and action.get("kind") == "DaemonSet":
        name = _string(action, "name")
        if name not in sim.daemon_sets:
            raise ActionError("unknown_object", {"kind": "DaemonSet", "name": name},
                              f'daemonsets.apps "{name}" not found')  # fmt: skip
        extra = [k for k in action if k not in ("action", "kind", "name")]
        if extra:
            raise ActionError("unknown_field", {"action": word, "field": str(extra[0])[:60]},
                              f"delete of a DaemonSet takes no field {_shown(extra[0])}.")  # fmt: skip
    elif word == "delete":
        if action.get("kind", "Pod") != "Pod":
            raise ActionError("bad_field", {"field": "kind"},
                              "delete takes kind Pod or DaemonSet here.")  # fmt: skip
        name = action.get("name", sim.focus_name)
        run = sim.runs.get(name) if isinstance(name, str) else None
        if run is None or run.pod_removed:
            raise ActionError("unknown_object", {"kind": "Pod", "name": str(name)[:253]},
                              f'pods "{name}" not found')  # fmt: skip
        checked["name"] = name
        if "gracePeriodSeconds" in action:
            _int(action, "gracePeriodSeconds", INT64_MAX)
        if "force" in action and not isinstance(action["force"], bool):
            raise ActionError("bad_field", {"field": "force"}, "force is true or false.")
    elif word == "evict":
        name = _string(action, "name")
        run = sim.runs.get(name)
        if run is None or run.pod_removed or run.pod() is None:
            raise ActionError("unknown_object", {"kind": "Pod", "name": name},
                              f'pods "{name}" not found')  # fmt: skip
        if "gracePeriodSeconds" in action:
            _int(action, "gracePeriodSeconds", INT64_MAX)
        result = disruption_rules.evict(run.pod(), list(sim.pdbs.values()), sim.now)
        if not result.allowed:
            raise ActionError("eviction_refused",
                              {"code": result.code, "message": result.message,
                               "cause": result.cause, "retryAfter": result.retry_after},
                              result.message)  # fmt: skip
        checked["_result"] = result
    elif word == "scale":
        kind = action.get("kind", "Deployment")
        name = _string(action, "name")
        table = _scalable(sim).get(kind)
        if table is None or name not in table:
            raise ActionError("unknown_object", {"kind": str(kind)[:60], "name": name},
                              f'{str(kind).lower()} "{name}" not found')  # fmt: skip
        checked["kind"] = kind
        replicas = _int(action, "replicas", MAX_REPLICAS)
        scaled = dict(table[name], spec=dict(table[name].get("spec") or {}, replicas=replicas))
        _check_work(sim, {(kind, name): scaled})
    elif word in ("rollout-restart", "set-image"):
        deployment = _deployment(sim, action)
        if deployment["spec"].get("paused") and word == "rollout-restart":
            raise ActionError("paused", {"name": action["name"]},
                              "can't restart paused deployment (run rollout resume first)")  # fmt: skip
        if word == "set-image":
            container = _string(action, "container")
            image = _string(action, "image")
            names = [c["name"] for c in deployment["spec"]["template"]["spec"]["containers"]]
            if container not in names:
                raise ActionError("unknown_container", {"container": container},
                                  f'unable to find container named "{container}"')  # fmt: skip
            if any(ch.isspace() for ch in image):
                raise ActionError("bad_field", {"field": "image"}, "An image has no spaces.")
    elif word in ("rollout-pause", "rollout-resume"):
        deployment = _deployment(sim, action)
        paused = bool(deployment["spec"].get("paused"))
        if paused and word == "rollout-pause":
            raise ActionError("already_paused", {"name": action["name"]},
                              f"deployment.apps/{action['name']} already paused")  # fmt: skip
        if not paused and word == "rollout-resume":
            raise ActionError("not_paused", {"name": action["name"]},
                              f'error: deployments.apps "{action["name"]}" is not paused')  # fmt: skip
    elif word == "rollout-undo":
        deployment = _deployment(sim, action)
        revision = _int(action, "toRevision", INT64_MAX) if "toRevision" in action else 0
        try:
            result, patched = deployment_rules.rollback(
                deployment, sim.owned_replica_sets(deployment), revision
            )
        except deployment_rules.RollbackError as error:
            raise ActionError("rollback", {"message": str(error)}, f"error: {error}") from error
        checked["_result"] = (result, patched)
    elif word in ("cordon", "uncordon", "drain", "node-down", "node-up"):
        node = _string(action, "node")
        if node not in sim.nodes_by_name:
            raise ActionError("unknown_node", {"node": node}, f'nodes "{node}" not found')
        up = sim.nodes_by_name[node].kubelet_up
        if word == "drain" and not isinstance(action.get("ignoreDaemonsets", True), bool):
            raise ActionError("bad_field", {"field": "ignoreDaemonsets"},
                              "ignoreDaemonsets is true or false.")  # fmt: skip
        if word == "node-down" and not up:
            raise ActionError("node_already_down", {"node": node}, f"Node {node} is already down.")
        if word == "node-up" and up:
            raise ActionError("node_already_up", {"node": node}, f"Node {node} is already up.")
    elif word in ("apply", "update"):
        objects = apply_objects(action)
        annotate = not getattr(sim, "scripting", False)
        if word == "update":  # the API server's write of whole objects (webapp/kubeapi)
            changes = [kubectl_apply.plan_update(sim, obj) for obj in objects]
        else:
            changes = kubectl_apply.check_apply(sim, objects, annotate=annotate)
        _check_work(sim, {(c.kind, c.name): c.obj for c in changes
                          if c.obj is not None
                          and c.kind in (*_scalable(sim), "Job", "DaemonSet")})  # fmt: skip
        checked["_changes"] = changes
    elif word == "focus":
        name = _string(action, "name")
        if name not in sim.runs:
            raise ActionError("unknown_object", {"kind": "Pod", "name": name},
                              f'pods "{name}" not found')  # fmt: skip
    return checked


def run_work(sim: ClusterSimulation, changed: dict[tuple[str, str], dict] | None = None) -> float:
    """The run's work per virtual second (manifest/rules.py MAX_RUN_WORK) over its
    workloads (a Deployment's ReplicaSets count under the Deployment), with `changed`
    ((kind, name) -> object) in place of, or besides, the current ones."""
    current: dict[tuple[str, str], dict] = {}
    for kind, table in (*_scalable(sim).items(), ("Job", sim.jobs),
                        ("DaemonSet", sim.daemon_sets)):  # fmt: skip
        for name, obj in table.items():
            owners = (obj.get("metadata") or {}).get("ownerReferences") or []
            if kind == "ReplicaSet" and any(o.get("kind") == "Deployment" for o in owners):
                continue
            current[(kind, name)] = obj
    current.update(changed or {})
    return sum(workload_work(obj, kind) for (kind, _), obj in current.items())


def _check_work(sim: ClusterSimulation, changed: dict[tuple[str, str], dict]) -> None:
    work = run_work(sim, changed)
    if work > MAX_RUN_WORK and work > run_work(sim):  # never refuse what lowers the work
        shown = f"{work:.1f}".rstrip("0").rstrip(".")
        raise ActionError("run_too_heavy", {"work": shown, "limit": MAX_RUN_WORK},
                          f"This run would do {shown} units of work per virtual second; "
                          f"the limit here is {MAX_RUN_WORK}.")  # fmt: skip


def _scalable(sim: ClusterSimulation) -> dict[str, dict]:
    return {"Deployment": sim.deployments, "ReplicaSet": sim.replica_sets,
            "StatefulSet": sim.stateful_sets}  # fmt: skip


def _changed_spec(obj: dict, spec: dict) -> None:
    obj["spec"] = spec
    obj["metadata"]["generation"] = obj["metadata"].get("generation", 1) + 1


def perform(sim: ClusterSimulation, action: dict) -> dict | None:
    word = action["action"]
    if word in FOCUS_POD_ACTIONS or word == "exec":
        run = action.pop("_run")
        answer = perform_action(run, action)
        sim.sync()
        return answer
    if word == "delete" and action.get("kind") == "DaemonSet":
        sim.delete_daemon_set(sim.daemon_sets[action["name"]])
    elif word == "delete":
        grace = action.get("gracePeriodSeconds")
        force = bool(action.get("force"))
        if force and grace is None:
            grace = 0
        sim.delete_pod_named(action["name"], grace, force=force, cause="Deleted by the user")
    elif word == "evict":  # EvictionREST.Create: the budget's new status, then the delete
        result = action.pop("_result")
        if result.pdb_name and result.pdb_status is not None:
            sim.pdbs[result.pdb_name]["status"] = result.pdb_status
        if result.condition is not None:  # addConditionAndDeletePod
            sim.runs[action["name"]].add_pod_condition(result.condition)
        sim.delete_pod_named(action["name"], action.get("gracePeriodSeconds"),
                             cause="Evicted through the API")  # fmt: skip
    elif word == "scale":
        obj = _scalable(sim)[action["kind"]][action["name"]]
        spec = dict(obj["spec"], replicas=action["replicas"])
        _changed_spec(obj, spec)
    elif word == "rollout-restart":
        obj = sim.deployments[action["name"]]
        patched = deployment_controller.restart(obj, rfc3339(sim.now_ms))
        _changed_spec(obj, patched["spec"])
    elif word == "set-image":
        obj = sim.deployments[action["name"]]
        spec = copy.deepcopy(obj["spec"])
        for container in spec["template"]["spec"]["containers"]:
            if container["name"] == action["container"]:
                container["image"] = action["image"]
        if spec != obj["spec"]:
            _changed_spec(obj, spec)
    elif word in ("rollout-pause", "rollout-resume"):
        obj = sim.deployments[action["name"]]
        spec = dict(obj["spec"])
        if word == "rollout-pause":
            spec["paused"] = True
        else:
            spec.pop("paused", None)
        _changed_spec(obj, spec)
    elif word == "rollout-undo":
        _result, patched = action["_result"]
        if patched is not None:
            obj = sim.deployments[action["name"]]
            obj["metadata"]["annotations"] = patched["metadata"].get("annotations") or {}
            _changed_spec(obj, patched["spec"])
    elif word in ("cordon", "uncordon"):
        node = sim.nodes_by_name[action["node"]].obj
        spec = dict(node.get("spec") or {})
        if word == "cordon":
            spec["unschedulable"] = True
        else:
            spec.pop("unschedulable", None)
        node["spec"] = spec
        if word == "uncordon":
            # The NodeUnschedulable plugin's queueing hint: a Node that takes Pods again
            # sends the Pods it rejected back to the scheduling queue.
            for run in sim.live_runs():
                run.retry_scheduling()
    elif word == "drain":
        sim.drain(action["node"], ignore_daemonsets=action.get("ignoreDaemonsets", True))
    elif word == "node-down":
        node_outage.node_down(sim, action["node"])
    elif word == "node-up":
        node_outage.node_up(sim, action["node"])
    elif word in ("apply", "update"):
        kubectl_apply.perform_apply(sim, action.pop("_changes"))
    elif word == "focus":
        sim.focus(action["name"])
        return
    sim.sync()
