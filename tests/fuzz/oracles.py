"""What every fuzzed input must end in: a valid run, or a located, localized refusal.

Each `check_*` function is the property of one suite; the Hypothesis tests and the
regression corpus (tests/fuzz/corpus.py) call the same function, so a corpus case fails
exactly as the generated input did.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from typing import Any

from webapp import i18n
from webapp.engine import ActionError, Simulation
from webapp.manifest import ScenarioError, localize_errors, parse_objects, parse_scenario
from webapp.manifest.messages import MESSAGES
from webapp.sessions import Session, wire

# A session's virtual-time end (SESSION_END_SECONDS): no run goes further.
HORIZON = 7200.0
# A valid scenario is run this far, or one second past its last scripted action.
RUN_SECONDS = 120.0
INT64 = 2**63
CJK = re.compile(r"[\u3400-\u9fff]")
SURROGATE = re.compile(r"[\ud800-\udfff]")


class Unsafe(AssertionError):
    """A value the server would send or store that a client cannot take."""


def assert_json_safe(value: Any, where: str = "$", *, int64: bool = True) -> None:
    """Finite numbers, integers within int64 (Kubernetes' widest; `int64=False` for text
    that only echoes what the user wrote), strings that are valid UTF-8 (no lone
    surrogates), JSON types only: what any JSON client accepts."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if int64 and not -INT64 <= value < INT64:
            raise Unsafe(f"{where}: integer outside int64 ({len(str(abs(value)))} digits)")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Unsafe(f"{where}: {value} is not a JSON number")
        return
    if isinstance(value, str):
        if SURROGATE.search(value):
            raise Unsafe(f"{where}: lone surrogate in {value[:40]!r}")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise Unsafe(f"{where}: non-string key {key!r}")
            assert_json_safe(key, f"{where}.<key>", int64=int64)
            assert_json_safe(item, f"{where}.{key}", int64=int64)
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            assert_json_safe(item, f"{where}[{i}]", int64=int64)
        return
    raise Unsafe(f"{where}: {type(value).__name__} is not JSON")


def assert_located(errors: list[dict[str, Any]], text: Any = None) -> None:
    """Every error has doc/path/line/column (inside `text` when given), a catalogued code,
    and a message in English and in Chinese."""
    assert errors, "a ScenarioError with no errors"
    # Lines as the editor counts them (CodeMirror splits on \r\n, \r and \n only).
    lines = (
        len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")) + 1
        if isinstance(text, str)
        else None
    )
    for error in errors:
        assert isinstance(error["doc"], int) and error["doc"] >= 0, error
        assert isinstance(error["path"], str), error
        assert isinstance(error["line"], int) and error["line"] >= 1, error
        assert lines is None or error["line"] <= lines, error
        assert isinstance(error["column"], int) and error["column"] >= 1, error
        assert error["code"] in MESSAGES, f"uncatalogued error code {error['code']!r}"
        assert isinstance(error["message"], str) and error["message"], error
    for language in ("en", "zh"):
        localized = localize_errors(errors, language)
        for error in localized:
            assert error["message"] and error["message"] != error["code"], error
        assert_json_safe(localized, f"errors[{language}]", int64=False)
    json.dumps(errors, allow_nan=False)


def run_valid(scenario: Any) -> dict[str, Any]:
    """Run a valid scenario as a session would (to RUN_SECONDS or past its last scripted
    action, never past the horizon) and return its snapshot, checked JSON-safe."""
    # Validated at the door: the objects as written, and the normalised Simulation.
    for kind in ("pod", "nodes", "services", "config_maps", "secrets"):
        assert_json_safe(getattr(scenario, kind), f"scenario.{kind}", int64=False)
    assert_json_safe(scenario.simulation, "scenario.simulation")
    sim = Simulation.from_scenario(scenario, seed=0)
    session = Session(sim, end=HORIZON)
    due = [s["at"] for s in scenario.simulation.get("script") or [] if s["at"] <= HORIZON]
    session.seek(min(HORIZON, max([RUN_SECONDS, *(t + 1 for t in due)])))
    snapshot = session.snapshot(advance_seq=True)
    assert_json_safe(snapshot, "snapshot")
    json.loads(wire.encode(snapshot))
    return snapshot


