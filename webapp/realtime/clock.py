"""`clock {op: play|pause|step|speed|seek|stop, value?}`: the session's time controls.

A seek runs its first slice here and the rest on the seek loop (webapp/sessions/slices.py);
`stop` ends a pending seek where it got to ("Stop here"), `pause` does too and pauses."""

from __future__ import annotations

from typing import Any

from webapp.realtime.state import Realtime, Refusal, seconds
from webapp.sessions import MAX_SPEED, MIN_SPEED, slices, valid_speed
from webapp.sessions import payloads as check

CLOCK_OPS = ("play", "pause", "step", "speed", "seek", "stop")


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
            slices.stop_seek(session)
            session.clock.pause()
        elif op == "stop":
            slices.stop_seek(session)
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
            slices.begin_seek(session, value)
            slices.run_slice(session)  # a near seek is done here; a far one goes on in slices
            rt.send_snapshot(session, to_room=True)
            if session.seek_target is not None and rt.run_scheduler:
                rt.seeker.start(rt.socketio.start_background_task, rt.socketio.sleep)
            return
        rt.send_tick(session)
