"""User actions (``delete``, ``set-probe``, ``crash``, ``oom``, ``node-down``, ``node-up``,
``apply``, ``exec``): checked first, then performed. The same words run from ``script``, the live
controls and the command line. An invalid action raises :class:`ActionError` and changes
nothing. Once the Pod object is gone (``sim.pod()`` is None) every action is refused
with ``pod_gone``.
"""

from __future__ import annotations

import math
import re
from functools import partial
from typing import TYPE_CHECKING, Any

from webapp.engine import kubectl_apply
from webapp.engine.action_error import ActionError
from webapp.engine.api.events import NORMAL, WARNING
from webapp.engine.controllers.node_lifecycle import (
    NODE_MONITOR_GRACE_PERIOD_MS,
    TAINT_EVICTION_CONDITION,
    NodeState,
    mark_node_ready,
    mark_node_unknown,
    unreachable_toleration_seconds,
)
from webapp.engine.core.clock import URGENT
from webapp.engine.kubelet.probes import PROBE_TYPES, SPEC_FIELD

if TYPE_CHECKING:
    from webapp.engine.core.cluster import Cluster

ACTIONS = ("delete", "set-probe", "crash", "oom", "node-down", "node-up", "apply", "exec",
           "update")  # fmt: skip
# The fields each action takes besides "action" (as a Simulation script step, minus "at").
FIELDS = {
    "delete": ("gracePeriodSeconds", "force"),
    "set-probe": ("container", "probe", "healthy"),
    "crash": ("container", "exitCode"),
    "oom": ("container",),
    "node-down": ("node",),
    "node-up": ("node",),
    "apply": ("yaml",),
    "exec": ("pod", "container", "command", "shell"),
    "update": ("yaml",),
}


INT64_MAX = 2**63 - 1
# `exec` (docs/limits.md): the command line, its run and what it prints are bounded.
EXEC_MAX_ARGS = 1024
EXEC_MAX_BYTES = 32 * 1024  # the command line, all arguments together (UTF-8)
EXEC_TIMEOUT_MS = 60_000  # of the command's own time line: `sleep infinity` ends here
EXEC_OUTPUT_BYTES = 64 * 1024  # of stdout and of stderr; the rest is cut
# An interactive shell's state (`exec` `shell`, kubectl exec -it): its variables, names and
# values together, and its working directory.
EXEC_SHELL_STATE_BYTES = 64 * 1024
EXEC_SHELL_VARIABLES = 1024
SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SHELL_STATE_FIELDS = frozenset({"workingDir", "variables", "exported", "status"})
MAX_EXIT_CODE = 255  # a process's exit status is 8 bits (CONTAINER-SEMANTICS §1.7)


def validate_action(sim: Cluster, action: Any) -> dict:
    """Check an action against the current state; return it normalised.

    Every value is checked here, before anything changes, so a refused action leaves the
    simulation exactly as it was (``perform_action`` cannot fail on a checked action)."""
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise ActionError("bad_action", {}, "An action is a mapping with an 'action' word.")
    for key, value in action.items():
        if _has_surrogate(key) or _has_surrogate(value):
            raise ActionError("bad_text", {"field": _printable(key)},
                              f"{_printable(key)} is not valid Unicode text (a lone surrogate).")  # fmt: skip
    word = action["action"]
    if word not in ACTIONS:
        raise ActionError("unknown_action", {"action": _shown(word)},
                          f"Unknown action {_shown(word)}; expected one of {', '.join(ACTIONS)}.")  # fmt: skip
    for key in action:
        if key != "action" and key not in FIELDS[word]:
            raise ActionError("unknown_field", {"field": _shown(key), "action": word},
                              f"{word} has no field {_shown(key)}; it takes "
                              f"{', '.join(FIELDS[word]) or 'no fields'}.")  # fmt: skip
    _require_pod(sim)
    return _CHECKS[word](sim, dict(action))


