"""Record every built-in scenario, and the docs' liveness, init and rolling-update examples,
at ten moments each, for the diagram's step-state tests (tests/js/steps.test.mjs).

    PYTHONPATH=$PWD python tests/js/record_moments.py   # rewrites tests/js/fixtures/moments/

Each file holds the run's transitions up to its last moment and, per moment, the virtual
time, the last transition seq the page had then, the Pod (the kubelet's status as the API
shows it) and the EndpointSlices: what `Session.snapshot()` sends, without the views. The
moments are ten evenly spaced seconds over the part of the run where things happen, plus
the scripted actions of the docs' examples (a rolling update's `set-image`).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from webapp.engine import Simulation
from webapp.sessions import Session

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "fixtures" / "moments"
MOMENTS = 10
LONGEST = 400  # seconds: as the golden traces
QUIET = 20  # seconds after the last change still worth a moment

# The docs' manifests, pasted unchanged (kubernetes.io: "Configure Liveness, Readiness and
# Startup Probes" exec-liveness.yaml, "Init Containers" myapp-pod, "Deployments"
# nginx-deployment updated to nginx:1.16.1).
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
    image: registry.k8s.io/busybox:1.27.2
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
INIT_CONTAINERS = """\
apiVersion: v1
kind: Pod
metadata:
  name: myapp-pod
  labels:
    app.kubernetes.io/name: MyApp
spec:
  containers:
  - name: myapp-container
    image: busybox:1.28
    command: ['sh', '-c', 'echo The app is running! && sleep 3600']
  initContainers:
  - name: init-myservice
    image: busybox:1.28
    command: ['sh', '-c', "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done"]
  - name: init-mydb
    image: busybox:1.28
    command: ['sh', '-c', "until nslookup mydb.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for mydb; sleep 2; done"]
"""
SERVICE = textwrap.dedent("""\
    apiVersion: v1
    kind: Service
    metadata:
      name: {name}
    spec:
      ports:
      - protocol: TCP
        port: 80
        targetPort: {port}
    """)
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
"""
DOCS: dict[str, tuple[str, list[tuple[float, dict[str, Any]]], float]] = {
    "docs-exec-liveness": (EXEC_LIVENESS, [], 120),
    "docs-init-containers": (
        INIT_CONTAINERS,
        [
            (30, {"action": "apply", "yaml": SERVICE.format(name="myservice", port=9376)}),
            (50, {"action": "apply", "yaml": SERVICE.format(name="mydb", port=9377)}),
        ],
        80,
    ),
    "docs-rolling-update": (
        DEPLOYMENT,
        [
            (
                20,
                {
                    "action": "set-image",
                    "name": "nginx-deployment",
                    "container": "nginx",
                    "image": "nginx:1.16.1",
                },
            )
        ],
        80,
    ),
}


def moments_of(text: str, actions: list[tuple[float, dict[str, Any]]], until: float) -> list[float]:
    """Ten moments inside the run's states: between one change and the next, spread over
    the changes up to ``until`` (probe runs that repeat a result are not changes)."""
    sim = Simulation.from_yaml(text, seed=0)
    for when, action in actions:
        sim.advance(when - sim.now)
        sim.act(action)
    sim.advance(until - sim.now)
    times = sorted({t["t"] for t in sim.transitions
                    if t["t"] <= until and t.get("before") != t.get("after")})  # fmt: skip
    if len(times) < 2:
        return [round(until * (i + 1) / MOMENTS, 1) for i in range(MOMENTS)]
    ends = [*times[1:], min(until, times[-1] + QUIET)]
    picked = []
    for i in range(MOMENTS):
        k = i * len(times) // MOMENTS
        picked.append(round((times[k] + ends[k]) / 2, 1))
    found = sorted(set(picked))
    even = (round(until * (i + 1) / MOMENTS, 1) for i in range(MOMENTS))
    for t in even:  # fewer changes than moments: evenly spaced ones as well
        if len(found) >= MOMENTS:
            break
        found = sorted({*found, t})
    return found[:MOMENTS]


def record(text: str, actions: list[tuple[float, dict[str, Any]]], until: float) -> dict:
    moments = moments_of(text, actions, until)
    session = Session(Simulation.from_yaml(text), end=3600, session_id="moments")
    pending = list(actions)
    out: list[dict[str, Any]] = []
    snap: dict[str, Any] = {}
    for at in moments:
        while pending and pending[0][0] <= at:
            when, action = pending.pop(0)
            session.run_until(when)
            session.act(action)
        session.run_until(at)
        snap = session.snapshot(advance_seq=True)
        seqs = [t["seq"] for t in snap["transitions"]]
        out.append({
            "now": snap["now"],
            "seq": max(seqs) if seqs else -1,
            "pod": snap["pod"],
            "endpointSlices": snap["endpointSlices"],
            **({"cluster": {"focusWasEndpoint": snap["cluster"]["focusWasEndpoint"]}}
               if snap.get("cluster") else {}),
        })  # fmt: skip
    return {"transitions": snap.get("transitions", []), "moments": out}


def sources() -> dict[str, tuple[str, list, float]]:
    found: dict[str, tuple[str, list, float]] = {}
    for path in sorted(ROOT.glob("scenarios/**/*.yaml")):
        if path.parent == ROOT / "scenarios" / "plans":  # lesson plans, not scenarios
            continue
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(ROOT / "scenarios").with_suffix("")).replace("/", "--")
        found[name] = (text, [], LONGEST)
    found.update(DOCS)
    return found


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (text, actions, until) in sources().items():
        payload = record(text, actions, until)
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(payload, separators=(",", ":"), ensure_ascii=False) + "\n",
                        encoding="utf-8")  # fmt: skip
        times = [m["now"] for m in payload["moments"]]
        print(f"{path.relative_to(ROOT)}: {len(payload['transitions'])} transitions at {times}")


if __name__ == "__main__":
    main()
