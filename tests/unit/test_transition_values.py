"""Transition records keep recurring values once (webapp/engine/core/transitions.py): equal
flat before/after dicts are one object, names and causes one string, and nothing a record
says changes (JSON, types: True is not 1)."""

from __future__ import annotations

import json

from webapp.engine.core.transitions import TransitionLog


def _state(kind: str, code: object = None) -> dict:
    return {"state": kind, "reason": None if code is None else "Error", "exitCode": code}


def test_equal_values_are_kept_once_and_say_the_same() -> None:
    log = TransitionLog()
    expected = []
    for i in range(50):
        name = f"c{i % 3}"
        before, after = _state("running"), _state("terminated", 1)
        cause = "Exited with code " + str(1) + " (Error)"  # a new string every time
        log.record(i * 1000, "exit", f"Container/{name}", "state", before, after, cause,
                   container=name)  # fmt: skip
        expected.append((dict(before), dict(after), cause))
    items = log.items
    assert [(t["before"], t["after"], t["cause"]) for t in items] == expected
    assert len({id(t["before"]) for t in items}) == 1
    assert len({id(t["after"]) for t in items}) == 1
    assert len({id(t["cause"]) for t in items}) == 1
    assert len({id(t["object"]) for t in items}) == 3


def test_values_equal_in_python_but_not_in_json_stay_apart() -> None:
    log = TransitionLog()
    log.record(0, "exit", "Container/a", "state", None, {"state": "x", "exitCode": 1}, "c")
    log.record(1000, "exit", "Container/a", "state", None, {"state": "x", "exitCode": True}, "c")
    log.record(2000, "exit", "Container/a", "state", None, {"state": "x", "exitCode": 1.0}, "c")
    assert [json.dumps(t["after"]) for t in log.items] == [
        '{"state": "x", "exitCode": 1}',
        '{"state": "x", "exitCode": true}',
        '{"state": "x", "exitCode": 1.0}',
    ]
