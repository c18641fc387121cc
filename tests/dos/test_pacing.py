"""Heavy but valid cluster runs from one address (issue 26, F1), against a real server.

Thirty tabs of one address each join the heaviest cluster runs within the limits (100
Pods crash-looping together, whose one instant costs tenths of a second; two Pods of 20
containers with three exec probes every second: the work cap, MAX_RUN_WORK, exactly) and
play them at 10x. A normal player (crash-loop-backoff at 10x, from another address) plays
throughout. Its longest wait for an update during the attack must stay within
GAP_SLACK of its calm one, measured in the same run just before the attack (the gap
after the tabs left is printed too): the attackers' pacing,
seeks and snapshots are charged to their address, the heavy runs are paced on their own
thread in slices, so the attack is slowed and nobody else. The attack lasts until the
attackers have had the server do ATTACK_CPU_SECONDS of CPU work (bounding the work, not
the wall time), and when the tabs leave their sessions are freed but for a few
(IDLE_SESSIONS_PER_CLIENT), their memory collected (a release logged). The run the audit used
(100 Pods of 20 such containers) is refused at the door, naming the cap.

Prints the figures: the player's gaps, CPU and RSS.
"""

from __future__ import annotations

import re
import time
import urllib.request

import pytest

from tests.dos.harness import LiveServer, Player, RawClient, server_problems, wait_until
from tests.worst_case import cluster_crash_loop as deployment

pytestmark = pytest.mark.dos

TABS = 30
GAP_SLACK = 0.5  # seconds over the calm gap (issue 26: "within 0.5 s of its calm gap")
CALM_SECONDS = 8.0
ATTACK_CPU_SECONDS = 12.0  # server CPU time the attack lasts for ...
ATTACK_WALL_LIMIT = 60.0  # ... or this long, whichever comes first
IDLE_KEPT = 4  # IDLE_SESSIONS_PER_CLIENT: sessions without a tab one address keeps
# What is honestly achievable for the memory once the tabs left: the freed sessions are
# gone and their objects collected (a release, webapp/sessions/memory.py, logged), the
# empty pages handed back (malloc_trim); but the allocators keep every arena that still
# holds one live object, so the RSS does not fall back to the calm figure (printed, not
# asserted: docs/limits.md). A release waits for its turn: at most RELEASE_WAIT.
RELEASE_WAIT = 45.0  # RELEASE_SECONDS (30) and a full collection on a loaded machine
RELEASED = re.compile(r"freed sessions collected in (\S+) s")


def sessions_in_memory(server: LiveServer) -> int:
    """The server's `playground_sessions` gauges (GET /metrics answers loopback)."""
    with urllib.request.urlopen(server.url + "/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(
        int(float(n)) for n in re.findall(r"^playground_sessions\{[^}]*\} (\S+)", text, re.M)
    )


def crash_together(pods: int = 100) -> str:
    """100 Pods of one container that all exit after 5 s: they crash at the same instants."""
    return (
        deployment(pods, 1, probes=0).split("containers:\n  c0")[0]
        + "containers:\n  c0: {exitAfterSeconds: 5, exitCode: 1}\n"
    )


HEAVY_RUNS = (crash_together(), deployment(2, 20))  # 100 and 160 units of work a second
AUDIT_RUN = deployment(100, 20)  # issue 26's F1 run: 8000


def gap_at(player: Player, start: float, end: float) -> float:
    """When the longest wait between `start` and `end` began, in seconds after `start`."""
    times = [start, *(t for t in player.ticks if start < t < end), end]
    longest = max(range(len(times) - 1), key=lambda i: times[i + 1] - times[i])
    return times[longest] - start


def calm_gap(player: Player, seconds: float) -> float:
    start = time.monotonic()
    time.sleep(seconds)
    return player.max_gap(start, time.monotonic())


