"""HTTP response headers that keep user-supplied text inert and the page same-origin."""

from __future__ import annotations

from flask import Flask, Response

# No inline script, no other origin. `connect-src 'self'` covers the same-origin WebSocket.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


def add_security_headers(response: Response) -> Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if getattr(response, "subresource", False):
        # A script or style sheet of ours (webapp/assets.py): the policy headers govern
        # documents, and on 20 files a visit they would cost 7 KB of the first load.
        return response
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


def init_app(app: Flask) -> None:
    app.after_request(add_security_headers)
