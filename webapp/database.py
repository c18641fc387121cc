"""One SQL layer for the share links and the classes: the embedded SQLite file, or a
PostgreSQL server that every host reaches (issue 22 item 3).

db = open_database(config, instance_path)   # PLAYGROUND_DATABASE_URL (postgresql://...) or
                                            # the SQLite file PLAYGROUND_DB / the instance's
db.ensure(tables, columns)     # CREATE TABLE IF NOT EXISTS ...; additive column migrations
with db.write() as tx:         # one transaction: committed on leaving, rolled back on error
    tx.execute("INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT DO NOTHING", (1, 2)).rowcount
db.one("SELECT a FROM t WHERE b = ?", (2,))   # a row or None (reads outside a transaction)
db.all("SELECT ...", params)                  # every row
db.used_bytes(["share_links"])                # what those tables take on disk

The statements are written once, in the dialect both databases speak: `?` placeholders
(psycopg's `%s` is put in for PostgreSQL), `INSERT ... ON CONFLICT ... DO NOTHING / DO
UPDATE SET c = excluded.c` (SQLite 3.24+), `COALESCE`, `LIMIT`. What differs is said
once, here: SQLite's `WITHOUT ROWID` tables, the type names (`REAL` is 4 bytes in
PostgreSQL: times are `DOUBLE PRECISION` there), how columns are listed and how the size
on disk is read. Connections are one per thread, as sqlite3 requires and as a gthread
worker's threads use them.

Durability: SQLite in WAL mode with `synchronous=FULL` (storage.SqliteFile); PostgreSQL's
default `synchronous_commit=on`: a commit that returned is on the server's disk, so a
share link or a class acknowledged to a user survives the death of the host that wrote it.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

Params = Sequence[Any]


class Cursor(Protocol):
    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Transaction(Protocol):
    def execute(self, sql: str, params: Params = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Sequence[Params]) -> None: ...


class Database:
    """What the stores need of a SQL database; SqliteDatabase and PostgresDatabase."""

    dialect = ""
    where = ""  # for messages: the file, or the server without its password

    def ensure(self, tables: Sequence[str], columns: dict[str, dict[str, str]]) -> None:
        raise NotImplementedError

    @contextmanager
    def write(self) -> Iterator[Transaction]:
        raise NotImplementedError
        yield  # pragma: no cover

    def one(self, sql: str, params: Params = ()) -> Any:
        raise NotImplementedError

    def all(self, sql: str, params: Params = ()) -> list[Any]:
        raise NotImplementedError

    def used_bytes(self, tables: Sequence[str]) -> int:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SqliteFile:
    """One SQLite file with a connection per thread (sqlite3 connections must stay on
    their thread), in WAL mode; the share links, the session records and the classes
    (webapp/classes/store.py) each keep their tables in one."""

    synchronous = "FULL"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._local = threading.local()
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=10.0)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(f"PRAGMA synchronous={self.synchronous}")
        return connection

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's connection."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._connect()
            self._local.connection = connection
        return connection

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


class SqliteDatabase(Database):
    """The embedded default: one SQLite file."""

    dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.file = SqliteFile(path)
        self.where = str(path)

    @property
    def connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection = self.file.connection
        return connection

    def ensure(self, tables: Sequence[str], columns: dict[str, dict[str, str]]) -> None:
        connection = self.file._connect()
        try:
            for statement in tables:
                connection.execute(statement)
            for table, wanted in columns.items():
                present = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
                for column, kind in wanted.items():
                    if column in present:
                        continue
                    try:
                        connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
                    except sqlite3.OperationalError as error:  # another process added it
                        if "duplicate column" not in str(error):
                            raise
            connection.commit()
        finally:
            connection.close()

    @contextmanager
    def write(self) -> Iterator[Transaction]:
        with self.connection as connection:  # commits on leaving, rolls back on an error
            yield connection

    def one(self, sql: str, params: Params = ()) -> Any:
        return self.connection.execute(sql, params).fetchone()

    def all(self, sql: str, params: Params = ()) -> list[Any]:
        return self.connection.execute(sql, params).fetchall()

    def used_bytes(self, tables: Sequence[str]) -> int:
        """Bytes of the file's pages in use (freed pages, reused by SQLite, excluded)."""
        connection = self.connection
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        return int((pages - free) * size)

    def close(self) -> None:
        self.file.close()


_PLACEHOLDER = re.compile(r"\?")
_REAL = re.compile(r"\bREAL\b")


def postgres_sql(sql: str) -> str:
    """A statement of the shared dialect as PostgreSQL takes it (our statements hold no
    literal `?` or `%`; a `%` is doubled all the same, as psycopg requires)."""
    return _PLACEHOLDER.sub("%s", sql.replace("%", "%%"))


