"""Share links in SQLite: content-addressed, written once, durable once acknowledged.

store = ShareStore(path, max_bytes=256 << 20, unopened_seconds=30 * 86400)
link_id = store.put({"yaml": text, "actions": [...], "at": 12.0})   # same content, same id
store.get(link_id)          # the same dict, or None
store.put({..., "lang": "zh"})  # the language it was made in: part of the id, kept beside
                                # the body in a nullable column (older links have none)
store.mark_opened(link_id)  # a run was opened from it: it is kept for good

WAL mode with `synchronous=FULL`: a commit that returned is on disk, so a link the user
was shown survives `kill -9` of the server (and a power loss). One connection per thread.

Retention (docs/limits.md): a link that has been opened at least once is kept; a link never
opened is deleted `unopened_seconds` after it was made. The sweep is lazy and cheap: at
most once every `sweep_seconds`, on a write, in batches of SWEEP_BATCH rows by the
`created_at` index. Storage is capped: when the live pages of the database reach
`max_bytes`, `put` of a new link (after a sweep) raises StorageFull; links that already
exist are still answered.

Schema changes are additive and run on open (`_migrate`): a database made by an older
version gains the `opened_at` / `last_opened_at` columns (NULL: never opened).
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from webapp.database import (
    Database,
    PostgresDatabase,
    SqliteDatabase,
    SqliteFile,
    postgres_fault,
    redact_url,
)

log = logging.getLogger(__name__)

ID_LENGTH = 16
ID_PATTERN = re.compile(rf"[a-z2-7]{{{ID_LENGTH}}}")
SWEEP_BATCH = 1000
# A link opened again is re-stamped at most this often (an open is otherwise a read).
REOPEN_STAMP_SECONDS = 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS share_links (
    id         TEXT PRIMARY KEY,
    body       TEXT NOT NULL,
    created_at REAL NOT NULL
) WITHOUT ROWID
"""
_COLUMNS = {"opened_at": "REAL", "last_opened_at": "REAL", "lang": "TEXT"}
_RECORDS_SCHEMA = """
CREATE TABLE IF NOT EXISTS session_records (
    id       TEXT PRIMARY KEY,
    body     TEXT NOT NULL,
    saved_at REAL NOT NULL
) WITHOUT ROWID
"""
# A session record in parts (webapp/records.py, RecordWrite): part -2 its base, -1 its head
# (`saved_at` is the head's: what the sweep reads), 0, 1, ... its action rows.
_RECORD_ROWS_SCHEMA = """
CREATE TABLE IF NOT EXISTS session_record_rows (
    id       TEXT NOT NULL,
    part     INTEGER NOT NULL,
    body     TEXT NOT NULL,
    saved_at REAL NOT NULL,
    PRIMARY KEY (id, part)
) WITHOUT ROWID
"""
BASE_PART, HEAD_PART = -2, -1
_INDEX = "CREATE INDEX IF NOT EXISTS share_links_unopened ON share_links (created_at)"


# SQLite's result codes for a store that cannot be written (sqlite3 errors carry them as
# `sqlite_errorcode` in Python 3.11+), and the errnos of the file system under it.
_SQLITE_FAULTS = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "the database is read-only",
    sqlite3.SQLITE_IOERR: "the disk failed a write (I/O error)",
    sqlite3.SQLITE_CANTOPEN: "the database file cannot be opened",
    sqlite3.SQLITE_PERM: "the database file cannot be written (permission)",
}
_SQLITE_MESSAGES = (
    ("disk is full", "the disk is full"),
    ("readonly", "the database is read-only"),
    ("read-only", "the database is read-only"),
    ("disk i/o error", "the disk failed a write (I/O error)"),
    ("unable to open database", "the database file cannot be opened"),
)
_OS_FAULTS = {errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EIO}
PROBE_SECONDS = 1.0  # /readyz writes to the database's folder at most this often
PROBE_BYTES = 64 * 1024
FAULT_HOLD_SECONDS = 10.0  # a failed write keeps the store "not ready" at least this long


