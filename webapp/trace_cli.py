"""``pod-playground trace FILE``: run a scenario without a browser.

    pod-playground trace FILE [--for SECONDS] [--act AT:ACTION[:key=value...]] [--json]

Prints the ``kubectl get pods -w`` lines and ``kubectl get events`` at the end, or the JSON
trace. ``--act 30:delete:gracePeriodSeconds=10`` applies a user action at virtual second 30
(``yaml=@file`` reads a file for ``apply``). A scenario with errors prints each as
``file:line:column: message`` on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_SECONDS = 120.0


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pod-playground trace", description="Run a scenario and print what kubectl shows."
    )
    parser.add_argument("file", help="scenario YAML file")
    parser.add_argument("--for", dest="seconds", type=float, default=DEFAULT_SECONDS,
                        help=f"virtual seconds to run (default {DEFAULT_SECONDS:g})")  # fmt: skip
    parser.add_argument("--act", action="append", default=[], metavar="AT:ACTION[:key=value...]",
                        help="a user action at a virtual second; repeatable")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the JSON trace")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    return parser


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_act(text: str) -> dict:
    """``30:delete:gracePeriodSeconds=10`` → ``{"at": 30, "action": "delete", ...}``."""
    parts = text.split(":")
    if len(parts) < 2:
        raise UsageError(f"--act {text!r}: expected AT:ACTION[:key=value...]")
    try:
        at = float(parts[0])
    except ValueError:
        raise UsageError(f"--act {text!r}: {parts[0]!r} is not a number of seconds") from None
    action: dict[str, Any] = {"at": at, "action": parts[1]}
    for pair in parts[2:]:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--act {text!r}: {pair!r} is not key=value")
        if raw.startswith("@"):
            try:
                action[key] = Path(raw[1:]).read_text(encoding="utf-8")
            except OSError as error:
                raise UsageError(
                    f"--act {text!r}: cannot read {raw[1:]}: {error.strerror}"
                ) from None
        else:
            action[key] = _value(raw)
    return action


def located_errors(path: str, errors: list[dict]) -> list[str]:
    return [
        f"{path}:{e.get('line', 1)}:{e.get('column', 1)}: {e.get('message', '')}" for e in errors
    ]


def main(argv: list[str]) -> int:
    from webapp.engine import ActionError, ScenarioError, Simulation
    from webapp.kubectl import get_events, watch_lines

    args = _parser().parse_args(argv)
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except OSError as error:
        print(f"{args.file}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        actions = sorted((parse_act(a) for a in args.act), key=lambda a: a["at"])
        sim = Simulation.from_yaml(text, seed=args.seed)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ScenarioError as error:
        print("\n".join(located_errors(args.file, error.errors)), file=sys.stderr)
        return 2
    for action in actions:
        if action["at"] > args.seconds:
            break
        sim.advance(action["at"] - sim.now)
        try:
            sim.act({k: v for k, v in action.items() if k != "at"})
        except ActionError as error:
            print(
                f"error: at {action['at']:g}s, {action['action']}: {error.message}", file=sys.stderr
            )
            return 2
    sim.advance(args.seconds - sim.now)
    if args.json:
        print(json.dumps(sim.trace(), sort_keys=True, indent=2))
        return 0
    versions = [(sim.wall_time(t), kind, pod) for t, kind, pod in sim.pod_versions]
    print("\n".join(watch_lines(versions)))
    print()
    print(get_events(sim.events(), sim.wall_time()), end="")
    return 0
