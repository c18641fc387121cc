"""Compact probe runs (issue 12): a probe result that repeats unchanged, one period later,
extends its run's ``repeat`` instead of adding a transition; sessions send new items and
the runs that grew; expanding the runs gives back every probe run."""

from __future__ import annotations

import json

from tests.unit.engine_support import pod_yaml, scenario, simulation_doc
from webapp.engine import Simulation
from webapp.engine.core.transitions import TransitionLog, expand_runs
from webapp.sessions.session import Session

PROBED = """\
- name: app
  image: nginx:1.27
  readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
  livenessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 2}
"""
TEXT = scenario(pod_yaml(PROBED), simulation_doc("images:\n  nginx:1.27: {pullSeconds: 1}\n"))


def probe(log: TransitionLog, ms: int, result: str = "success", before: str | None = "success"):
    log.record(ms, "readiness", "Container/app", "probe.readiness", before, result,
               f"Readiness probe {'succeeded' if result == 'success' else 'failed'}",
               container="app")  # fmt: skip


def test_a_run_repeats_at_one_period_and_breaks_on_a_change_or_a_gap():
    log = TransitionLog()
    probe(log, 1000, before=None)  # the first result: before differs, an item of its own
    for ms in (2000, 3000, 4000, 5000):
        probe(log, ms)
    assert [item.get("repeat") for item in log.items] == [
        None,
        {"every": 1.0, "count": 4, "until": 5.0},
    ]
    probe(log, 7000)  # a gap: a new run
    probe(log, 8000, "failure")  # a change: a plain item, and the next failure starts a run
    probe(log, 9000, "failure", "failure")
    probe(log, 10000, "failure", "failure")
    assert [(i["t"], i["after"], i.get("repeat")) for i in log.items[2:]] == [
        (7.0, "success", None),
        (8.0, "failure", None),
        (9.0, "failure", {"every": 1.0, "count": 2, "until": 10.0}),
    ]
    assert [i["seq"] for i in log.items] == list(range(len(log.items)))


def test_expanding_the_runs_gives_every_probe_run():
    log = TransitionLog()
    probe(log, 1000, before=None)
    for ms in range(2000, 11000, 1000):
        probe(log, ms)
    expanded = expand_runs(log.items)
    assert [i["t"] for i in expanded] == [float(s) for s in range(1, 11)]
    assert all("repeat" not in i for i in expanded)


def test_an_hour_of_steady_probes_is_a_handful_of_transitions():
    sim = Simulation.from_yaml(TEXT)
    sim.advance(3600)
    probes = [t for t in sim.transitions if t["field"].startswith("probe.")]
    assert len(probes) < 10
    readiness = [t for t in expand_runs(sim.transitions) if t["field"] == "probe.readiness"]
    assert len(readiness) > 3500
    assert len(json.dumps(sim.trace()["transitions"])) < 20_000


def test_the_revision_moves_with_every_longer_run_and_names_the_runs_that_grew():
    sim = Simulation.from_yaml(TEXT)
    sim.advance(30)
    count, revision = len(sim.transitions), sim.revision
    sim.advance(10)
    assert len(sim.transitions) == count  # nothing new: only longer runs
    assert sim.revision > revision
    grown = sim.runs_extended_since(revision)
    assert {t["field"] for t in grown} == {"probe.readiness", "probe.liveness"}
    assert all(t["repeat"]["until"] > 30 for t in grown)
    assert sim.runs_extended_since(sim.revision) == []


def test_a_session_tick_carries_new_transitions_and_the_runs_that_grew():
    session = Session(Simulation.from_yaml(TEXT), end=3600)
    session.run_until(30)
    snapshot = json.loads(json.dumps(session.snapshot(advance_seq=True)))
    tab = {t["seq"]: t for t in snapshot["transitions"]}
    for second in range(31, 61):
        session.run_until(second)
        tick = session.tick()
        assert tick is not None
        for item in tick["transitions"]:
            tab[item["seq"]] = json.loads(json.dumps(item))
        for run in tick["runs"]:
            assert run["seq"] in tab
            tab[run["seq"]] = {**tab[run["seq"]], "repeat": run["repeat"]}
    # The tab now holds exactly what a fresh snapshot would send.
    fresh = json.loads(json.dumps(session.snapshot(advance_seq=True)["transitions"]))
    assert [tab[seq] for seq in sorted(tab)] == fresh
