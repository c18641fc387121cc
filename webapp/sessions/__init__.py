"""One Simulation per browser session, paced against the wall clock by one scheduler loop.

No Flask and no Socket.IO in here: `webapp.realtime` wires these to the server, and tests
drive them directly (`Scheduler.tick(wall_now)`).
"""

from webapp.sessions.budget import CpuBudget, CpuBudgets
from webapp.sessions.catalog import ScenarioCatalog
from webapp.sessions.clock import MAX_SPEED, MIN_SPEED, SessionClock, valid_speed
from webapp.sessions.manager import (
    Scheduler,
    SessionGone,
    SessionManager,
    TooManyForClient,
    TooManySessions,
)
from webapp.sessions.payloads import PayloadProblem
from webapp.sessions.session import Session, new_session_id

__all__ = [
    "MAX_SPEED",
    "MIN_SPEED",
    "CpuBudget",
    "CpuBudgets",
    "PayloadProblem",
    "ScenarioCatalog",
    "Scheduler",
    "Session",
    "SessionClock",
    "SessionGone",
    "SessionManager",
    "TooManyForClient",
    "TooManySessions",
    "new_session_id",
    "valid_speed",
]
