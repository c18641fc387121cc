"""The Kubernetes API of every session, so the real kubectl (and any client) works against
it (issue 18; contract: shared/ARCHITECTURE.md "Kubernetes API").

- ``common``     JSON answers, Status errors, request parameters, the API's bounds
                 (imported by every other module here; it imports none of them).
- ``resources``  the served resources and the discovery documents.
- ``objects``    the session's objects through the engine's public face, versioned.
- ``tables``     Table answers, rendered by webapp/kubectl's printers.
- ``api``        the paths and verbs under ``/kube/<token>/``.
- ``openapi``    /openapi/v2 and /openapi/v3, shipped as data.
- ``sessions``   tokens, kubeconfigs, per-client bounds; ``kubeconfig`` the
                 ``POST /api/kubeconfig`` route.
"""

from __future__ import annotations

from flask import Flask

from webapp.kubeapi.sessions import KubeState

__all__ = ["init_app"]


def init_app(app: Flask) -> None:
    from webapp.kubeapi import api, exec_ws, kubeconfig

    state = KubeState()
    url = app.config.get("REDIS_URL")
    if url:
        from webapp.redis_client import bounded_redis

        state.redis = bounded_redis(url, 16)
        state.ttl = int(float(app.config["SESSION_IDLE_SECONDS"])) + 3600
    app.extensions["playground.kubeapi"] = state
    keeper = app.extensions.get("playground.records")
    if keeper is not None:
        keeper.on_gone = state.forget_session  # a freed session's tokens answer 401
    app.add_url_rule("/kube/<token>", "kubeapi_root", api.serve, defaults={"path": ""},
                     methods=api.METHODS, strict_slashes=False)  # fmt: skip
    app.add_url_rule("/kube/<token>/<path:path>", "kubeapi", api.serve, methods=api.METHODS)
    app.add_url_rule("/kube/<token>/api/v1/namespaces/<namespace>/pods/<name>/exec",
                     "kubeapi_exec", exec_ws.serve, methods=["GET"], websocket=True)  # fmt: skip
    app.add_url_rule("/api/kubeconfig", "kubeconfig", kubeconfig.post, methods=["POST"])