def perform_action(sim: Cluster, action: dict) -> dict | None:
    """Perform a checked action; what it answers (``exec``: its output), else None."""
    answer: dict | None = _PERFORM[action["action"]](sim, action)
    return answer


# -- checks -------------------------------------------------------------------------------


def _require_pod(sim: Cluster) -> None:
    if sim.pod_removed:
        raise ActionError("pod_gone", {"pod": sim.pod_name},
                          f'The Pod "{sim.pod_name}" no longer exists.')  # fmt: skip


def _has_surrogate(value: Any) -> bool:
    return isinstance(value, str) and not value.isascii() and _SURROGATE.search(value) is not None


def _printable(value: Any) -> str:
    return _SURROGATE.sub("\ufffd", value) if isinstance(value, str) else repr(value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_number(value: Any, low: int, high: int) -> int | None:
    """``value`` as an int if it is a whole number from ``low`` to ``high`` (an integral
    JSON decimal such as ``30.0`` counts), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    number = int(value)
    return number if low <= number <= high else None


def _check_delete(sim: Cluster, action: dict) -> dict:
    """``kubectl delete --grace-period``: an int64 of seconds, 0 or more."""
    _require_pod(sim)
    grace = action.get("gracePeriodSeconds")
    checked = None if grace is None else whole_number(grace, 0, INT64_MAX)
    if grace is not None and checked is None:
        raise ActionError("bad_grace", {"value": _shown(grace), "maximum": INT64_MAX},
                          "gracePeriodSeconds must be a whole number of seconds from 0 to "
                          f"{INT64_MAX}.")  # fmt: skip
    force = action.get("force", False)
    if not isinstance(force, bool):
        raise ActionError("bad_force", {"value": _shown(force)}, "force must be true or false.")
    action["force"] = force
    if checked is not None:
        action["gracePeriodSeconds"] = checked
    return action


def _shown(value: Any) -> str:
    """A refused value for a message, never longer than a line (and never converting a
    huge integer to decimal, which Python refuses beyond 4300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**40:
        return f"a {len(hex(value)) - 2}-hex-digit integer"
    text = _printable(value) if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _container_record(sim: Cluster, action: dict, *, running: bool):
    name = action.get("container")
    names = [
        c["name"] for key in ("initContainers", "containers") for c in sim.pod_spec.get(key) or []
    ]
    if name is not None and not isinstance(name, str):
        raise ActionError("bad_container", {"value": _shown(name)},
                          "container must be the name of one of the Pod's containers.")  # fmt: skip
    if name is None and len(sim.pod_spec.get("containers") or []) == 1:
        name = sim.pod_spec["containers"][0]["name"]
    if name is None:
        raise ActionError("container_required", {"containers": names},
                          f"The Pod has several containers; name one of {', '.join(names)}.")  # fmt: skip
    if name not in names:
        raise ActionError("unknown_container", {"container": name},
                          f"The Pod has no container named {name!r}.")  # fmt: skip
    action["container"] = name
    record = sim.kubelet.by_name.get(name) if sim.kubelet else None
    if running and (record is None or record.newest is None or not record.newest.running):
        raise ActionError("container_not_running", {"container": name},
                          f"Container {name!r} is not running.")  # fmt: skip
    return record


def _check_set_probe(sim: Cluster, action: dict) -> dict:
    _require_pod(sim)
    _container_record(sim, action, running=False)
    probe = action.get("probe")
    if not isinstance(probe, str) or probe not in PROBE_TYPES:
        raise ActionError("bad_probe", {"probe": _shown(probe)},
                          "probe must be liveness, readiness or startup.")  # fmt: skip
    name = action["container"]
    spec = next(c for key in ("initContainers", "containers")
                for c in sim.pod_spec.get(key) or [] if c["name"] == name)  # fmt: skip
    if not spec.get(SPEC_FIELD[probe]):
        raise ActionError("no_such_probe", {"container": name, "probe": probe},
                          f"Container {name!r} has no {probe} probe ({SPEC_FIELD[probe]}).")  # fmt: skip
    if not isinstance(action.get("healthy"), bool):
        raise ActionError("bad_healthy", {}, "healthy must be true or false.")
    return action


def _check_crash(sim: Cluster, action: dict) -> dict:
    _require_pod(sim)
    _container_record(sim, action, running=True)
    code = whole_number(action.get("exitCode", 1), 0, MAX_EXIT_CODE)
    if code is None:
        raise ActionError("bad_exit_code", {"value": _shown(action.get("exitCode"))},
                          "exitCode must be 0 to 255.")  # fmt: skip
    action["exitCode"] = code
    return action


def _check_oom(sim: Cluster, action: dict) -> dict:
    _require_pod(sim)
    _container_record(sim, action, running=True)
    return action


def _node(sim: Cluster, action: dict) -> NodeState:
    name = action.get("node")
    if name is not None and (not isinstance(name, str) or not name):
        raise ActionError("bad_node", {"value": _shown(name)}, "node must be a node's name.")
    name = name or sim.node_name
    if name is None:
        raise ActionError("node_required", {},
                          "The Pod is not on a node yet; name the node to act on.")  # fmt: skip
    state = sim.nodes_by_name.get(name)
    if state is None:
        raise ActionError("unknown_node", {"node": name}, f"There is no node named {name!r}.")
    action["node"] = name
    return state


def _check_exec(sim: Cluster, action: dict) -> dict:
    """``kubectl exec POD [-c CONTAINER] -- COMMAND...``: a running container of the Pod
    (kubectl's default without ``-c``: the ``kubectl.kubernetes.io/default-container``
    annotation, else the first container), and a command of 1 to EXEC_MAX_ARGS strings."""
    _require_pod(sim)
    pod = action.get("pod")
    if pod is not None and pod != sim.pod_name:
        raise ActionError("unknown_object", {"kind": "Pod", "name": _shown(pod)},
                          f'pods "{_shown(pod)}" not found')  # fmt: skip
    if action.get("container") is None:
        annotations = sim.pod_object_dict["metadata"].get("annotations") or {}
        default = annotations.get("kubectl.kubernetes.io/default-container")
        names = [c["name"] for c in sim.pod_spec.get("containers") or []]
        action["container"] = default if default in names else names[0]
    _container_record(sim, action, running=True)
    command = action.get("command")
    if (not isinstance(command, list) or not command
            or not all(isinstance(a, str) for a in command)):  # fmt: skip
        raise ActionError("bad_command", {},
                          "command must be a list of one or more strings (the program and its arguments).")  # fmt: skip
    size = sum(len(a.encode("utf-8", "surrogatepass")) + 1 for a in command)
    if len(command) > EXEC_MAX_ARGS or size > EXEC_MAX_BYTES:
        raise ActionError("command_too_long",
                          {"args": len(command), "bytes": size, "limit": EXEC_MAX_BYTES},
                          f"The command line has {len(command)} arguments and {size} bytes; "
                          f"at most {EXEC_MAX_ARGS} arguments and {EXEC_MAX_BYTES} bytes.")  # fmt: skip
    if any("\0" in a for a in command):
        raise ActionError("bad_command", {},
                          "An argument holds a NUL byte, which no command line can carry.")  # fmt: skip
    if "shell" in action:
        _check_shell_state(action["shell"])
    action["pod"] = sim.pod_name
    return action


def _check_shell_state(shell: Any) -> None:
    """An interactive shell's state (kubectl exec -it, Machine.exec ``shell``): {} for the
    container's own, or the ``workingDir``, ``variables``, ``exported`` and ``status`` an
    earlier line of the same shell answered with, within EXEC_SHELL_STATE_BYTES."""

    def bad(why: str) -> ActionError:
        return ActionError("bad_shell_state", {"reason": why},
                           f"The shell's state is not valid: {why}.")  # fmt: skip

    if not isinstance(shell, dict) or set(shell) - SHELL_STATE_FIELDS:
        raise bad("a mapping of workingDir, variables, exported and status")
    directory = shell.get("workingDir", "/")
    if not isinstance(directory, str) or not directory.startswith("/") or "\0" in directory:
        raise bad("workingDir is an absolute path")
    variables = shell.get("variables", {})
    if not isinstance(variables, dict) or len(variables) > EXEC_SHELL_VARIABLES:
        raise bad(f"variables is a mapping of at most {EXEC_SHELL_VARIABLES} names")
    size = len(directory.encode("utf-8", "surrogatepass"))
    for name, value in variables.items():
        if not isinstance(name, str) or not SHELL_NAME.fullmatch(name):
            raise bad("each variable's name is a shell name")
        if not isinstance(value, str) or "\0" in value:
            raise bad("each variable's value is a string without NUL")
        size += len(name) + len(value.encode("utf-8", "surrogatepass")) + 2
    if size > EXEC_SHELL_STATE_BYTES:
        raise bad(f"it holds {size} bytes; at most {EXEC_SHELL_STATE_BYTES}")
    exported = shell.get("exported", [])
    names = isinstance(exported, list) and all(isinstance(n, str) for n in exported)
    if not names or not set(exported) <= set(variables):
        raise bad("exported lists names of its variables")
    status = shell.get("status", 0)
    if not isinstance(status, int) or isinstance(status, bool) or not 0 <= status <= MAX_EXIT_CODE:
        raise bad(f"status is an exit status, 0 to {MAX_EXIT_CODE}")


def _check_node_down(sim: Cluster, action: dict) -> dict:
    if not _node(sim, action).kubelet_up:
        raise ActionError("node_already_down", {"node": action["node"]},
                          f"Node {action['node']} is already down.")  # fmt: skip
    return action


def _check_node_up(sim: Cluster, action: dict) -> dict:
    if _node(sim, action).kubelet_up:
        raise ActionError("node_already_up", {"node": action["node"]},
                          f"Node {action['node']} is already up.")  # fmt: skip
    return action


def apply_objects(action: dict) -> list[dict]:
    """The objects of an `apply` action's YAML, validated as the API server would (the
    one-Pod and the cluster runs both start from this)."""
    from webapp.manifest import ScenarioError, parse_objects

    text = action.get("yaml")
    if not isinstance(text, str) or not text.strip():
        raise ActionError("bad_yaml", {}, "apply needs the objects as YAML text.")
    try:
        # the editor's whole scenario may come: its Simulation document is not an object
        return parse_objects(text, skip_simulation=True)
    except ScenarioError as error:
        first = error.errors[0] if error.errors else {}
        raise ActionError("invalid_objects", {"errors": error.errors},
                          first.get("message", "The objects are invalid.")) from error  # fmt: skip


def _check_apply(sim: Cluster, action: dict) -> dict:
    """``kubectl apply`` of the objects (engine/kubectl_apply.py), every one checked first.
    A scenario's own scripted apply (``sim.scripting``) writes them as its objects were
    written at second 0, without the last-applied annotation."""
    objects = apply_objects(action)
    annotate = not getattr(sim, "scripting", False)
    action["_changes"] = kubectl_apply.check_apply(sim, objects, annotate=annotate)
    return action


def _check_update(sim: Cluster, action: dict) -> dict:
    """The API server's write of whole objects (``update``: what the Kubernetes API's PUT,
    PATCH and POST end in, webapp/kubeapi), every one checked first."""
    action["_changes"] = [kubectl_apply.plan_update(sim, obj) for obj in apply_objects(action)]
    return action


_CHECKS = {
    "delete": _check_delete,
    "set-probe": _check_set_probe,
    "crash": _check_crash,
    "oom": _check_oom,
    "node-down": _check_node_down,
    "node-up": _check_node_up,
    "apply": _check_apply,
    "exec": _check_exec,
    "update": _check_update,
}


# -- performing ---------------------------------------------------------------------------


def _delete(sim: Cluster, action: dict) -> None:
    grace = action.get("gracePeriodSeconds")
    if action["force"]:
        grace = 0
    elif grace == 0:
        grace = 1  # kubectl turns --grace-period=0 without --force into 1
    cause = "kubectl delete --force --grace-period=0" if action["force"] else "kubectl delete"
    sim.delete_pod(grace, force=action["force"], cause=cause)


def _set_probe(sim: Cluster, action: dict) -> None:
    healthy = action["healthy"]
    name, probe = action["container"], action["probe"]
    if sim.kubelet is not None:
        sim.kubelet.by_name[name].health[probe] = healthy
    else:
        behaviour = sim.behaviours.setdefault(name, {})
        behaviour.setdefault("probes", {})[probe] = "healthy" if healthy else "failing"
    sim.transition("running", f"Container/{name}", f"health.{probe}", not healthy, healthy,
                   f"set-probe: the {probe} check now {'passes' if healthy else 'fails'}, "
                   "whatever the container's process does",
                   container=name)  # fmt: skip


def _crash(sim: Cluster, action: dict) -> None:
    record = sim.kubelet.by_name[action["container"]]
    sim.kubelet.runtime.exit(record.newest, action["exitCode"])


def _exec(sim: Cluster, action: dict) -> dict:
    """What ``kubectl exec`` prints: stdout, stderr and the exit code (None when the
    runtime could not start the command: ``error`` says why, in containerd's words)."""
    name, argv = action["container"], action["command"]
    record = sim.kubelet.by_name[name]
    # One character more than is kept tells that there was more.
    result = sim.kubelet.processes.user_exec(
        record, list(argv), EXEC_TIMEOUT_MS, EXEC_OUTPUT_BYTES + 1, action.get("shell")
    )
    stdout, cut_out = _cut(result.stdout)
    stderr, cut_err = _cut(result.stderr)
    answer = {
        "pod": action["pod"],
        "container": name,
        "stdout": stdout,
        "stderr": stderr,
        "exitCode": result.exit_code,
        "error": result.error,
        "timedOut": result.timed_out,
        "truncated": cut_out or cut_err,
    }
    if "shell" in action:
        answer["shell"] = result.shell
    if result.error:
        ended = "could not start"
    elif result.timed_out or result.exit_code is None:
        ended = f"was stopped after {EXEC_TIMEOUT_MS // 1000}s of its own time (it had not ended)"
    else:
        ended = f"exited with {result.exit_code}"
    pod = action["pod"]
    if "shell" not in action:
        said = f"kubectl exec {pod} -c {name} -- {_clip(' '.join(argv))}: {ended}"
    elif len(argv) > 2:  # kubectl exec -it: a line typed into the shell (SHELL -c LINE)
        said = f"kubectl exec -it {pod} -c {name} -- {argv[0]}: {_clip(argv[2])}: {ended}"
    else:  # ... the shell opening
        said = f"kubectl exec -it {pod} -c {name} -- {argv[0]}: " + (
            "could not start" if result.error else "opened"
        )
    sim.transition("running", f"Container/{name}", "exec", None, answer["exitCode"], said,
                   container=name)  # fmt: skip
    return answer


def _clip(shown: str) -> str:
    return shown if len(shown) <= 80 else shown[:79] + "…"


def _cut(text: str) -> tuple[str, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= EXEC_OUTPUT_BYTES:
        return text, False
    return data[:EXEC_OUTPUT_BYTES].decode("utf-8", "ignore"), True


def _oom(sim: Cluster, action: dict) -> None:
    record = sim.kubelet.by_name[action["container"]]
    sim.kubelet.runtime.oom(record.newest)


def _node_down(sim: Cluster, action: dict) -> None:
    state = sim.nodes_by_name[action["node"]]
    state.kubelet_up = False
    sim.transition("running", f"Node/{state.name}", "kubelet", "running", "stopped",
                   f"The kubelet on {state.name} stopped posting status", stage=4)  # fmt: skip
    state.timers.append(
        sim.clock.after(NODE_MONITOR_GRACE_PERIOD_MS, partial(_node_not_ready, sim, state), URGENT)
    )


def _node_not_ready(sim: Cluster, state: NodeState) -> None:
    """The node monitor grace period ran out: Unknown, tainted, pods not ready."""
    state.not_ready = True
    state.obj = mark_node_unknown(state.obj, sim.now_ms)
    sim.transition("running", f"Node/{state.name}", "conditions.Ready", "True", "Unknown",
                   "Kubelet stopped posting node status.", stage=4)  # fmt: skip
    if sim.node_name != state.name or sim.pod_removed:
        return
    sim.mark_pod_not_ready()
    sim.pod_event(WARNING, "NodeNotReady", "Node is not ready", component="node-controller")
    seconds = unreachable_toleration_seconds(sim.pod_spec)
    if seconds is not None:
        state.eviction = sim.clock.after(seconds * 1000, partial(_evict, sim, state), URGENT)
        state.timers.append(state.eviction)


def _taint_eviction_event(sim: Cluster, message: str) -> None:
    """``taint_eviction.go`` emitPodDeletionEvent / emitCancelPodDeletionEvent: the
    reference is built from the namespaced name only, so the Event has no involvedObject
    uid (and no resourceVersion)."""
    sim.pod_event(NORMAL, "TaintManagerEviction", message,
                  component="taint-eviction-controller", with_uid=False)  # fmt: skip


def _evict(sim: Cluster, state: NodeState) -> None:
    """The taint-eviction controller deletes the Pod once its toleration ran out."""
    if sim.pod_removed or sim.deletion_ms is not None:
        return
    _taint_eviction_event(sim, f"Marking for deletion Pod {sim.namespace}/{sim.pod_name}")
    sim.add_pod_condition(TAINT_EVICTION_CONDITION)  # addConditionAndDeletePod
    sim.delete_pod(None, cause="Evicted: the node is unreachable")


def _node_up(sim: Cluster, action: dict) -> None:
    state = sim.nodes_by_name[action["node"]]
    eviction = state.eviction
    if eviction is not None and not eviction.cancelled and eviction.at_ms > sim.now_ms:
        # The unreachable taint is removed before the toleration ran out: cancelWorkWithEvent.
        _taint_eviction_event(sim, f"Cancelling deletion of Pod {sim.namespace}/{sim.pod_name}")
    state.eviction = None
    state.cancel_timers()
    state.kubelet_up = True
    sim.transition("running", f"Node/{state.name}", "kubelet", "stopped", "running",
                   f"The kubelet on {state.name} is back", stage=4)  # fmt: skip
    if state.not_ready:
        state.not_ready = False
        state.obj = mark_node_ready(state.obj, sim.now_ms)
        sim.transition("running", f"Node/{state.name}", "conditions.Ready", "Unknown", "True",
                       "kubelet is posting ready status", stage=4)  # fmt: skip
    if sim.kubelet is not None and sim.kubelet.node_name == state.name:
        sim.mark_dirty()
        sim.kubelet.node_returned()
        if sim.start_time_ms is None:
            sim.clock.after(0, sim.kubelet_admits, URGENT)
    sim.retry_scheduling()


def _apply(sim: Cluster, action: dict) -> None:
    kubectl_apply.perform_apply(sim, action.pop("_changes"))


_PERFORM = {
    "delete": _delete,
    "set-probe": _set_probe,
    "crash": _crash,
    "exec": _exec,
    "oom": _oom,
    "node-down": _node_down,
    "node-up": _node_up,
    "apply": _apply,
    "update": _apply,
}
