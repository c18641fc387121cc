"""Engine figures: events per second and wall time of one virtual hour per built-in scenario.

    python bench/engine.py

Also the two target cases of issue 3: one virtual hour of a crash-looping Pod with liveness
and readiness probes (target < 50 ms), and replaying an hour with 100 actions from scratch
(target < 100 ms), and the probes page's exec liveness example interpreted by the process
model for an hour (target < 50 ms). Issue 10's rows: a 10-replica Deployment with three
rolling updates at 20 requests/s for an hour and a 100-Pod Job (target < 1 s each), and a
100-Pod ReplicaSet with HTTP readiness probes (no target). Figures are CPU time
(time.process_time), best of five. Prints figures only; nothing here asserts on time.
"""

from __future__ import annotations

import heapq
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp.engine import Simulation  # noqa: E402
from webapp.manifest import parse_scenario  # noqa: E402

HOUR = 3600.0
REPEAT = 5

CRASH_LOOP = """\
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: app
    image: nginx:1.27
    livenessProbe:
      httpGet: {path: /, port: 80}
      periodSeconds: 5
    readinessProbe:
      httpGet: {path: /index.html, port: 80}
      periodSeconds: 5
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: playground/v1
kind: Simulation
metadata: {name: bench-crash-loop}
containers:
  app: {exitAfterSeconds: 20, exitCode: 1}
"""

STEADY = """\
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: app
    image: nginx:1.27
    readinessProbe:
      httpGet: {path: /, port: 80}
      periodSeconds: 5
"""


# The liveness example of the probes task page, pasted unchanged: no Simulation document,
# so the process model interprets the script and runs `cat /tmp/healthy` every 5 s.
EXEC_LIVENESS = """\
apiVersion: v1
kind: Pod
metadata:
  labels:
    test: liveness
  name: liveness-exec
spec:
  containers:
  - name: liveness
    image: registry.k8s.io/busybox
    args:
    - /bin/sh
    - -c
    - touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600
    livenessProbe:
      exec:
        command:
        - cat
        - /tmp/healthy
      initialDelaySeconds: 5
      periodSeconds: 5
"""


