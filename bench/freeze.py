"""Memory of heavy sessions that come and go, with the collector's freeze on and off (issue 26,
F1; webapp/sessions/memory.py).

    python bench/freeze.py [--rounds 8] [--sessions 3] [--seconds 30] [--path reap|evict|restart]

Each round creates `--sessions` heavy cluster runs (the work cap's worst case,
tests/worst_case.cluster_crash_loop(2, 20)), plays each `--seconds` virtual seconds, then
frees them the way the server does (`reap` once their tabs left; `evict` to make room for a
new one; `restart`: one long-lived session applies a new scenario, the old history is
dropped), calling webapp/sessions/memory.py as the scheduler does once a second. After each
round it prints `gc.get_freeze_count()`, the sessions (and Simulations) still alive
(weak references), tracemalloc's current size and the RSS. Run with the freeze on and off.
Prints figures only.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tracemalloc
import weakref
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.worst_case import cluster_crash_loop  # noqa: E402
from webapp.engine import Simulation  # noqa: E402
from webapp.sessions import SessionManager, memory  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(rounds: int, per_round: int, seconds: float, path: str, freeze: bool) -> None:
    heavy = cluster_crash_loop(2, 20)
    manager = SessionManager(
        emit=lambda *_: None, idle_seconds=1, end_seconds=7200, max_per_client=per_round
    )
    alive: list[weakref.ref] = []
    now = 0.0
    long_lived = None
    tracemalloc.start()
    print(f"freeze {'on' if freeze else 'off'}, path {path}")
    for round_ in range(rounds):
        if path == "restart":
            if long_lived is None:
                long_lived = manager.create(Simulation.from_yaml(heavy), client="a", tab="t")
            for _ in range(per_round):
                sim = Simulation.from_yaml(heavy)
                alive.append(weakref.ref(long_lived.sim))
                long_lived.restart(sim)
                long_lived.seek(seconds)
                now += 1.0
                if freeze:
                    memory.settle_or_release(now)
        else:
            made = []
            for i in range(per_round):
                session = manager.create(Simulation.from_yaml(heavy), client="a", tab=f"t{i}")
                session.seek(seconds)
                made.append(session)
                alive.append(weakref.ref(session))
                now += 1.0
                if freeze:
                    memory.settle_or_release(now)
            for i in range(per_round):
                manager.detach(f"t{i}")
            del made, session
            if path == "evict":  # room is made for the next round's sessions: nothing reaped
                pass
            else:
                for _ in range(3):
                    now += 1.0
                    if manager.reap(now) and freeze:
                        memory.freed(now)
                    elif freeze:
                        memory.settle_or_release(now)
        now += memory.RELEASE_SECONDS  # a release that waited has had its turn
        if freeze:
            memory.settle_or_release(now)
        else:
            gc.collect()
        current, _ = tracemalloc.get_traced_memory()
        print(
            f"round {round_ + 1}: freeze count {gc.get_freeze_count():>8}, "
            f"runs alive {sum(1 for r in alive if r() is not None):>3} of {len(alive)}, "
            f"traced {current / 1e6:7.1f} MB, RSS {rss_mb():6.0f} MB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--path", choices=["reap", "evict", "restart"], default="reap")
    parser.add_argument("--no-freeze", action="store_true")
    args = parser.parse_args()
    run(args.rounds, args.sessions, args.seconds, args.path, not args.no_freeze)


if __name__ == "__main__":
    main()
