"""The fan-out of a room's messages as shared frames (webapp/realtime/transport.py, "Shared
frames"; webapp/realtime/outbox.py): one encoding and one WebSocket frame per message,
written to every plain WebSocket tab of the room. What the tabs get must not change: the
same payloads in the same order with consecutive `seq`, over plain WebSockets, compressed
ones (engine.io's way) and long polling alike, and a follower that stops reading still
falls behind on its own, then gets one fresh snapshot."""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from engineio import packet as eio_packet
from socketio import packet as sio_packet
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from tests.web.live import WAIT, RawTab, serve
from webapp.realtime import realtime_of, transport
from webapp.realtime.transport import Frame, FramedPacket, MeteredQueue, frame
from webapp.sessions.wire import Fragments, WirePayload

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v\n"

LIVE = {
    "ACTIONS_PER_SECOND": 100_000,
    "NEW_SESSIONS_PER_MINUTE": 1000,
    "CLASSES_PER_HOUR": 1000,
    "CLASS_STUDENT_EVENTS_PER_SECOND": 100_000,
    "SESSION_CPU_BURST_SECONDS": 1000.0,
}


# -- frames -------------------------------------------------------------------------------


def server_and_client(deflate: bool) -> tuple[WSConnection, WSConnection]:
    """A wsproto server and client past their handshake (the client keeps its deflate
    context across messages, as a browser does)."""
    server, client = WSConnection(ConnectionType.SERVER), WSConnection(ConnectionType.CLIENT)
    offer = [PerMessageDeflate()] if deflate else []
    server.receive_data(client.send(Request(host="x", target="/", extensions=offer)))
    [request] = list(server.events())
    assert isinstance(request, Request)
    client.receive_data(server.send(AcceptConnection(extensions=offer)))
    assert isinstance(next(client.events()), AcceptConnection)
    return server, client


