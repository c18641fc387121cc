"""`clock {op: play|pause|step|speed|seek, value?}`: the session's time controls."""

from __future__ import annotations

from typing import Any

from webapp.realtime.state import Realtime, Refusal, seconds
from webapp.sessions import MAX_SPEED, MIN_SPEED, valid_speed
from webapp.sessions import payloads as check

CLOCK_OPS = ("play", "pause", "step", "speed", "seek")


def on_clock(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["op", "value"])
    op = check.text(payload, "op")
    if op not in CLOCK_OPS:
        raise Refusal("unknown_clock_op", op=op)
    session = rt.joined_session(sid)
    value = check.number(payload, "value") if op in ("speed", "seek") else None
    # Pausing costs nothing and lowers the load, so it is never refused for CPU.
    with rt.working(session, refusable=op != "pause"), session.lock:
        end = session.clock.end
        if op != "pause":
            session.used = True
        if op == "play":
            if session.sim.now >= end:
                raise Refusal("at_end", end=seconds(end))
            session.clock.play()
        elif op == "pause":
            session.clock.pause()
        elif op == "step":
            session.step()
        elif op == "speed":
            assert value is not None
            if not valid_speed(value):
                raise Refusal("bad_speed", min=MIN_SPEED, max=seconds(MAX_SPEED))
            session.clock.set_speed(value)
        else:
            assert value is not None
            if not 0 <= value <= end:
                raise Refusal("bad_seek", end=seconds(end))
            session.seek(value)
            rt.send_snapshot(session, to_room=True)
            return
        rt.send_tick(session)