def write_fault(error: BaseException) -> str | None:
    """Why `error` means the store cannot be written ("the disk is full", ...), or None
    when it is some other error (a bug: a traceback and internal_error)."""
    if isinstance(error, sqlite3.OperationalError | sqlite3.DatabaseError):
        code = getattr(error, "sqlite_errorcode", None)
        if code is not None and code & 0xFF in _SQLITE_FAULTS:
            return _SQLITE_FAULTS[code & 0xFF]
        text = str(error).lower()
        for words, cause in _SQLITE_MESSAGES:
            if words in text:
                return cause
        return None
    if isinstance(error, OSError) and error.errno in _OS_FAULTS:
        return os.strerror(error.errno or 0)
    if isinstance(error, StoreUnwritable):
        return error.cause
    return redis_fault(error) or postgres_fault(error)


def redis_fault(error: BaseException) -> str | None:
    """Why a Redis error means records cannot be written (it is down, unreachable, out of
    memory or read-only), or None."""
    try:
        from redis import exceptions
    except ImportError:  # pragma: no cover - redis is a dependency
        return None
    if isinstance(error, exceptions.ConnectionError | exceptions.TimeoutError):
        return f"Redis cannot be reached ({type(error).__name__})"
    if isinstance(error, exceptions.ReadOnlyError):
        return "Redis is read-only"
    if isinstance(error, exceptions.ResponseError) and str(error).startswith(("OOM", "MISCONF")):
        return f"Redis refuses writes ({str(error).split(' ', 1)[0]})"
    return None


