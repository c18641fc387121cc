"""`pod-playground trace`: watch lines and events, JSON, actions, located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp.trace_cli import UsageError, main, parse_act

PLAIN = Path(__file__).resolve().parents[2] / "scenarios" / "plain-pod.yaml"


def test_prints_watch_lines_then_events(capsys):
    assert main([str(PLAIN), "--for", "30"]) == 0
    out = capsys.readouterr().out
    watch, events = out.split("\n\n", 1)
    assert watch.splitlines()[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert "Running" in watch.splitlines()[-1]
    assert events.splitlines()[0].split()[:3] == ["LAST", "SEEN", "TYPE"]
    assert "Successfully assigned default/web to node-1" in events


def test_json_trace_with_an_action(capsys):
    assert (
        main([str(PLAIN), "--for", "60", "--act", "30:delete:gracePeriodSeconds=5", "--json"]) == 0
    )
    trace = json.loads(capsys.readouterr().out)
    assert set(trace) == {"pod", "events", "transitions", "endpointSlices"}
    assert trace["pod"] is None
    assert any(t["step"] == "removed" for t in trace["transitions"])


def test_bad_file_prints_located_errors_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: a\n"
    )
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:6:")


def test_invalid_action_exits_2(capsys):
    assert main([str(PLAIN), "--act", "5:crash:container=nope"]) == 2
    assert "no container named" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30:delete", {"at": 30.0, "action": "delete"}),
        ("5:delete:force=true:gracePeriodSeconds=0", {"at": 5.0, "action": "delete", "force": True, "gracePeriodSeconds": 0}),
        ("1.5:set-probe:container=app:probe=liveness:healthy=false",
         {"at": 1.5, "action": "set-probe", "container": "app", "probe": "liveness", "healthy": False}),
    ],
)  # fmt: skip
def test_parse_act(text, expected):
    assert parse_act(text) == expected


@pytest.mark.parametrize("text", ["delete", "x:delete", "3:delete:force"])
def test_parse_act_rejects_malformed(text):
    with pytest.raises(UsageError):
        parse_act(text)
