"""Hardening figures of issue 12 for the worst valid scenario. Prints figures, asserts nothing.

    python bench/hardening.py [--storm-seconds 15] [--silent-seconds 30] [--half-open 3000]
                              [--share-seconds 10] [--only engine|storm|silent|half-open|share]

The worst valid scenario (tests/worst_case.py): a Pod with MAX_CONTAINERS containers, each
with a startup, a liveness and a readiness probe that exec a command every second.

In this process (CPU time via time.process_time, memory via tracemalloc):
- seek cost of a session: 0 -> 7200 s, back to 3600 s, forward to 7200 s again;
- transitions, snapshot size (JSON bytes) and session memory at the horizon (7200 s).
Against a real server (`python -m webapp --port 0`, tests/dos/harness.py):
- the longest update gap of a legitimate player (plain-pod at 1x) while 1 and then 3
  attackers seek back and forth on the worst scenario;
- server RSS after `--silent-seconds` of a client that never reads, its session playing the
  worst scenario at 100x;
- server threads held by `--half-open` half-open HTTP requests (fewer if the fd limit is
  lower);
- a share link with `at: 1e9` on a Pod probed every second: POST answer, and whether
  opening it answers within `--share-seconds` (server RSS and CPU meanwhile).
Every server run is capped: RLIMIT_AS, and a watchdog that kills it past 1.5 GB RSS.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.dos.harness import (  # noqa: E402
    LiveServer,
    Player,
    RawClient,
    half_open_requests,
    wait_until,
)
from tests.worst_case import WORST_POD, worst_pod  # noqa: E402
from webapp.engine import Simulation  # noqa: E402
from webapp.manifest import parse_scenario  # noqa: E402
from webapp.sessions import Session, wire  # noqa: E402

HORIZON = 7200.0


def engine_figures() -> None:
    scenario = parse_scenario(WORST_POD)
    print(f"worst valid scenario: {len(WORST_POD.encode())} bytes of YAML, "
          f"{len(scenario.simulation['containers'])} containers x 3 exec probes, periodSeconds 1")  # fmt: skip
    session = Session(Simulation.from_scenario(scenario), end=HORIZON)
    for label, target in (
        ("seek 0 -> 7200 s", 7200.0),
        ("seek back 7200 -> 3600 s", 3600.0),
        ("seek 3600 -> 7200 s", 7200.0),
    ):
        started = time.process_time()
        session.seek(target)
        print(f"  {label:<26} {time.process_time() - started:7.2f} s CPU")
    print(f"  transitions at 7200 s      {len(session.sim.transitions):,}")
    started = time.process_time()
    text = wire.encode(session.snapshot(advance_seq=True))
    print(f"  snapshot at 7200 s         {len(text.encode()):,} bytes "
          f"({len(text.encode()) / 1e6:.1f} MB; encoded in {time.process_time() - started:.2f} s CPU)")  # fmt: skip
    del text, session
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    session = Session(Simulation.from_scenario(scenario), end=HORIZON)
    session.seek(HORIZON)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    print(f"  session memory at 7200 s   {used / 1e6:.1f} MB (tracemalloc)")


def storm_figures(seconds: float) -> None:
    for attackers_count in (1, 3):
        with LiveServer() as server:
            player = Player(server.url)
            player.wait_for_ticks()
            quiet_start = time.monotonic()
            time.sleep(3)
            quiet = player.max_gap(quiet_start, time.monotonic())
            attackers = [RawClient(server, source=f"127.0.0.{2 + i}") for i in range(attackers_count)]  # fmt: skip
            for attacker in attackers:
                attacker.emit("join", {"yaml": WORST_POD})
            start = time.monotonic()
            targets, i = [7200, 1, 7199, 2, 3600, 7200, 0], 0
            while time.monotonic() < start + seconds:
                for attacker in attackers:
                    attacker.emit("clock", {"op": "seek", "value": targets[i % len(targets)]})
                i += 1
                time.sleep(0.25)
            gap = player.max_gap(start, time.monotonic())
            print(f"seek storm, {attackers_count} attacker(s), {seconds:.0f} s: longest update gap "
                  f"of a player {gap:.2f} s (before the storm {quiet:.2f} s); "
                  f"server peak RSS {server.peak_rss_mb:.0f} MB"
                  + (" (killed at the 1.5 GB cap)" if server.killed_for_memory else ""))  # fmt: skip
            for attacker in attackers:
                attacker.close()
            player.close()


def silent_figures(seconds: float) -> None:
    with LiveServer() as server:
        before = server.rss_mb()
        silent = RawClient(server, source="127.0.0.2", drain=False, rcvbuf=4096)
        silent.emit("join", {"yaml": WORST_POD})
        silent.emit("clock", {"op": "speed", "value": 100})
        silent.emit("clock", {"op": "play"})
        start = time.monotonic()
        samples = []
        while time.monotonic() < start + seconds and server.alive():
            time.sleep(5)
            samples.append(f"{time.monotonic() - start:.0f}s:{server.rss_mb():.0f}")
        print(f"silent client, worst scenario at 100x: server RSS {before:.0f} MB -> "
              f"{server.rss_mb():.0f} MB after {seconds:.0f} s ({', '.join(samples)} MB)"
              + (" (killed at the 1.5 GB cap)" if server.killed_for_memory else ""))  # fmt: skip
        silent.close()


def half_open_figures(count: int) -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    count = min(count, soft - 200)
    # Every thread reserves a stack: leave the address space room for thousands.
    with LiveServer(address_space_gb=64) as server:
        baseline = server.threads()
        start = time.monotonic()
        with half_open_requests(server.port, count):
            wait_until(lambda: server.threads() >= baseline + count, 20)
            time.sleep(1)
            threads = server.threads()
            rss = server.rss_mb()
        print(f"{count} half-open requests: server threads {baseline} -> {threads}, "
              f"RSS {rss:.0f} MB (opened in {time.monotonic() - start:.1f} s)")  # fmt: skip


def share_figures(seconds: float) -> None:
    with LiveServer() as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        body = json.dumps({"yaml": worst_pod(1), "at": 1e9}).encode()
        connection.request("POST", "/api/share", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        print(f"share with at: 1e9 (one container, 3 probes every second): POST -> "
              f"{response.status} {answer[:80]!r}")  # fmt: skip
        if response.status != 201:
            return
        opener = RawClient(server, source="127.0.0.2")
        cpu = server.cpu_seconds()
        start = time.monotonic()
        opener.emit("join", {"share": json.loads(answer)["id"]})
        answered = wait_until(lambda: b'"snapshot"' in opener.seen or b'"error"' in opener.seen, seconds)  # fmt: skip
        took = time.monotonic() - start
        print(f"  opening it: {f'answered in {took:.2f} s' if answered else f'no answer in {seconds:.0f} s'}; "
              f"server CPU {server.cpu_seconds() - cpu:.1f} s, RSS {server.rss_mb():.0f} MB "
              f"(peak {server.peak_rss_mb:.0f} MB)")  # fmt: skip
        opener.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--storm-seconds", type=float, default=15)
    parser.add_argument("--silent-seconds", type=float, default=30)
    parser.add_argument("--half-open", type=int, default=3000)
    parser.add_argument("--share-seconds", type=float, default=10)
    parser.add_argument("--only", choices=["engine", "storm", "silent", "half-open", "share"])
    args = parser.parse_args()
    run = {
        "engine": engine_figures,
        "storm": lambda: storm_figures(args.storm_seconds),
        "silent": lambda: silent_figures(args.silent_seconds),
        "half-open": lambda: half_open_figures(args.half_open),
        "share": lambda: share_figures(args.share_seconds),
    }
    for name, figures in run.items():
        if args.only in (None, name):
            figures()
            sys.stdout.flush()


if __name__ == "__main__":
    main()