class StoreUnwritable(Exception):
    """The database (or Redis) cannot be written now: 507 on HTTP, `storage_unavailable`
    on the socket, /readyz "not ready"."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class DiskHealth:
    """Whether the database can be written, for /readyz and for refusals: a real write to
    its folder (PROBE_BYTES, then deleted; at most every PROBE_SECONDS), and every fault a
    real write met (`failed`) for FAULT_HOLD_SECONDS after it."""

    def __init__(
        self,
        path: str | Path,
        clock: Callable[[], float] = time.monotonic,
        probe: Callable[[], str | None] | None = None,
    ) -> None:
        self.path = path if probe is not None else Path(path)
        self.clock = clock
        # What is checked at most every PROBE_SECONDS: a real write to the file's folder,
        # or for a database server a round trip (server_health).
        self.probe = probe or (lambda: probe_folder(Path(path)))
        self._lock = threading.Lock()
        self._checked_at = float("-inf")
        self._probe: str | None = None
        self._fault: tuple[float, str] | None = None

    def failed(self, cause: str) -> None:
        with self._lock:
            if self._fault is None:
                log.warning("the database %s cannot be written: %s", self.path, cause)
            self._fault = (self.clock(), cause)

    def problem(self) -> str | None:
        """None when the database can be written, else why not."""
        now = self.clock()
        with self._lock:
            if now - self._checked_at >= PROBE_SECONDS:
                self._checked_at = now
                self._probe = self.probe()
            fault = self._fault
            if fault is not None and self._probe is None and now - fault[0] >= FAULT_HOLD_SECONDS:
                log.warning("the database %s can be written again", self.path)
                self._fault = None
            probe, fault = self._probe, self._fault
        if probe is not None:
            return f"{self.path}: {probe}"
        return None if fault is None else f"{self.path}: {fault[1]}"


def probe_folder(path: Path) -> str | None:
    """Write PROBE_BYTES beside the database file and delete them: None, or why not."""
    probe = path.parent / f".{path.name}.probe-{os.getpid()}"
    try:
        with open(probe, "wb") as handle:
            handle.write(b"\0" * PROBE_BYTES)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        return os.strerror(error.errno) if error.errno else str(error)
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return None


class StorageFull(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"share storage is full ({limit} bytes)")
        self.limit = limit


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
    """The share links, in the SQLite file or in PostgreSQL (webapp/database.py): `where`
    is a path or an open Database."""

    def __init__(
        self,
        where: str | Path | Database,
        *,
        max_bytes: int | None = None,
        unopened_seconds: float | None = None,
        sweep_seconds: float = 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = where if isinstance(where, Database) else SqliteDatabase(where)
        self.path = self.db.where
        self.max_bytes = max_bytes
        self.unopened_seconds = unopened_seconds
        self.sweep_seconds = sweep_seconds
        self.clock = clock
        self._sweep_lock = threading.Lock()
        self._next_sweep = float("-inf")
        self.db.ensure([_SCHEMA], {"share_links": _COLUMNS})
        with self.db.write() as tx:
            tx.execute(_INDEX)

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's SQLite connection (the embedded store only)."""
        if not isinstance(self.db, SqliteDatabase):
            raise AttributeError("connection: the share links are not in SQLite")
        return self.db.connection

    def close(self) -> None:
        self.db.close()

    def ping(self) -> None:
        """A round trip to the database (/metrics' store check)."""
        self.db.one("SELECT 1")

    # -- writing ----------------------------------------------------------------------------

    def put(self, link: dict[str, Any]) -> str:
        """Store a link (if new) and return its id; an existing id is never overwritten.
        StorageFull when a new link does not fit under `max_bytes`."""
        body = canonical_json(link)
        lang = link.get("lang")
        new_id = link_id(_identity(body, lang))
        self.sweep()
        if not self._fits(new_id, body):
            self.sweep(force=True)
            if not self._fits(new_id, body):
                raise StorageFull(self.max_bytes or 0)
        with self.db.write() as tx:  # commits on leaving the block
            tx.execute(
                "INSERT INTO share_links (id, body, created_at, lang)"
                " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (new_id, body, self.clock(), lang),
            )
        return new_id

    def _fits(self, new_id: str, body: str) -> bool:
        if self.max_bytes is None or self.exists(new_id):
            return True
        return self.used_bytes() + len(body.encode("utf-8")) <= self.max_bytes

    def mark_opened(self, wanted: str) -> None:
        """Record that a run was opened from link `wanted` (first time, and last time to
        within REOPEN_STAMP_SECONDS): an opened link is never expired."""
        if not is_link_id(wanted):
            return
        now = self.clock()
        with self.db.write() as tx:
            tx.execute(
                "UPDATE share_links SET opened_at = COALESCE(opened_at, ?), last_opened_at = ? "
                "WHERE id = ? AND (last_opened_at IS NULL OR last_opened_at < ?)",
                (now, now, wanted, now - REOPEN_STAMP_SECONDS),
            )

    def sweep(self, *, force: bool = False) -> int:
        """Delete links never opened and older than `unopened_seconds` (one batch); at most
        once per `sweep_seconds` unless `force`. Returns how many were deleted."""
        if self.unopened_seconds is None:
            return 0
        now = self.clock()
        with self._sweep_lock:
            if not force and now < self._next_sweep:
                return 0
            self._next_sweep = now + self.sweep_seconds
        with self.db.write() as tx:
            deleted = tx.execute(
                "DELETE FROM share_links WHERE id IN (SELECT id FROM share_links "
                "WHERE opened_at IS NULL AND created_at < ? ORDER BY created_at LIMIT ?)",
                (now - self.unopened_seconds, SWEEP_BATCH),
            ).rowcount
        if deleted:
            log.info("expired %d share links never opened", deleted)
        return int(deleted)

    # -- reading ----------------------------------------------------------------------------

    def get(self, wanted: str) -> dict[str, Any] | None:
        if not is_link_id(wanted):
            return None
        row = self.db.one("SELECT body, lang FROM share_links WHERE id = ?", (wanted,))
        if row is None:
            return None
        link: dict[str, Any] = json.loads(row[0])
        if row[1] is not None:
            link["lang"] = row[1]
        return link

    def exists(self, wanted: str) -> bool:
        return self.db.one("SELECT 1 FROM share_links WHERE id = ?", (wanted,)) is not None

    def opened(self, wanted: str) -> tuple[float | None, float | None]:
        """(first, last) time a run was opened from the link; (None, None) if never."""
        row = self.db.one(
            "SELECT opened_at, last_opened_at FROM share_links WHERE id = ?", (wanted,)
        )
        return (row[0], row[1]) if row else (None, None)

    def used_bytes(self) -> int:
        """Bytes the links take: SQLite's pages in use (freed pages, reused by SQLite,
        excluded), or PostgreSQL's size of the table with its indexes."""
        return self.db.used_bytes(["share_links"])


