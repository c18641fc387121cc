"""Traffic follows the process model where it knows the program (engine/traffic.py):
a request is accepted while a process of the Pod listens on the Service's target port;
where the model does not know (an unknown image, a Simulation document that sets the stop
behaviour) the older rule holds: running and not yet sent its stop signal."""

from __future__ import annotations

import pytest

from webapp.engine import Simulation

SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports:
  - {port: 80, targetPort: PORT}
---
"""


def deployment(container: str, replicas: int = 2) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - {container}
---
"""


NGINX = '{name: app, image: "nginx:1.27", ports: [{containerPort: 80}]}'
# Python leaves SIGTERM at SIG_DFL: as PID 1 it is dropped, http.server keeps serving
PYTHON = ('{name: app, image: "python:3.12", command: [python3, -m, http.server, "8000"], '
          "ports: [{containerPort: 8000}]}")  # fmt: skip
# a shell as PID 1 ignores SIGTERM; its background httpd never gets it
SHELL = ('{name: app, image: "busybox:1.36", command: [sh, -c, "httpd -f -p 8080 & wait"], '
         "ports: [{containerPort: 8080}]}")  # fmt: skip
UNKNOWN = '{name: app, image: "example.com/shop/web:1", ports: [{containerPort: 80}]}'
PORTS = {NGINX: 80, PYTHON: 8000, SHELL: 8080, UNKNOWN: 80}


def run(container: str, document: str = "", replicas: int = 2) -> Simulation:
    text = deployment(container, replicas) + SERVICE.replace("PORT", str(PORTS[container]))
    text += ("apiVersion: playground/v1\nkind: Simulation\nmetadata: {name: t}\n"
             "traffic: {service: web, rps: 20}\n" + document)  # fmt: skip
    sim = Simulation.from_yaml(text)
    sim.advance(20)
    return sim


def accepts(sim: Simulation, name: str) -> bool:
    return sim.traffic_client._listening(name)


def delete_one(sim: Simulation) -> str:
    name = sorted(sim.runs)[0]
    sim.act({"action": "delete", "name": name})
    return name


@pytest.mark.parametrize(
    ("container", "after_stop_signal"),
    [
        (NGINX, False),  # SIGQUIT: nginx closes its listening sockets, then exits
        (PYTHON, True),  # keeps accepting until SIGKILL
        (SHELL, True),
        (UNKNOWN, False),  # not known: the old rule (its stop signal closes it)
    ],
)
def test_a_pod_accepts_until_its_process_stops_listening(container, after_stop_signal) -> None:
    sim = run(container)
    name = delete_one(sim)
    assert sim.runs[name].kubelet is not None
    sim.advance(0.5)
    assert accepts(sim, name) is after_stop_signal
    if after_stop_signal:
        assert "deletionTimestamp" in sim.pod(name)["metadata"]  # Terminating, still serving
        sim.advance(29)  # still before the 30 s grace period ends
        assert accepts(sim, name)
        sim.advance(1)  # SIGKILL
        assert not accepts(sim, name)


def test_the_simulation_document_overrides_the_model() -> None:
    doc = "containers:\n  app: {ignoreSigterm: true}\n"
    sim = run(NGINX, doc)
    name = delete_one(sim)
    sim.advance(0.5)
    assert accepts(sim, name)  # the document says it ignores SIGTERM: the old rule


def test_a_server_on_another_port_than_the_services_refuses() -> None:
    text = deployment(NGINX, 1) + SERVICE.replace("PORT", "8080")
    text += "apiVersion: playground/v1\nkind: Simulation\nmetadata: {name: t}\n"
    text += "traffic: {service: web, rps: 20}\n"
    sim = Simulation.from_yaml(text)
    sim.advance(20)
    (name,) = sim.runs
    assert not accepts(sim, name)  # nginx listens on 80 only: connection refused
    assert sim.traffic()["failed"] > 0


def test_requests_to_a_terminating_pod_that_ignores_sigterm_do_not_fail() -> None:
    failed = {}
    for container in (NGINX, PYTHON):
        sim = run(container)
        before = sim.traffic()["failed"]
        delete_one(sim)
        sim.advance(10)
        failed[container] = sim.traffic()["failed"] - before
    # nginx stops accepting at once while the proxies still route to it for a second
    assert failed[NGINX] > 0
    assert failed[PYTHON] == 0
