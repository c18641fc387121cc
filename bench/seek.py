"""Seek cost, snapshot size and session memory for the worst valid scenario (issue 12).

    python bench/seek.py [--scenario worst|crash-loop|cluster-crash-loop|rollouts|all]
                         [--horizon 7200] [--random 20] [--limit-gb 3] [--timeout 600]

The worst valid scenario is the one the attack audit found: 20 containers, each with
three exec probes (startup, liveness, readiness) every second. For one session
(`webapp.sessions.Session`, as the server builds it) this prints the CPU time
(`time.process_time`) of a seek to the horizon, back to 10 s, and to random points; the
size in bytes of the session's snapshot as JSON at the horizon; the first far seek as the
server runs it, in slices (webapp/sessions/slices.py: the CPU time of each slice, the most
one request or one seek-loop pass costs); the CPU time of POST /api/share for a link at the
horizon (checked up to its last action within a bound, `checkedUntil`); and the session's
memory there (tracemalloc: what the session and its Simulation hold once built).

Two cluster runs (engine/cluster.py) too: `cluster-crash-loop`, the worst within the limits
(a Deployment of 40 Pods, each with three exec probes every second, every container exiting
after 10 s: 40 Pods crash-looping for the whole horizon; 100 before the work cap), and `rollouts` (bench/engine.py's
10-replica Deployment at 20 requests/s with three rolling updates).

The measurement runs in a child process with its address space capped (RLIMIT_AS) and a
timeout, so that a regression cannot exhaust the shared machine. Prints figures only.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def worst_scenario(containers: int = 20, period: int = 1) -> str:
    """20 containers with startup, liveness and readiness exec probes every second."""
    lines = [
        "apiVersion: v1",
        "kind: Pod",
        "metadata: {name: worst, labels: {app: worst}}",
        "spec:",
        "  containers:",
    ]
    for i in range(containers):
        lines += [
            f"  - name: c{i}",
            "    image: busybox:1.36",
            '    command: ["sh", "-c", "touch /tmp/ok && sleep 1d"]',
        ]
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            lines += [
                f"    {probe}:",
                '      exec: {command: ["cat", "/tmp/ok"]}',
                f"      periodSeconds: {period}",
            ]
    return "\n".join(lines) + "\n"


def crash_loop_scenario() -> str:
    """The worst scenario, but every container also exits with code 1 after 5 to 24 s: 20
    containers crash-looping out of step keep the kubelet syncing about once a second, so
    there is little steady probing to coast over (a harder case than the audit's)."""
    exits = "".join(f"  c{i}: {{exitAfterSeconds: {5 + i}, exitCode: 1}}\n" for i in range(20))
    return (
        worst_scenario()
        + "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: crash-loop}\n"
        + "containers:\n"
        + exits
    )


def cluster_crash_loop_scenario(replicas: int = 40) -> str:
    """The worst cluster run of this shape within the limits: a Deployment of 40 Pods (100
    before the work cap, manifest/rules.py MAX_RUN_WORK: 40 x (1 + 3) = 160 units), each
    container with startup, liveness and readiness exec probes every second, exiting with
    code 1 after 10 s, so every Pod crash-loops for the horizon."""
    probes = "".join(
        f"        {probe}:\n          exec: {{command: [cat, /tmp/ok]}}\n"
        "          periodSeconds: 1\n"
        for probe in ("startupProbe", "livenessProbe", "readinessProbe")
    )
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
        f"  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
        "      - name: app\n        image: busybox:1.36\n"
        '        command: ["sh", "-c", "touch /tmp/ok && sleep 1d"]\n'
        + probes
        + "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: cluster-crash}\n"
        "containers:\n  app: {exitAfterSeconds: 10, exitCode: 1}\n"
    )


def rollouts_scenario() -> str:
    """bench/engine.py's 10-replica Deployment behind a Service at 20 requests/s with three
    rolling updates in the first hour."""
    from bench.engine import ROLLOUTS

    return ROLLOUTS


SCENARIOS = {
    "worst": worst_scenario,
    "crash-loop": crash_loop_scenario,
    "cluster-crash-loop": cluster_crash_loop_scenario,
    "rollouts": rollouts_scenario,
}
# The action near the horizon of the share POST row, per scenario (one that applies there).
LATE_ACTION = {
    "cluster-crash-loop": {"action": "scale", "name": "web", "replicas": 99},
    "rollouts": {"action": "scale", "name": "web", "replicas": 9},
}


