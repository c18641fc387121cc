"""The most expensive scenario that is valid within the playground's limits (issue 12).

A Pod with the maximum number of containers (MAX_CONTAINERS), each with a startup, a
liveness and a readiness probe that exec a command every second. Shared by the fuzz suite,
the denial-of-service suite and bench/hardening.py.
"""

from __future__ import annotations

from webapp.manifest.rules import MAX_CONTAINERS

PROBES = ("startupProbe", "livenessProbe", "readinessProbe")


def worst_pod(containers: int = MAX_CONTAINERS, period_seconds: int = 1) -> str:
    """The scenario text: `containers` containers x 3 exec probes every `period_seconds`."""
    lines = [
        "apiVersion: v1",
        "kind: Pod",
        "metadata:",
        "  name: worst",
        "spec:",
        "  containers:",
    ]
    for i in range(containers):
        lines += [f"  - name: c{i}", "    image: busybox:1.36", "    command: [sleep, infinity]"]
        for probe in PROBES:
            lines += [
                f"    {probe}:",
                "      exec:",
                '        command: ["true"]',
                f"      periodSeconds: {period_seconds}",
            ]
    return "\n".join(lines) + "\n"


WORST_POD = worst_pod()


def crash_loop_pod(containers: int = MAX_CONTAINERS) -> str:
    """The worst pod, but every container also exits with code 1 after 5 + i seconds: the
    containers crash-loop out of step, so the kubelet syncs about once a second and there is
    little steady probing to coast over (bench/seek.py's `crash-loop` scenario)."""
    exits = "".join(
        f"  c{i}: {{exitAfterSeconds: {5 + i}, exitCode: 1}}\n" for i in range(containers)
    )
    return (
        worst_pod(containers)
        + "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: crash-loop}\n"
        + "containers:\n"
        + exits
    )


CRASH_LOOP_POD = crash_loop_pod()


def cluster_crash_loop(replicas: int, containers: int, probes: int = 3, period: int = 1) -> str:
    """A Deployment of `replicas` Pods of `containers` containers, each with `probes` exec
    probes every `period` seconds, each container exiting after 5 + i s (issue 26's F1 run
    at 100 x 20 x 3)."""
    lines = ["apiVersion: apps/v1", "kind: Deployment", "metadata: {name: web}", "spec:",
             f"  replicas: {replicas}", "  selector: {matchLabels: {app: web}}",
             "  template:", "    metadata: {labels: {app: web}}", "    spec:",
             "      containers:"]  # fmt: skip
    for i in range(containers):
        lines += [f"      - name: c{i}", "        image: busybox:1.36",
                  "        command: [sleep, infinity]"]  # fmt: skip
        for probe in PROBES[:probes]:
            lines += [f"        {probe}:", '          exec: {command: ["true"]}',
                      f"          periodSeconds: {period}"]  # fmt: skip
    exits = "".join(
        f"  c{i}: {{exitAfterSeconds: {5 + i}, exitCode: 1}}\n" for i in range(containers)
    )
    return (
        "\n".join(lines)
        + "\n---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: heavy}\n"
        + "containers:\n"
        + exits
    )
