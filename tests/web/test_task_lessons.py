"""The task lessons (issue 19, item 3: scenarios/tasks/, webapp/sessions/tasks.py) done with
kubectl only, through the real Socket.IO wire: each lesson's tasks are shown not done, a
wrong fix leaves the fixing task not done, the right one marks it done; a tick says so at
once, a snapshot carries it, the record keeps it (a restart resumes it) and a class's
roster counts it. The page's side: tests/e2e/test_page_tasks.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from webapp import create_app, socketio_of
from webapp.realtime import realtime_of

ROOT = Path(__file__).resolve().parents[2]
TASK_LESSONS = sorted(p.stem for p in (ROOT / "scenarios" / "tasks").glob("*.yaml"))


def make_app(tmp_path: Path) -> Flask:
    return create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "db.sqlite3"),
                       "SESSION_SCHEDULER": False, "ACTIONS_PER_SECOND": 1000})  # fmt: skip


class Learner:
    """A tab that joins a task lesson and types commands; the virtual clock moves only by
    seeks (no scheduler), so every run is the same."""

    def __init__(self, app: Flask, scenario: str) -> None:
        self.app = app
        self.client: SocketIOTestClient = socketio_of(app).test_client(app)
        self.client.emit("join", {"scenario": scenario})
        self.tasks: dict[str, Any] | None = None
        self.outputs: list[dict[str, Any]] = []
        self.snapshot = self._read()["snapshot"][-1]

    def _read(self) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for message in self.client.get_received():
            payload = message["args"][0]
            found.setdefault(message["name"], []).append(payload)
            if message["name"] in ("tick", "snapshot") and "tasks" in payload:
                self.tasks = payload["tasks"]
            if message["name"] == "error":
                raise AssertionError(f"error: {payload}")
        self.outputs += found.get("terminal:output", [])
        return found

    def seek(self, seconds: float) -> None:
        self.client.emit("clock", {"op": "seek", "value": seconds})
        self._read()

    def type(self, line: str) -> dict[str, Any]:
        self.client.emit("terminal", {"line": line})
        found = self._read()
        mine = [o for o in found.get("terminal:output", []) if o["line"] == line]
        assert mine, f"no answer to {line!r}"
        return {"stdout": "".join(o["stdout"] for o in mine),
                "stderr": "".join(o["stderr"] for o in mine), "exitCode": mine[-1]["exitCode"]}  # fmt: skip

    def interrupt(self) -> None:
        self.client.emit("terminal", {"signal": "SIGINT"})
        self._read()

    def done(self) -> list[int]:
        self._read()
        assert self.tasks is not None
        return list(self.tasks["done"])

    def task_steps(self) -> list[int]:
        return [i for i, s in enumerate(self.snapshot["scenario"]["lesson"]) if s.get("task")]


def _first(text: str, pattern: str) -> str:
    found = re.search(pattern, text)
    assert found, (pattern, text)
    return found.group(0)


# Each lesson: (seconds, line | None) in order; "FIX" marks where the wrong fix ends and
# the right one starts (the tasks done before it are all but the last).
LESSONS: dict[str, list[tuple[float, str]]] = {
    "task-node-selector": [
        (10, "kubectl describe pod ssd-app"),
        (12, "kubectl label node node-1 disktype=hdd"),
        (40, "FIX"),
        (40, "kubectl label node node-1 disktype=ssd --overwrite"),
        (80, ""),
    ],
    "task-image-pull-backoff": [
        (20, "kubectl describe pod frontend"),
        (21, "kubectl set image pod/frontend frontend=registry.example.com/shop/frontend:2.5.0"),
        (60, "FIX"),
        (60, "kubectl set image pod/frontend frontend=registry.example.com/shop/frontend:2.4.1"),
        (120, ""),
    ],
    "task-bad-image-rollout": [
        (40, "kubectl describe pod"),
        (41, "kubectl rollout restart deployment/web"),
        (90, "FIX"),
        (90, "kubectl rollout undo deployment/web --to-revision=1"),
        (150, ""),
    ],
    "task-crash-loop-rollout": [
        (60, "kubectl logs {crashing}"),
        (60, "kubectl logs {crashing} --previous"),
        (61, "kubectl rollout restart deployment/api"),
        (100, "FIX"),
        (100, "kubectl rollout undo deployment/api --to-revision=1"),
        (160, ""),
    ],
    "task-cordoned-nodes": [
        (30, "kubectl describe pod {pending}"),
        (31, "kubectl uncordon node-9"),
        (50, "FIX"),
        (50, "kubectl uncordon node-2"),
        (90, ""),
    ],
    "task-drain-pdb": [
        (20, "kubectl drain node-1 --timeout=2s"),
        (20, "^C"),
        (20, "kubectl uncordon node-1"),
        (21, "kubectl drain node-1 --disable-eviction=false --timeout=1s"),
        (21, "^C"),
        (40, "FIX"),
        (40, "kubectl scale deployment web --replicas=4"),
        (70, "kubectl drain node-1"),
        (120, "kubectl uncordon node-1"),
        (121, ""),
    ],
    "task-service-no-endpoints": [
        (20, "kubectl describe svc web"),
        (20, "kubectl label pod web tier=web"),
        (30, "FIX"),
        (30, "kubectl label pod web app=web --overwrite"),
        (40, ""),
    ],
    "task-scheduling-gated": [
        (5, "kubectl get pod scheduling-gated -o jsonpath='{.spec.schedulingGates}'"),
        (
            6,
            """kubectl patch pod scheduling-gated --type=json -p '[{"op":"remove","path":"/spec/schedulingGates/0"}]'""",
        ),
        (30, "FIX"),
        (
            30,
            """kubectl patch pod scheduling-gated --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'""",
        ),
        (60, ""),
    ],
}