def check_scenario_text(text: Any) -> None:
    """parse_scenario ends in a Scenario that runs, or a located, localized ScenarioError."""
    try:
        scenario = parse_scenario(text)
    except ScenarioError as error:
        assert_located(error.errors, text)
        return
    run_valid(scenario)


def check_objects_text(text: Any) -> None:
    """parse_objects (the `apply` action) ends in JSON-safe objects or a located error."""
    try:
        objects = parse_objects(text)
    except ScenarioError as error:
        assert_located(error.errors, text)
        return
    assert objects
    assert_json_safe(objects, "objects", int64=False)


def assert_action_refusal(error: ActionError) -> None:
    """A refused action says why in both languages, with JSON-safe parameters."""
    assert error.code in i18n.ACTION_REFUSALS, f"uncatalogued action refusal {error.code!r}"
    params = {k: v for k, v in error.params.items() if k != "errors"}
    for language in ("en", "zh"):
        text = i18n.action_refusal(error.code, language, str(error), **params)
        template = i18n.ACTION_REFUSALS[error.code][language]
        assert text and ("{" not in template or text != template), f"unfilled: {text}"
        if language == "zh":
            assert CJK.search(text), text
        assert_json_safe(text, f"refusal[{language}]")
    if "errors" in error.params:
        assert_located(error.params["errors"])


def fingerprint(sim: Any) -> str:
    """Everything observable about a Simulation, as one string."""
    return wire.encode(
        {
            "now": sim.now,
            "next": sim.next_event_time(),
            "trace": sim.trace(),
            "actions": sim.actions,
            "versions": [[t, kind, pod] for t, kind, pod in sim.pod_versions],
            "nodes": sim.nodes(),
        }
    )


# --- actions ---------------------------------------------------------------------------

PROBED = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: nginx:1.27
    startupProbe: {exec: {command: ["true"]}, periodSeconds: 2}
    livenessProbe: {exec: {command: ["true"]}, periodSeconds: 5}
    readinessProbe: {exec: {command: ["true"]}, periodSeconds: 5}
    lifecycle:
      preStop: {exec: {command: [sleep, "3"]}}
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
metadata: {name: probed}
containers:
  app: {sigtermSeconds: 2}
"""
# The bases an action is tried on: one container with every probe, a hook and a Service;
# a sidecar, an init container and an app (the built-in `sidecar`); the smallest Pod.
ACTION_BASES = ("probed", "sidecar", "plain")
_parsed: dict[str, Any] = {}


def action_base(name: str) -> Any:
    """The parsed Scenario of an action base (parsed once)."""
    if name not in _parsed:
        from tests.fuzz.strategies import BUILTIN_TEXTS
        from tests.samples import POD

        text = {"probed": PROBED, "sidecar": BUILTIN_TEXTS["sidecar"], "plain": POD}[name]
        _parsed[name] = parse_scenario(text)
    return _parsed[name]


def prepared(base: str, at: float, before: list[dict[str, Any]]) -> Simulation:
    """A Simulation of `base` run to `at`, with the actions `before` applied there (those
    that do not apply at that moment are skipped)."""
    sim = Simulation.from_scenario(action_base(base), seed=0)
    sim.advance(at)
    for action in before:
        with contextlib.suppress(ActionError):
            sim.act(dict(action))
    return sim


def check_action(base: str, at: float, before: list[dict[str, Any]], action: Any) -> None:
    """Simulation.act ends in an accepted action (the run goes on, JSON-safe, and replays
    to the same state from its action log) or an ActionError that says why in en and zh
    and leaves the simulation exactly as it was (same state now, same future)."""
    import copy

    sim = prepared(base, at, before)
    twin = prepared(base, at, before)
    assert fingerprint(sim) == fingerprint(twin)
    try:
        sim.act(copy.deepcopy(action))
    except ActionError as error:
        assert_action_refusal(error)
        assert fingerprint(sim) == fingerprint(twin), "a refused action changed the simulation"
        sim.advance(60)
        twin.advance(60)
        assert fingerprint(sim) == fingerprint(twin), "a refused action changed the future"
        return
    assert_json_safe(sim.actions[-1], "logged action")
    replayed = Simulation.replay(action_base(base), copy.deepcopy(sim.actions), until=sim.now)
    assert fingerprint(replayed) == fingerprint(sim), "the action log does not replay"
    session = Session(sim, end=HORIZON)
    session.seek(sim.now + 60)
    assert_json_safe(session.snapshot(advance_seq=True), "snapshot after the action")
