"""Classes beside the share links: the same database (the SQLite file, or PostgreSQL when
PLAYGROUND_DATABASE_URL names one: webapp/database.py), tables of their own.

store = ClassStore(path_or_database)
store.create(code, key_hash, yaml, lang, pin_hash)  # False if the code exists
store.load(code)                                # {code, key_hash, yaml, lang, state, ended_at,
                                                #  last_active, students: {name: token_hash},
                                                #  answers: [(qid, name, choice)]} or None
store.save_state(code, state)                   # the teacher's run and the class settings
store.add_student(code, name, token_hash)
store.answer(code, qid, name, choice)
store.touch(code) / store.end(code)

What survives a restart: code, the key's hash, the scenario, the teacher's timeline (actions
and virtual second), mode and editor lock, the roster (names and their tokens' hashes) and
the answers. Sessions themselves are rebuilt from that by deterministic replay.

Schema changes are additive and run on open, as in webapp/storage.py.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webapp.database import Database, SqliteDatabase

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS classes (
        code        TEXT PRIMARY KEY,
        key_hash    TEXT NOT NULL,
        yaml        TEXT NOT NULL,
        created_at  REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS class_students (
        code        TEXT NOT NULL,
        name        TEXT NOT NULL,
        token_hash  TEXT NOT NULL,
        joined_at   REAL NOT NULL,
        PRIMARY KEY (code, name)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS class_answers (
        code        TEXT NOT NULL,
        qid         TEXT NOT NULL,
        name        TEXT NOT NULL,
        choice      INTEGER NOT NULL,
        at          REAL NOT NULL,
        PRIMARY KEY (code, qid, name)
    ) WITHOUT ROWID""",
)
# Columns added after the table was first made (additive migrations).
_COLUMNS = {
    "classes": {
        "lang": "TEXT",
        "state": "TEXT",
        "last_active": "REAL",
        "ended_at": "REAL",
        "pin_hash": "TEXT",
    },
}


class ClassStore:
    def __init__(
        self, where: str | Path | Database, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.db = where if isinstance(where, Database) else SqliteDatabase(where)
        self.clock = clock
        self.db.ensure(_SCHEMA, _COLUMNS)

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's SQLite connection (the embedded store only)."""
        if not isinstance(self.db, SqliteDatabase):
            raise AttributeError("connection: the classes are not in SQLite")
        return self.db.connection

    def close(self) -> None:
        self.db.close()

    def create(
        self, code: str, key_hash: str, yaml: str, lang: str, pin_hash: str | None = None
    ) -> bool:
        now = self.clock()
        with self.db.write() as connection:
            cursor = connection.execute(
                "INSERT INTO classes (code, key_hash, yaml, created_at, lang, state,"
                " last_active, pin_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (code, key_hash, yaml, now, lang, "{}", now, pin_hash),
            )
        return cursor.rowcount == 1

    def load(self, code: str) -> dict[str, Any] | None:
        row = self.db.one(
            "SELECT key_hash, yaml, lang, state, created_at, last_active, ended_at, pin_hash"
            " FROM classes WHERE code = ?",
            (code,),
        )
        if row is None:
            return None
        students = {
            name: token
            for name, token in self.db.all(
                "SELECT name, token_hash FROM class_students WHERE code = ?"
                " ORDER BY joined_at, name",
                (code,),
            )
        }
        answers = [
            tuple(row)
            for row in self.db.all(
                "SELECT qid, name, choice FROM class_answers WHERE code = ? ORDER BY at, qid, name",
                (code,),
            )
        ]
        return {
            "code": code,
            "key_hash": row[0],
            "yaml": row[1],
            "lang": row[2] or "en",
            "state": json.loads(row[3] or "{}"),
            "created_at": row[4],
            "last_active": row[5] if row[5] is not None else row[4],
            "ended_at": row[6],
            "pin_hash": row[7],
            "students": students,
            "answers": answers,
        }

    def save_state(self, code: str, state: dict[str, Any], yaml: str | None = None) -> None:
        text = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
        with self.db.write() as connection:
            if yaml is None:
                connection.execute(
                    "UPDATE classes SET state = ?, last_active = ? WHERE code = ?",
                    (text, self.clock(), code),
                )
            else:
                connection.execute(
                    "UPDATE classes SET state = ?, yaml = ?, last_active = ? WHERE code = ?",
                    (text, yaml, self.clock(), code),
                )

    def add_student(self, code: str, name: str, token_hash: str) -> None:
        with self.db.write() as connection:
            connection.execute(
                "INSERT INTO class_students (code, name, token_hash, joined_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (code, name) DO UPDATE SET"
                " token_hash = excluded.token_hash, joined_at = excluded.joined_at",
                (code, name, token_hash, self.clock()),
            )

    def remove_student(self, code: str, name: str) -> None:
        """The teacher removed a student: their name (free again) and their answers."""
        with self.db.write() as connection:
            connection.execute(
                "DELETE FROM class_students WHERE code = ? AND name = ?", (code, name)
            )
            connection.execute(
                "DELETE FROM class_answers WHERE code = ? AND name = ?", (code, name)
            )

    def answer(self, code: str, qid: str, name: str, choice: int) -> None:
        with self.db.write() as connection:
            connection.execute(
                "INSERT INTO class_answers (code, qid, name, choice, at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, qid, name) DO UPDATE SET"
                " choice = excluded.choice, at = excluded.at",
                (code, qid, name, choice, self.clock()),
            )

    def touch(self, code: str) -> None:
        with self.db.write() as connection:
            connection.execute(
                "UPDATE classes SET last_active = ? WHERE code = ?", (self.clock(), code)
            )

    def end(self, code: str) -> None:
        with self.db.write() as connection:
            connection.execute(
                "UPDATE classes SET ended_at = COALESCE(ended_at, ?) WHERE code = ?",
                (self.clock(), code),
            )
