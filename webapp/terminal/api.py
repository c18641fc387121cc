"""The session's Kubernetes API, called in-process: the terminal is a kubectl client of the
same API kubectl reaches over HTTP (webapp/kubeapi), so both see the same objects, the same
Tables, the same Status errors; only the network is left out.

status, body = request(session, "GET", "/api/v1/namespaces/default/pods", table=True)

A watch (`watch=true`) answers with its stream: an iterator of lines, run by the caller
(webapp/terminal/streams.py) until it ends or `environ["playground.stopped"]()` says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlencode

from flask import current_app

from webapp.engine.store.errors import ApiError

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

# Whose requests these are: the typing tab's client address, so a terminal's watches count
# against that client's bounds (MAX_WATCHES_PER_CLIENT), never one bucket shared by all.
_client: ContextVar[str] = ContextVar("terminal_client", default="terminal")


@contextmanager
def as_client(address: str) -> Iterator[None]:
    """Requests made inside are the client `address`'s (webapp/realtime/terminal.py)."""
    token = _client.set(address)
    try:
        yield
    finally:
        _client.reset(token)


def request(
    session: Any,
    method: str,
    path: str,
    query: dict[str, str] | None = None,
    *,
    table: bool = False,
    body: Any = None,
    content_type: str = "application/json",
    environ: dict[str, Any] | None = None,
) -> tuple[int, Any]:
    """One API request: (HTTP status, the decoded JSON body or the Status of an error)."""
    from webapp.kubeapi import api

    headers = {"Accept": TABLE if table else "application/json"}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = content_type
    url = "/kube/terminal" + path
    if query:
        url += "?" + urlencode(query)
    with current_app.test_request_context(url, method=method, headers=headers, data=data,
                                          environ_overrides=environ):  # fmt: skip
        try:
            response = api._dispatch(session, path.strip("/"), _client.get())
        except ApiError as error:
            return error.code, error.status()
        if response.is_streamed:  # a watch (its events, a JSON document a line) or a log follow
            return response.status_code, response.response
        text = response.get_data(as_text=True)
        try:
            return response.status_code, json.loads(text)
        except ValueError:
            return response.status_code, text