class SessionRecordTable(SqliteFile):
    """Session records (webapp/records.py) in the same SQLite file, for a server without
    Redis: what lets one process resume its sessions after a restart.

    records = SessionRecordTable(path)
    records.write_many({session_id: RecordWrite, ...})   # the parts that changed
    records.load(session_id)   # (base, head, [action rows]) as JSON texts; the first
                               # format's one JSON text; or None
    records.delete(session_id); records.sweep(older_than_seconds)

    A record is rows of `session_record_rows`, written as they change: the base once per
    history, an action row once, the small head each round the session moved (issue 26,
    F9: the whole record rewritten every second was 17 MB/s of disk writes for one
    session). The first format, one JSON text per session in `session_records`, is still
    read, and deleted when the record is next written (in parts). Both tables are created
    on open if missing (additive: share links are untouched).
    WAL with `synchronous=NORMAL`: losing the last write on a power cut costs at most
    that second.
    """

    synchronous = "NORMAL"

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        super().__init__(path)
        self.clock = clock
        with self.connection as connection:
            connection.execute(_RECORDS_SCHEMA)
            connection.execute(_RECORD_ROWS_SCHEMA)

    def write_many(self, writes: dict[str, Any]) -> set[str]:
        """One transaction for all of them. Returns the ids whose write had no base and
        found no record to change (swept, or deleted): nothing is written for those, so
        that a record is never rows without the base they belong to."""
        if not writes:
            return set()
        now = self.clock()
        missing: set[str] = set()
        with self.connection as connection:
            for key, write in writes.items():
                if write.base is not None:
                    connection.execute("DELETE FROM session_record_rows WHERE id = ?", (key,))
                    connection.execute("DELETE FROM session_records WHERE id = ?", (key,))
                    rows = [(key, BASE_PART, write.base, now)]
                else:
                    if (
                        connection.execute(
                            "SELECT 1 FROM session_record_rows WHERE id = ? AND part = ?",
                            (key, BASE_PART),
                        ).fetchone()
                        is None
                    ):
                        missing.add(key)
                        continue
                    connection.execute(
                        "DELETE FROM session_record_rows WHERE id = ? AND part >= ?",
                        (key, write.keep),
                    )
                    rows = []
                rows += [(key, write.keep + i, row, now) for i, row in enumerate(write.add)]
                rows.append((key, HEAD_PART, write.head, now))
                connection.executemany(
                    "INSERT OR REPLACE INTO session_record_rows (id, part, body, saved_at)"
                    " VALUES (?, ?, ?, ?)",
                    rows,
                )
        return missing

    def load(self, session_id: str) -> tuple[str, str, list[str]] | str | None:
        rows = self.connection.execute(
            "SELECT part, body FROM session_record_rows WHERE id = ? ORDER BY part",
            (session_id,),
        ).fetchall()
        if rows:
            parts = dict(rows)
            if BASE_PART not in parts or HEAD_PART not in parts:
                return None
            actions = [str(body) for part, body in rows if part >= 0]
            if any(part != n for n, (part, _) in enumerate(r for r in rows if r[0] >= 0)):
                return None  # a gap: not a record this table wrote
            return str(parts[BASE_PART]), str(parts[HEAD_PART]), actions
        row = self.connection.execute(
            "SELECT body FROM session_records WHERE id = ?", (session_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def delete(self, session_id: str) -> None:
        with self.connection as connection:
            connection.execute("DELETE FROM session_record_rows WHERE id = ?", (session_id,))
            connection.execute("DELETE FROM session_records WHERE id = ?", (session_id,))

    def touch(self, session_ids: list[str]) -> None:
        """Keep records of sessions still open from the sweep (the head's `saved_at`)."""
        if not session_ids:
            return
        now = self.clock()
        with self.connection as connection:
            connection.executemany(
                "UPDATE session_record_rows SET saved_at = ? WHERE id = ? AND part = ?",
                [(now, key, HEAD_PART) for key in session_ids],
            )
            connection.executemany(
                "UPDATE session_records SET saved_at = ? WHERE id = ?",
                [(now, key) for key in session_ids],
            )

    def sweep(self, older_than_seconds: float) -> int:
        cutoff = self.clock() - older_than_seconds
        with self.connection as connection:
            stale = [
                row[0]
                for row in connection.execute(
                    "SELECT id FROM session_record_rows WHERE part = ? AND saved_at < ?",
                    (HEAD_PART, cutoff),
                )
            ]
            connection.executemany(
                "DELETE FROM session_record_rows WHERE id = ?", [(key,) for key in stale]
            )
            deleted = connection.execute(
                "DELETE FROM session_records WHERE saved_at < ?", (cutoff,)
            ).rowcount
        return len(stale) + int(deleted)


def database_path(app: Flask) -> Path:
    return path_for(app.config, app.instance_path)


def path_for(config: Any, instance_path: str) -> Path:
    configured = config.get("PLAYGROUND_DB")
    return Path(configured) if configured else Path(instance_path) / "playground.sqlite3"


def open_database(config: Any, instance_path: str) -> Database:
    """The share links' and classes' database: PostgreSQL when DATABASE_URL
    (PLAYGROUND_DATABASE_URL) names one, else the SQLite file (PLAYGROUND_DB)."""
    url = config.get("DATABASE_URL")
    if url:
        if not str(url).startswith(("postgresql://", "postgres://")):
            from webapp.config import StartupError

            raise StartupError(
                f"PLAYGROUND_DATABASE_URL must be a postgresql:// URL, not {redact_url(url)!r}"
            )
        return PostgresDatabase(str(url))
    return SqliteDatabase(path_for(config, instance_path))


def init_app(app: Flask) -> ShareStore:
    config = app.config
    max_bytes = config.get("SHARE_DB_MAX_BYTES")
    unopened_days = config.get("SHARE_UNOPENED_DAYS")
    path = database_path(app)
    db = open_database(config, app.instance_path)
    try:
        store = ShareStore(
            db,
            max_bytes=int(max_bytes) if max_bytes else None,
            unopened_seconds=float(unopened_days) * 86400 if unopened_days else None,
        )
        store.sweep()  # a first sweep at start-up
    except (sqlite3.Error, OSError) as error:
        raise startup_error(path, error) from None
    except Exception as error:
        if postgres_fault(error) is None:
            raise
        raise database_error(db, error) from None
    app.extensions["playground.share_store"] = store
    app.extensions["playground.database"] = db
    health = server_health(store) if isinstance(db, PostgresDatabase) else DiskHealth(path)
    app.extensions["playground.disk_health"] = health
    return store


def database_of(app: Flask) -> Database:
    """The database the share links are in (the classes keep their tables in it too)."""
    db: Database = app.extensions["playground.database"]
    return db


def server_health(store: ShareStore) -> DiskHealth:
    """/readyz for a database server: a round trip at most every PROBE_SECONDS in place of
    the folder's write, and every fault a real write met, as DiskHealth."""

    def round_trip() -> str | None:
        try:
            store.ping()
        except Exception as error:  # any failure is "not ready"
            return postgres_fault(error) or type(error).__name__
        return None

    return DiskHealth(store.db.where, probe=round_trip)


def database_error(db: Database, error: BaseException) -> Exception:
    """The one line `pod-playground` says when the database server cannot be used."""
    from webapp.config import StartupError

    cause = postgres_fault(error) or str(error)
    return StartupError(
        f"the database {db.where} cannot be used: {cause} "
        "(PLAYGROUND_DATABASE_URL names it: postgresql://user:password@host:port/db)"
    )


def report_fault(app: Flask, cause: str) -> None:
    """A write met `cause` (a write_fault): /readyz says "not ready" for a while."""
    health = disk_health_of(app)
    if health is not None and not cause.startswith("Redis"):
        health.failed(cause)


def disk_health_of(app: Flask) -> DiskHealth | None:
    health: DiskHealth | None = app.extensions.get("playground.disk_health")
    return health


def startup_error(path: Path, error: BaseException) -> Exception:
    """The one line `pod-playground` says when the database cannot be opened for writing."""
    from webapp.config import StartupError

    cause = probe_folder(path) if path.parent.is_dir() else None
    cause = cause or write_fault(error) or str(error)
    return StartupError(
        f"the database {path} cannot be written: {cause} "
        "(PLAYGROUND_DB names the file; its folder must be writable)"
    )


def check_writable(config: Any) -> None:
    """At start, before any worker is forked: the databases open and can be written
    (StartupError, one line naming the place and the cause, if not). The session records
    stay in the SQLite file (or Redis) also when the links are in PostgreSQL."""
    path = path_for(config, Flask("webapp", instance_relative_config=True).instance_path)
    if config.get("DATABASE_URL"):
        db = open_database(config, "")
        try:
            ShareStore(db)
            from webapp.classes.store import ClassStore

            ClassStore(db)
        except Exception as error:
            if postgres_fault(error) is None:
                raise
            raise database_error(db, error) from None
        finally:
            db.close()
    try:
        if not config.get("DATABASE_URL"):
            ShareStore(path).close()
        SessionRecordTable(path).close()
    except (sqlite3.Error, OSError) as error:
        raise startup_error(path, error) from None
    cause = probe_folder(path)
    if cause is not None:
        raise startup_error(path, OSError(cause))


def store_of(app: Flask) -> ShareStore:
    store: ShareStore = app.extensions["playground.share_store"]
    return store
