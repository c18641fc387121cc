"""Lesson tasks (issue 19, item 3): a lesson step the learner does, with a check computed
from the session, shown done once it held.

A task step is `{task, hints?, check}` in the scenario's `lesson` (webapp/manifest/
simulation_doc.py checks it; the normalised document keeps the checks in `taskChecks`,
which never reach the page). Every key of a check must hold:

    pod: NAME | selector: k=v,...   which Pods the Pod checks are about (default: every Pod;
                                    at least one must match)
    status: Running                 each such Pod's STATUS, as `kubectl get pods` prints it
    ready: true                     each such Pod's containers all ready (READY n/n)
    maxRestarts: N                  each such Pod's RESTARTS at most N
    event: Reason                   an Event of that reason (about `pod`, when given)
    ran: "logs --previous" | [...]  the learner ran (in this session's terminal) a kubectl
                                    line with these words (flags in any order and spelling:
                                    `-p` is `--previous` for logs; kinds by any alias: `po`)
    deployment: NAME, rolledOut: b  the Deployment's rollout is complete (`rollout status`)
    node: NAME, schedulable: b      the Node is (not) cordoned
    node: NAME, podsOnNode: N       N Pods on it, not counting DaemonSets' and finished ones
    endpoints: SERVICE              the Service has a ready endpoint (its EndpointSlices)

Tasks are done in order: the first not done is the only one checked, after each change
of the run and each command; once done a task stays done (what the learner did is not
undone by what the run does next). `TaskProgress.version` grows with each change, so a
tick carries `tasks` only when they changed.
"""

from __future__ import annotations

from collections import deque
from datetime import timedelta
from typing import Any

MAX_COMMANDS = 200  # command lines remembered for `ran` checks (the oldest go first)
MAX_WORDS = 24  # of each line's words, the first
MAX_WORD = 64  # characters of each

KIND_ALIASES = {
    **dict.fromkeys(("po", "pod", "pods"), "pod"),
    **dict.fromkeys(("deploy", "deployment", "deployments"), "deployment"),
    **dict.fromkeys(("rs", "replicaset", "replicasets"), "replicaset"),
    **dict.fromkeys(("no", "node", "nodes"), "node"),
    **dict.fromkeys(("svc", "service", "services"), "service"),
    **dict.fromkeys(("ev", "event", "events"), "event"),
    **dict.fromkeys(("cm", "configmap", "configmaps"), "configmap"),
    **dict.fromkeys(("pdb", "poddisruptionbudget", "poddisruptionbudgets"), "pdb"),
    **dict.fromkeys(("job", "jobs"), "job"),
    **dict.fromkeys(("ds", "daemonset", "daemonsets"), "daemonset"),
    **dict.fromkeys(("sts", "statefulset", "statefulsets"), "statefulset"),
}
# Short flags by command (kubectl's own: `-p` is --previous for logs, --patch for patch).
SHORT_FLAGS = {
    "logs": {"-p": "--previous", "-c": "--container", "-f": "--follow"},
    "get": {"-o": "--output", "-l": "--selector", "-w": "--watch", "-A": "--all-namespaces"},
    "describe": {"-l": "--selector", "-A": "--all-namespaces"},
    "exec": {"-c": "--container", "-i": "--stdin", "-t": "--tty"},
    "patch": {"-p": "--patch"},
    "delete": {"-l": "--selector"},
}


def command_words(words: list[str]) -> tuple[str, ...]:
    """A kubectl line's words (after `kubectl`) as `ran` compares them: kinds by one name,
    `kind/name` as two words, flags without their values and by their long names."""
    verb = next((w for w in words if not w.startswith("-")), "")
    shorts = SHORT_FLAGS.get(verb, {})
    out: list[str] = []
    for word in words:
        if word == "--":
            break  # an exec's command: not kubectl's words
        if word.startswith("--"):
            out.append(word.split("=", 1)[0])
        elif word.startswith("-") and len(word) > 1:
            flag = word.split("=", 1)[0]
            if flag in shorts:
                out.append(shorts[flag])
            elif len(flag) > 2 and not flag[1:].isdigit():  # -it: -i and -t
                out.extend(shorts.get(f"-{c}", f"-{c}") for c in flag[1:])
            else:
                out.append(flag)
        elif "/" in word:
            kind, _, name = word.partition("/")
            out += [KIND_ALIASES.get(kind.lower(), kind.lower()), name]
        else:
            out.append(KIND_ALIASES.get(word, word))
    return tuple(out)


def ran_matches(pattern: str, typed: tuple[str, ...]) -> bool:
    """The typed line (command_words) has every word of `pattern`, its verb first."""
    wanted = command_words(pattern.split())
    if not wanted or not typed:
        return False
    return typed[0] == wanted[0] and set(wanted) <= set(typed)


class TaskProgress:
    """Which of a lesson's tasks are done, and the commands the checks may look at."""

    def __init__(self, checks: list[dict[str, Any] | None]) -> None:
        self.checks = checks
        self.done: list[int] = []
        self.commands: deque[tuple[str, ...]] = deque(maxlen=MAX_COMMANDS)
        self.version = 0

    def current(self) -> int | None:
        """The first task not done, or None."""
        for index, check in enumerate(self.checks):
            if check is not None and index not in self.done:
                return index
        return None

    def ran(self, words: list[str]) -> None:
        """A kubectl line (its words after `kubectl`) that ran without an error; kept as at
        most MAX_WORDS words of at most MAX_WORD characters (a check names a verb, kinds
        and flags), so 200 lines of 16 KiB cost a session kilobytes, not megabytes."""
        typed = command_words(words)[:MAX_WORDS]
        self.commands.append(tuple(w[:MAX_WORD] for w in typed))

    def restore(self, done: list[int]) -> None:
        valid = [i for i in done if 0 <= i < len(self.checks) and self.checks[i] is not None]
        if valid != self.done:
            self.done = valid
            self.version += 1

    def update(self, session: Any) -> bool:
        """Under the session's lock: check the current task (and the next, when it is done);
        True when one became done."""
        changed = False
        facts = Facts(session)
        while (index := self.current()) is not None:
            check = self.checks[index]
            assert check is not None
            if not holds(check, facts, self.commands):
                break
            self.done.append(index)
            self.version += 1
            changed = True
        return changed

    def wire(self) -> dict[str, Any]:
        return {"done": list(self.done), "count": sum(c is not None for c in self.checks)}


