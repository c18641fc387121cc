"""Share links in SQLite: content-addressed, written once, durable once acknowledged.

store = ShareStore(path)
link_id = store.put({"yaml": text, "actions": [...], "at": 12.0})   # same content, same id
store.get(link_id)  # the same dict, or None
store.put({..., "lang": "zh"})  # the language it was made in: part of the id, kept beside
                                # the body in a nullable column (older links have none)

WAL mode with `synchronous=FULL`: a commit that returned is on disk, so a link the user
was shown survives `kill -9` of the server (and a power loss). One connection per thread.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from flask import Flask

ID_LENGTH = 16
ID_PATTERN = re.compile(rf"[a-z2-7]{{{ID_LENGTH}}}")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS share_links (
    id         TEXT PRIMARY KEY,
    body       TEXT NOT NULL,
    created_at REAL NOT NULL
) WITHOUT ROWID
"""


# A column added after links were first stored: old databases gain it when opened.
_ADD_LANG = "ALTER TABLE share_links ADD COLUMN lang TEXT"


def canonical_json(link: dict[str, Any]) -> str:
    """The one text of a link's content: sorted keys, no spaces, `at` as a float."""
    content = {"yaml": link["yaml"], "actions": link["actions"], "at": float(link["at"])}
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _identity(body: str, lang: str | None) -> str:
    """What the id is computed from: the content, and the language when one is given (the
    same run shared in English and in Chinese is two links; a link without one keeps the
    id it always had)."""
    return body if lang is None else f"{body}\n{lang}"


def link_id(body: str) -> str:
    """First 16 characters of the lowercase base32 SHA-256 of the canonical JSON (80 bits)."""
    digest = hashlib.sha256(body.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:ID_LENGTH]


def is_link_id(value: str) -> bool:
    return ID_PATTERN.fullmatch(value) is not None


class ShareStore:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._local = threading.local()
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        connection = self._connect()
        try:
            connection.execute(_SCHEMA)
            columns = {row[1] for row in connection.execute("PRAGMA table_info(share_links)")}
            if "lang" not in columns:
                try:
                    connection.execute(_ADD_LANG)
                except sqlite3.OperationalError as error:  # another process added it first
                    if "duplicate column" not in str(error):
                        raise
            connection.commit()
        finally:
            connection.close()

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=10.0)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        return connection

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections must stay on their thread)."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._connect()
            self._local.connection = connection
        return connection

    def put(self, link: dict[str, Any]) -> str:
        """Store a link (if new) and return its id; an existing id is never overwritten."""
        body = canonical_json(link)
        lang = link.get("lang")
        new_id = link_id(_identity(body, lang))
        with self.connection as connection:  # commits on leaving the block
            connection.execute(
                "INSERT OR IGNORE INTO share_links (id, body, created_at, lang)"
                " VALUES (?, ?, ?, ?)",
                (new_id, body, time.time(), lang),
            )
        return new_id

    def get(self, wanted: str) -> dict[str, Any] | None:
        if not is_link_id(wanted):
            return None
        row = self.connection.execute(
            "SELECT body, lang FROM share_links WHERE id = ?", (wanted,)
        ).fetchone()
        if row is None:
            return None
        link: dict[str, Any] = json.loads(row[0])
        if row[1] is not None:
            link["lang"] = row[1]
        return link

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


def database_path(app: Flask) -> Path:
    configured = app.config.get("PLAYGROUND_DB")
    return Path(configured) if configured else Path(app.instance_path) / "playground.sqlite3"


def init_app(app: Flask) -> ShareStore:
    store = ShareStore(database_path(app))
    app.extensions["playground.share_store"] = store
    return store


def store_of(app: Flask) -> ShareStore:
    store: ShareStore = app.extensions["playground.share_store"]
    return store
