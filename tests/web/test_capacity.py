"""Fair capacity (issue 12 item 4): session slots shared per client address and globally;
sessions nobody used are freed soon after their tab leaves; at a limit the idlest session
without a tab makes room before anyone is refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIOTestClient

from tests.samples import POD
from tests.web.fake_engine import FakeSimulation
from webapp import create_app, socketio_of
from webapp.clients import Proxies, ProxySettingError, client_address, trusted_proxies
from webapp.manifest import parse_scenario
from webapp.realtime import realtime_of
from webapp.sessions import Scheduler, Session, SessionManager, TooManyForClient, TooManySessions


def new_sim() -> FakeSimulation:
    return FakeSimulation.from_scenario(parse_scenario(POD))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def manager(**options: Any) -> SessionManager:
    defaults: dict[str, Any] = {"max_sessions": 4, "max_per_client": 2, "idle_seconds": 600}
    return SessionManager(emit=lambda *_: None, **{**defaults, **options})


def watched(sessions: SessionManager, client: str, tab: str) -> Session:
    session = sessions.create(new_sim(), client=client)
    sessions.attach(tab, session)
    return session


# -- who the client is ------------------------------------------------------------------


PROXY = trusted_proxies("10.0.0.1")
TWO = trusted_proxies("10.0.0.1, 10.1.0.0/16")


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "expected"),
    [
        ("10.0.0.1", None, (), "10.0.0.1"),
        ("10.0.0.1", "203.0.113.7", (), "10.0.0.1"),  # not trusted: anyone can write the header
        ("10.0.0.1", "203.0.113.7", PROXY, "203.0.113.7"),
        ("10.0.0.1", "6.6.6.6, 203.0.113.7", PROXY, "203.0.113.7"),  # 6.6.6.6: the client's own
        ("10.0.0.1", "6.6.6.6, 203.0.113.7, 10.1.1.1", TWO, "203.0.113.7"),
        ("10.0.0.1", "6.6.6.6, 203.0.113.7, 10.1.1.1", PROXY, "10.1.1.1"),
        ("10.0.0.1", None, PROXY, "10.0.0.1"),
        # Straight to the port from an address that is no proxy: the header is not believed
        # (issue 26 F10: X-Forwarded-For: 127.0.0.1 opened /metrics with a count of 1).
        ("203.0.113.50", "127.0.0.1", PROXY, "203.0.113.50"),
        ("203.0.113.50", "127.0.0.1", TWO, "203.0.113.50"),
        ("::ffff:10.0.0.1", "203.0.113.7", PROXY, "203.0.113.7"),  # dual-stack socket
        ("10.0.0.1", "10.1.2.3, 10.0.0.1", TWO, "10.1.2.3"),  # only proxies: the leftmost
    ],
)
def test_the_client_is_the_peer_unless_it_is_a_trusted_proxy(
    peer: str, forwarded: str | None, trusted: Proxies, expected: str
) -> None:
    environ = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded
    assert client_address(environ, trusted) == expected


@pytest.mark.parametrize("count", [1, 2, "1", " 3 ", True])
def test_a_count_of_proxies_is_refused_saying_what_to_write(count: object) -> None:
    with pytest.raises(ProxySettingError, match=r"write, .* TRUSTED_PROXIES=127\.0\.0\.1"):
        trusted_proxies(count)


@pytest.mark.parametrize("value", [None, "", 0, "0", []])
def test_no_trusted_proxies(value: object) -> None:
    assert trusted_proxies(value) == ()


def test_trusted_proxies_are_ips_and_cidrs() -> None:
    assert [str(n) for n in trusted_proxies("127.0.0.1, ::1 10.0.0.0/8,")] == [
        "127.0.0.1/32",
        "::1/128",
        "10.0.0.0/8",
    ]
    with pytest.raises(ProxySettingError, match="'nginx' is not an IP address"):
        trusted_proxies("127.0.0.1,nginx")


# -- the session manager ----------------------------------------------------------------


def test_a_client_at_its_limit_with_every_tab_open_is_refused_and_others_are_not() -> None:
    sessions = manager()
    watched(sessions, "a", "a1")
    watched(sessions, "a", "a2")
    with pytest.raises(TooManyForClient) as refused:
        sessions.create(new_sim(), client="a")
    assert refused.value.limit == 2
    assert watched(sessions, "b", "b1").client == "b"


def test_a_client_at_its_limit_frees_its_own_idlest_session_first() -> None:
    clock = Clock()
    sessions = manager(clock=clock)
    first = watched(sessions, "a", "a1")
    second = watched(sessions, "a", "a2")
    other = sessions.create(new_sim(), client="b")  # b's idle session is not a's to free
    clock.now = 5.0
    sessions.detach("a2")
    clock.now = 6.0
    sessions.detach("a1")
    third = sessions.create(new_sim(), client="a")
    assert sessions.get(second.id) is None  # idle the longest
    assert sessions.get(first.id) is first
    assert sessions.get(third.id) is third
    assert sessions.get(other.id) is other


def test_at_the_global_limit_the_idlest_session_makes_room() -> None:
    clock = Clock()
    sessions = manager(max_per_client=0, clock=clock)
    used = sessions.create(new_sim(), client="a")
    used.used = True
    clock.now = 1.0
    unused = sessions.create(new_sim(), client="b")  # left later, but never used
    busy = [watched(sessions, "c", f"c{i}") for i in range(2)]
    newcomer = sessions.create(new_sim(), client="d", tab="d1")
    assert sessions.get(unused.id) is None
    newest = sessions.create(new_sim(), client="e", tab="e1")
    assert sessions.get(used.id) is None
    assert all(sessions.get(s.id) is s for s in [*busy, newcomer, newest])


def test_at_the_global_limit_with_every_tab_open_newcomers_are_refused() -> None:
    sessions = manager(max_per_client=0)
    for i in range(4):
        watched(sessions, f"client-{i}", f"tab-{i}")
    with pytest.raises(TooManySessions):
        sessions.create(new_sim(), client="late")


def test_a_session_nobody_used_is_freed_soon_after_its_tab_left() -> None:
    sessions = manager(unused_idle_seconds=45)
    unused = watched(sessions, "a", "a1")
    used = watched(sessions, "b", "b1")
    used.used = True
    scheduler = Scheduler(sessions)
    sessions.detach("a1")
    sessions.detach("b1")
    scheduler.tick(0.0)
    scheduler.tick(44.0)
    assert sessions.get(unused.id) is unused
    scheduler.tick(46.0)
    assert sessions.get(unused.id) is None
    assert sessions.get(used.id) is used  # a used session keeps the full idle time
    scheduler.tick(601.0)
    assert sessions.get(used.id) is None


# -- over Socket.IO ---------------------------------------------------------------------


def make_app(tmp_path: Path, **config: Any) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"),
            "SESSION_ENGINE": FakeSimulation,
            "SESSION_SCHEDULER": False,
            "ACTIONS_PER_SECOND": 1000,
            **config,
        }
    )


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield make_app(
        tmp_path,
        MAX_SESSIONS=10,
        MAX_SESSIONS_PER_CLIENT=4,
        NEW_SESSIONS_PER_MINUTE=1000,
        TRUSTED_PROXIES="127.0.0.1",
    )


def connect(app: Flask, address: str | None = None) -> SocketIOTestClient:
    headers = {"X-Forwarded-For": address} if address else None
    # Flask's test client gives the connection a peer address (127.0.0.1: the proxy).
    client = socketio_of(app).test_client(app, headers=headers, flask_test_client=app.test_client())
    client.get_received()
    return client


def answers(client: SocketIOTestClient) -> list[tuple[str, dict[str, Any]]]:
    return [(m["name"], m["args"][0]) for m in client.get_received()]


def test_a_join_flood_from_one_address_cannot_lock_others_out(app: Flask) -> None:
    attackers = [connect(app, "198.51.100.1") for _ in range(5)]
    for _ in range(40):
        for attacker in attackers:
            attacker.emit("join", {})
    refusals = {a["code"] for c in attackers for name, a in answers(c) if name == "error"}
    assert refusals == {"client_session_limit"}  # its 5th open tab needs a 5th session
    sessions = realtime_of(app).manager
    assert len(sessions) <= 4
    for i in range(6):  # everyone else still gets a session
        newcomer = connect(app, f"203.0.113.{i}")
        newcomer.emit("join", {"yaml": POD})
        assert [name for name, _ in answers(newcomer)] == ["snapshot"]


def test_new_sessions_per_minute_are_limited_per_address_in_the_clients_language(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path, NEW_SESSIONS_PER_MINUTE=3, TRUSTED_PROXIES="127.0.0.1")
    realtime_of(app).creations.clock = lambda: 0.0  # frozen: no token comes back
    client = connect(app, "198.51.100.1")
    for _ in range(4):
        client.emit("join", {"lang": "zh"})
    got = answers(client)
    assert [name for name, _ in got] == ["snapshot"] * 3 + ["error"]
    assert got[-1][1]["code"] == "new_sessions_rate_limited"
    assert "每分钟最多 3 个" in got[-1][1]["message"]
    # Re-joining one's own session is not a new session.
    client.emit("join", {"session": got[0][1]["session"]})
    assert [name for name, _ in answers(client)] == ["snapshot"]
    other = connect(app, "203.0.113.9")
    other.emit("join", {})
    assert [name for name, _ in answers(other)] == ["snapshot"]


def test_x_forwarded_for_is_ignored_unless_a_proxy_is_trusted(tmp_path: Path) -> None:
    app = make_app(tmp_path, NEW_SESSIONS_PER_MINUTE=2)
    realtime_of(app).creations.clock = lambda: 0.0

    def from_peer(peer: str, forged: str) -> SocketIOTestClient:
        http = app.test_client()
        http.environ_base["REMOTE_ADDR"] = peer
        client = socketio_of(app).test_client(
            app, flask_test_client=http, headers={"X-Forwarded-For": forged}
        )
        client.get_received()
        return client

    for i in range(3):  # a different forged address each time: still one client
        client = from_peer("10.0.0.1", f"203.0.113.{i}")
        client.emit("join", {})
        got = answers(client)
    assert got[-1][1]["code"] == "new_sessions_rate_limited"
    other = from_peer("10.0.0.2", "203.0.113.0")  # another peer: its own allowance
    other.emit("join", {})
    assert answers(other)[0][0] == "snapshot"


def test_over_a_real_websocket_each_forwarded_client_has_its_own_allowance(
    tmp_path: Path,
) -> None:
    from tests.web.live import Tab, serve

    with serve(
        tmp_path,
        SESSION_ENGINE=FakeSimulation,
        NEW_SESSIONS_PER_MINUTE=2,
        TRUSTED_PROXIES="127.0.0.1",
    ) as (_, url):
        first = Tab(url, headers={"X-Forwarded-For": "198.51.100.1"})
        second = Tab(url, headers={"X-Forwarded-For": "198.51.100.2"})
        try:
            for _ in range(3):
                first.client.emit("join", {"lang": "zh"})
            assert first.next("snapshot") and first.next("snapshot")
            assert first.next("error")["code"] == "new_sessions_rate_limited"
            second.client.emit("join", {})
            assert second.next("snapshot")["session"]
        finally:
            first.close()
            second.close()


def test_a_tab_that_hung_up_while_its_join_ran_leaves_no_dead_tab(app: Flask) -> None:
    """A handler runs in its own thread: when the tab's disconnect was handled before the
    handler put it in the session's room, the handler detaches it again (else the session
    keeps a tab that is gone and never idles) and sends nothing (ci13: Socket.IO raised
    KeyError for the unknown sid in class:fork)."""
    client = connect(app)
    rt = realtime_of(app)
    session = rt.manager.create(new_sim())
    rt.manager.attach("gone-sid", session)  # attached, but no such connection
    assert rt.enter_room("gone-sid", session) is False
    assert session.tabs == frozenset()
    assert rt.manager.session_of("gone-sid") is None
    client.emit("join", {"yaml": POD})  # a live tab is entered as before
    assert [name for name, _ in answers(client)] == ["snapshot"]
    joined = rt.manager.sessions()[-1]
    assert len(joined.tabs) == 1
