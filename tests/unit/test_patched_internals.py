"""What the playground reaches inside its dependencies still exists, in the versions pinned
in pyproject.toml (issue 22: a patch of a dependency's internals is kept only where it was
measured necessary, its dependency pinned exactly, and this test says when an upgrade
moved what it relies on).

- webapp/realtime/transport.py: python-engineio's per-connection queue, its threading
  WebSocket driver and its message handler; simple-websocket's connection and wsproto's
  negotiated extensions (the metered queue of slow and silent tabs, the hang-up of a blocked
  writer, shared and inline-deflated frames: docs/limits.md, "Slow and silent clients",
  and the classroom figures);
- webapp/realtime/outbox.py: python-socketio's manager and packet class;
- webapp/serving.py: gunicorn's threaded worker, arbiter and logger it subclasses.
"""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version
from pathlib import Path

import engineio
import simple_websocket
import socketio
from engineio.async_drivers import _websocket_wsgi
from engineio.socket import Socket
from gunicorn.arbiter import Arbiter
from gunicorn.glogging import Logger
from gunicorn.workers.gthread import ThreadWorker

ROOT = Path(__file__).resolve().parents[2]
PINNED = ("python-engineio", "python-socketio", "simple-websocket", "wsproto", "gunicorn")


def test_the_patched_dependencies_are_pinned_exactly_and_installed_as_pinned() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    for name in PINNED:
        match = re.search(rf'"{re.escape(name)}==([^"]+)"', text)
        assert match, f"{name} is not pinned exactly in pyproject.toml"
        assert version(name) == match.group(1), (name, version(name), match.group(1))


def test_engineio_internals_used_by_the_transport() -> None:
    server = engineio.Server(async_mode="threading")
    # install(): the queue factory and the driver table entry replaced per server.
    assert callable(server.create_queue)
    assert "websocket" in server._async
    assert server._async["websocket"] is _websocket_wsgi.SimpleWebSocketWSGI
    # guard_messages(): the message handler python-socketio registers.
    sio = socketio.Server(async_mode="threading")
    assert callable(sio.eio.handlers["message"])
    # The connection's queue, its state, the WebSocket handler the driver wraps.
    for name in ("queue", "connected", "closed", "closing", "last_ping"):
        assert name in inspect.getsource(Socket.__init__), name
    for name in ("check_ping_timeout", "close", "send", "poll", "_websocket_handler"):
        assert callable(getattr(Socket, name)), name
    assert "abort" in inspect.signature(Socket.close).parameters
    source = inspect.getsource(_websocket_wsgi.SimpleWebSocketWSGI)
    assert "self.app" in source and "server_args" in source and "self.ws" in source
    assert 'mode == "gunicorn"' in source or "mode == 'gunicorn'" in source


def test_simple_websocket_and_wsproto_internals_used_by_the_transport() -> None:
    parameters = inspect.signature(simple_websocket.Server.__init__).parameters
    assert "max_message_size" in parameters
    source = inspect.getsource(simple_websocket.ws)
    for name in ("self.mode", "self.sock", "self.ws", "self.connected", "gunicorn.socket"):
        assert name in source, name
    assert simple_websocket.ConnectionClosed
    from wsproto import WSConnection
    from wsproto.connection import Connection
    from wsproto.frame_protocol import FrameProtocol

    # transport._extensions: ws.ws.connection._proto.extensions
    assert "self.connection" in inspect.getsource(WSConnection)
    assert "self._proto = FrameProtocol(" in inspect.getsource(Connection.__init__)
    assert "self.extensions" in inspect.getsource(FrameProtocol.__init__)


def test_socketio_internals_used_by_the_outbox() -> None:
    server = socketio.Server(async_mode="threading")
    assert callable(server.manager.eio_sid_from_sid)
    assert callable(server.manager.get_participants)
    assert hasattr(server.packet_class, "json")
    assert hasattr(server.packet_class, "uses_binary_events")


def test_gunicorn_internals_used_by_serving() -> None:
    for name in ("init_signals", "handle_exit", "run"):
        assert callable(getattr(ThreadWorker, name)), name
    assert "self.alive = False" in inspect.getsource(ThreadWorker.handle_exit)
    assert "self.wsgi" in inspect.getsource(ThreadWorker.__mro__[1])  # base.Worker
    assert callable(Arbiter.handle_int)
    assert "raise StopIteration" in inspect.getsource(Arbiter.handle_term)
    assert callable(Logger.setup)
    assert "error_log" in inspect.getsource(Logger.__init__)
    assert "access_log" in inspect.getsource(Logger.__init__)
