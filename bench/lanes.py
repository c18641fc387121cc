"""What the timeline's lane per Pod costs the server (webapp/sessions/lanes.py).

Runs a 100-replica Deployment whose Pods crash-loop (the worst case of docs/workloads.md's
limits) for a virtual hour, reading `cluster` as a playing session does (every 10 virtual
seconds), and prints: CPU of ClusterLanes in all and per read, next to ClusterWatch (the
`kubectl get pods -w` view, the same incremental walk), and the bytes `lanes` + `rollouts`
add to one `cluster` at the end. Usage: python bench/lanes.py [--seconds 3600]
"""

from __future__ import annotations

import argparse
import json
import time

from webapp.engine import Simulation
from webapp.sessions.lanes import ClusterLanes
from webapp.sessions.views import ClusterWatch, cluster_state

CRASH_LOOP = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: crash
spec:
  replicas: 100
  selector:
    matchLabels:
      app: crash
  template:
    metadata:
      labels:
        app: crash
    spec:
      containers:
      - name: app
        image: busybox:1.36
        command: ["sh", "-c", "sleep 5; exit 1"]
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3600.0)
    args = parser.parse_args()
    sim = Simulation.from_yaml(CRASH_LOOP)
    lanes, watch = ClusterLanes(), ClusterWatch()
    lanes_cpu = watch_cpu = 0.0
    reads = 0
    t = 0.0
    while t < args.seconds:
        t += 10
        sim.advance(10)
        start = time.process_time()
        out = lanes.lanes(sim)
        marks = lanes.rollouts(sim)
        lanes_cpu += time.process_time() - start
        start = time.process_time()
        watch.text(sim)
        watch_cpu += time.process_time() - start
        reads += 1
    size = len(json.dumps({"lanes": out, **marks}, separators=(",", ":")))
    print(f"virtual {args.seconds:.0f} s, {len(sim.watch_versions)} Pod versions, {reads} reads")
    print(
        f"ClusterLanes: {lanes_cpu * 1000:.0f} ms CPU in all, {lanes_cpu / reads * 1000:.2f} ms per read"
    )
    print(f"ClusterWatch: {watch_cpu * 1000:.0f} ms CPU in all (the get -w view, for scale)")
    print(f"lanes + rollouts at the end: {size} B of JSON ({len(out['pods'])} lanes)")
    rest = len(json.dumps(cluster_state(sim), separators=(",", ":"))) + len(watch.text(sim))
    print(f"the rest of that cluster (objects, traffic, kubectl views): {rest} B")


if __name__ == "__main__":
    main()
