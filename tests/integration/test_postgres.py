"""Share links and classes in PostgreSQL (issue 22 item 3): one SQL layer
(webapp/database.py) under the embedded SQLite file and a real PostgreSQL server that
every host reaches, started by the test (tests/integration/postgres.py).

The stores' contract runs against both. Then what hosting on several machines asks of it:
a share posted through one host opens through another, a class made on one is taught from
a second, an acknowledged link survives `kill -9` of the host that wrote it, hosts that
start at once make the tables once, and a database that cannot be reached is a one-line
start-up error, `/readyz` "not ready" and 507 on a write, never a 500, and is used again
when it is back.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.integration.postgres import Postgres
from tests.integration.stack import ROOT, WAIT, free_port, wait_for_port
from webapp import create_app, socketio_of
from webapp.classes.store import ClassStore
from webapp.database import Database, PostgresDatabase, SqliteDatabase, postgres_sql
from webapp.storage import ShareStore, StorageFull

_names = itertools.count()
PLAIN_POD = (ROOT / "scenarios" / "plain-pod.yaml").read_text()


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    server = Postgres.start()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def pg_url(pg: Postgres) -> str:
    """A fresh, empty database of its own for each test."""
    return pg.new_database(f"t{os.getpid()}_{next(_names)}")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        database: Database = SqliteDatabase(tmp_path / "playground.sqlite3")
    else:
        database = PostgresDatabase(request.getfixturevalue("pg_url"))
    try:
        yield database
    finally:
        database.close()


def link(text: str, at: float = 3.0, lang: str | None = None) -> dict[str, Any]:
    made: dict[str, Any] = {"yaml": text, "actions": [{"at": 1.0, "action": "crash"}], "at": at}
    if lang:
        made["lang"] = lang
    return made


# -- the stores' contract, in both databases ------------------------------------------------


def test_share_links_are_content_addressed_written_once_and_read_back(db: Database) -> None:
    clock = [1000.0]
    store = ShareStore(db, clock=lambda: clock[0])
    first = store.put(link("kind: Pod\n"))
    assert store.put(link("kind: Pod\n")) == first  # same content, same id, one row
    chinese = store.put(link("kind: Pod\n", lang="zh"))
    assert chinese != first
    assert store.get(first) == link("kind: Pod\n")
    assert store.get(chinese) == link("kind: Pod\n", lang="zh")
    assert store.get("a" * 16) is None and store.get("not an id") is None
    assert store.exists(first) and not store.exists("b" * 16)
    assert db.one("SELECT COUNT(*) FROM share_links")[0] == 2
    assert store.opened(first) == (None, None)
    store.mark_opened(first)
    clock[0] += 10
    store.mark_opened(first)  # within REOPEN_STAMP_SECONDS: not stamped again
    assert store.opened(first) == (1000.0, 1000.0)


def test_times_keep_their_seconds(db: Database) -> None:
    """A Unix time in PostgreSQL's 4-byte REAL is off by up to 64 s: times are 8 bytes."""
    at = 1_796_227_257.149503
    store = ShareStore(db, clock=lambda: at)
    made = store.put(link("a: 1\n"))
    store.mark_opened(made)
    assert store.opened(made) == (at, at)


def test_links_never_opened_expire_and_opened_ones_stay(db: Database) -> None:
    clock = [0.0]
    store = ShareStore(db, unopened_seconds=100, sweep_seconds=0, clock=lambda: clock[0])
    kept, dropped = store.put(link("a: 1\n")), store.put(link("b: 2\n"))
    store.mark_opened(kept)
    clock[0] = 101.0
    assert store.sweep(force=True) == 1
    assert store.exists(kept) and not store.exists(dropped)


def test_a_full_store_refuses_new_links_and_answers_old_ones(db: Database) -> None:
    probe = ShareStore(db)
    old = probe.put(link("c: 3\n"))
    store = ShareStore(db, max_bytes=probe.used_bytes())
    with pytest.raises(StorageFull):
        store.put(link("d: 4\n" * 2000))
    assert store.get(old) == link("c: 3\n")
    assert store.put(link("c: 3\n")) == old  # an existing link is still "stored"


