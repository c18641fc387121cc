"""Slow and silent clients (issue 12 item 5): a tab that does not read gets no more updates
while its outgoing queue is over a bound, one fresh snapshot when it drains, and is hung
up past a harder bound or time; the server never queues without bound for it."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from engineio import packet

from tests.web.live import WAIT, RawTab, Tab, serve
from webapp.realtime import realtime_of
from webapp.realtime.outbox import Outbox
from webapp.realtime.transport import MeteredQueue


def test_the_outgoing_queue_counts_the_bytes_it_holds() -> None:
    pending = MeteredQueue()
    pending.put(packet.Packet(packet.MESSAGE, "x" * 100))
    pending.put(packet.Packet(packet.MESSAGE, b"y" * 50))
    pending.put(None)  # engine.io's "closing" marker
    assert pending.bytes == 150
    pending.get()
    assert pending.bytes == 50
    pending.get()
    pending.get()
    assert pending.bytes == 0


def test_bytes_the_writer_took_and_has_not_written_are_still_backlog() -> None:
    # engine.io's writer takes every queued packet at once (Socket.poll), then blocks
    # writing them to a tab that does not read: the queue is empty, the tab is not caught
    # up (ci0 on a loaded machine: a silent tab was given a fresh snapshot at seq 4).
    from webapp.realtime.transport import queued_bytes

    pending = MeteredQueue()
    pending.direct = True  # a tracked WebSocket: its writer reports each packet written
    for size in (100, 200, 300):
        pending.put(packet.Packet(packet.MESSAGE, "x" * size))
    while not pending.empty():
        pending.get_nowait()
    assert (pending.bytes, pending.pending) == (0, 600)
    sock = SimpleNamespace(queue=pending)
    eio = SimpleNamespace(sockets={"eio-a": sock})
    assert queued_bytes(eio, "eio-a") == 600
    pending.written()  # the first packet went out
    assert pending.pending == 500
    pending.written()
    pending.written()
    assert pending.pending == 0 and queued_bytes(eio, "eio-a") == 0
    pending.written()  # a failed write after the last: never below zero
    assert pending.pending == 0


class FakeServer:
    """Just what the outbox reads of python-socketio: participants and queue sizes."""

    def __init__(self, rooms: dict[str, list[str]]) -> None:
        self.rooms = rooms
        self.queued: dict[str, int] = {}
        self.sent: list[tuple[str, str, list[str] | None]] = []
        sockets = {}
        for sid in {s for members in rooms.values() for s in members}:
            self.queued[sid] = 0
            sockets[f"eio-{sid}"] = SimpleNamespace(
                queue=SimpleNamespace(bytes=0), closed=False, sid=sid
            )
        self.eio = SimpleNamespace(sockets=sockets)
        self.manager = SimpleNamespace(
            get_participants=lambda _, room: [(s, f"eio-{s}") for s in self.rooms.get(room, [])],
            eio_sid_from_sid=lambda sid, _: f"eio-{sid}",
        )

    def queue(self, sid: str, size: int) -> None:
        self.eio.sockets[f"eio-{sid}"].queue.bytes = size


class FakeSocketIO:
    def __init__(self, server: FakeServer) -> None:
        self.server = server

    def emit(self, event: str, payload: Any, to: str, skip_sid: list[str] | None = None) -> None:
        self.server.sent.append((event, to, skip_sid))


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def outbox(server: FakeServer, clock: Clock | None = None) -> Outbox:
    return Outbox(
        FakeSocketIO(server),  # type: ignore[arg-type]
        soft_bytes=1000,
        hard_bytes=5000,
        lag_seconds=30,
        clock=clock or Clock(),
    )


def test_a_tab_over_the_soft_bound_is_left_out_until_it_has_drained() -> None:
    server = FakeServer({"room": ["fast", "slow"], "slow": ["slow"]})
    box = outbox(server)
    box.emit("tick", {}, to="room")
    server.queue("slow", 1001)
    box.emit("tick", {}, to="room")
    assert server.sent[-1] == ("tick", "room", ["slow"])
    assert "slow" in box.lagging
    server.queue("slow", 10)  # reading again, but not drained: still left out
    box.emit("tick", {}, to="room")
    box.emit("error", {}, to="slow")  # nothing at all is queued for it, errors included
    assert server.sent[-1] == ("tick", "room", ["slow"])
    assert not box.caught_up("slow")
    server.queue("slow", 0)
    assert box.caught_up("slow")  # the realtime layer now sends it one snapshot
    box.emit("tick", {}, to="room")
    assert server.sent[-1] == ("tick", "room", None)


def test_a_tab_lagging_too_long_or_too_far_is_hung_up() -> None:
    server = FakeServer({"a": ["a"], "b": ["b"], "c": ["c"]})
    clock = Clock()
    box = outbox(server, clock)
    hung: list[str] = []
    import webapp.realtime.transport as transport

    original = transport.hang_up
    transport.hang_up = lambda _eio, eio_sid: hung.append(eio_sid)  # type: ignore[assignment]
    try:
        for sid in ("a", "b", "c"):
            server.queue(sid, 2000)
            box.emit("tick", {}, to=sid)
        server.queue("b", 6000)  # past the hard bound
        assert box.sweep() == ["b"]
        clock.now = 29.0
        assert box.sweep() == []
        clock.now = 30.0
        assert sorted(box.sweep()) == ["a", "c"]
    finally:
        transport.hang_up = original  # type: ignore[assignment]
    assert sorted(hung) == ["eio-a", "eio-b", "eio-c"]
    assert box.lagging == {}


# -- over a real WebSocket --------------------------------------------------------------

SOFT = 256 * 1024


def until(condition: Any) -> Any:
    """Poll `condition()` until it is truthy (a hung server fails the test after WAIT s)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("condition not reached")


