"""Who a request comes from, for per-client limits (sessions, share links, connections).

client_address(environ, trusted_proxies=0)   # "203.0.113.7"

With `TRUSTED_PROXIES = 0` (the default) the client is the peer address of the connection,
`REMOTE_ADDR`: an `X-Forwarded-For` header is ignored, since any client can send one. Behind
`n` reverse proxies that each append the address they received from (nginx
`proxy_add_x_forwarded_for`), set `TRUSTED_PROXIES = n` (or `PLAYGROUND_TRUSTED_PROXIES=n`):
the client is then the n-th address from the right of `X-Forwarded-For`, the one the
outermost trusted proxy saw; entries further left were written by the client and are not
believed. Werkzeug's `ProxyFix(x_for=n)` follows the same rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import current_app, request

MAX_ADDRESS = 64  # longer "addresses" are cut: a key, never trusted content


def client_address(environ: Mapping[str, Any], trusted_proxies: int = 0) -> str:
    peer = str(environ.get("REMOTE_ADDR") or "")
    if trusted_proxies > 0:
        header = str(environ.get("HTTP_X_FORWARDED_FOR") or "")
        values = [v.strip() for v in header.split(",") if v.strip()]
        if len(values) >= trusted_proxies:
            return values[-trusted_proxies][:MAX_ADDRESS]
    return peer[:MAX_ADDRESS]


def current_client() -> str:
    """The client of the current Flask request (or Socket.IO connection)."""
    return client_address(request.environ, int(current_app.config.get("TRUSTED_PROXIES", 0)))