def test_every_task_lesson_has_a_run() -> None:
    assert sorted(LESSONS) == TASK_LESSONS and len(TASK_LESSONS) >= 8


@pytest.mark.parametrize("scenario", TASK_LESSONS)
def test_a_task_lesson_is_done_with_kubectl_only_and_a_wrong_fix_is_not_done(
    tmp_path: Path, scenario: str
) -> None:
    app = make_app(tmp_path)
    learner = Learner(app, scenario)
    tasks = learner.task_steps()
    assert learner.snapshot["tasks"] == {"done": [], "count": len(tasks)} and len(tasks) >= 2
    # the checks stay on the server: the page gets the task's text and hints only
    assert all(set(learner.snapshot["scenario"]["lesson"][i]) == {"at", "when", "task", "text", "hints"}
               for i in tasks)  # fmt: skip
    for seconds, line in LESSONS[scenario]:
        learner.seek(seconds)
        if line == "FIX":
            # Everything but the fix is done; the wrong fix did not count.
            assert learner.done() == tasks[:-1] or (
                scenario == "task-drain-pdb" and learner.done() == tasks[:1]
            ), learner.done()
            continue
        if line == "^C":
            learner.interrupt()
            continue
        if not line:
            continue
        if "{crashing}" in line or "{pending}" in line:
            pods = learner.type("kubectl get pods")["stdout"]
            key = "crashing" if "{crashing}" in line else "pending"
            pattern = (
                r"api-\w+-\w+(?=\s+0/1)"
                if key == "crashing"
                else r"web-\w+-\w+(?=\s+0/1\s+Pending)"
            )
            line = line.format(**{key: _first(pods, pattern)})
        answer = learner.type(line)
        assert answer["exitCode"] in (0, 1, None, 130), (line, answer)
    learner.seek(LESSONS[scenario][-1][0] + 1)
    assert learner.done() == tasks, (scenario, learner.done())


def test_tasks_done_are_kept_in_the_record_and_counted_in_the_roster(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    learner = Learner(app, "task-service-no-endpoints")
    learner.seek(20)
    learner.type("kubectl describe svc web")
    assert learner.done() == [1]
    realtime_of(app).keeper.round()  # the record's head says which tasks are done
    again = Learner(make_app(tmp_path), "plain-pod")
    again.client.emit("join", {"session": learner.snapshot["session"]})
    resumed = again._read()["snapshot"][-1]
    assert resumed["tasks"] == {"done": [1], "count": 2}
    # the roster of a class running this lesson: "done/count"
    from webapp.classes.room import _session_view

    session = realtime_of(app).manager.get(learner.snapshot["session"])
    view = _session_view(session)
    assert (
        view["tasks"] == "1/2" and view["lessonSteps"] == 3
    )  # the step before, the two tasks shown
