"""Running the seek loop to its end in tests that drive it by hand (SESSION_SCHEDULER off).

A seek is computed in slices charged to CPU budgets that refill with wall time
(webapp/sessions/slices.py, budget.py). How many slices a far seek needs, and so whether
a session's budget runs dry on the way, depends on how fast this machine is and how loaded:
a pass that runs nothing because every seeking session is `held()` is not the end of the
seeks. `run_seeks` goes on until no session seeks, waiting (for the condition, with a
deadline) while the budgets refill, exactly as the product's seek loop waits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from flask import Flask

from webapp.realtime import realtime_of


def run_seeks(
    app: Flask, after_round: Callable[[], None] | None = None, timeout: float = 180.0
) -> int:
    """Run seek-loop passes until no session of `app` has a pending seek; the passes that
    ran a slice. `after_round` is called after every pass that ran one."""
    rt = realtime_of(app)
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    rounds = 0
    while True:
        seeking = [s for s in rt.manager.sessions() if s.seek_target is not None]
        if not seeking:
            return rounds
        if rt.seeker.round():
            rounds += 1
            if after_round is not None:
                after_round()
            continue
        assert time.monotonic() < deadline, "the seeks did not end"
        # Nothing could run: every seeking session waits for its budgets (or a lock).
        while all(s.held() for s in seeking) and time.monotonic() < deadline:
            pause.wait(0.01)
