"""KUBERNETES-SEMANTICS §3.5 and §5: started / ready, probe ticks, probe kills.

Each case names the rule of the semantics document it pins down.
"""

from __future__ import annotations

import pytest

from tests.unit.engine_support import (
    container_status,
    events,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    transitions,
)

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n"


def probed(probes: str, behaviour: str = "{}", spec_extra: str = "") -> str:
    container = "- name: app\n  image: nginx:1.27\n" + "".join(
        "  " + line + "\n" for line in probes.strip("\n").splitlines()
    )
    return scenario(
        pod_yaml(container, spec_extra=spec_extra),
        simulation_doc(f"containers:\n  app: {behaviour}\n" + IMAGES),
    )


def started_ready(sim) -> tuple[bool, bool]:
    status = container_status(sim)
    return status["started"], status["ready"]


# §3.5: started / ready with and without startup / readiness probes. The container runs
# from t=3 (sandbox 1 s, pull 2 s); the workers tick at 0, 5, 10 … from AddPod.
@pytest.mark.parametrize(
    ("probes", "at", "want"),
    [
        ("", 3.5, (True, True)),  # no probes: started and ready as soon as running
        # readiness not Success yet: UpdatePodStatus triggers an immediate run (manualTriggerCh)
        ("readinessProbe: {exec: {command: ['true']}, periodSeconds: 5}", 3.5, (True, True)),
        ("startupProbe: {exec: {command: ['true']}, periodSeconds: 5}", 3.5, (False, False)),
        ("startupProbe: {exec: {command: ['true']}, periodSeconds: 5}", 5.5, (True, True)),
        (
            "startupProbe: {exec: {command: ['true']}, periodSeconds: 5}\n"
            "readinessProbe: {exec: {command: ['true']}, periodSeconds: 5}",
            5.5,
            (True, True),  # started at 5 triggers the readiness worker at once (manual run)
        ),
    ],
)
def test_started_and_ready_follow_the_probes(probes, at, want):
    sim = simulate(probed(probes), at)
    assert started_ready(sim) == want


def test_readiness_starts_as_failure_until_a_success():
    sim = simulate(
        probed(
            "readinessProbe: {exec: {command: ['true']}, periodSeconds: 5}",
            "{probes: {readiness: failing}}",
        ),
        3.5,
    )
    assert started_ready(sim) == (True, False)
    sim.act({"action": "set-probe", "container": "app", "probe": "readiness", "healthy": True})
    sim.advance(2)  # the next tick, at 5
    assert started_ready(sim) == (True, True)


@pytest.mark.parametrize(
    ("probe", "delay", "first"),
    [
        ("livenessProbe", 0, 5.0),  # running at 3, the next tick of 0, 5, 10 …
        ("livenessProbe", 4, 10.0),  # 5 - 3 = 2 s < 4: skipped; 10 - 3 = 7 s ≥ 4
        ("livenessProbe", 7, 10.0),  # exactly at the delay: not skipped
        ("startupProbe", 0, 5.0),
        ("readinessProbe", 0, 3.0),  # no result yet: UpdatePodStatus triggers a run
    ],
)
def test_first_probe_is_on_the_first_tick_after_the_initial_delay(probe, delay, first):
    sim = simulate(
        probed(
            f"{probe}: {{exec: {{command: ['true']}}, periodSeconds: 5, "
            f"initialDelaySeconds: {delay}}}"
        ),
        30,
    )
    kind = probe.removesuffix("Probe")
    runs = transitions(sim, field=f"probe.{kind}")
    assert runs[0]["t"] == first


def test_liveness_and_readiness_wait_for_started():
    sim = simulate(
        probed(
            "startupProbe: {exec: {command: ['true']}, periodSeconds: 10}\n"
            "livenessProbe: {exec: {command: ['true']}, periodSeconds: 1}\n"
            "readinessProbe: {exec: {command: ['true']}, periodSeconds: 1}"
        ),
        20,
    )
    startup = transitions(sim, field="probe.startup")
    assert [t["t"] for t in startup] == [10.0]  # started at 10; startup probes stop then
    for kind in ("liveness", "readiness"):
        assert all(t["t"] >= 10.0 for t in transitions(sim, field=f"probe.{kind}"))


