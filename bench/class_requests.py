"""CPU per classroom request far into the worst valid run (issue 12). Prints figures,
asserts nothing.

    python bench/class_requests.py [--far 7200]

The class runs the crash-looping worst case (tests/worst_case.py CRASH_LOOP_POD: 20
containers, three exec probes each every second, each exiting after 5 to 24 s). For each
request this prints the thread CPU time of the handler (Socket.IO test client: the handler
runs in the calling thread; it includes building the snapshot or tick it sends, large at
7200 s of this run) and, for "before", what the request used to do: a replay from
second 0 (`Simulation.replay`, as `Classes.replay` did). Where the request leaves a sliced
seek behind (hand-out, teacher rebuild), the seek loop's total CPU and its largest slice
(the most one pass of the loop costs) are printed too.

- ask: `class:ask {seconds: 600}` with the teacher at far - 600 (the answer is at `far`);
- fork: `class:fork` with the teacher at `far`;
- hand-out: `class:handout {yaml, at: far}` to one connected student;
- rebuild: `class:teach` after a restart (the teacher's session rebuilt at `far`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cpu_ms(fn: Any) -> float:
    start = time.thread_time()
    fn()
    return (time.thread_time() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--far", type=float, default=7200.0)
    args = parser.parse_args()
    far = args.far

    from tests.worst_case import CRASH_LOOP_POD
    from webapp import create_app, socketio_of
    from webapp.engine import Simulation
    from webapp.manifest import parse_scenario
    from webapp.realtime import realtime_of

    db = Path(tempfile.mkdtemp()) / "db.sqlite3"

    def app() -> Any:
        made = create_app(
            {
                "TESTING": True,
                "PLAYGROUND_DB": str(db),
                "SESSION_SCHEDULER": False,
                # Unlimited budgets: the bench measures the cost, not the refusals.
                "SESSION_CPU_BURST_SECONDS": 1e9,
                "CLIENT_CPU_BURST_SECONDS": 1e9,
            }
        )
        realtime_of(made).seeker.clock = iter(range(10**9)).__next__
        return made

    def client(flask_app: Any) -> Any:
        tab = socketio_of(flask_app).test_client(flask_app)
        tab.get_received()
        return tab

    def loop(flask_app: Any) -> tuple[float, float]:
        """Run the seek loop to the end: (total ms CPU, largest pass ms)."""
        total, largest = 0.0, 0.0
        seeker = realtime_of(flask_app).seeker
        while True:
            start = time.thread_time()
            ran = seeker.round()
            used = (time.thread_time() - start) * 1000
            if not ran:
                return total, largest
            total += used
            largest = max(largest, used)

    scenario = parse_scenario(CRASH_LOOP_POD)
    print(f"crash-loop worst case, far moment {far:.0f} s (thread CPU per request)")
    before = cpu_ms(lambda: Simulation.replay(scenario, [], until=far, seed=0))
    print(f"before: ask / fork / hand-out / rebuild: a replay 0 -> {far:.0f} s in the request"
          f" {before:9.1f} ms each (a hand-out: once for the teacher, once per student)")  # fmt: skip

    flask_app = app()
    made = flask_app.test_client().post("/api/classes", json={"yaml": CRASH_LOOP_POD}).json
    teacher = client(flask_app)
    teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    teacher.emit("clock", {"op": "seek", "value": far - 600})
    loop(flask_app)
    teacher.get_received()
    ask = cpu_ms(
        lambda: teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 600}})
    )
    errors = [m for m in teacher.get_received() if m["name"] == "error"]
    print(f"after:  ask in 600 s at {far - 600:.0f} s                  {ask:9.1f} ms"
          + (f"  (refused: {errors[0]['args'][0]['code']})" if errors else ""))  # fmt: skip

    teacher.emit("clock", {"op": "seek", "value": far})
    loop(flask_app)
    student = client(flask_app)
    student.emit("class:join", {"code": made["code"], "name": "Ann"})
    student.get_received()
    fork = cpu_ms(lambda: student.emit("class:fork", {}))
    total, largest = loop(flask_app)
    print(
        f"after:  fork at {far:.0f} s                           {fork:9.1f} ms"
        f"  (then seek loop {total:.0f} ms, largest pass {largest:.0f} ms)"
    )
    student.emit("class:follow", {})

    handout = cpu_ms(lambda: teacher.emit("class:handout", {"yaml": CRASH_LOOP_POD, "at": far}))
    total, largest = loop(flask_app)
    print(
        f"after:  hand-out at {far:.0f} s (1 student)           {handout:9.1f} ms"
        f"  (then seek loop {total:.0f} ms, largest pass {largest:.0f} ms)"
    )
    from webapp.classes import classes_of

    classes = classes_of(flask_app)
    cls = classes.get(made["code"])
    assert cls is not None
    classes.save(cls, force=True)  # the teacher's timeline at `far`, as a restart finds it

    restarted = app()
    again = client(restarted)
    rebuild = cpu_ms(
        lambda: again.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
    )
    total, largest = loop(restarted)
    print(
        f"after:  teacher session rebuilt at {far:.0f} s         {rebuild:9.1f} ms"
        f"  (then seek loop {total:.0f} ms, largest pass {largest:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