def child(horizon: float, points: int, name: str) -> None:
    from webapp.engine import Simulation
    from webapp.realtime.outbox import as_table
    from webapp.sessions.session import Session
    from webapp.sessions.wire import encode

    text = SCENARIOS[name]()
    print(f"{name} scenario: {len(text)} bytes of YAML, horizon {horizon:.0f} s", flush=True)

    def seek(session: Session, t: float) -> float:
        start = time.process_time()
        session.seek(t)
        return (time.process_time() - start) * 1000

    session = Session(Simulation.from_yaml(text), end=horizon)
    forward = seek(session, horizon)
    print(f"seek 0 -> {horizon:.0f} s (first time)   {forward:9.1f} ms CPU", flush=True)
    start = time.process_time()
    state = session.snapshot(advance_seq=True)
    snapshot = encode(as_table(state))  # as the page gets it (join {transitions: "table"})
    encode_ms = (time.process_time() - start) * 1000
    print(f"snapshot at the horizon        {len(snapshot) / 1e6:9.3f} MB JSON "
          f"({len(session.sim.transitions)} transitions, built in {encode_ms:.0f} ms)",
          flush=True)  # fmt: skip
    print(f"... transitions as a list      {len(encode(state)) / 1e6:9.3f} MB JSON "
          "(clients that do not ask for the table)", flush=True)  # fmt: skip
    back = seek(session, 10.0)
    print(f"seek {horizon:.0f} -> 10 s               {back:9.1f} ms CPU", flush=True)
    again = seek(session, horizon)
    print(f"seek 10 -> {horizon:.0f} s (again)       {again:9.1f} ms CPU", flush=True)
    rng = random.Random(12)
    costs = []
    for _ in range(points):
        costs.append(seek(session, round(rng.uniform(0, horizon), 3)))
    store = getattr(session, "checkpoints", None)
    if store is not None:
        print(f"checkpoints                    {len(store.items)} kept, {store.size / 1e6:.2f} MB",
              flush=True)  # fmt: skip
    if costs:
        costs.sort()
        print(f"{points} random seeks              max {costs[-1]:7.1f} ms, median "
              f"{costs[len(costs) // 2]:.1f} ms CPU", flush=True)  # fmt: skip
    del session
    sliced(text, horizon)
    share_post(text, horizon, name)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    session = Session(Simulation.from_yaml(text), end=horizon)
    session.seek(horizon)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(f"session memory at the horizon  {held / 1e6:9.2f} MB (tracemalloc)", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the measuring process {peak:6.0f} MB", flush=True)


def sliced(text: str, horizon: float) -> None:
    """The first far seek as the server runs it (webapp/sessions/slices.py): the request
    runs one slice, the seek loop the others; each slice is one request's worth of work."""
    from webapp.engine import Simulation
    from webapp.sessions import slices
    from webapp.sessions.session import Session

    session = Session(Simulation.from_yaml(text), end=horizon)
    costs, ticks = [], []
    while True:
        start = time.thread_time()
        if not costs:
            slices.begin_seek(session, horizon)
        done = slices.run_slice(session)
        costs.append((time.thread_time() - start) * 1000)
        start = time.thread_time()
        # What the seek loop sends after it: progress (at most 10 a second; here after each
        # slice), and the full tick with the state at the target at the end.
        session.tick() if done else session.progress_tick(float(len(costs)))
        ticks.append((time.thread_time() - start) * 1000)
        if done:
            break
    assert session.sim.now == horizon
    for label, values in (("slice", costs), ("tick after it", ticks)):
        ordered = sorted(values)
        print(f"first seek 0 -> {horizon:.0f} s in slices, {label}: {len(values)} x, max "
              f"{ordered[-1]:.1f} ms, median {ordered[len(ordered) // 2]:.1f} ms CPU, "
              f"{sum(values) / 1000:.2f} s in all", flush=True)  # fmt: skip


def share_post(text: str, horizon: float, name: str) -> None:
    """POST /api/share with the scenario at the horizon and one action near its end, as
    the route runs it (webapp/routes.py): bounded, with `checkedUntil`."""
    import tempfile

    from webapp import create_app

    folder = tempfile.mkdtemp(prefix="seek-bench-")
    app = create_app({"TESTING": True, "PLAYGROUND_DB": f"{folder}/links.sqlite3",
                      "SESSION_SCHEDULER": False})  # fmt: skip
    http = app.test_client()
    action = {"at": horizon - 200, **LATE_ACTION.get(name, {"action": "set-probe",
              "container": "c1", "probe": "readiness", "healthy": False})}  # fmt: skip
    for label, actions in (("no actions", []), (f"an action at {horizon - 200:.0f} s", [action])):
        start = time.process_time()
        answer = http.post("/api/share", json={"yaml": text, "actions": actions, "at": horizon})
        cost = (time.process_time() - start) * 1000
        checked = (answer.get_json() or {}).get("checkedUntil")
        print(f"share POST at {horizon:.0f} s, {label}: {answer.status_code} in {cost:7.1f} ms "
              f"CPU, checkedUntil {checked}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--horizon", type=float, default=7200.0)
    parser.add_argument("--random", type=int, default=20)
    parser.add_argument("--limit-gb", type=float, default=3.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.horizon, args.random, args.scenario)
        return
    limit = int(args.limit_gb * 1024**3)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    for name in SCENARIOS if args.scenario == "all" else [args.scenario]:
        command = [sys.executable, __file__, "--child", "--horizon", str(args.horizon),
                   "--random", str(args.random), "--scenario", name]  # fmt: skip
        try:
            done = subprocess.run(command, preexec_fn=cap, timeout=args.timeout, check=False)
        except subprocess.TimeoutExpired:
            print(f"stopped after {args.timeout:.0f} s (timeout)")
            continue
        if done.returncode:
            print(f"the measuring process ended with code {done.returncode} "
                  f"(address space capped at {args.limit_gb} GB)")  # fmt: skip
        print()


if __name__ == "__main__":
    main()