def texts(client: WSConnection, data: bytes) -> list[str]:
    client.receive_data(data)
    return [e.data for e in client.events() if isinstance(e, TextMessage)]


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_a_plain_frame_is_read_back_as_the_text_at_every_length_boundary(size: int) -> None:
    _, client = server_and_client(deflate=False)
    text = "42" + "é" * (size // 2) + "x" * (size % 2)
    data = frame(text)
    assert data[0] == 0x81  # FIN, text, not compressed
    assert texts(client, data) == [text]


def test_the_shared_text_is_what_python_socketio_sends_for_the_same_event(
    tmp_path: Path,
) -> None:
    with serve(tmp_path) as (app, _):
        outbox = realtime_of(app).outbox
        fragments = Fragments()
        payload = WirePayload({"seq": 3, "pod": {"name": "é<>"}, "now": 1.5}, fragments, ("pod",))
        for value in (payload, {"seq": 1, "text": "中文 \u2028"}, {"list": [1, None, True]}):
            expected = eio_packet.Packet(
                eio_packet.MESSAGE,
                outbox._server.packet_class(
                    sio_packet.EVENT, namespace="/", data=["tick", value]
                ).encode(),
            ).encode()
            assert outbox._text("tick", value) == expected


# -- the queue ------------------------------------------------------------------------------


class Socket:
    """A socket that takes `room` bytes, then no more, recording what it took."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.taken = b""

    def write(self, data: Frame) -> int:
        part = data[: self.room]
        self.room -= len(part)
        self.taken += part
        return len(part)


def direct_queue() -> MeteredQueue:
    pending = MeteredQueue()
    pending.direct = True
    return pending


def test_a_frame_is_written_at_once_when_nothing_waits_before_it() -> None:
    pending, sock = direct_queue(), Socket(1000)
    assert pending.write_or_queue(Frame(b"abc"), sock.write) == 3
    assert sock.taken == b"abc"
    assert pending.qsize() == 0
    assert pending.bytes == 0


def test_a_frame_waits_behind_a_queued_packet_and_is_metered() -> None:
    pending, sock = direct_queue(), Socket(1000)
    pending.put(eio_packet.Packet(eio_packet.PING))
    assert pending.write_or_queue(Frame(b"abcdef"), sock.write) == 0
    assert sock.taken == b""
    assert pending.bytes == 6
    ping, queued = pending.get(), pending.get()
    assert ping.packet_type == eio_packet.PING
    assert isinstance(queued, FramedPacket)
    assert queued.encode() == b"abcdef"


def test_a_frame_waits_while_the_writer_holds_a_packet_it_has_not_written() -> None:
    pending, sock = direct_queue(), Socket(1000)
    pending.put(eio_packet.Packet(eio_packet.MESSAGE, "first"))
    pending.get()  # the writer took it ...
    assert pending.write_or_queue(Frame(b"second"), sock.write) == 0  # ... so this waits
    assert sock.taken == b""
    pending.written()  # ... and wrote it
    assert pending.get().encode() == b"second"
    pending.written()
    assert pending.write_or_queue(Frame(b"third"), sock.write) == 5


def test_the_part_a_full_socket_did_not_take_is_queued_first_then_the_rest_behind_it() -> None:
    pending, sock = direct_queue(), Socket(4)
    assert pending.write_or_queue(Frame(b"0123456789"), sock.write) == 4
    assert pending.write_or_queue(Frame(b"next"), sock.write) == 0
    assert pending.bytes == 6 + 4
    assert [pending.get().encode(), pending.get().encode()] == [b"456789", b"next"]
    assert sock.taken == b"0123"


def test_a_queue_another_consumer_reads_is_never_written_around() -> None:
    pending, sock = MeteredQueue(), Socket(1000)  # not direct: long polling, an upgrade
    assert pending.write_or_queue(Frame(b"abc"), sock.write) == 0
    assert sock.taken == b""
    assert pending.get().encode() == b"abc"


# -- a class, live ------------------------------------------------------------------------


class DeflateTab:
    """A Socket.IO tab over a WebSocket that negotiates permessage-deflate, as a browser
    does, read with wsproto (which keeps its inflate context across messages)."""

    def __init__(self, url: str) -> None:
        port = int(url.rsplit(":", 1)[1])
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sock.sendall(
            self.ws.send(
                Request(
                    host=f"127.0.0.1:{port}",
                    target="/socket.io/?EIO=4&transport=websocket",
                    extensions=[PerMessageDeflate()],
                    extra_headers=[(b"origin", f"http://127.0.0.1:{port}".encode())],
                )
            )
        )
        self.pending: list[Any] = []
        accepted = self._next_event()
        assert isinstance(accepted, AcceptConnection), accepted
        assert accepted.extensions, "permessage-deflate was not negotiated"
        self.opened = self._next_text()
        assert self.opened.startswith("0")  # Engine.IO open
        self._send("40")
        while not self._next_text().startswith("40"):
            pass

    def _next_event(self) -> Any:
        while not self.pending:
            data = self.sock.recv(1 << 16)
            if not data:
                raise ConnectionError("closed")
            self.ws.receive_data(data)
            self.pending += list(self.ws.events())
        return self.pending.pop(0)

    def _next_text(self) -> str:
        while True:
            event = self._next_event()
            if isinstance(event, TextMessage):
                return str(event.data)

    def _send(self, text: str) -> None:
        self.sock.sendall(self.ws.send(TextMessage(data=text)))

    def emit(self, event: str, payload: Any) -> None:
        self._send("42" + json.dumps([event, payload]))

    def receive(self) -> tuple[str, Any]:
        while True:
            text = self._next_text()
            if text == "2":
                self._send("3")
            elif text.startswith("42"):
                name, payload = json.loads(text[2:])
                return name, payload

    def close(self) -> None:
        self.sock.close()


class PollingTab:
    """A python-socketio client over long polling (engine.io's own queue, not shared
    frames), keeping every event it gets in order."""

    def __init__(self, url: str) -> None:
        import queue

        import socketio

        self.messages: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.client = socketio.Client(reconnection=False)
        self.client.on("*", lambda name, payload: self.messages.put((name, payload)))
        # engine.io's client hands every message to a thread of its own (`_trigger_event(
        # "message", ..., run_async=True)`), so under load two ticks can reach the handler
        # out of the order they arrived in (ci on stop 29: seqs 1, 3, 2). Handle them in the
        # read loop, in order, as the page does: the order on the wire is what is tested.
        eio = self.client.eio
        trigger = eio._trigger_event

        def in_order(event: str, *args: Any, run_async: bool = False, **kwargs: Any) -> Any:
            return trigger(event, *args, run_async=False, **kwargs)

        eio._trigger_event = in_order
        self.client.connect(url, transports=["polling"])

    def emit(self, event: str, payload: Any) -> None:
        self.client.emit(event, payload)

    def receive(self) -> tuple[str, Any]:
        return self.messages.get(timeout=WAIT)

    def close(self) -> None:
        self.client.disconnect()


def new_class(url: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{url}/api/classes",
        data=json.dumps({"scenario": "plain-pod"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        made: dict[str, Any] = json.loads(response.read())
    return made


def events_until(tab: Any, name: str, predicate: Any) -> list[tuple[str, Any]]:
    got = []
    while True:
        message = tab.receive()
        assert message is not None, "connection closed"
        got.append(message)
        if message[0] == name and predicate(message[1]):
            return got


def sid_of(app: Any, eio_socket: Any) -> str:
    manager = realtime_of(app).socketio.server.manager
    sid: str = manager.sid_from_eio_sid(eio_socket.sid, "/")
    return sid


def server_side(app: Any, tab: RawTab) -> tuple[str, socket.socket]:
    """The sid of `tab` and the server's end of its TCP connection."""
    address = tab.ws.sock.getsockname()
    for eio_socket in list(realtime_of(app).socketio.server.eio.sockets.values()):
        ws = getattr(eio_socket, "playground_ws", None)
        if ws is not None and ws.sock.getpeername() == address:
            return sid_of(app, eio_socket), ws.sock
    raise AssertionError("no such connection")


def test_every_follower_gets_the_teachers_payloads_in_order_however_it_is_connected(
    tmp_path: Path,
) -> None:
    with serve(tmp_path, **LIVE) as (app, url):
        rt = realtime_of(app)
        made = new_class(url)
        teacher = RawTab(url)
        students: dict[str, Any] = {
            "plain": RawTab(url),
            "deflate": DeflateTab(url),
            "polling": PollingTab(url),
            "plain 2": RawTab(url),
        }
        try:
            teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
            snapshot = dict(events_until(teacher, "snapshot", lambda _: True))["snapshot"]
            session = next(s for s in rt.manager.sessions() if s.public_id == snapshot["session"])
            assert session is not None
            for name, tab in students.items():
                tab.emit("class:join", {"code": made["code"], "name": name})
                events_until(tab, "snapshot", lambda p: p["session"] == session.public_id)
            # How each is served: shared frames (plain WebSockets), or engine.io's queue
            # (the deflate WebSocket, long polling).
            shares = {
                sid_of(app, s): transport.shares_frames(s)
                for s in rt.socketio.server.eio.sockets.values()
            }
            assert sorted(shares.values()) == [False, False, True, True, True]
            deflating = [
                transport.deflates_inline(s) for s in rt.socketio.server.eio.sockets.values()
            ]
            assert deflating.count(True) == 1  # the deflate tab: its own frames, inline
            assert set(shares) == set(session.tabs)  # the teacher and four followers
            markers = [f"fanout-{i}" for i in range(12)]
            for marker in markers:
                teacher.emit("act", {"action": "apply", "yaml": CONFIGMAP.format(name=marker)})
            last = markers[-1]
            seen = {}
            gaps_repaired = {}
            for name, tab in [("teacher", teacher), *students.items()]:
                got = events_until(tab, "tick", lambda p: last in json.dumps(p))
                seen[name] = [p for event, p in got if event == "tick"]
                # Every gap in a follower's seqs is repaired by a fresh snapshot in between.
                gaps_repaired[name] = all(
                    any(event == "snapshot" for event, _ in got[i + 1 : j])
                    for (i, (_, a)), (j, (_, b)) in itertools.pairwise(
                        [(k, e) for k, e in enumerate(got) if e[0] == "tick"]
                    )
                    if b["seq"] != a["seq"] + 1
                )
            reference = seen["teacher"]
            seqs = [p["seq"] for p in reference]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            assert all(p["session"] == session.public_id for p in reference if "session" in p)
            for marker in markers:  # every action reached the teacher's own tab
                assert any(marker in json.dumps(p) for p in reference)
            by_seq = {p["seq"]: p for p in reference}
            for name, ticks in seen.items():
                # Each follower: the teacher's payloads, unchanged, in the same order, up
                # to the same last one. Matched by seq, not by position from the end: a
                # follower may have joined after some, and one that lagged under load gets
                # a fresh snapshot in place of the ticks it missed (ci21: the polling tab).
                assert [p["seq"] for p in ticks] == sorted({p["seq"] for p in ticks}), name
                assert all(p == by_seq.get(p["seq"]) for p in ticks), name
                assert ticks[-1] == reference[-1], name
                assert gaps_repaired[name], name
        finally:
            for tab in [teacher, *students.values()]:
                tab.close()


def test_a_follower_that_stops_reading_falls_behind_alone_then_gets_a_fresh_snapshot(
    tmp_path: Path,
) -> None:
    """The shared frames meet a full socket: what it does not take is queued and metered,
    the follower lags past the soft bound, nothing more is queued for it, and when it
    reads again it gets one fresh snapshot and then ticks in sequence; the other follower
    gets every tick meanwhile."""
    soft = 16 * 1024
    config = {**LIVE, "SOCKETIO_BACKLOG_SOFT_BYTES": soft, "SOCKETIO_LAG_SECONDS": 60}
    with serve(tmp_path, **config) as (app, url):
        rt = realtime_of(app)
        made = new_class(url)
        teacher = RawTab(url)
        reader = RawTab(url)
        slow = RawTab(url, receive_buffer=4096)
        try:
            teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
            snapshot = dict(events_until(teacher, "snapshot", lambda _: True))["snapshot"]
            session = next(s for s in rt.manager.sessions() if s.public_id == snapshot["session"])
            assert session is not None
            for name, tab in (("reader", reader), ("slow", slow)):
                tab.emit("class:join", {"code": made["code"], "name": name})
                events_until(tab, "snapshot", lambda p: p["session"] == session.public_id)
            slow_sid, raw = server_side(app, slow)
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            big = "x" * 6000  # each tick carries the applied object's text
            count = 0
            while slow_sid not in rt.outbox.lagging:
                yaml = CONFIGMAP.format(name=f"lag-{count}") + f"  big: {big}\n"
                teacher.emit("act", {"action": "apply", "yaml": yaml})
                count += 1
                assert count < 400, "the slow follower never fell behind"
                time.sleep(0.01)
            lagged_at = session.seq
            most = 0
            for i in range(10):  # more ticks while it lags: none is queued for it
                teacher.emit("act", {"action": "apply", "yaml": CONFIGMAP.format(name=f"m{i}")})
                most = max(most, rt.outbox.backlog(slow_sid))
            deadline = time.monotonic() + WAIT
            while session.seq < lagged_at + 10 and time.monotonic() < deadline:
                time.sleep(0.02)
            # The backlog counts what the writer took and has not written too: the queue
            # crossed the bound by one message and the writer holds at most one more.
            assert rt.outbox.backlog(slow_sid) <= soft + 2 * 16 * 1024
            # The reader got every tick, in sequence.
            got = events_until(reader, "tick", lambda p: p["seq"] >= lagged_at + 10)
            seqs = [p["seq"] for event, p in got if event == "tick"]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            # The slow one reads everything now: old ticks, then one fresh snapshot, then
            # ticks in sequence (the scheduler's round sends the snapshot once drained).
            teacher.emit("clock", {"op": "play"})
            received: list[tuple[str, Any]] = []
            while True:
                message = slow.receive()
                assert message is not None
                received.append(message)
                snaps = [i for i, (name, _) in enumerate(received) if name == "snapshot"]
                if snaps:
                    after = [p["seq"] for name, p in received[snaps[-1] + 1 :] if name == "tick"]
                    if len(after) >= 3:
                        break
            fresh = received[snaps[-1]][1]
            assert fresh["session"] == session.public_id
            assert fresh["seq"] >= lagged_at + 10  # one snapshot instead of the ticks missed
            assert after == list(range(fresh["seq"] + 1, fresh["seq"] + 1 + len(after)))
            before = [p["seq"] for name, p in received[: snaps[-1]] if name == "tick"]
            assert before == list(range(before[0], before[0] + len(before)))  # no gap, no mix
            assert all(seq <= lagged_at for seq in before)  # nothing queued while it lagged
            assert slow_sid not in rt.outbox.lagging
        finally:
            for tab in (teacher, reader, slow):
                tab.close()


def test_a_deflate_tabs_messages_written_inline_and_by_its_writer_keep_one_window(
    tmp_path: Path,
) -> None:
    """A deflate tab's messages are compressed with its one window whether the emitting
    thread writes them (nothing queued) or its writer does (behind a queued packet): the
    client, inflating with one window, reads every one, in order."""
    with serve(tmp_path, **LIVE) as (app, url):
        rt = realtime_of(app)
        tab = DeflateTab(url)
        try:
            tab.emit("join", {"scenario": "plain-pod"})
            assert tab.receive()[0] == "snapshot"
            [eio_socket] = [
                s for s in rt.socketio.server.eio.sockets.values() if transport.deflates_inline(s)
            ]
            sid = sid_of(app, eio_socket)
            sent = []
            for i in range(12):
                body = {"i": i, "pad": "z" * 2000, "opened": tab.opened}
                if i % 3 == 2:  # through engine.io's queue and the writer thread
                    text = "2" + json.dumps(["probe", body])
                    eio_socket.send(eio_packet.Packet(eio_packet.MESSAGE, text))
                else:  # written by this thread when nothing waits, else queued
                    rt.outbox.emit("probe", body, to=sid)
                sent.append(body)
            got = [tab.receive() for _ in range(12)]
            assert [name for name, _ in got] == ["probe"] * 12
            assert [p for _, p in got] == sent
        finally:
            tab.close()


def test_writing_frames_from_many_threads_keeps_each_connection_whole(tmp_path: Path) -> None:
    """Shared frames written by several threads at once to one tab (its own messages and
    the room's) arrive as whole messages, none lost."""
    with serve(tmp_path, **LIVE) as (app, url):
        rt = realtime_of(app)
        tab = RawTab(url)
        try:
            tab.emit("join", {"scenario": "plain-pod"})
            assert (tab.receive() or ("",))[0] == "snapshot"
            target, _ = server_side(app, tab)
            eio_sid = rt.socketio.server.manager.eio_sid_from_sid(target, "/")
            assert transport.shares_frames(rt.socketio.server.eio.sockets[eio_sid])

            def send(worker: int) -> None:
                for i in range(50):
                    rt.outbox.emit("probe", {"w": worker, "i": i, "pad": "y" * 3000}, to=target)

            threads = [threading.Thread(target=send, args=(w,)) for w in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            got: dict[int, list[int]] = {w: [] for w in range(4)}
            while sum(len(v) for v in got.values()) < 200:
                message = tab.receive()
                assert message is not None
                if message[0] == "probe":
                    got[message[1]["w"]].append(message[1]["i"])
            assert all(values == list(range(50)) for values in got.values())
        finally:
            tab.close()
