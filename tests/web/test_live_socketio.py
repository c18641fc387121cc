"""A real Socket.IO client over a real WebSocket against the live server."""

from __future__ import annotations

import pytest
import socketio


def test_same_origin_client_connects_over_websocket(live_server: str) -> None:
    client = socketio.Client(reconnection=False)
    client.connect(live_server, transports=["websocket"])  # sends Origin: the server URL
    try:
        assert client.transport() == "websocket"
    finally:
        client.disconnect()


def test_other_origins_are_refused(live_server: str) -> None:
    client = socketio.Client(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):
        client.connect(
            live_server, transports=["websocket"], headers={"Origin": "http://evil.example"}
        )
