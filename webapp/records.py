"""Session records and leases: what lets any worker process rebuild any session, and a
restart or a crash lose at most the last second (docs/workers.md).

keeper = Keeper(manager, RedisRecords(url) | SqliteRecords(table), leases, ...)
keeper.claim(session)                 # a new session: its lease, and its first record
keeper.resume(session_id, sid=..., client=...)   # a session this worker does not have
keeper.round()                        # once a second: persist what changed, renew leases
keeper.drain()                        # SIGTERM: persist everything, let every lease go

A *record* is a session's scenario text, its action timeline (past and kept future), its
virtual time, its clock (playing, speed) and its sequence number, as JSON, in parts
written as they change (issue 26, F9: a record rewritten whole every second grew with the
history, 10 MB after 150 applies of a 60 KB ConfigMap): the *base* (id, scenario text,
seed) once per history, one *row* per action of the timeline, appended (an action after a
seek back deletes the rows of the kept future it replaces: `Session.marks`), and the small
*head* (time, clock, seq, the history's number and how many rows) each round the session
moved. A record of the first format (one JSON text, `"v": 1`) still loads, and is written
again in parts by its next holder (`RecordWrite`, `assemble`). Because the
engine is deterministic, `Simulation.replay(scenario, actions, until=now, seed)` rebuilds
the session exactly: the same transitions, events and views. (The engine's checkpoints
share their logs with the run they came from, so they cannot leave the process: a rebuild
replays from second 0; its CPU is charged to the session like any join.)

Records are written by one thread per worker (`round`), at most once a second and only
for sessions whose sequence number, clock or timeline moved since their last record, plus
at once when a session is created, handed over or drained. Where they go:
- with Redis (`--redis URL`): the hash `playground:session:<id>` (fields `base`, `head`,
  `a0`, `a1`, ...), expiring after the idle time; the first format's string
  `playground:record:<id>` is still read;
- without: the `session_record_rows` table of the SQLite database (webapp/storage.py; the
  first format's `session_records` is still read), so one process resumes its sessions
  after a restart.

A *lease* says which worker serves a session: `playground:lease:<id>` holds the worker's
token for LEASE_MS, set with `SET NX PX` and renewed each round by a Lua compare-and-renew
(a lease that expired while this worker was busy is taken back if nobody else took it).
A tab whose session lives on another worker (it reconnected and landed elsewhere) makes
its new worker publish a hand-over request: the holder writes the record, lets the lease
go, forgets the session and closes its own tabs' connections (they reconnect, and resume);
a holder that died (`kill -9`) answers nothing, and its lease runs out within LEASE_MS.
Without Redis there is one process and no lease.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from webapp.manifest import parse_scenario
from webapp.redis_client import bounded_redis
from webapp.sessions import Session, SessionManager, slices
from webapp.sessions.session import RECORD
from webapp.sessions.tasks import tasks_of

log = logging.getLogger(__name__)

RECORD_VERSION = 2  # 1: one JSON text rewritten whole (still read)
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{32}")  # webapp.sessions.session.new_session_id
LEASE_MS = 3000
PERSIST_SECONDS = 1.0
HANDOVER_WAIT_SECONDS = LEASE_MS / 1000 + 2.0
PREFIX = "playground"
HANDOVER_CHANNEL = f"{PREFIX}:handover"


class SessionElsewhere(Exception):
    """Another worker holds the session and did not let it go in time."""


# -- records ------------------------------------------------------------------------------


@dataclass
class RecordWrite:
    """What one write puts in a session's record: its `base` again (its first write, or a
    new history: every part written before goes), or else the action rows from `keep` on
    (the record had `drop` rows; those from `keep` go), then the rows `add` from `keep`
    on, and always its `head`. Each part is JSON (ASCII: its length is its bytes)."""

    head: str
    keep: int = 0
    add: list[str] = field(default_factory=list)
    drop: int = 0
    base: str | None = None

    @property
    def size(self) -> int:
        """Bytes written (the parts' JSON)."""
        return len(self.head) + sum(map(len, self.add)) + len(self.base or "")


class Written(NamedTuple):
    """What a session's record says, as the keeper last wrote it."""

    key: tuple[Any, ...]  # changes(session) then
    history: int  # session.history then (a restart writes the base again)
    count: int  # action rows


def base_of(session: Session) -> dict[str, Any]:
    return {"v": RECORD_VERSION, "id": session.id, "yaml": session.scenario.text,
            "seed": session.seed}  # fmt: skip


def head_of(session: Session, count: int) -> dict[str, Any]:
    return {
        "v": RECORD_VERSION,
        "history": session.history,
        "count": count,
        "now": session.sim.now,
        # A seek still running in slices goes on after a hand-over, a drain or a crash.
        "seekTarget": session.seek_target,
        "seq": session.seq,
        "playing": session.clock.playing,
        "speed": session.clock.speed,
        "used": session.used,
        "owner": session.owner,  # a class's run: never resumed by `join {session}`
        "tasks": _tasks_done(session),  # the lesson's tasks done (webapp/sessions/tasks.py)
        "savedAt": time.time(),
    }


def _tasks_done(session: Session) -> list[int]:
    progress = getattr(session, "_tasks", None)
    return list(progress.done) if progress is not None else []


def write_of(session: Session, written: Written | None) -> tuple[RecordWrite, Written]:
    """Under the session's lock: what to write of its record, given what it says now
    (None: nothing this keeper knows of; the whole record is written), and what it says
    after. Takes the timeline for the record (`Session.marks`): the caller writes it, or
    forgets `written` (the next write is whole)."""
    count = session.timeline_length()
    if written is None or written.history != session.history:
        write = RecordWrite(head="", base=json.dumps(base_of(session)),
                            add=[json.dumps(a) for a in session.actions])  # fmt: skip
    else:
        kept = session.marks.delta(RECORD, count)  # None: the rows are as they are now
        keep = count if kept is None else kept
        add = [json.dumps(a) for a in session.timeline_from(keep)]
        write = RecordWrite(head="", keep=keep, add=add, drop=written.count)
    session.marks.take(RECORD, count)
    write.head = json.dumps(head_of(session, count))
    return write, Written(changes(session), session.history, count)


def assemble(base: str, head: str, rows: list[str]) -> dict[str, Any] | None:
    """A record of parts as one dict (the first format's shape: `actions` is the whole
    timeline, `future` empty); None when its rows are not the `count` its head says."""
    record: dict[str, Any] = {**json.loads(base), **json.loads(head)}
    if len(rows) < int(record["count"]):
        log.warning("a session record lacks action rows; it is not resumed")
        return None
    record["actions"] = [json.loads(row) for row in rows[: int(record["count"])]]
    record["future"] = []
    return record


def record_of(session: Session) -> dict[str, Any]:
    """The session's whole record now, as `assemble` gives it back (under its lock)."""
    count = session.timeline_length()
    return {**base_of(session), **head_of(session, count), "actions": session.actions,
            "future": []}  # fmt: skip


def changes(session: Session) -> tuple[Any, ...]:
    """What a new record is written for: read without the lock (a stale read only delays
    the record by a round)."""
    clock = session.clock
    progress = getattr(session, "_tasks", None)
    return (session.seq, clock.playing, clock.speed, len(session.future), session.sim.now,
            session.history, progress.version if progress is not None else 0)  # fmt: skip


def rebuild(engine: Any, record: dict[str, Any], *, end: float) -> tuple[Any, list[Any], float]:
    """The Simulation a record describes at second 0, its whole timeline (past actions and
    kept future) as the future, and the moment to reach: the caller gets there by a seek in
    slices (webapp/sessions/slices.py), so rebuilding a far session is no one long request;
    deterministic replay makes it the same run."""
    scenario = parse_scenario(record["yaml"])
    until = min(float(record["now"]), end)
    seed = int(record["seed"])
    # The class that runs this scenario (a workload scenario runs as a cluster).
    sim = engine.from_scenario(scenario, seed=seed)
    return sim, list(record["actions"]) + list(record["future"]), until


class RecordStore(Protocol):
    def write_many(self, writes: dict[str, RecordWrite]) -> set[str]:
        """Writes them all; returns the ids whose write has no base and found no record
        to change (nothing is written for those: the caller writes them whole)."""
        ...

    def load(self, session_id: str) -> dict[str, Any] | None: ...
    def delete(self, session_id: str) -> None: ...
    def touch(self, session_ids: list[str]) -> None: ...
    def probe(self) -> None: ...


class SqliteRecords:
    """Records in SQLite (webapp.storage.SessionRecordTable), for one process."""

    def __init__(self, table: Any, idle_seconds: float) -> None:
        self.table = table
        self.idle_seconds = idle_seconds
        table.sweep(idle_seconds)

    def write_many(self, writes: dict[str, RecordWrite]) -> set[str]:
        missing: set[str] = self.table.write_many(writes)
        return missing

    def load(self, session_id: str) -> dict[str, Any] | None:
        parts = self.table.load(session_id)
        if parts is None:
            return None
        if isinstance(parts, str):  # the first format: one JSON text
            record: dict[str, Any] = json.loads(parts)
            return record
        base, head, rows = parts
        return assemble(base, head, rows)

    def delete(self, session_id: str) -> None:
        self.table.delete(session_id)

    def touch(self, session_ids: list[str]) -> None:
        self.table.touch(session_ids)

    def probe(self) -> None:
        """Raises if the database's folder cannot be written (a full or read-only disk)."""
        from webapp.storage import StoreUnwritable, probe_folder

        cause = probe_folder(Path(self.table.path))
        if cause is not None:
            raise StoreUnwritable(cause)


# KEYS[1]: a session's record; ARGV: its ttl in seconds, how many row fields to drop, those
# fields, then field/value pairs to set. Changes the record only if it has its base: 1 if
# written, 0 if there was no record to change.
_PATCH = """
if redis.call('HEXISTS', KEYS[1], 'base') == 0 then
  return 0
end
local dropped = tonumber(ARGV[2])
for i = 3, 2 + dropped do  -- one call each: unpack() stops at a few thousand values
  redis.call('HDEL', KEYS[1], ARGV[i])
end
for i = 3 + dropped, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""


class RedisRecords:
    """Records in Redis: a hash per session (`base`, `head`, `a<n>` per action row),
    expiring `ttl_seconds` after it was last written or touched; each write is one
    MULTI/EXEC, so a record is never seen half written."""

    def __init__(self, client: Any, ttl_seconds: float) -> None:
        self.client = client
        self.ttl = max(1, int(ttl_seconds))
        self._patch = client.register_script(_PATCH)

    @staticmethod
    def key(session_id: str) -> str:
        return f"{PREFIX}:session:{session_id}"

    @staticmethod
    def old_key(session_id: str) -> str:
        """The first format's record: one JSON string."""
        return f"{PREFIX}:record:{session_id}"

    def write_many(self, writes: dict[str, RecordWrite]) -> set[str]:
        if not writes:
            return set()
        pipe = self.client.pipeline(transaction=True)
        patches: dict[str, int] = {}  # id -> its patch's place among the answers
        answers = 0
        for session_id, write in writes.items():
            key = self.key(session_id)
            fields = {"head": write.head}
            fields.update({f"a{write.keep + i}": row for i, row in enumerate(write.add)})
            if write.base is None:
                # Only onto a record that is there: Redis may have lost it (restarted
                # empty, evicted), and rows without their base are not a record.
                dropped = [f"a{n}" for n in range(write.keep, write.drop)]
                pairs = [x for item in fields.items() for x in item]
                self._patch(keys=[key], args=[self.ttl, len(dropped), *dropped, *pairs],
                            client=pipe)  # fmt: skip
                patches[session_id] = answers
                answers += 1
                continue
            pipe.delete(key, self.old_key(session_id))
            pipe.hset(key, mapping={"base": write.base, **fields})
            pipe.expire(key, self.ttl)
            answers += 3
        results = pipe.execute()
        return {s for s, at in patches.items() if not int(results[at])}

    def load(self, session_id: str) -> dict[str, Any] | None:
        parts = self.client.hgetall(self.key(session_id))
        if parts:
            text = {k.decode("utf-8"): v.decode("utf-8") for k, v in parts.items()}
            if "base" not in text or "head" not in text:
                return None
            count = int(json.loads(text["head"]).get("count", 0))
            rows = [text[f"a{n}"] for n in range(count) if f"a{n}" in text]
            return assemble(text["base"], text["head"], rows)
        value = self.client.get(self.old_key(session_id))
        if value is None:
            return None
        record: dict[str, Any] = json.loads(value.decode("utf-8"))
        return record

    def delete(self, session_id: str) -> None:
        self.client.delete(self.key(session_id), self.old_key(session_id))

    def touch(self, session_ids: list[str]) -> None:
        if not session_ids:
            return
        pipe = self.client.pipeline(transaction=False)
        for session_id in session_ids:
            pipe.expire(self.key(session_id), self.ttl)
            pipe.expire(self.old_key(session_id), self.ttl)
        pipe.execute()

    def probe(self) -> None:
        """Raises if Redis cannot be written (down, unreachable, out of memory, read-only)."""
        self.client.set(f"{PREFIX}:probe", "1", px=10_000)


# -- leases -------------------------------------------------------------------------------

# KEYS: lease keys; ARGV[1]: this worker's token, ARGV[2]: the lease in ms. For each key: 1
# if this worker holds it now (renewed), 2 if it was gone and is taken back (it expired, or
# Redis lost its data: the record may be gone too), 0 if another worker holds it.
_RENEW = """
local held = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('GET', key)
  if owner == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    held[i] = 1
  elseif not owner then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    held[i] = 2
  else
    held[i] = 0
  end
end
return held
"""
# KEYS[1]: the lease; ARGV[1]: this worker's token. Deletes it only if it is ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisLeases:
    def __init__(self, client: Any, token: str, lease_ms: int = LEASE_MS) -> None:
        self.client = client
        self.token = token
        self.lease_ms = lease_ms
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._pubsub: Any = None
        self._thread: Any = None
        self.lapsed: list[str] = []  # the last renew's leases that were gone (taken back)

    @staticmethod
    def key(session_id: str) -> str:
        return f"{PREFIX}:lease:{session_id}"

    def acquire(self, session_id: str) -> bool:
        key = self.key(session_id)
        if self.client.set(key, self.token, nx=True, px=self.lease_ms):
            return True
        return bool(self._renew(keys=[key], args=[self.token, self.lease_ms])[0])

    def renew(self, session_ids: list[str]) -> list[bool]:
        if not session_ids:
            return []
        held = self._renew(
            keys=[self.key(s) for s in session_ids], args=[self.token, self.lease_ms]
        )
        self.lapsed = [s for s, x in zip(session_ids, held, strict=True) if int(x) == 2]
        return [bool(x) for x in held]

    def release(self, session_ids: list[str]) -> None:
        for session_id in session_ids:
            with contextlib.suppress(Exception):
                self._release(keys=[self.key(session_id)], args=[self.token])

    def request_handover(self, session_id: str) -> None:
        self.client.publish(HANDOVER_CHANNEL, session_id)

    def listen(self, on_request: Callable[[str], None]) -> None:
        """Hand-over requests go to `on_request(session_id)`, from a thread of their own
        that subscribes again after Redis went away."""
        self._stopped = threading.Event()

        def run() -> None:
            while not self._stopped.is_set():
                try:
                    pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                    pubsub.subscribe(HANDOVER_CHANNEL)
                    try:
                        while not self._stopped.is_set():
                            message = pubsub.get_message(timeout=0.2)
                            data = (message or {}).get("data")
                            if isinstance(data, bytes):
                                on_request(data.decode("ascii", "replace"))
                    finally:
                        pubsub.close()
                except Exception:
                    if not self._stopped.is_set():
                        log.warning("hand-over channel lost; subscribing again")
                        self._stopped.wait(1.0)

        self._thread = threading.Thread(target=run, name="handover", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stopped.set()
            self._thread.join(5.0)


class LocalLeases:
    """One process: every session is this process's."""

    def acquire(self, session_id: str) -> bool:
        return True

    def renew(self, session_ids: list[str]) -> list[bool]:
        return [True] * len(session_ids)

    def release(self, session_ids: list[str]) -> None:
        pass

    def request_handover(self, session_id: str) -> None:
        pass

    def listen(self, on_request: Callable[[str], None]) -> None:
        pass

    def stop(self) -> None:
        pass


# -- the keeper ---------------------------------------------------------------------------

PROBE_SECONDS = 1.0  # /readyz probes the record store at most this often


class RecordHealth:
    """Whether records can be written (issue 26 F8): `cause` is None, or why not (Redis
    down, a full disk). While it is set /readyz is "not ready", new sessions are served
    from this worker without a record, and the keeper's round first probes the store; once
    a probe passes, every session held here is written again (the store may have come back
    empty), and only then is the keeper healthy again."""

    def __init__(self) -> None:
        self.cause: str | None = None
        self._lock = threading.Lock()
        self._probed_at = float("-inf")

    def failed(self, error: BaseException) -> None:
        from webapp.storage import write_fault

        cause = write_fault(error) or f"{type(error).__name__}: {error}"[:200]
        with self._lock:
            first = self.cause is None
            self.cause = cause
        if first:
            log.warning("session records cannot be written: %s", cause)

    def recovered(self) -> None:
        with self._lock:
            was, self.cause = self.cause, None
        if was is not None:
            log.warning("session records can be written again; every session was rewritten")

    def due_probe(self) -> bool:
        now = time.monotonic()
        with self._lock:
            if now - self._probed_at < PROBE_SECONDS:
                return False
            self._probed_at = now
            return True


class Keeper:
    """Keeps the records and leases of one worker's sessions."""

    def __init__(
        self,
        manager: SessionManager,
        store: RecordStore,
        leases: Any,
        *,
        engine: Callable[[], Any],
        hang_up: Callable[[list[str]], None],
        interval: float = PERSIST_SECONDS,
        handover_wait: float = HANDOVER_WAIT_SECONDS,
    ) -> None:
        self.manager = manager
        self.store = store
        self.leases = leases
        self.engine = engine
        self.hang_up = hang_up
        self.interval = interval
        self.handover_wait = handover_wait
        # id -> what its record says (None: not written by this keeper yet; whole next time)
        self.held: dict[str, Written | None] = {}
        # What was written (the parts' JSON bytes, sessions' records), for /metrics.
        self.bytes_written = 0
        self.records_written = 0
        self._lock = threading.Lock()
        self._writing = threading.RLock()  # one record writer at a time (see round)
        self._resuming: dict[str, threading.Lock] = {}
        self.stopped = threading.Event()
        self._started = False
        self.draining = False
        self.health = RecordHealth()
        # `on_gone(session_id)` for each session freed here (the Kubernetes API revokes
        # its tokens: webapp/kubeapi).
        self.on_gone: Callable[[str], None] | None = None
        leases.listen(self.on_handover)

    def problem(self) -> str | None:
        """/readyz's check: None when records can be written, else why not (a probe of the
        store at most every PROBE_SECONDS)."""
        if self.health.due_probe():
            try:
                self.store.probe()
            except Exception as error:
                self.health.failed(error)
            else:
                with self._lock:
                    nothing_to_rewrite = not self.held
                if nothing_to_rewrite:
                    self.health.recovered()
        return self.health.cause

    # -- sessions coming and going ----------------------------------------------------------

    def claim(self, session: Session) -> None:
        """A session this worker just created: its lease and its first record. With the
        store down (Redis lost, a full disk) it is served from here all the same, and
        written whole by the first round that can (issue 26 F8)."""
        try:
            self.leases.acquire(session.id)
            with session.lock, self._writing:
                write, written = write_of(session, None)
                try:
                    self._write({session.id: write})
                except BaseException:
                    written = None
                    raise
                finally:
                    with self._lock:
                        self.held[session.id] = written
        except Exception as error:
            if not _store_fault(error):
                raise
            self.health.failed(error)
            with self._lock:
                self.held[session.id] = None  # not written: the next round writes it whole

    def _write(self, writes: dict[str, RecordWrite]) -> set[str]:
        """Write to the store; if that fails, the next write of these sessions is whole
        (what the store holds of them is not known any more). Returns the ids whose
        partial write found no record (nothing written): each is written whole next."""
        try:
            missing = self.store.write_many(writes)
        except BaseException:
            with self._lock:
                for session_id in writes:
                    if session_id in self.held:
                        self.held[session_id] = None
            raise
        with self._lock:
            for session_id in missing:
                if session_id in self.held:
                    self.held[session_id] = None
        done = [write for session_id, write in writes.items() if session_id not in missing]
        self.bytes_written += sum(write.size for write in done)
        self.records_written += len(done)
        return missing

    def _write_sure(self, session: Session, written: Written | None) -> None:
        """Under the session's lock: its record written (the changed parts onto the
        record there, or whole when there is none)."""
        write, _ = write_of(session, written)
        if written is not None and self._write({session.id: write}):
            write, _ = write_of(session, None)
            self._write({session.id: write})
        elif written is None:
            self._write({session.id: write})

    def resume(self, session_id: str, *, sid: str | None, client: str) -> Session | None:
        """Rebuild session `session_id` from its record for tab `sid` (None: for no tab
        yet, a class's teacher run); None when there is no such record. Raises
        SessionElsewhere if its holder does not let it go."""
        if not SESSION_ID.fullmatch(session_id) or self.draining:
            return None
        with self._lock:
            gate = self._resuming.setdefault(session_id, threading.Lock())
        with gate:
            try:
                session = self.manager.get(session_id)
                if session is not None:  # another tab of this worker rebuilt it meanwhile
                    if sid is not None:
                        self.manager.attach(sid, session)
                    return session
                if self.store.load(session_id) is None:
                    return None
                self._take_lease(session_id)
                try:
                    return self._rebuild(session_id, sid=sid, client=client)
                except BaseException:
                    self.leases.release([session_id])
                    raise
            finally:
                with self._lock:
                    self._resuming.pop(session_id, None)

    def owner_of(self, session_id: str) -> str | None:
        """Whose run record `session_id` is ("class:<code>"), None for anyone's (or none):
        a class's runs are taken back only by the class (webapp/classes/room.py), never by
        `join {session}` on a worker that is not the class's home (issue 26, F3)."""
        if not SESSION_ID.fullmatch(session_id):
            return None
        record = self.store.load(session_id)
        if record is None:
            return None
        owner = record.get("owner")
        return str(owner) if owner else None

    def _take_lease(self, session_id: str) -> None:
        if self.leases.acquire(session_id):
            return
        self.leases.request_handover(session_id)
        deadline = time.monotonic() + self.handover_wait
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if self.leases.acquire(session_id):
                return
        raise SessionElsewhere(session_id)

    def _rebuild(self, session_id: str, *, sid: str | None, client: str) -> Session | None:
        text = self.store.load(session_id)  # again: the holder wrote it as it let go
        if text is None:
            self.leases.release([session_id])
            return None
        record = text
        sim, timeline, until = rebuild(self.engine(), record, end=self.manager.end_seconds)
        session = self.manager.create(sim, timeline, client=client, tab=sid, session_id=session_id)
        with session.lock:
            session.seq = int(record["seq"])
            session.used = bool(record.get("used", True))
            session.owner = record.get("owner") or None
            progress = tasks_of(session)
            if progress is not None and isinstance(record.get("tasks"), list):
                progress.restore([int(i) for i in record["tasks"] if isinstance(i, int)])
            session.clock.speed = float(record["speed"])
            session.clock.playing = bool(record["playing"]) and until < session.clock.end
            # Back to the record's moment as a seek is: one slice here, the rest by the seek
            # loop; a seek that was still running then goes on to its own target.
            target = record.get("seekTarget")
            far = float(target) if isinstance(target, (int, float)) and target > until else until
            slices.begin_seek(session, far)
            slices.run_slice(session)
        with self._lock:
            # written whole next round: the record may be of the first format, or another
            # worker's (it says nothing of this session's marks)
            self.held[session_id] = None
        log.info("resumed a session from its record at %.1f s", until)
        return session

    def on_handover(self, session_id: str) -> None:
        """Another worker has a tab for a session held here: let it go."""
        with self._lock:
            if session_id not in self.held:
                return
        session = self.manager.get(session_id)
        if session is None:
            return
        with session.lock, self._writing:
            with self._lock:
                written = self.held.get(session_id)
            self._write_sure(session, written)
            with self._lock:
                self.held.pop(session_id, None)
            self.manager.remove(session_id)
            self.leases.release([session_id])
            tabs = list(session.tabs)
        self.hang_up(tabs)
        log.info("handed a session over to another worker")

    # -- once a second ----------------------------------------------------------------------

    def round(self) -> None:
        """Persist what changed and renew the leases; with the store down, nothing (the
        next round tries again), and once it is back, everything held (issue 26 F8)."""
        try:
            if self.health.cause is not None:
                self.store.probe()  # raises while it is still down
                with self._lock:
                    for session_id in self.held:
                        self.held[session_id] = None  # written again, all of them
            self._round()
        except Exception as error:
            if not _store_fault(error):
                raise
            self.health.failed(error)
            return
        self.health.recovered()

    def _round(self) -> None:
        # Writing: one writer at a time (a hand-over or a claim waits), so what the held
        # marks say is what the store has.
        with self._writing:
            with self._lock:  # before the sessions: one claimed in between waits a round
                held = dict(self.held)
            sessions = {s.id: s for s in self.manager.sessions()}
            # The leases first: a session another worker took over is not written over
            # its record, and one whose lease was gone (Redis lost its data, or this
            # worker stalled past it) is written whole, its record may be gone too.
            kept = [s for s in held if s in sessions]
            renewed = self.leases.renew(kept)
            lost = {s for s, ok in zip(kept, renewed, strict=True) if not ok}
            with self._lock:
                for session_id in getattr(self.leases, "lapsed", ()):
                    held[session_id] = None
                    if session_id in self.held:
                        self.held[session_id] = None
            due: dict[str, RecordWrite] = {}
            marks: dict[str, Written] = {}
            for session_id, session in sessions.items():
                if session_id in lost:
                    continue
                if session_id not in held:
                    # Made here without `claim` (a class hand-out): kept from now on.
                    if self.draining or not self.leases.acquire(session_id):
                        continue
                    with self._lock:
                        self.held.setdefault(session_id, None)
                elif (written := held[session_id]) is not None and changes(session) == written.key:
                    continue
                if not session.lock.acquire(blocking=False):
                    continue  # busy: the next round writes it
                try:
                    due[session_id], marks[session_id] = write_of(session, held.get(session_id))
                finally:
                    session.lock.release()
            missing = self._write(due) if due else set()
            for session_id in sorted(missing):  # their records were gone: written whole now
                session = sessions[session_id]
                if not session.lock.acquire(blocking=False):
                    continue  # busy: the next round writes it whole (held says None)
                try:
                    whole, marks[session_id] = write_of(session, None)
                finally:
                    session.lock.release()
                if not self._write({session_id: whole}):
                    missing.discard(session_id)
            with self._lock:
                for session_id, mark in marks.items():
                    if session_id in self.held and session_id not in missing:
                        self.held[session_id] = mark
                # Held but no longer in the manager: reaped or evicted. (A hand-over stops
                # holding a session before the manager lets it go, so it is never counted.)
                gone = [key for key in held if key not in sessions and key in self.held]
                for session_id in gone:
                    del self.held[session_id]
        # Freed here (idle, or evicted for room): nobody resumes them any more.
        if gone:
            self.leases.release(gone)
            for session_id in gone:
                self.store.delete(session_id)
                if self.on_gone is not None:
                    try:
                        self.on_gone(session_id)
                    except Exception:
                        log.warning("revoking a freed session's API tokens failed")
        self.store.touch([s for s in kept if s not in lost])
        for session_id in lost:  # another worker took it over
            with self._lock:
                self.held.pop(session_id, None)
            session = self.manager.remove(session_id)
            if session is not None:
                self.hang_up(list(session.tabs))

    def run(self, sleep: Callable[[float], None]) -> None:
        while not self.stopped.is_set():
            started = time.monotonic()
            try:
                self.round()
            except Exception:
                log.exception("session records round failed")
            sleep(max(0.0, self.interval - (time.monotonic() - started)))

    def start(
        self, start_background_task: Callable[..., Any], sleep: Callable[[float], None]
    ) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        start_background_task(self.run, sleep)

    def drain(self) -> int:
        """Persist every session, let every lease go and forget the sessions (SIGTERM).
        Returns how many were persisted."""
        self.draining = True
        self.stopped.set()
        records: dict[str, RecordWrite] = {}
        sessions: dict[str, Session] = {}
        for session in self.manager.sessions():
            with session.lock, self._writing:  # in this order, as a claim takes them
                with self._lock:
                    written = self.held.get(session.id)
                records[session.id], _ = write_of(session, written)
                sessions[session.id] = session
                self.manager.remove(session.id)
        try:
            with self._writing:
                missing = self._write(records)
                if missing:  # their records were gone: whole (no tab changes them now)
                    whole = {}
                    for session_id in missing:
                        with sessions[session_id].lock:
                            whole[session_id], _ = write_of(sessions[session_id], None)
                    self._write(whole)
        except Exception as error:
            if not _store_fault(error):
                raise
            self.health.failed(error)
            log.warning("drain: %d session records could not be written", len(records))
        with self._lock:
            ids = list(self.held)
            self.held.clear()
        self.leases.release(ids)
        self.leases.stop()
        return len(records)


def _store_fault(error: BaseException) -> bool:
    """`error` says the record store cannot be written now (not a bug)."""
    from webapp.storage import write_fault

    return write_fault(error) is not None


REDIS_CONNECTIONS = 100  # per worker process


def init_app(
    app: Any, manager: SessionManager, hang_up: Callable[[list[str]], None]
) -> Keeper | None:
    """The keeper of `app`'s sessions: Redis when REDIS_URL is set, else SQLite; None when
    SESSION_RECORDS is off."""
    config = app.config
    if not config.get("SESSION_RECORDS"):
        return None
    from webapp.shares import engine_for

    idle = float(config["SESSION_IDLE_SECONDS"])
    url = config.get("REDIS_URL")
    store: RecordStore
    leases: Any
    if url:
        client = bounded_redis(url, REDIS_CONNECTIONS)
        store = RedisRecords(client, ttl_seconds=idle + 3600)
        token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}"
        leases = RedisLeases(client, token)
    else:
        from webapp.storage import SessionRecordTable, database_path

        store = SqliteRecords(SessionRecordTable(database_path(app)), idle)
        leases = LocalLeases()
    keeper = Keeper(manager, store, leases, engine=lambda: engine_for(app), hang_up=hang_up)
    app.extensions["playground.records"] = keeper
    return keeper


def keeper_of(app: Any) -> Keeper | None:
    keeper: Keeper | None = app.extensions.get("playground.records")
    return keeper
