"""A class across workers (webapp/classes/span.py), one worker's side at a time, on an
in-memory Redis that keeps what the span uses (keys, the two lease scripts, publish). The
whole path through real Redis, nginx and two workers is tests/integration/test_classes.py."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from webapp.classes import span as span_module
from webapp.classes.span import Span, alive_key, channel, lease_id, out_message
from webapp.records import RedisLeases
from webapp.sessions.wire import Fragments, WirePayload


class FakeRedis:
    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.published: list[tuple[str, dict[str, Any]]] = []

    def set(self, key: str, value: Any, nx: bool = False, px: int | None = None) -> bool | None:
        if nx and key in self.data:
            return None
        self.data[key] = value if isinstance(value, bytes) else str(value).encode()
        return True

    def get(self, key: str) -> bytes | None:
        return self.data.get(key)

    def exists(self, key: str) -> int:
        return int(key in self.data)

    def delete(self, *keys: str) -> int:
        return sum(self.data.pop(key, None) is not None for key in keys)

    def publish(self, name: str, text: str) -> int:
        self.published.append((name, json.loads(text)))
        return 1

    def register_script(self, text: str) -> Any:
        def renew(keys: list[str], args: list[Any]) -> list[int]:
            held = []
            for key in keys:
                owner = self.data.get(key)
                if owner is None or owner.decode() == args[0]:
                    self.data[key] = str(args[0]).encode()
                    held.append(1)
                else:
                    held.append(0)
            return held

        def release(keys: list[str], args: list[Any]) -> int:
            if self.data.get(keys[0], b"").decode() == args[0]:
                del self.data[keys[0]]
                return 1
            return 0

        return renew if "PEXPIRE" in text else release

    def sent(self, token: str) -> list[dict[str, Any]]:
        return [m for name, m in self.published if name == channel(token)]


class Outbox:
    def __init__(self) -> None:
        self.emitted: list[tuple[str, Any, str, list[str]]] = []
        self.table_tabs: set[str] = set()
        self.ready: set[str] = set()
        self.swept = 0

    def emit(self, event: str, payload: Any, to: str, *, skip: Any = ()) -> None:
        self.emitted.append((event, payload, to, list(skip)))

    def caught_up(self, sid: str) -> bool:
        if sid not in self.ready:
            return False
        self.ready.discard(sid)
        return True

    def sweep(self) -> list[str]:
        self.swept += 1
        return []


class Classes:
    def __init__(self) -> None:
        self.held: list[str] = []
        self.left: list[str] = []
        self.dropped: list[str] = []

    def held_codes(self) -> list[str]:
        return list(self.held)

    def leave(self, sid: str) -> None:
        self.left.append(sid)

    def drop(self, code: str) -> None:
        self.dropped.append(code)
        self.held.remove(code)


def make(redis: FakeRedis, token: str, *, max_pending: int = 100) -> Span:
    refused: list[tuple[str, str]] = []
    hung_up: list[str] = []
    rooms: list[tuple[str, str, str]] = []
    server = SimpleNamespace(
        enter_room=lambda sid, room, namespace: rooms.append(("enter", sid, room)),
        leave_room=lambda sid, room, namespace: rooms.append(("leave", sid, room)),
    )
    rt = SimpleNamespace(
        manager=SimpleNamespace(session_of=lambda sid: None, detach=lambda sid: None),
        outbox=Outbox(),
        languages={},
        lang=lambda sid: "en",
        limiter=SimpleNamespace(rate=20),
        refuse=lambda sid, refusal: refused.append((sid, refusal.code)),
        hang_up=lambda sids: hung_up.extend(sids),
        socketio=SimpleNamespace(server=server),
        refused=refused,
        hung_up=hung_up,
        rooms=rooms,
    )
    return Span(None, rt, Classes(), redis, token=token, max_pending=max_pending)


def test_what_a_home_sends_a_worker_is_the_event_encoded_once() -> None:
    payload = WirePayload({"seq": 3, "views": {"columns": {"STATUS": "Running"}}}, Fragments(), ())
    message = json.loads(out_message("tick", payload, "room-1", ["s1"]))
    assert message == {
        "k": "out",
        "to": "room-1",
        "skip": ["s1"],
        "e": ["tick", {"seq": 3, "views": {"columns": {"STATUS": "Running"}}}],
    }


def test_a_room_emit_reaches_each_other_worker_once() -> None:
    redis = FakeRedis()
    home = make(redis, "home")
    for sid, worker in (("a1", "w1"), ("a2", "w1"), ("b1", "w2")):
        home.receive(json.dumps({"k": "ev", "from": worker, "sid": sid, "ev": "lang", "p": {}}))
        home.enter_room(sid, "room-1")
    redis.published.clear()
    home.emit("tick", {"seq": 1}, "room-1", [])
    assert [m["e"] for m in redis.sent("w1")] == [["tick", {"seq": 1}]]
    assert [m["e"] for m in redis.sent("w2")] == [["tick", {"seq": 1}]]
    redis.published.clear()
    home.emit("tick", {"seq": 2}, "room-1", ["b1"])  # w2's only tab is skipped: nothing to w2
    assert len(redis.sent("w1")) == 1 and redis.sent("w2") == []
    assert redis.sent("w1")[0]["skip"] == ["b1"]
    redis.published.clear()
    home.emit("class:state", {}, "a2", [])  # one tab of another worker
    assert [m["to"] for m in redis.sent("w1")] == ["a2"]
    redis.published.clear()
    home.emit("tick", {}, "room-2", [])  # no tab of another worker in it
    home.emit("tick", {}, "local-sid", [])
    assert redis.published == []


def test_room_moves_are_told_in_order_and_forgotten_when_a_tab_leaves() -> None:
    redis = FakeRedis()
    home = make(redis, "home")
    home.receive(json.dumps({"k": "ev", "from": "w1", "sid": "a1", "ev": "lang", "p": {}}))
    home.enter_room("a1", "teacher-room")
    home.leave_room("a1", "teacher-room")
    home.enter_room("a1", "fork-room")
    home.leave_room("a1", "teacher-room")  # not in it any more: nothing said
    assert [m["room"] for m in redis.sent("w1") if m["k"] == "room"] == [
        "teacher-room",
        None,
        "fork-room",
    ]
    assert home.rooms == {"fork-room": {"a1"}}
    home.leave("a1")
    assert home.rooms == {} and home.remote == {} and home.room_of == {}


def test_the_tabs_worker_follows_what_the_home_says() -> None:
    worker = make(FakeRedis(), "w1")
    rt = worker.rt
    worker.proxied["a1"] = ("home", "ABCDEF")
    worker.receive(json.dumps({"k": "room", "sid": "a1", "room": "r1"}))
    worker.receive(json.dumps({"k": "room", "sid": "a1", "room": "r2"}))
    worker.receive(json.dumps({"k": "room", "sid": "zz", "room": "r1"}))  # not proxied here
    assert rt.rooms == [("enter", "a1", "r1"), ("leave", "a1", "r1"), ("enter", "a1", "r2")]
    worker.receive(out_message("tick", {"seq": 5}, "r2", []))
    assert rt.outbox.emitted == [("tick", {"seq": 5}, "r2", [])]
    worker.receive(json.dumps({"k": "hup", "sids": ["a1", "zz"]}))
    assert rt.hung_up == ["a1"]


def test_events_waiting_at_the_home_are_bounded() -> None:
    home = make(FakeRedis(), "home", max_pending=2)
    for i in range(3):
        home.receive(json.dumps({"k": "ev", "from": "w1", "sid": f"s{i}", "ev": "act", "p": {}}))
    assert home.pending.qsize() == 2
    assert home.rt.refused == [("s2", "rate_limited")]


def test_a_tab_is_proxied_to_the_live_home_of_its_class(monkeypatch: pytest.MonkeyPatch) -> None:
    redis = FakeRedis()
    home = make(redis, "home")
    assert home.route("class:teach", "t1", {"code": "ABCDEF", "key": "k"}, "1.2.3.4") is False
    assert redis.get(RedisLeases.key(lease_id("ABCDEF"))) == b"home"  # the home now
    home.classes.held.append("ABCDEF")
    redis.set(alive_key("home"), "1")

    worker = make(redis, "w1")
    payload = {"code": "abcdef", "name": "Ann"}
    assert worker.route("class:join", "s1", payload, "1.2.3.4") is True
    assert worker.proxied == {"s1": ("home", "ABCDEF")}
    assert worker.classes.left == ["s1"]  # whatever it was in here, it left
    # Every later event of that tab goes to the home, with its client and language.
    assert worker.route("act", "s1", {"action": "delete"}, "1.2.3.4") is True
    assert worker.route("join", "s1", {"session": "x", "transitions": "table"}, "1.2.3.4")
    assert "s1" in worker.rt.outbox.table_tabs
    forwarded = [m for m in redis.sent("home") if m["k"] == "ev"]
    assert [(m["ev"], m["from"], m["client"], m["lang"]) for m in forwarded] == [
        ("class:join", "w1", "1.2.3.4", "en"),
        ("act", "w1", "1.2.3.4", "en"),
        ("join", "w1", "1.2.3.4", "en"),
    ]
    # A tab of its own is not proxied.
    assert worker.route("act", "s2", {}, "1.2.3.4") is False
    # It leaves: the home hears it.
    worker.leave("s1")
    assert redis.sent("home")[-1] == {"k": "left", "sid": "s1"}
    assert worker.proxied == {}


def test_a_gone_home_or_worker_is_noticed_once_a_second() -> None:
    redis = FakeRedis()
    home = make(redis, "home")
    home.classes.held.append("ABCDEF")
    home.round()
    worker = make(redis, "w1")
    worker.round()
    assert worker.route("class:join", "s1", {"code": "ABCDEF", "name": "A"}, "") is True
    home.receive(json.dumps({"k": "ev", "from": "w1", "sid": "s1", "ev": "lang", "p": {}}))
    home.pending.get_nowait()

    worker.rt.outbox.ready.add("s1")  # it lagged and caught up: a fresh snapshot
    worker.round()
    assert redis.sent("home")[-1] == {"k": "resync", "sid": "s1"}
    assert worker.rt.hung_up == [] and worker.rt.outbox.swept == 2  # lagging tabs swept

    redis.delete(alive_key("w1"))  # the tabs' worker was killed
    home.round()
    assert home.pending.get_nowait() == {"k": "left", "sid": "s1"}

    # Another worker took the class (this one stalled past its lease).
    redis.set(RedisLeases.key(lease_id("ABCDEF")), "w2")
    home.round()
    assert home.classes.dropped == ["ABCDEF"]
    worker.round()  # its tabs reconnect, and rejoin the new home
    assert worker.rt.hung_up == ["s1"]


def test_no_span_without_redis() -> None:
    app = SimpleNamespace(config={"REDIS_URL": None})
    assert span_module.init(app, None, None) is None


def test_handler_threads_wait_for_a_bounded_number_of_redis_connections() -> None:
    """120 students joining at once on one worker used to fail 17 of them with
    `internal_error` (redis-py's default pool refuses past 100 connections: bench/
    class_workers.py); they now wait for one of REDIS_CONNECTIONS."""
    redis = pytest.importorskip("redis")
    app = SimpleNamespace(config={"REDIS_URL": "redis://127.0.0.1:1/0"})
    made = span_module.init(app, None, None)
    assert made is not None
    pool = made.client.connection_pool
    assert isinstance(pool, redis.BlockingConnectionPool)
    assert pool.max_connections == span_module.REDIS_CONNECTIONS


def test_session_records_wait_for_a_bounded_number_of_redis_connections() -> None:
    """The records keeper's client is bounded the same way (a burst of 600 joins on two
    workers answered 20-47 of them internal_error: bench/sessions.py)."""
    redis = pytest.importorskip("redis")
    from webapp import records

    client = records.bounded_redis("redis://127.0.0.1:1/0", records.REDIS_CONNECTIONS)
    pool = client.connection_pool
    assert isinstance(pool, redis.BlockingConnectionPool)
    assert pool.max_connections == records.REDIS_CONNECTIONS