def test_classes_keep_their_roster_answers_and_state(db: Database) -> None:
    clock = itertools.count(5000.0)
    store = ClassStore(db, clock=lambda: next(clock))
    assert store.create("KQ7M2X", "key-hash", "kind: Pod\n", "zh", "pin-hash")
    assert not store.create("KQ7M2X", "other", "x", "en")  # the code exists
    store.add_student("KQ7M2X", "ann", "t1")
    store.add_student("KQ7M2X", "bob", "t2")
    store.add_student("KQ7M2X", "ann", "t3")  # rejoined: a new token
    store.answer("KQ7M2X", "q1", "ann", 2)
    store.answer("KQ7M2X", "q1", "ann", 3)  # changed her answer
    store.answer("KQ7M2X", "q1", "bob", 1)
    store.save_state("KQ7M2X", {"mode": "free", "actions": [{"at": 4.5}]})
    store.remove_student("KQ7M2X", "bob")
    store.end("KQ7M2X")
    row = store.load("KQ7M2X")
    assert row is not None
    assert row["key_hash"] == "key-hash" and row["pin_hash"] == "pin-hash"
    assert row["lang"] == "zh" and row["yaml"] == "kind: Pod\n"
    assert row["students"] == {"ann": "t3"}
    assert row["answers"] == [("q1", "ann", 3)]
    assert row["state"] == {"mode": "free", "actions": [{"at": 4.5}]}
    assert row["ended_at"] is not None and store.load("NOPE42") is None


def test_a_failed_write_leaves_the_store_as_it_was(db: Database) -> None:
    store = ShareStore(db)
    made = store.put(link("e: 5\n"))
    with pytest.raises(Exception), db.write() as tx:  # noqa: B017 - any error of the driver
        tx.execute("UPDATE share_links SET body = ? WHERE id = ?", ("{}", made))
        tx.execute("INSERT INTO no_such_table VALUES (?)", (1,))
    assert store.get(made) == link("e: 5\n")


def test_opening_again_migrates_nothing_twice(db: Database) -> None:
    ShareStore(db).put(link("f: 6\n"))
    ClassStore(db)
    again = ShareStore(db)  # a restart, or a second host: the tables are there
    ClassStore(db)
    assert db.one("SELECT COUNT(*) FROM share_links")[0] == 1
    assert again.get(again.put(link("f: 6\n"))) == link("f: 6\n")


def test_the_shared_dialect_is_what_postgresql_takes() -> None:
    assert postgres_sql("SELECT a FROM t WHERE b = ? AND c LIKE '5%'") == (
        "SELECT a FROM t WHERE b = %s AND c LIKE '5%%'"
    )


# -- several hosts, one PostgreSQL ----------------------------------------------------------


def test_hosts_starting_at_once_make_the_tables_once(pg_url: str) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def host() -> None:
        db = PostgresDatabase(pg_url)
        try:
            start.wait()
            ShareStore(db)
            ClassStore(db)
        except BaseException as error:  # collected for the assertion
            errors.append(error)
        finally:
            db.close()

    threads = [threading.Thread(target=host) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert errors == []


def app_on(tmp_path: Path, name: str, url: str) -> Flask:
    """One host: its own folder (its SQLite file keeps only its session records), the
    shared database."""
    folder = tmp_path / name
    folder.mkdir()
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(folder / "playground.sqlite3"),
            "DATABASE_URL": url,
            "SESSION_SCHEDULER": False,
        }
    )


def test_a_share_posted_through_one_host_opens_through_another(tmp_path: Path, pg_url: str) -> None:
    first, second = app_on(tmp_path, "a", pg_url), app_on(tmp_path, "b", pg_url)
    body = {"yaml": (ROOT / "scenarios" / "crash-loop-backoff.yaml").read_text(), "at": 12}
    posted = first.test_client().post("/api/share", json=body)
    assert posted.status_code == 201, posted.json
    share = posted.json["id"]
    assert second.test_client().get(f"/s/{share}").status_code == 200
    tab = socketio_of(second).test_client(second)
    tab.get_received()
    tab.emit("join", {"share": share})
    [snapshot] = [m["args"][0] for m in tab.get_received() if m["name"] == "snapshot"]
    assert snapshot["now"] == 12 or snapshot["seeking"]["target"] == 12


