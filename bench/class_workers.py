"""A class across workers: the teacher's tabs on one worker, the students' on the other
(webapp/classes/span.py), against the same classes with every tab on one worker. Prints
figures, asserts nothing.

    python bench/class_workers.py [--classes 2] [--students 60] [--actions 10] [--speed 10]

Starts redis-server and `python -m webapp --workers 2 --redis URL` itself
(tests/integration/stack.py). Each class is made with POST /api/classes (plain-pod). Every
tab connects first (each connection made while the other worker is frozen with SIGSTOP,
so the kernel gives it to the one that accepts), then the teachers send class:teach and
the students class:join (they follow). Every teacher sets the speed and plays, then acts
`--actions` times (an `apply` of a ConfigMap with a unique name), as bench/classroom.py
does: for each action, the time from the teacher's send to each student's parsed payload
that carries it. Server CPU per follower message is both workers' user+system time over
the messages the students received.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from classroom import CONFIGMAP, Reader, Tab, post, report, run_actions, wait  # noqa: E402

from tests.integration.stack import Playground, Redis  # noqa: E402

ENV = {
    "PLAYGROUND_SERVER_MAX_CONNECTIONS": "5000",
    "PLAYGROUND_SERVER_MAX_CONNECTIONS_PER_CLIENT": "5000",
    "PLAYGROUND_CLASSES_PER_HOUR": "1000",
    # Every student comes from 127.0.0.1 here: the bench measures fan-out, not the
    # per-address name limit (issue 26, F4), which would refuse all but 60.
    "PLAYGROUND_CLASS_NAMES_PER_MINUTE": "1000000",
    "PLAYGROUND_ACTIONS_PER_SECOND": "1000",
}


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def pinned(pid: int, other: int, make: Any) -> Any:
    os.kill(other, signal.SIGSTOP)
    try:
        return make()
    finally:
        os.kill(other, signal.SIGCONT)


def run(args: argparse.Namespace, playground: Playground, split: bool) -> None:
    first, second = playground.worker_pids()
    port, url = playground.port, f"http://127.0.0.1:{playground.port}"
    reader = Reader()
    made = [post(port, "/api/classes", {"scenario": "plain-pod"}) for _ in range(args.classes)]
    teachers = pinned(first, second, lambda: [Tab(port, url, reader) for _ in made])
    students_on = (second, first) if split else (first, second)
    students = pinned(
        *students_on,
        lambda: [[Tab(port, url, reader) for _ in range(args.students)] for _ in made],
    )
    for teacher, cls in zip(teachers, made, strict=True):
        teacher.emit("class:teach", {"code": cls["code"], "key": cls["teacherKey"]})
    wait(lambda: all(t.states for t in teachers), 60)
    for group, cls in zip(students, made, strict=True):
        for s, tab in enumerate(group):
            tab.emit("class:join", {"code": cls["code"], "name": f"student {s}"})
    joined = wait(lambda: all(t.states for g in students for t in g), 60)
    layout = "teacher on one worker, students on the other" if split else "all on one worker"
    print(f"{layout}: {args.classes} classes x {args.students} students joined: {joined}")
    for teacher in teachers:
        teacher.emit("clock", {"op": "speed", "value": args.speed})
        teacher.emit("clock", {"op": "play"})
    time.sleep(2.0)
    pids = playground.worker_pids()
    cpu0, before = cpu_seconds(pids), sum(t.messages for g in students for t in g)

    def act(teacher: Tab, _: int, marker: str) -> None:
        teacher.emit("act", {"action": "apply", "yaml": CONFIGMAP.format(name=marker)})

    figures = run_actions(teachers, students, act, args.actions)
    cpu = cpu_seconds(pids) - cpu0
    total = sum(t.messages for g in students for t in g) - before
    if isinstance(figures, tuple):  # (latencies, every, ...) from bench/classroom.py
        report(f"  {layout}", figures[0], figures[1], total, cpu)
    else:  # its Figures, once it splits where the time went
        report(f"  {layout}", figures, total, cpu)
    errors = [e for g in students for t in g for e in t.errors]
    print(f"  errors seen by students: {len(errors)} {errors[:2]}")
    for tab in [*teachers, *(t for g in students for t in g)]:
        tab.close()
    reader.running = False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=2)
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--actions", type=int, default=10)
    parser.add_argument("--speed", type=float, default=10.0)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        redis = Redis(Path(folder) / "redis")
        try:
            for split in (True, False):
                playground = Playground(Path(folder) / f"pg-{split}", redis.url, env=ENV)
                try:
                    run(args, playground, split)
                finally:
                    playground.stop()
        finally:
            redis.stop()
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