def flood(tab: RawTab, session_id: str, times: int) -> None:
    """Ask for the full state again and again (each answer a ~130 KB snapshot)."""
    for _ in range(times):
        tab.emit("join", {"session": session_id})


def small_send_buffer(app: Any, sid: str) -> None:
    """Shrink the server's kernel send buffer for tab `sid`, so that what the client does
    not read stays in the server's queue rather than in megabytes of loopback buffers."""
    import socket

    rt = realtime_of(app)
    eio_sid = rt.socketio.server.manager.eio_sid_from_sid(sid, "/")
    ws = rt.socketio.server.eio.sockets[eio_sid].playground_ws
    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)


def join_big(tab: RawTab) -> str:
    tab.emit("join", {"scenario": "crash-loop-backoff"})
    name, snapshot = tab.receive() or ("", {})
    assert name == "snapshot"
    tab.emit("clock", {"op": "seek", "value": 7200})  # a long history: big snapshots
    assert (tab.receive() or ("",))[0] == "snapshot"
    return str(snapshot["session"])


LIVE = {
    "ACTIONS_PER_SECOND": 100_000,
    "NEW_SESSIONS_PER_MINUTE": 1000,
    "SESSION_CPU_BURST_SECONDS": 1000.0,
    "SOCKETIO_BACKLOG_SOFT_BYTES": SOFT,
}


def test_a_silent_client_is_bounded_then_hung_up_and_others_play_on(tmp_path: Path) -> None:
    with serve(tmp_path, SOCKETIO_LAG_SECONDS=2, **LIVE) as (app, url):
        rt = realtime_of(app)
        player = Tab(url)
        silent = RawTab(url)
        try:
            session_id = join_big(silent)
            session = rt.manager.get(session_id)
            assert session is not None
            [sid] = session.tabs
            small_send_buffer(app, sid)
            player.client.emit("join", {"scenario": "plain-pod"})
            player.next("snapshot")
            player.client.emit("clock", {"op": "play"})
            flood(silent, session_id, 400)  # ~50 MB asked for, never read
            until(lambda: sid in rt.outbox.lagging)
            most = 0
            while sid in rt.outbox.lagging:
                most = max(most, rt.outbox.backlog(sid))
                time.sleep(0.01)
            # Held at the bound (plus the one message that crossed it), then hung up.
            assert most <= SOFT + 200 * 1024
            until(lambda: not session.tabs)
            assert not rt.outbox.connected(sid)
            while silent.receive() is not None:  # what the kernel held, then the close
                pass
            ticks = player.until(lambda t: t["now"] >= 3)
            assert ticks[-1]["now"] >= 3  # the other player's session kept playing
        finally:
            player.close()
            silent.close()


def test_a_tab_that_catches_up_gets_one_fresh_snapshot_then_ticks_in_sequence(
    tmp_path: Path,
) -> None:
    with serve(tmp_path, SOCKETIO_LAG_SECONDS=60, **LIVE) as (app, url):
        rt = realtime_of(app)
        slow = RawTab(url)
        try:
            session_id = join_big(slow)
            session = rt.manager.get(session_id)
            assert session is not None
            [sid] = session.tabs
            small_send_buffer(app, sid)
            flood(slow, session_id, 400)
            slow.emit("lang", {"lang": "zh"})  # handled after the whole flood
            until(lambda: rt.languages.get(sid) == "zh" and sid in rt.outbox.lagging)
            lagged_at = session.seq
            slow.emit("clock", {"op": "seek", "value": 7000})  # history changed...
            slow.emit("clock", {"op": "play"})  # ... and it plays: none of it is queued
            until(lambda: session.seq >= lagged_at + 10)
            received: list[tuple[str, Any]] = []
            while True:  # now read everything
                message = slow.receive()
                assert message is not None
                received.append(message)
                snapshots = [i for i, (name, _) in enumerate(received) if name == "snapshot"]
                after = [p["seq"] for name, p in received[snapshots[-1] + 1 :] if name == "tick"]
                if len(after) >= 3 and received[snapshots[-1]][1]["now"] >= 7000:
                    break
            fresh = received[snapshots[-1]][1]
            assert fresh["session"] == session_id
            assert fresh["seq"] >= lagged_at + 10  # one snapshot instead of ten ticks or more
            assert after == list(range(fresh["seq"] + 1, fresh["seq"] + 1 + len(after)))
            before = [p["seq"] for name, p in received[: snapshots[-1]] if name == "tick"]
            assert all(seq <= lagged_at for seq in before)  # nothing queued while it lagged
            assert sid not in rt.outbox.lagging
        finally:
            slow.close()