def test_a_class_made_on_one_host_is_taught_from_another(tmp_path: Path, pg_url: str) -> None:
    first, second = app_on(tmp_path, "a", pg_url), app_on(tmp_path, "b", pg_url)
    made = first.test_client().post("/api/classes", json={"scenario": "plain-pod"})
    assert made.status_code == 201, made.json
    assert second.test_client().get(f"/c/{made.json['code']}").status_code == 200
    teacher = socketio_of(second).test_client(second)
    teacher.get_received()
    teacher.emit("class:teach", {"code": made.json["code"], "key": made.json["teacherKey"]})
    names = [m["name"] for m in teacher.get_received()]
    assert "class:state" in names and "snapshot" in names and "error" not in names
    wrong = socketio_of(second).test_client(second)
    wrong.get_received()
    wrong.emit("class:teach", {"code": made.json["code"], "key": "not-the-key"})
    assert [m["name"] for m in wrong.get_received()] == ["error"]


def host_process(tmp_path: Path, name: str, env: dict[str, str]) -> tuple[Any, int]:
    port = free_port()
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp", "--port", str(port)],
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PLAYGROUND_DB": str(folder / "playground.sqlite3"),
            **env,
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return process, port


def post_json(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_an_acknowledged_link_survives_kill_9_of_the_host_that_wrote_it(
    tmp_path: Path, pg_url: str
) -> None:
    process, port = host_process(tmp_path, "a", {"PLAYGROUND_DATABASE_URL": pg_url})
    try:
        wait_for_port(port, process=process)
        status, answer = post_json(
            f"http://127.0.0.1:{port}/api/share", {"yaml": PLAIN_POD, "at": 0}
        )
        assert status == 201, answer
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(WAIT)
    other = app_on(tmp_path, "b", pg_url)
    assert other.test_client().get(f"/s/{answer['id']}").status_code == 200


def test_a_database_that_cannot_be_reached_is_one_line_at_start(tmp_path: Path) -> None:
    closed = f"postgresql://postgres:secret@127.0.0.1:{free_port()}/playground"
    process, _ = host_process(tmp_path, "a", {"PLAYGROUND_DATABASE_URL": closed})
    _, stderr = process.communicate(timeout=WAIT)
    assert process.returncode == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("pod-playground: the database postgresql://postgres:***@127.0.0.1")
    assert "cannot be reached" in lines[0] and "secret" not in lines[0]
    process, _ = host_process(tmp_path, "b", {"PLAYGROUND_DATABASE_URL": "mysql://x@y/z"})
    _, stderr = process.communicate(timeout=WAIT)
    assert process.returncode == 2
    assert "PLAYGROUND_DATABASE_URL must be a postgresql:// URL" in stderr


def test_while_the_database_is_down_writes_get_507_and_readyz_says_so(tmp_path: Path) -> None:
    server = Postgres.start()  # its own: this test stops it
    try:
        app = app_on(tmp_path, "a", server.url)
        http = app.test_client()
        assert http.get("/readyz").status_code == 200
        server.stop()
        refused = http.post("/api/share", json={"yaml": PLAIN_POD, "at": 0})
        assert refused.status_code == 507, refused.json
        assert refused.json["code"] == "storage_unavailable"
        deadline = time.monotonic() + WAIT
        while http.get("/readyz").status_code != 503:  # the probe runs at most once a second
            assert time.monotonic() < deadline
            time.sleep(0.1)
        checks = http.get("/readyz").json["checks"]
        assert "cannot be reached" in checks["database"], checks
        server.start_again()
        deadline = time.monotonic() + WAIT
        while http.post("/api/share", json={"yaml": PLAIN_POD, "at": 0}).status_code != 201:
            assert time.monotonic() < deadline, "not used again once back"
            time.sleep(0.2)
    finally:
        server.remove()


# -- three hosts on their own addresses, one Redis, one PostgreSQL --------------------------


def wait_listening(host: str, port: int, process: Any) -> None:
    import socket

    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        with socket.socket() as s:
            if s.connect_ex((host, port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port}")


@pytest.mark.slow
def test_three_hosts_answer_any_link_and_any_class(tmp_path: Path, pg_url: str) -> None:
    """127.0.0.2, .3 and .4 stand in for three machines: each its own process tree and
    folder (its SQLite file holds only what is its own), one Redis and one PostgreSQL
    between them. A link posted through one opens through another; a class made on the
    first is taught from the second and followed from the third."""
    from tests.integration.stack import Redis, need_binaries
    from tests.integration.test_classes import Member

    need_binaries()
    redis = Redis(tmp_path / "redis")
    hosts: dict[str, tuple[Any, int]] = {}
    members: list[Member] = []
    try:
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            port = free_port()
            process = subprocess.Popen(
                [sys.executable, "-m", "webapp", "--host", address, "--port", str(port),
                 "--redis", redis.url],
                cwd=ROOT,
                env={
                    **os.environ,
                    "PYTHONPATH": str(ROOT),
                    "PLAYGROUND_DB": str(tmp_path / address / "playground.sqlite3"),
                    "PLAYGROUND_DATABASE_URL": pg_url,
                    "PLAYGROUND_TRUSTED_PROXIES": "127.0.0.1",
                },
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            hosts[address] = (process, port)
        for address, (process, port) in hosts.items():
            wait_listening(address, port, process)
        a, b, c = (f"http://{address}:{port}" for address, (_, port) in hosts.items())
        status, share = post_json(f"{a}/api/share", {"yaml": PLAIN_POD, "at": 5})
        assert status == 201, share
        with urllib.request.urlopen(f"{b}/s/{share['id']}", timeout=WAIT) as page:
            assert page.status == 200
        status, made = post_json(f"{a}/api/classes", {"scenario": "crash-loop-backoff"})
        assert status == 201, made
        teacher = Member(b, made["code"], key=made["teacherKey"])
        members.append(teacher)
        teacher.enter()
        teacher.wait(lambda m: m.session is not None, "the teacher's run")
        student = Member(c, made["code"], name="ann")
        members.append(student)
        student.enter()
        student.wait(lambda m: m.session == teacher.session, "following the teacher's run")
        teacher.emit("clock", {"op": "speed", "value": 10})
        teacher.emit("clock", {"op": "play"})
        student.wait(lambda m: m.now >= 20, "the teacher's run, played on host .4")
        assert student.session == teacher.session
        teacher.wait(
            lambda m: any(s["name"] == "ann" for s in m.roster.get("students", [])),
            "ann in the roster on host .3",
        )
    finally:
        for member in members:
            member.close()
        for process, _ in hosts.values():
            process.send_signal(signal.SIGTERM)
        for process, _ in hosts.values():
            try:
                process.wait(WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
        redis.stop()


def test_a_statement_held_by_another_hosts_lock_fails_as_a_fault_in_bounded_time(
    pg_url: str,
) -> None:
    """No statement holds a request's thread for long: one waiting on a lock that another
    connection keeps is cancelled after STATEMENT_TIMEOUT_MS, and it is a storage fault
    (507 and /readyz "not ready"), not a bug."""
    import psycopg

    from webapp.storage import write_fault

    db = PostgresDatabase(pg_url)
    store = ShareStore(db)
    holder = psycopg.connect(pg_url)
    try:
        holder.execute("LOCK TABLE share_links IN ACCESS EXCLUSIVE MODE")  # its transaction
        with pytest.raises(psycopg.errors.QueryCanceled) as cancelled:
            store.put(link("g: 7\n"))
        assert write_fault(cancelled.value) == "the database server did not answer in time"
    finally:
        holder.rollback()
        holder.close()
        db.close()
    assert ShareStore(PostgresDatabase(pg_url)).put(link("g: 7\n"))  # free again
