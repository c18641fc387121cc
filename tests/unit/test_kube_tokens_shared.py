"""The API's tokens are shared through Redis (webapp/kubeapi/sessions.py): a token made on
one worker is found by another, is stored only as its hash, and is revoked for all."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from webapp.kubeapi.sessions import KubeState, token_key


class DictRedis:
    """The three commands KubeState uses, over a dict (expiry recorded, not run)."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.expiry: dict[str, int] = {}

    def set(self, key: str, value: str, ex: int) -> None:
        self.data[key] = value.encode()
        self.expiry[key] = ex

    def get(self, key: str) -> Any:
        return self.data.get(key)

    def delete(self, key: str) -> None:
        self.data.pop(key, None)


def test_a_token_made_on_one_worker_is_found_on_another_and_revoked_for_all() -> None:
    shared = DictRedis()
    a = KubeState(redis=shared, ttl=100)
    b = KubeState(redis=shared, ttl=100)
    session = SimpleNamespace(id="s" * 32)
    token = a.token_for(session)
    assert b.session_id(token) == session.id
    assert all(token not in key for key in shared.data)  # only its hash is kept
    assert shared.expiry[token_key(token)] == 100
    assert b.session_id(token + "x") is None
    a.forget_session(session.id)  # freed on a: revoked in Redis for every worker
    assert token_key(token) not in shared.data
    assert KubeState(redis=shared).session_id(token) is None
