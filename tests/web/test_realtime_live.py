"""Sessions over a real WebSocket: python-socketio clients against the live server, whose
scheduler loop runs in the background as in production. Waits have generous timeouts that
only stop a hung test; nothing asserts on how long anything took."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import pytest
import socketio

WAIT = 20.0


class Tab:
    """A python-socketio client that queues every snapshot, tick and error it receives."""

    def __init__(self, url: str, transports: list[str] | None = None) -> None:
        self.messages: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.client = socketio.Client(reconnection=False)
        for name in ("snapshot", "tick", "error"):
            self.client.on(name, self._keep(name))
        self.client.connect(url, transports=transports or ["websocket"])

    def _keep(self, name: str) -> Any:
        def handler(payload: dict[str, Any]) -> None:
            self.messages.put((name, payload))

        return handler

    def next(self, name: str) -> dict[str, Any]:
        got, payload = self.messages.get(timeout=WAIT)
        assert got == name, (got, payload)
        return payload

    def until(self, predicate: Any) -> list[dict[str, Any]]:
        """Ticks up to and including the first one for which `predicate` holds."""
        ticks = []
        while True:
            ticks.append(self.next("tick"))
            if predicate(ticks[-1]):
                return ticks


@pytest.fixture
def tab(live_server: str) -> Iterator[Tab]:
    tab = Tab(live_server)
    yield tab
    tab.client.disconnect()


def test_a_played_scenario_streams_consecutive_ticks_until_running(tab: Tab) -> None:
    tab.client.emit("join", {"scenario": "plain-pod"})
    snapshot = tab.next("snapshot")
    tab.client.emit("clock", {"op": "speed", "value": 50})
    tab.client.emit("clock", {"op": "play"})
    ticks = tab.until(lambda t: t["pod"] and t["pod"]["status"].get("phase") == "Running")
    seqs = [snapshot["seq"]] + [t["seq"] for t in ticks]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert ticks[-1]["views"]["columns"]["STATUS"] == "Running"
    tab.client.emit("clock", {"op": "pause"})


def test_a_new_connection_resumes_the_session_by_id(live_server: str, tab: Tab) -> None:
    tab.client.emit("join", {"scenario": "plain-pod"})
    snapshot = tab.next("snapshot")
    tab.client.emit("clock", {"op": "seek", "value": 42})
    tab.next("snapshot")
    tab.client.disconnect()
    again = Tab(live_server)
    try:
        again.client.emit("join", {"session": snapshot["session"]})
        resumed = again.next("snapshot")
        assert resumed["session"] == snapshot["session"]
        assert resumed["now"] == 42
    finally:
        again.client.disconnect()


def test_a_wrong_session_id_is_an_error(tab: Tab) -> None:
    tab.client.emit("join", {"session": "x" * 32, "lang": "zh"})
    error = tab.next("error")
    assert error["code"] == "unknown_session"
    assert "会话" in error["message"]


def test_a_message_over_the_size_cap_is_answered_and_the_connection_kept(
    live_server: str, tab: Tab
) -> None:
    tab.client.emit("join", {"scenario": "plain-pod", "lang": "zh"})
    tab.next("snapshot")
    tab.client.emit("apply", {"yaml": "x" * (600 * 1024)})
    error = tab.next("error")
    assert error["code"] == "message_too_large"
    assert "512 KiB" in error["message"] and "601 KiB" in error["message"]
    assert tab.client.connected
    tab.client.emit("clock", {"op": "step"})
    assert tab.next("tick")["transitions"]


def test_a_message_over_the_size_cap_is_answered_over_long_polling(live_server: str) -> None:
    polling = Tab(live_server, transports=["polling"])
    try:
        polling.client.emit("join", {"scenario": "plain-pod"})
        polling.next("snapshot")
        polling.client.emit("apply", {"yaml": "x" * (600 * 1024)})
        assert polling.next("error")["code"] == "message_too_large"
        polling.client.emit("clock", {"op": "step"})
        assert polling.next("tick")["transitions"]
    finally:
        polling.client.disconnect()


def test_a_message_over_the_transport_cap_closes_only_that_connection(
    live_server: str, tab: Tab
) -> None:
    tab.client.emit("join", {"scenario": "plain-pod"})
    tab.next("snapshot")
    other = Tab(live_server)
    try:
        other.client.emit("apply", {"yaml": "x" * (3 * 1024 * 1024)})
        for _ in range(int(WAIT / 0.05)):
            if not other.client.connected:
                break
            other.client.sleep(0.05)
        assert not other.client.connected
        tab.client.emit("clock", {"op": "step"})
        assert tab.next("tick")["transitions"]
    finally:
        if other.client.connected:
            other.client.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        '42["join",',
        "4x",
        "49",
        "42{}",
        "42",
        "42[]",
        "44",
        "46",
        '451-["join",{"_placeholder":true,"num":0}]',
        pytest.param("42" + "[" * 100_000, id="nested-100000-deep"),
        pytest.param(
            '42["act",{"action":"crash","exitCode":' + "9" * 5000 + "}]", id="int-5000-digits"
        ),
        '42["join",{"yaml":"\\ud800"}]',
        '42["join",{"\\ud800":1}]',
        '42["act",{"action":"delete","\\ud800":null}]',
    ],
)
def test_a_packet_the_server_cannot_read_is_answered_not_logged_as_a_crash(
    live_server: str, frame: str, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.web.live import RawTab

    raw = RawTab(live_server)
    try:
        raw.ws.send(frame)
        answer = raw.receive()
        assert answer is not None and answer[0] == "error"
        assert answer[1]["code"] == "invalid_payload"
        raw.emit("join", {"scenario": "plain-pod"})  # the connection still works
        assert (raw.receive() or ("",))[0] == "snapshot"
    finally:
        raw.close()
    assert not [r for r in caplog.records if r.exc_info]


def test_a_tabs_events_are_handled_in_the_order_sent(tab: Tab) -> None:
    tab.client.emit("join", {"scenario": "plain-pod"})
    tab.client.emit("clock", {"op": "step"})  # sent before the snapshot came back
    tab.next("snapshot")
    assert tab.next("tick")["seq"] == 1


def test_a_client_sending_an_event_named_disconnect_stays_joined_and_rate_limited(
    live_server: str,
) -> None:
    from tests.web.live import RawTab

    raw = RawTab(live_server)
    try:
        raw.emit("join", {"scenario": "plain-pod"})
        assert (raw.receive() or ("",))[0] == "snapshot"
        codes = []
        for i in range(40):
            if i % 10 == 9:
                raw.emit("disconnect", {})  # a forged event: the connection is not leaving
            raw.emit("clock", {"op": "pause"})
        raw.ws.settimeout(WAIT)
        import time

        time.sleep(1.5)  # the bucket refills: the step below is answered
        raw.emit("clock", {"op": "step"})
        while (answer := raw.receive()) is not None:
            codes.append(answer[1].get("code") if answer[0] == "error" else answer[0])
            if answer[0] == "tick" or len(codes) > 60:
                break
        assert "no_session" not in codes
        assert "rate_limited" in codes  # the bucket was not reset by the forged disconnects
    finally:
        raw.close()