# Issue 10: a 10-replica Deployment behind a Service, 20 requests/s, three rolling updates
# in the virtual hour (target < 1 s), and a 100-Pod ReplicaSet for an hour.
ROLLOUTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80}]
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 10
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: playground/v1
kind: Simulation
metadata: {name: bench-rollouts}
traffic: {service: web, rps: 20}
script:
- {at: 600, action: set-image, name: web, container: nginx, image: nginx:1.28}
- {at: 1800, action: rollout-restart, name: web}
- {at: 3000, action: rollout-undo, name: web}
"""

HUNDRED_PODS = """\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: many}
spec:
  replicas: 100
  selector: {matchLabels: {app: many}}
  template:
    metadata: {labels: {app: many}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 10
"""


HUNDRED_POD_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  completions: 100
  parallelism: 100
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
        command: ["sh", "-c", "sleep 30"]
"""


def best_of(run) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(REPEAT):
        start = time.process_time()  # CPU time: the machine is shared
        result = run()
        best = min(best, time.process_time() - start)
    return best, result


def one_hour(scenario):
    sim = Simulation.from_scenario(scenario)
    sim.advance(HOUR)
    return sim


def report(name: str, seconds: float, sim: Simulation) -> None:
    events = sim.clock.processed
    rate = events / seconds if seconds else 0
    print(f"{name:34} {seconds * 1000:8.1f} ms {events:7d} events {rate:11,.0f} events/s "
          f"{len(sim.transitions):6d} transitions")  # fmt: skip


def hundred_actions() -> list[dict]:
    actions = []
    for i in range(100):
        at = 20.0 + i * 35.0
        if i % 2 == 0:
            actions.append({"at": at, "action": "set-probe", "container": "app",
                            "probe": "readiness", "healthy": i % 4 != 0})  # fmt: skip
        else:
            actions.append({"at": at, "action": "set-probe", "container": "app",
                            "probe": "liveness", "healthy": i % 3 != 0})  # fmt: skip
    return actions


def heapq_baseline(events: int = 100_000) -> int:
    """A plain heapq event loop: each event pops the next (time, seq, callback) and its
    callback schedules the next one 5 s later (a probe's period), as the engine's clock
    does, with nothing else. The floor the engine's events per second compare with."""
    heap: list[tuple[int, int, object]] = []
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if done < events:
            heapq.heappush(heap, (at + 5000, done, tick))

    heapq.heappush(heap, (0, 0, tick))
    while heap:
        at, _, callback = heapq.heappop(heap)
        callback()
    return done


def main() -> None:
    start = time.process_time()
    count = heapq_baseline()
    seconds = time.process_time() - start
    print(f"heapq baseline: {count:,} events in {seconds * 1000:.1f} ms, "
          f"{count / seconds:,.0f} events/s; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"one virtual hour each, best of {REPEAT}")
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        scenario = parse_scenario(path.read_text(encoding="utf-8"))
        seconds, sim = best_of(lambda s=scenario: one_hour(s))
        report(path.stem, seconds, sim)
    print("\ntargets")
    crash = parse_scenario(CRASH_LOOP)
    seconds, sim = best_of(lambda: one_hour(crash))
    report("crash loop + liveness + readiness", seconds, sim)
    print(f"{'':34} target < 50 ms: {'met' if seconds < 0.05 else 'MISSED'}")
    docs = parse_scenario(EXEC_LIVENESS)
    seconds, sim = best_of(lambda: one_hour(docs))
    report("docs exec liveness (interpreted)", seconds, sim)
    print(f"{'':34} target < 50 ms: {'met' if seconds < 0.05 else 'MISSED'}")
    steady = parse_scenario(STEADY.replace("readinessProbe", "livenessProbe:\n      httpGet: "
                                           "{path: /index.html, port: 80}\n    readinessProbe"))  # fmt: skip
    live = Simulation.from_scenario(steady)
    for action in hundred_actions():
        live.advance(action["at"] - live.now)
        live.act({k: v for k, v in action.items() if k != "at"})
    live.advance(HOUR - live.now)
    seconds, sim = best_of(lambda: Simulation.replay(steady, live.actions, HOUR))
    assert len(sim.transitions) == len(live.transitions)
    report(f"replay 1 h with {len(live.actions)} actions", seconds, sim)
    print(f"{'':34} target < 100 ms: {'met' if seconds < 0.1 else 'MISSED'}")
    rollouts = parse_scenario(ROLLOUTS)
    seconds, sim = best_of(lambda: one_hour(rollouts))
    report("10 replicas, 3 rollouts, 20 rps", seconds, sim)
    traffic = sim.traffic()
    print(
        f"{'':34} {traffic['sent']} requests, {traffic['failed']} failed; "
        f"{len(sim.runs)} Pods created; target < 1 s: {'met' if seconds < 1 else 'MISSED'}"
    )
    daemons = parse_scenario((ROOT / "scenarios/workloads/daemonset-drain.yaml").read_text())
    seconds, sim = best_of(lambda: one_hour(daemons))
    report("DaemonSet + Deployment, 2 drains", seconds, sim)
    status = sim.objects("DaemonSet")[0]["status"]
    print(f"{'':34} {status['numberReady']}/{status['desiredNumberScheduled']} daemon Pods "
          "ready after the drains; no issue target")  # fmt: skip
    many = parse_scenario(HUNDRED_PODS)
    seconds, sim = best_of(lambda: one_hour(many))
    report("100-Pod ReplicaSet, HTTP readiness", seconds, sim)
    print(
        f"{'':34} {len(sim.objects('Pod'))} Pods, 36,000 HTTP probe runs (each a request "
        "to the nginx model); no issue target"
    )
    job = parse_scenario(HUNDRED_POD_JOB)
    seconds, sim = best_of(lambda: one_hour(job))
    report("100-Pod Job", seconds, sim)
    status = sim.objects("Job")[0]["status"]
    print(
        f"{'':34} {status.get('succeeded')} succeeded; target < 1 s: "
        f"{'met' if seconds < 1 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