def attack(server: LiveServer, player: Player, attackers: list[RawClient]) -> dict[str, float]:
    """One wave: TABS heavy tabs of one address play until the server did
    ATTACK_CPU_SECONDS of work, then leave; the figures of it."""
    cpu_before = server.cpu_seconds()
    start = time.monotonic()
    for i in range(TABS):
        tab = RawClient(server, source="127.0.0.2")
        tab.emit("join", {"yaml": HEAVY_RUNS[i % len(HEAVY_RUNS)]})
        tab.emit("clock", {"op": "speed", "value": 10})
        tab.emit("clock", {"op": "play"})
        attackers.append(tab)
    wait_until(
        lambda: server.cpu_seconds() - cpu_before >= ATTACK_CPU_SECONDS,
        ATTACK_WALL_LIMIT,
        step=0.25,
    )
    end = time.monotonic()
    figures = {
        "seconds": end - start,
        "cpu": server.cpu_seconds() - cpu_before,
        "gap": player.max_gap(start, end),
        "gap_at": gap_at(player, start, end),
        "peak_rss": server.rss_mb(),
        "received": sum(a.bytes for a in attackers),
        "internal": sum(a.internal_errors for a in attackers),
    }
    freed_at = len(server.stderr())  # a release from here on collects the freed sessions
    for tab in attackers:
        tab.close()
    attackers.clear()
    figures["during"] = sessions_in_memory(server)
    # The player's session, and the few idle ones the address keeps: the rest are freed ...
    figures["freed"] = wait_until(lambda: sessions_in_memory(server) <= 1 + IDLE_KEPT, 15, 0.5)
    figures["kept"] = sessions_in_memory(server)
    # ... and collected, their pages handed back: a release after the last was freed.
    figures["released"] = wait_until(
        lambda: RELEASED.search(server.stderr(), freed_at) is not None, RELEASE_WAIT, 0.5
    )
    figures["left_rss"] = server.rss_mb()
    return figures


def test_thirty_heavy_cluster_tabs_from_one_address_stall_no_other_player() -> None:
    server = LiveServer(env={"PLAYGROUND_LOG_FORMAT": "json"})  # info lines: the releases
    player = None
    attackers: list[RawClient] = []
    try:
        player = Player(server.url, scenario="crash-loop-backoff")
        player.client.emit("clock", {"op": "speed", "value": 10})
        player.wait_for_ticks(5)
        calm_rss = server.rss_mb()
        calm_before = calm_gap(player, CALM_SECONDS)

        refused = RawClient(server, source="127.0.0.3")
        refused.emit("join", {"yaml": AUDIT_RUN})
        wait_until(lambda: b'"error"' in refused.seen or b'"snapshot"' in refused.seen, 20)
        audit_answer = refused.seen
        refused.close()

        waves = [attack(server, player, attackers)]
        calm_after = calm_gap(player, CALM_SECONDS)
        calm = calm_before  # the bound's baseline; after: for the record (it includes the
        # collection of the freed sessions, webapp/sessions/memory.py)
        print(
            f"\nplayer's longest gap: calm {calm_before:.2f} s before, {calm_after:.2f} s "
            f"after; server RSS {calm_rss:.0f} MB calm"
        )
        for n, wave in enumerate(waves, 1):
            print(
                f"wave {n}: {wave['gap']:.2f} s (from {wave['gap_at']:.1f} s on) during {TABS} "
                f"heavy tabs of one address ({wave['seconds']:.1f} s, server CPU "
                f"{wave['cpu']:.1f} s = {wave['cpu'] / wave['seconds']:.2f} cores; "
                f"{wave['received'] / 1e6:.1f} MB to the tabs); RSS {wave['peak_rss']:.0f} MB "
                f"at its end, {wave['left_rss']:.0f} MB after the tabs left; sessions in "
                f"memory: {wave['during']:.0f} during, {wave['kept']:.0f} after"
            )
        releases = RELEASED.findall(server.stderr())
        print(f"releases of freed sessions (webapp/sessions/memory.py), seconds: {releases}")
        problems = []
        for n, wave in enumerate(waves, 1):
            if wave["gap"] > calm + GAP_SLACK:
                problems.append(
                    f"wave {n}: the player waited {wave['gap']:.2f} s for an update during the "
                    f"attack (calm: {calm:.2f} s; bound: calm + {GAP_SLACK} s)"
                )
            if not wave["freed"]:
                problems.append(
                    f"wave {n}: {wave['kept']:.0f} sessions stayed in memory after the tabs left "
                    f"(bound {1 + IDLE_KEPT})"
                )
            if not wave["released"]:
                problems.append(
                    f"wave {n}: the freed sessions were not collected within {RELEASE_WAIT:.0f} s "
                    "of the tabs leaving (no release logged)"
                )
            if wave["internal"]:
                problems.append(f"wave {n}: {wave['internal']:.0f} internal_error answer(s)")
        if player.errors:
            problems.append(f"the player got errors: {player.errors[:3]}")
        if b"run_too_heavy" not in audit_answer:
            problems.append(f"the audit's run was not refused as too heavy: {audit_answer[:300]!r}")
        problems += [f"server stderr: {p}" for p in server_problems(server)]
        assert not problems, "\n".join(problems)
    finally:
        for tab in attackers:
            tab.close()
        if player is not None:
            player.close()
        server.stop()
