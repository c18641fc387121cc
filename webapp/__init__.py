"""Pod Lifecycle Playground: watch a Kubernetes Pod live and die, in a browser.

`create_app()` builds the Flask app and its Socket.IO server; `pod-playground` serves it.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider
from flask_socketio import SocketIO
from socketio.packet import Packet

from . import assets, classes, kubeapi, metrics, realtime, routes, security, storage
from .clients import trusted_proxies
from .config import load_config
from .paths import resource_dir
from .sessions import payloads, wire

__all__ = ["create_app", "socketio_of"]


class JsonPacket(Packet):
    """Socket.IO packets the playground sends: JSON only, never bytes, so python-socketio
    need not walk every payload looking for binary parts before encoding it
    (`Packet.data_is_binary`: about a fifth of the scheduler's time at 200 playing
    sessions, docs/workers.md "Capacity"). Packets from tabs are decoded as before."""

    uses_binary_events = False


class ClientJSON(DefaultJSONProvider):
    """Flask's JSON, reading request bodies as Socket.IO packets are read: an integer too
    long for a float is refused by the check of its field (webapp/sessions/payloads.py)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return payloads.loads(s, **kwargs)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the playground app. `config` overrides the defaults in `webapp.config`."""
    app = Flask(
        __name__,
        static_folder=str(resource_dir("static")),
        template_folder=str(resource_dir("templates")),
        instance_relative_config=True,
    )
    app.json = ClientJSON(app)
    app.config.from_mapping(load_config(config))
    # Parsed once (ProxySettingError, a StartupError, for a count: webapp/clients.py).
    app.config["TRUSTED_PROXY_NETWORKS"] = trusted_proxies(app.config.get("TRUSTED_PROXIES"))
    # Created here, never at module level: several apps in one test process must not
    # share a server (TECH-NOTES §2a).
    redis_url = app.config.get("REDIS_URL")
    scaling: dict[str, Any] = {}
    if redis_url:  # rooms span the workers (docs/workers.md)
        scaling["message_queue"] = redis_url
    if int(app.config.get("WORKERS") or 1) > 1:
        # Long polling needs every request of a connection on one worker: WebSocket only.
        scaling["transports"] = ["websocket"]
    socketio = SocketIO(
        app,
        **scaling,
        async_mode=app.config["SOCKETIO_ASYNC_MODE"],
        # The transport's cap; messages over SOCKETIO_MAX_MESSAGE_BYTES (lower) are answered
        # with an `error` by webapp.realtime.transport.guard_messages.
        max_http_buffer_size=app.config["SOCKETIO_TRANSPORT_MAX_BYTES"],
        # A tab's events are handled in the order it sent them, on its connection's own
        # thread (`join` then `clock play` must not race); other tabs are not held up.
        async_handlers=False,
        json=wire,  # reuses the JSON text of a tick's unchanged parts
        serializer=JsonPacket,
        cors_allowed_origins=None,  # same origin only
    )
    security.init_app(app)
    assets.init_app(app)  # after security: its CSP for pages with an import map wins
    storage.init_app(app)
    catalog = routes.init_app(app)
    rt = realtime.init_app(app, socketio, catalog)
    classes.init_app(app, rt)
    kubeapi.init_app(app)  # the Kubernetes API of every session (after realtime)
    metrics.init_app(app)  # last: it wraps the Socket.IO handlers and realtime hooks
    return app


def socketio_of(app: Flask) -> SocketIO:
    """The app's Socket.IO server (Flask-SocketIO registers itself in app.extensions)."""
    socketio: SocketIO = app.extensions["socketio"]
    return socketio
