"""issue 20: one rule decides when CrashLoopBackOff appears, whether the container exited by
itself or the Crash / OOM buttons ended it: the kubelet's.

kubelet.go SyncPod runs the runtime's SyncPod, then ``kl.reasonCache.Update(pod.UID, result)``
and, when the only failures are back-offs, returns without error ("Do not return error if
the only failures were pods in backoff"); convertToAPIContainerStatuses reads the reason
cache when it generates the *next* status. So a crash is seen by PLEG at once and synced
(status: terminated, Error), that sync finds the back-off and records CrashLoopBackOff, and
the status says so at the sync after it, whatever wakes it. Nothing in that path knows how
the process ended: the engine's self-exit and its crash / oom actions both end in
``Runtime.exit`` -> PLEG ``_on_container_exit`` -> ``request_sync``.
"""

from __future__ import annotations

import pytest

from webapp.engine import Simulation

SELF_EXIT = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "sleep 5; exit 1"]
"""
LONG_RUNNING = SELF_EXIT.replace("sleep 5; exit 1", "sleep 3600")
# With a readiness probe the worker's next run on the dead container sets Failure, and a
# readiness change syncs the Pod (kubelet.go syncLoopIteration, handleProbeSync): the
# reason then shows sooner, after a self-exit exactly as after a button.
PROBE = """    readinessProbe:
      exec:
        command: ["true"]
      periodSeconds: 5
"""


def crash_loop_delays(sim: Simulation, exits: list[float] | None, action: str) -> tuple:
    """(exit times, seconds from each exit to the next CrashLoopBackOff status)."""
    for at in exits or []:
        sim.advance(at - sim.now)
        sim.act({"action": action, "container": "app"} if action == "oom" else
                {"action": "crash", "container": "app", "exitCode": 1})  # fmt: skip
    sim.advance(200 - sim.now)
    trs = sim.transitions
    ended = [t["t"] for t in trs if t["field"] == "runtime" and t["after"] == "exited"]
    loops = [
        t["t"]
        for t in trs
        if t["field"] == "state" and (t["after"] or {}).get("reason") == "CrashLoopBackOff"
    ]
    delays = []
    for i, at in enumerate(ended):
        following = [t for t in loops if t >= at and (i + 1 == len(ended) or t < ended[i + 1])]
        delays.append(round(following[0] - at, 3) if following else None)
    return ended, delays


@pytest.mark.parametrize("probe", [False, True], ids=["no-probe", "readiness-probe"])
@pytest.mark.parametrize("action", ["crash", "oom"])
def test_crash_loop_back_off_appears_as_soon_after_a_button_as_after_a_self_exit(
    action: str, probe: bool
) -> None:
    extra = PROBE if probe else ""
    own_exits, own = crash_loop_delays(Simulation.from_yaml(SELF_EXIT + extra, seed=0), None, "")
    own_exits = [t for t in own_exits if t < 120]
    pressed_exits, pressed = crash_loop_delays(
        Simulation.from_yaml(LONG_RUNNING + extra, seed=0), own_exits, action
    )
    assert pressed_exits[: len(own_exits)] == own_exits
    assert len(own_exits) >= 4
    assert pressed[: len(own_exits)] == own[: len(own_exits)]
    # The first restart is immediate (no back-off, no CrashLoopBackOff); from the second
    # crash on, the reason appears at the next sync after the crash's own.
    assert own[0] is None and all(d is not None and d <= 10 for d in own[1 : len(own_exits)])
