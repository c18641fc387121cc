"""Socket.IO handlers: the page's live connection."""

from __future__ import annotations

from flask import Flask
from flask_socketio import SocketIO, emit


def init_app(app: Flask, socketio: SocketIO) -> None:
    @socketio.on("connect")
    def on_connect() -> None:
        emit("hello", {"server": "pod-lifecycle-playground"})