@pytest.mark.parametrize(
    ("kind", "policy", "message"),
    [
        ("liveness", "Always", "Container app failed liveness probe, will be restarted"),
        ("liveness", "OnFailure", "Container app failed liveness probe, will be restarted"),
        ("liveness", "Never", "Container app failed liveness probe"),
        ("startup", "Always", "Container app failed startup probe, will be restarted"),
        ("startup", "Never", "Container app failed startup probe"),
    ],
)
def test_probe_kill_messages(kind, policy, message):
    sim = simulate(
        probed(
            f"{kind}Probe: {{exec: {{command: ['true']}}, periodSeconds: 5, failureThreshold: 2}}",
            f"{{probes: {{{kind}: failing}}}}",
            spec_extra=f"restartPolicy: {policy}",
        ),
        16,
    )
    killing = events(sim, "Killing")
    assert [(e["type"], e["message"]) for e in killing] == [("Normal", message)]
    unhealthy = events(sim, "Unhealthy")
    assert {e["type"] for e in unhealthy} == {"Warning"}
    assert all(e["message"].startswith(f"{kind.capitalize()} probe failed: ") for e in unhealthy)


def test_readiness_failure_never_restarts():
    sim = simulate(
        probed(
            "readinessProbe: {exec: {command: ['true']}, periodSeconds: 5}",
            "{probes: {readiness: failing}}",
        ),
        120,
    )
    assert events(sim, "Killing") == []
    assert container_status(sim)["restartCount"] == 0
    assert started_ready(sim) == (True, False)


@pytest.mark.parametrize(
    ("probe_grace", "spec_grace", "want"),
    [
        ("", "", "SIGKILL in 30s"),  # the spec's default
        ("", "terminationGracePeriodSeconds: 12", "SIGKILL in 12s"),
        (
            "terminationGracePeriodSeconds: 5, ",
            "terminationGracePeriodSeconds: 12",
            "SIGKILL in 5s",
        ),
    ],
)
def test_probe_kill_grace_is_the_probes_else_the_specs(probe_grace, spec_grace, want):
    sim = simulate(
        probed(
            f"livenessProbe: {{exec: {{command: ['true']}}, {probe_grace}periodSeconds: 5, "
            "failureThreshold: 1}",
            "{probes: {liveness: failing}, ignoreSigterm: true}",
            spec_extra=spec_grace,
        ),
        6,
    )
    sigterm = transitions(sim, field="signal", after="SIGQUIT")  # nginx's STOPSIGNAL
    assert [t["t"] for t in sigterm] == [5.0]
    assert want in sigterm[0]["cause"]


def test_deletion_grace_beats_the_probes_grace():
    """setTerminationGracePeriod: deletionGracePeriodSeconds wins over the probe's value."""
    sim = simulate(
        probed(
            "livenessProbe: {exec: {command: ['true']}, terminationGracePeriodSeconds: 5, "
            "periodSeconds: 5, failureThreshold: 1}"
        ),
        4,
    )
    sim.act({"action": "delete", "gracePeriodSeconds": 20})
    assert sim.kubelet.probe_kill_grace_seconds(5) == 20


def test_probe_kill_backoff_counts_from_the_exit_before_the_kill():
    """doBackOff reads the podStatus the sync started from, where the container it just
    killed was still running: the first kill restarts at once without starting a back-off,
    later ones are measured from the previous kill's finishedAt (§4, §5.3).

    Startup probe every 5 s, threshold 2, container running from 3: kills at 10, 20, 30
    (20 - 10 and 30 - 20 are not inside the 10 s window), then 40 - 30 < 20 s: the kill at
    40 waits until 40 + 20; the exit it caused brings a sync that shows CrashLoopBackOff."""
    sim = simulate(
        probed(
            "startupProbe: {exec: {command: ['true']}, periodSeconds: 5, failureThreshold: 2}",
            "{probes: {startup: failing}}",
        ),
        61,
    )
    kills = [e for e in sim.transitions if e["field"] == "signal"]
    starts = [t["t"] for t in transitions(sim, field="runtime", after="started")]
    assert [t["t"] for t in kills] == [10.0, 20.0, 30.0, 40.0]
    assert starts == [3.0, 10.0, 20.0, 30.0, 60.0]
    waits = [
        t for t in transitions(sim, field="state") if t["after"]["reason"] == "CrashLoopBackOff"
    ]
    assert [(t["t"], t.get("seconds")) for t in waits] == [(40.0, 20.0)]