def postgres_schema(statement: str) -> str:
    """A CREATE TABLE of the shared dialect for PostgreSQL: no `WITHOUT ROWID`, and times
    in 8-byte floats (SQLite's REAL is 8 bytes, PostgreSQL's 4: a Unix time in 4 bytes
    is off by minutes)."""
    return _REAL.sub("DOUBLE PRECISION", statement.replace("WITHOUT ROWID", ""))


class _PostgresTransaction:
    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        cursor: Cursor = self._connection.execute(postgres_sql(sql), tuple(params))
        return cursor

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        with self._connection.cursor() as cursor:
            cursor.executemany(postgres_sql(sql), [tuple(r) for r in rows])


class PostgresDatabase(Database):
    """A PostgreSQL server (PLAYGROUND_DATABASE_URL), through psycopg 3, one connection
    per thread. Reads run in autocommit; `write()` is one transaction. A connection that
    broke (the server restarted) is dropped and made again on the next use."""

    dialect = "postgresql"
    CONNECT_TIMEOUT = 5  # seconds: a server that cannot be reached is a fault, soon
    # No statement holds a request's thread longer than this (a server that hangs, a lock
    # another host holds): past it the statement fails, a fault like a lost server.
    STATEMENT_TIMEOUT_MS = 5000

    def __init__(self, url: str) -> None:
        import psycopg  # the `postgresql` extra; imported only when configured

        self._psycopg = psycopg
        self.url = url
        self.where = redact_url(url)
        self._local = threading.local()
        self._connections: list[Any] = []
        self._lock = threading.Lock()

    def _connect(self) -> Any:
        connection = self._psycopg.connect(
            self.url,
            autocommit=True,
            connect_timeout=self.CONNECT_TIMEOUT,
            options=f"-c statement_timeout={self.STATEMENT_TIMEOUT_MS}",
        )
        with self._lock:
            self._connections.append(connection)
        return connection

    @property
    def connection(self) -> Any:
        connection = getattr(self._local, "connection", None)
        if connection is None or connection.closed or connection.broken:
            connection = self._connect()
            self._local.connection = connection
        return connection

    def ensure(self, tables: Sequence[str], columns: dict[str, dict[str, str]]) -> None:
        # Several hosts may start at once: one at a time makes the tables (an advisory
        # lock for the transaction; CREATE TABLE IF NOT EXISTS alone races in PostgreSQL).
        with self.write() as tx:
            tx.execute("SELECT pg_advisory_xact_lock(?)", (0x504C4159,))  # "PLAY"
            for statement in tables:
                tx.execute(postgres_schema(statement))
            for table, wanted in columns.items():
                for column, kind in wanted.items():
                    kind = postgres_schema(kind)
                    tx.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")

    @contextmanager
    def write(self) -> Iterator[Transaction]:
        connection = self.connection
        try:
            with connection.transaction():
                yield _PostgresTransaction(connection)
        except self._psycopg.OperationalError:
            self._drop(connection)
            raise

    def _drop(self, connection: Any) -> None:
        if getattr(self._local, "connection", None) is connection:
            self._local.connection = None
        with contextlib.suppress(Exception):  # already broken
            connection.close()

    def _read(self, sql: str, params: Params) -> Any:
        connection = self.connection
        try:
            return connection.execute(postgres_sql(sql), tuple(params))
        except self._psycopg.OperationalError:
            self._drop(connection)
            raise

    def one(self, sql: str, params: Params = ()) -> Any:
        return self._read(sql, params).fetchone()

    def all(self, sql: str, params: Params = ()) -> list[Any]:
        rows: list[Any] = self._read(sql, params).fetchall()
        return rows

    def used_bytes(self, tables: Sequence[str]) -> int:
        total = 0
        for table in tables:
            row = self.one("SELECT pg_total_relation_size(to_regclass(?))", (table,))
            total += int(row[0] or 0) if row else 0
        return total

    def close(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            with contextlib.suppress(Exception):  # closing what may be broken
                connection.close()
        self._local = threading.local()


def redact_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(//[^/:@]*):[^/@]*@", r"\1:***@", url)


def is_postgres_url(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("postgresql://", "postgres://"))


def postgres_fault(error: BaseException) -> str | None:
    """Why a psycopg error means the database cannot be written now (the server is down
    or unreachable, read-only, out of disk), or None (another error: a bug)."""
    try:
        import psycopg
        from psycopg import errors
    except ImportError:
        return None
    if isinstance(error, errors.DiskFull):
        return "the database server's disk is full"
    if isinstance(error, errors.ReadOnlySqlTransaction):
        return "the database server is read-only"
    if isinstance(error, errors.InsufficientPrivilege):
        return "the database user may not write these tables"
    if isinstance(error, errors.QueryCanceled):  # statement_timeout
        return "the database server did not answer in time"
    if isinstance(error, psycopg.OperationalError):
        return f"the database server cannot be reached ({type(error).__name__})"
    return None