def tasks_of(session: Any) -> TaskProgress | None:
    """The session's task progress, made for its scenario's lesson (None: no tasks); a new
    scenario (an apply of another lesson) starts over."""
    checks = session.scenario.simulation.get("taskChecks")
    progress: TaskProgress | None = getattr(session, "_tasks", None)
    if not checks:
        if progress is not None:
            session._tasks = None
        return None
    if progress is None or progress.checks != checks:
        progress = TaskProgress(checks)
        session._tasks = progress
    return progress


class Facts:
    """The session's objects as its API serves them, read once per evaluation."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._items: dict[str, list[dict[str, Any]]] = {}

    def items(self, kind: str) -> list[dict[str, Any]]:
        if kind not in self._items:
            from webapp.kubeapi.objects import view_of

            self._items[kind] = view_of(self.session).items(self.session.sim, kind)
        return self._items[kind]

    def now(self) -> Any:
        from webapp.engine.core.timefmt import EPOCH

        return EPOCH + timedelta(seconds=float(self.session.sim.now))


def _labels_match(obj: dict[str, Any], selector: str) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in selector.split(","):
        key, _, value = term.strip().partition("=")
        if labels.get(key.strip()) != value.strip():
            return False
    return True


def _pods(check: dict[str, Any], facts: Facts) -> list[dict[str, Any]]:
    pods = facts.items("Pod")
    if "pod" in check:
        pods = [p for p in pods if (p.get("metadata") or {}).get("name") == check["pod"]]
    if "selector" in check:
        pods = [p for p in pods if _labels_match(p, str(check["selector"]))]
    if "deployment" in check and "pod" not in check and "selector" not in check:
        pods = [p for p in pods if _owned_by_deployment(p, str(check["deployment"]), facts)]
    return pods


def _owned_by_deployment(pod: dict[str, Any], name: str, facts: Facts) -> bool:
    owners = (pod.get("metadata") or {}).get("ownerReferences") or []
    sets = {o.get("name") for o in owners if o.get("kind") == "ReplicaSet"}
    for rs in facts.items("ReplicaSet"):
        meta = rs.get("metadata") or {}
        if meta.get("name") in sets and any(
            o.get("kind") == "Deployment" and o.get("name") == name
            for o in meta.get("ownerReferences") or []
        ):
            return True
    return False


def holds(check: dict[str, Any], facts: Facts, commands: Any = ()) -> bool:
    """Whether every key of `check` holds now."""
    from webapp.kubectl.columns import print_pod

    if any(k in check for k in ("status", "ready", "maxRestarts")):
        pods = _pods(check, facts)
        if not pods:
            return False
        now = facts.now()
        for pod in pods:
            row = print_pod(pod, now)
            if "status" in check and row.get("STATUS") != check["status"]:
                return False
            ready, _, total = str(row.get("READY", "0/0")).partition("/")
            if "ready" in check and (ready == total and total not in ("", "0")) != check["ready"]:
                return False
            if "maxRestarts" in check:
                restarts = str(row.get("RESTARTS", "0")).split(" ", 1)[0]
                if not restarts.isdigit() or int(restarts) > int(check["maxRestarts"]):
                    return False
    if "event" in check:
        about = check.get("pod")
        if not any(
            e.get("reason") == check["event"]
            and (about is None or (e.get("involvedObject") or {}).get("name") == about)
            for e in facts.items("Event")
        ):
            return False
    if "ran" in check:
        patterns = check["ran"] if isinstance(check["ran"], list) else [check["ran"]]
        if not any(ran_matches(p, typed) for p in patterns for typed in commands):
            return False
    if "rolledOut" in check:
        from webapp.kubectl.workloads import deployment_rollout_status

        found = [
            d
            for d in facts.items("Deployment")
            if (d.get("metadata") or {}).get("name") == check.get("deployment")
        ]
        if not found or deployment_rollout_status(found[0])[1] != check["rolledOut"]:
            return False
    if "endpoints" in check:
        slices = [
            e
            for e in facts.items("EndpointSlice")
            if ((e.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/service-name")
            == check["endpoints"]
        ]
        if not any(
            (point.get("conditions") or {}).get("ready")
            for e in slices
            for point in e.get("endpoints") or []
        ):
            return False
    if "schedulable" in check or "podsOnNode" in check:
        nodes = [
            n
            for n in facts.items("Node")
            if (n.get("metadata") or {}).get("name") == check.get("node")
        ]
        if not nodes:
            return False
        cordoned = bool((nodes[0].get("spec") or {}).get("unschedulable"))
        if "schedulable" in check and cordoned == check["schedulable"]:
            return False
        if "podsOnNode" in check:
            on = [
                p
                for p in facts.items("Pod")
                if (p.get("spec") or {}).get("nodeName") == check.get("node")
                and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
                and not any(
                    o.get("kind") == "DaemonSet"
                    for o in (p.get("metadata") or {}).get("ownerReferences") or []
                )
            ]
            if len(on) != int(check["podsOnNode"]):
                return False
    return True
