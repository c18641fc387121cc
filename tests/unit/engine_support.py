"""Helpers shared by the engine tests: build scenarios, query transitions and events."""

from __future__ import annotations

import textwrap

from webapp.engine import Simulation
from webapp.engine.core.transitions import expand_runs


def pod_yaml(containers: str, *, spec_extra: str = "", init: str = "", name: str = "web") -> str:
    """A Pod document with the given (already indented) container list."""
    text = f"""\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels:
    app: web
spec:
"""
    if spec_extra:
        text += textwrap.indent(textwrap.dedent(spec_extra).strip("\n"), "  ") + "\n"
    if init:
        text += (
            "  initContainers:\n" + textwrap.indent(textwrap.dedent(init).strip("\n"), "  ") + "\n"
        )
    text += (
        "  containers:\n" + textwrap.indent(textwrap.dedent(containers).strip("\n"), "  ") + "\n"
    )
    return text


def simulation_doc(body: str) -> str:
    return (
        "apiVersion: playground/v1\nkind: Simulation\nmetadata:\n  name: test\n"
        + textwrap.dedent(body).strip("\n")
        + "\n"
    )


def scenario(*documents: str) -> str:
    return "---\n".join(documents)


def simulate(text: str, seconds: float = 0, seed: int = 0) -> Simulation:
    sim = Simulation.from_yaml(text, seed=seed)
    if seconds:
        sim.advance(seconds)
    return sim


APP = """\
- name: app
  image: nginx:1.27
"""


def status_in(pod: dict, name: str = "app") -> dict:
    """The status of container `name` in a Pod object (init or app container)."""
    for key in ("initContainerStatuses", "containerStatuses"):
        for status in pod.get("status", {}).get(key) or []:
            if status["name"] == name:
                return status
    raise KeyError(name)


def container_status(sim: Simulation, name: str = "app") -> dict:
    pod = sim.pod()
    assert pod is not None
    return status_in(pod, name)


def last_container_status(sim: Simulation, name: str = "app") -> dict:
    """The container's status in the Pod's last version, also once the Pod is gone."""
    return status_in(sim.pod_versions[-1][2], name)


def state_of(sim: Simulation, name: str = "app") -> tuple[str, str | None]:
    (kind, detail), *_ = container_status(sim, name)["state"].items()
    return kind, detail.get("reason")


def condition(sim: Simulation, type_: str) -> dict:
    pod = sim.pod()
    assert pod is not None
    return next(c for c in pod["status"]["conditions"] if c["type"] == type_)


def events(sim: Simulation, reason: str | None = None) -> list[dict]:
    return [e for e in sim.events() if reason is None or e["reason"] == reason]


def transitions(sim: Simulation, **match) -> list[dict]:
    """The matching transitions, probe runs expanded into one item per run (by time)."""
    return [t for t in expand_runs(sim.transitions) if all(t.get(k) == v for k, v in match.items())]


def state_changes(sim: Simulation, name: str = "app") -> list[tuple[float, str, str | None]]:
    """(t, state, reason) each time the API state of a container changed."""
    return [
        (t["t"], t["after"]["state"], t["after"]["reason"])
        for t in transitions(sim, field="state", container=name)
    ]
