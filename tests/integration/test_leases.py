"""Leases and records in a real Redis (webapp/records.py): one holder at a time, taken
back after it expired when nobody else took it, released only by its holder; a hand-over
request reaches the holder."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.stack import Redis, need_binaries
from webapp import records


@pytest.fixture
def client(tmp_path: Path) -> Iterator[object]:
    need_binaries()
    redis_lib = pytest.importorskip("redis")
    server = Redis(tmp_path / "redis")
    try:
        yield redis_lib.Redis.from_url(server.url)
    finally:
        server.stop()


def test_one_holder_at_a_time(client: object) -> None:
    a = records.RedisLeases(client, "worker-a", lease_ms=300)
    b = records.RedisLeases(client, "worker-b", lease_ms=300)
    assert a.acquire("s1")
    assert a.acquire("s1")  # its own: renewed
    assert not b.acquire("s1")
    b.release(["s1"])  # not b's to release
    assert not b.acquire("s1")
    assert a.renew(["s1", "s2"]) == [True, True]  # s2 was free: a takes it
    assert b.renew(["s1", "s2"]) == [False, False]
    a.release(["s1"])
    assert b.acquire("s1")
    assert a.renew(["s1"]) == [False]


def test_an_expired_lease_goes_to_whoever_asks(client: object) -> None:
    a = records.RedisLeases(client, "worker-a", lease_ms=200)
    b = records.RedisLeases(client, "worker-b", lease_ms=200)
    assert a.acquire("s1")
    deadline = time.monotonic() + 10
    while not b.acquire("s1"):  # a died: nothing renews its lease
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert a.renew(["s1"]) == [False]


def test_records_and_handover_requests(client: object) -> None:
    store = records.RedisRecords(client, ttl_seconds=60)
    base = '{"v": 2, "id": "s1", "yaml": "y", "seed": 0}'
    head = '{"v": 2, "history": 0, "count": %d, "now": %s}'
    store.write_many({"s1": records.RecordWrite(head=head % (2, 1), base=base,
                                                add=['{"at": 0}', '{"at": 1}'])})  # fmt: skip
    assert store.load("s1")["actions"] == [{"at": 0}, {"at": 1}]  # type: ignore[index]
    assert 0 < client.ttl(records.RedisRecords.key("s1")) <= 60  # type: ignore[attr-defined]
    # an action after a seek back: the second row is replaced, the head written again
    store.write_many({"s1": records.RecordWrite(head=head % (2, 2), keep=1, drop=2,
                                                add=['{"at": 0.5}'])})  # fmt: skip
    loaded = store.load("s1")
    assert loaded is not None and loaded["actions"] == [{"at": 0}, {"at": 0.5}]
    assert loaded["now"] == 2 and loaded["yaml"] == "y"
    store.write_many({"s1": records.RecordWrite(head=head % (1, 3), keep=1, drop=2)})
    assert client.hkeys(records.RedisRecords.key("s1")) is not None  # type: ignore[attr-defined]
    assert store.load("s1")["actions"] == [{"at": 0}]  # type: ignore[index]
    assert len(client.hkeys(records.RedisRecords.key("s1"))) == 3  # type: ignore[attr-defined]
    store.delete("s1")
    assert store.load("s1") is None
    # a record of the first format (one JSON string) still loads
    client.set(records.RedisRecords.old_key("s2"), '{"v": 1, "id": "s2"}')  # type: ignore[attr-defined]
    assert store.load("s2") == {"v": 1, "id": "s2"}
    store.delete("s2")
    assert store.load("s2") is None

    # Redis lost the record (restarted empty): the changed parts alone are refused, and
    # nothing of them is written (rows without their base are no record); a whole write
    # in the same transaction still goes in.
    store.write_many({"s3": records.RecordWrite(head=head % (0, 1), base=base)})
    client.flushall()  # type: ignore[attr-defined]
    missing = store.write_many({
        "s3": records.RecordWrite(head=head % (1, 2), keep=0, drop=0, add=['{"at": 1}']),
        "s4": records.RecordWrite(head=head % (0, 1), base=base),
    })  # fmt: skip
    assert missing == {"s3"}
    assert not client.exists(records.RedisRecords.key("s3"))  # type: ignore[attr-defined]
    assert store.load("s4") is not None
    # many rows dropped and added at once (no unpack() limit in the script)
    many = [f'{{"at": {n}}}' for n in range(20_000)]
    store.write_many({"s4": records.RecordWrite(head=head % (20_000, 3), keep=0, add=many)})
    assert store.write_many({"s4": records.RecordWrite(head=head % (1, 4), keep=1,
                                                       drop=20_000)}) == set()  # fmt: skip
    assert store.load("s4")["actions"] == [{"at": 0}]  # type: ignore[index]
    assert len(client.hkeys(records.RedisRecords.key("s4"))) == 3  # type: ignore[attr-defined]

    holder = records.RedisLeases(client, "worker-a")
    asked = threading.Event()
    holder.listen(lambda session_id: session_id == "s1" and asked.set())
    try:
        time.sleep(0.3)  # subscribed
        records.RedisLeases(client, "worker-b").request_handover("s1")
        assert asked.wait(10)
    finally:
        holder.stop()
