"""Which session a request reaches: each session's API token (an unguessable secret that
goes in the server URL's path, since kubectl sends no bearer token to an http:// server:
shared/KUBE-API-NOTES.md §0), `POST /api/kubeconfig`, and the API's bounds per client.

Tokens live with this process's sessions (SessionManager); a token whose session was freed
answers 401, as a revoked credential does.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from webapp.kubeapi.common import (
    MAX_WATCHES_PER_CLIENT,
    MAX_WATCHES_PER_SESSION,
    REQUEST_BURST,
    REQUESTS_PER_SECOND,
    too_many_requests,
)
from webapp.ratelimit import RateLimiter

TOKEN_PREFIX = "kp"


def new_token() -> str:
    """192 random bits, URL-safe (it is a path segment)."""
    return f"{TOKEN_PREFIX}-{secrets.token_urlsafe(24)}"


@dataclass
class KubeState:
    tokens: dict[str, str] = field(default_factory=dict)  # token -> session id
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: RateLimiter = field(
        default_factory=lambda: RateLimiter(REQUESTS_PER_SECOND, burst=REQUEST_BURST)
    )
    watches_by_session: dict[str, int] = field(default_factory=dict)
    watches_by_client: dict[str, int] = field(default_factory=dict)
    # Redis shared by every worker and host (None: one process). A token is kept there as
    # `playground:kube:<sha256(token)>` -> session id (never the token itself), with
    # `ttl` seconds of life, so that any worker finds the session of any kubeconfig.
    redis: Any = None
    ttl: int = 5400

    def token_for(self, session: Any) -> str:
        with self.lock:
            token = getattr(session, "kube_token", None)
            if token is None:
                token = new_token()
                session.kube_token = token
                self.tokens[token] = session.id
        if self.redis is not None:
            self.redis.set(token_key(token), session.id, ex=self.ttl)
        return token

    def session_id(self, token: str) -> str | None:
        with self.lock:
            found = self.tokens.get(token)
        if found is None and self.redis is not None and len(token) <= 64:
            value = self.redis.get(token_key(token))
            if value is not None:
                found = value.decode("ascii", "replace")
                with self.lock:
                    self.tokens[token] = found
        return found

    def forget(self, token: str) -> None:
        """Revoke `token` (its session ended or was evicted): here and for every worker."""
        with self.lock:
            self.tokens.pop(token, None)
        if self.redis is not None:
            self.redis.delete(token_key(token))

    def forget_session(self, session_id: str) -> None:
        """Revoke every token of session `session_id` this worker knows."""
        with self.lock:
            tokens = [t for t, s in self.tokens.items() if s == session_id]
        for token in tokens:
            self.forget(token)

    def open_watch(self, session_id: str, client: str) -> None:
        """Count a watch (or a log follow); 429 past the bounds (docs/limits.md)."""
        with self.lock:
            if self.watches_by_session.get(session_id, 0) >= MAX_WATCHES_PER_SESSION:
                raise too_many_requests(
                    f"too many watches open on this session (limit {MAX_WATCHES_PER_SESSION})", 5
                )
            if self.watches_by_client.get(client, 0) >= MAX_WATCHES_PER_CLIENT:
                raise too_many_requests(
                    f"too many watches open from this client (limit {MAX_WATCHES_PER_CLIENT})", 5
                )
            self.watches_by_session[session_id] = self.watches_by_session.get(session_id, 0) + 1
            self.watches_by_client[client] = self.watches_by_client.get(client, 0) + 1

    def close_watch(self, session_id: str, client: str) -> None:
        with self.lock:
            for table, key in ((self.watches_by_session, session_id),
                               (self.watches_by_client, client)):  # fmt: skip
                left = table.get(key, 0) - 1
                if left > 0:
                    table[key] = left
                else:
                    table.pop(key, None)


def token_key(token: str) -> str:
    """The Redis key of a token: its SHA-256, so that the key space never shows a token."""
    return "playground:kube:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def state_of(app: Flask) -> KubeState:
    state: KubeState = app.extensions["playground.kubeapi"]
    return state


def kubeconfig_text(server: str, token: str, name: str = "playground") -> str:
    """A complete kubeconfig: one cluster, one user, one context (namespace default),
    current. The token is in the server URL (kubectl sends no bearer token over http);
    the user's token repeats it for clients that send it anyway (over https)."""
    return (
        "apiVersion: v1\n"
        "kind: Config\n"
        "clusters:\n"
        f"- name: {name}\n"
        "  cluster:\n"
        f"    server: {server}\n"
        "users:\n"
        f"- name: {name}\n"
        "  user:\n"
        f"    token: {token}\n"
        "contexts:\n"
        f"- name: {name}\n"
        "  context:\n"
        f"    cluster: {name}\n"
        f"    user: {name}\n"
        "    namespace: default\n"
        f"current-context: {name}\n"
        "preferences: {}\n"
    )
