"""Denial of service against a real server process (issue 12): seek storms, session floods,
a silent reader, huge shares, half-open requests, slowloris, connection floods, malformed
and oversized packets.

Application attacks (seek storms, session floods, shares, malformed and oversized
messages, teachers' far questions) run against the bare `pod-playground` (gunicorn) and
against nginx with deploy/nginx.conf in front (`front`: "bare", "nginx"); connection
attacks (half-open requests, slowloris, connection floods, silent readers) against nginx +
gunicorn only, the layout docs/hosting.md prescribes: holding connections is nginx's job
(issue 22 item 2).

Each test starts `python -m webapp --port 0` (tests/dos/harness.py), lets a legitimate
player play a built-in scenario at 1x, attacks, and asserts what the issue asks:
- the player's longest wait for an update stays under GAP_BOUND (1.9 s; normal is the 1 s
  resync of a session with nothing new but the time: the page runs its clock between),
- the server's RSS stays under RSS_BOUND,
- nobody gets `internal_error`, no answer is an HTML error, no traceback reaches stderr.
A test reports every broken bound at once, with the figures it measured.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import socketio
import websocket

from tests.dos.harness import (
    FRONTS,
    LiveServer,
    Player,
    RawClient,
    half_open_requests,
    loopback_socket,
    server_problems,
    wait_until,
)
from tests.fuzz.strategies import RAW_PACKETS
from tests.samples import POD
from tests.worst_case import CRASH_LOOP_POD, WORST_POD, worst_pod

pytestmark = pytest.mark.dos

# Seconds without an update for a legitimate player (issue 12): the once-a-second resync of
# time alone (webapp/sessions/session.py RESYNC_SECONDS) and the 0.9 s of slack the bound
# has always left over the normal gap (it was 1.0 s over ten ticks a second).
GAP_BOUND = 1.9
RSS_BOUND = 300.0  # MB for the whole server process (it starts at about 50 MB)
SILENT_GROWTH_BOUND = 60.0  # MB the server may grow while two clients never read for 20 s
EXTRA_THREADS_BOUND = 100  # threads the server may add while 600 requests hang half-open
SHARE_TEXT_LIMIT = 64 * 1024  # SHARE_MAX_TEXT_BYTES
# Seconds until a far first seek of a crash-looping run is answered during a first-seek
# storm: one slice of work (tens of ms) plus waiting for the GIL with the busy seek loop on
# a loaded machine; in one request, as before slicing, it was not answered within the storm.
ANSWER_BOUND = 3.0
# Four teachers' seeks to 6600 s of a crash loop (4-7 s of the server's CPU each: 26.9 s
# for the four in one run), nearly twice over: the server's work a teacher's own seek may
# wait for beside three others.
SETUP_CPU_SECONDS = 48.0
SETUP_WALL_LIMIT = 600.0


@pytest.fixture(params=FRONTS)
def front(request: pytest.FixtureRequest) -> str:
    """What the attackers reach: the playground itself, or nginx in front of it."""
    return str(request.param)


# The connection attacks: against nginx in front of gunicorn only.
behind_nginx = pytest.mark.parametrize("front", ["nginx"])


@pytest.fixture
def server(front: str) -> Iterator[LiveServer]:
    server = LiveServer(front=front)
    yield server
    server.stop()


@pytest.fixture
def player(server: LiveServer) -> Iterator[Player]:
    player = Player(server.url)
    player.wait_for_ticks()
    yield player
    player.close()


def problems_of(
    server: LiveServer,
    player: Player | None,
    window: tuple[float, float] | None,
    attackers: list[RawClient] = (),  # type: ignore[assignment]
) -> list[str]:
    """Every bound the run broke, with the figures."""
    problems = []
    if player is not None and window is not None:
        gap = player.max_gap(*window)
        if gap >= GAP_BOUND:
            problems.append(f"the player waited {gap:.2f} s for an update (bound {GAP_BOUND} s)")
        if player.errors:
            problems.append(f"the player got errors: {player.errors[:3]}")
    if server.peak_rss_mb >= RSS_BOUND:
        problems.append(f"server RSS reached {server.peak_rss_mb:.0f} MB (bound {RSS_BOUND:.0f})")
    internal = sum(a.internal_errors for a in attackers)
    if internal:
        problems.append(f"{internal} internal_error answer(s) to the attackers")
    problems += [f"server stderr: {p}" for p in server_problems(server)]
    return problems


def test_a_seek_storm_stalls_no_other_player_and_memory_stays_bounded(
    server: LiveServer, player: Player
) -> None:
    attackers = [RawClient(server, source=f"127.0.0.{2 + i}") for i in range(3)]
    for attacker in attackers:
        attacker.emit("join", {"yaml": WORST_POD})
    start = time.monotonic()
    targets = [7200, 1, 7199, 2, 3600, 7200, 0]
    i = 0
    while time.monotonic() < start + 12:
        for attacker in attackers:
            attacker.emit("clock", {"op": "seek", "value": targets[i % len(targets)]})
        i += 1
        time.sleep(0.25)
    end = time.monotonic()
    problems = problems_of(server, player, (start, end), attackers)
    for attacker in attackers:
        attacker.close()
    assert not problems, "\n".join(problems)


def test_a_first_seek_storm_in_crash_looping_runs_stalls_no_other_player(
    server: LiveServer, player: Player
) -> None:
    """Every seek is a first visit to a far moment of a crash-looping run (seconds of
    simulation each, done in slices on the seek loop): new sessions keep coming, each
    seeking to the horizon at once."""
    attackers = [RawClient(server, source=f"127.0.0.{2 + i}") for i in range(3)]
    answers: list[tuple[float, Any]] = []
    seeker = socketio.Client(reconnection=False)  # one more, reading its answers
    seeker.on("snapshot", lambda payload: answers.append((time.monotonic(), payload)))
    seeker.connect(server.url, transports=["websocket"], wait_timeout=10)
    seeker.emit("join", {"yaml": CRASH_LOOP_POD})
    assert wait_until(lambda: len(answers) == 1, 10)
    start = time.monotonic()
    asked = 0.0
    while time.monotonic() < start + 12:
        for attacker in attackers:
            attacker.emit("join", {"yaml": CRASH_LOOP_POD})
            attacker.emit("clock", {"op": "seek", "value": 7200})
        if not asked and time.monotonic() > start + 3:  # in the thick of it
            asked = time.monotonic()
            seeker.emit("clock", {"op": "seek", "value": 7200})
        time.sleep(1.0)
    end = time.monotonic()
    problems = problems_of(server, player, (start, end), attackers)
    if len(answers) < 2:
        problems.append("the seeker's far seek was not answered")
    else:
        waited, snapshot = answers[1][0] - asked, answers[1][1]
        if waited >= ANSWER_BOUND:
            problems.append(f"the seeker's far seek was answered after {waited:.2f} s")
        if (snapshot.get("seeking") or {}).get("target") != 7200:
            problems.append(f"the far seek was not sliced: seeking={snapshot.get('seeking')}")
    seeker.disconnect()
    for attacker in attackers:
        attacker.close()
    assert not problems, "\n".join(problems)


def test_a_session_flood_does_not_lock_out_newcomers(front: str) -> None:
    server = LiveServer(env={"PLAYGROUND_MAX_SESSIONS": "100"}, front=front)
    player = None
    attackers: list[RawClient] = []
    try:
        player = Player(server.url)
        player.wait_for_ticks()
        attackers = [RawClient(server, source="127.0.0.2") for _ in range(5)]
        start = time.monotonic()
        for _ in range(40):  # 5 x 40 joins, under the per-connection rate of 20 a second
            for attacker in attackers:
                attacker.emit("join", {})
            time.sleep(0.06)
        time.sleep(1.0)
        end = time.monotonic()
        problems = problems_of(server, player, (start, end), attackers)
        newcomer = Player(server.url)  # another tab of the first client's address
        other = RawClient(server, source="127.0.0.9")  # a client nobody has seen
        other.emit("join", {})
        wait_until(lambda: newcomer.snapshots or newcomer.errors, 5)
        wait_until(lambda: b'"snapshot"' in other.seen or b'"error"' in other.seen, 5)
        if newcomer.snapshots != 1 or newcomer.errors:
            problems.append(f"a newcomer could not start a session: {newcomer.errors[:1]}")
        if b'"snapshot"' not in other.seen:
            problems.append(f"a new client could not start a session: {other.seen[:200]!r}")
        newcomer.close()
        other.close()
        assert not problems, "\n".join(problems)
    finally:
        for attacker in attackers:
            attacker.close()
        if player is not None:
            player.close()
        server.stop()


@behind_nginx
def test_silent_readers_cost_bounded_memory(server: LiveServer, player: Player) -> None:
    """Two clients that never read while their sessions play the worst scenario at 100x:
    the server keeps the latest state for them, not a queue of every tick."""
    before = server.rss_mb()
    silent = []
    for i in range(2):
        client = RawClient(server, source=f"127.0.0.{2 + i}", drain=False, rcvbuf=4096)
        client.emit("join", {"yaml": WORST_POD})
        client.emit("clock", {"op": "speed", "value": 100})
        client.emit("clock", {"op": "play"})
        silent.append(client)
    start = time.monotonic()
    while time.monotonic() < start + 20 and server.alive():
        time.sleep(0.5)
    end = time.monotonic()
    after = server.rss_mb()
    problems = problems_of(server, player, (start, end))
    if after - before >= SILENT_GROWTH_BOUND:
        problems.append(
            f"RSS grew {before:.0f} -> {after:.0f} MB in 20 s of two silent clients "
            f"(bound +{SILENT_GROWTH_BOUND:.0f} MB)"
        )
    for client in silent:
        client.close()
    assert not problems, "\n".join(problems)


def post_share(
    server: LiveServer, body: object, source: str = "127.0.0.1"
) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=30, source_address=(source, 0)
    )
    try:
        connection.request(
            "POST",
            "/api/share",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        connection.close()


def test_a_share_with_a_huge_at_is_refused_or_opens_at_once(
    server: LiveServer, player: Player
) -> None:
    start = time.monotonic()
    status, content_type, body = post_share(server, {"yaml": worst_pod(1), "at": 1e9})
    problems = []
    if not content_type.startswith("application/json"):
        problems.append(f"POST /api/share answered {status} {content_type}: {body[:200]!r}")
    elif status == 201:
        link = json.loads(body)["id"]
        opener = RawClient(server, source="127.0.0.2")
        opener.emit("join", {"share": link})
        answered = wait_until(lambda: b'"snapshot"' in opener.seen or b'"error"' in opener.seen, 10)
        if not answered:
            problems.append("opening the link (at 1e9) was not answered within 10 s")
        opener.close()
    elif status != 400:
        problems.append(f"POST /api/share answered {status}: {body[:200]!r}")
    problems += problems_of(server, player, (start, time.monotonic()))
    assert not problems, "\n".join(problems)


def share_text(i: int) -> str:
    """A valid scenario of SHARE_TEXT_LIMIT bytes, different for every `i`."""
    filler = SHARE_TEXT_LIMIT - len(POD) - 64
    return POD + (f"# {i} " + "x" * filler)[:filler] + "\n"


def test_share_posts_from_many_clients_meet_a_global_budget(front: str) -> None:
    """150 posts at the size cap from 10 addresses (15 each: within the per-address limit)
    with a global budget of 100 a minute (PLAYGROUND_SHARE_POSTS_PER_MINUTE_GLOBAL): some
    are refused (429/503), and every answer is JSON."""
    with LiveServer(env={"PLAYGROUND_SHARE_POSTS_PER_MINUTE_GLOBAL": "100"}, front=front) as server:
        statuses: dict[int, int] = {}
        problems = []
        for i in range(150):
            status, content_type, body = post_share(
                server, {"yaml": share_text(i)}, f"127.0.1.{2 + i % 10}"
            )
            statuses[status] = statuses.get(status, 0) + 1
            if not content_type.startswith("application/json") or status not in (201, 429, 503):
                problems.append(f"answer {status} {content_type}: {body[:200]!r}")
                break
        if not statuses.get(429, 0) + statuses.get(503, 0):
            problems.append(f"no global share budget: {statuses} for 150 posts of 64 KiB")
        problems += [f"server stderr: {p}" for p in server_problems(server)]
        assert not problems, "\n".join(problems)


def test_the_share_database_has_a_size_cap(front: str) -> None:
    """With a 2 MB cap (PLAYGROUND_SHARE_DB_MAX_BYTES), 60 links of 64 KiB are refused with
    507 once it is reached, in JSON, and nothing more is stored after that."""
    cap = 2_000_000
    with LiveServer(env={"PLAYGROUND_SHARE_DB_MAX_BYTES": str(cap)}, front=front) as server:
        statuses: list[int] = []
        problems = []
        for i in range(60):
            status, content_type, body = post_share(
                server, {"yaml": share_text(i)}, f"127.0.2.{2 + i % 10}"
            )
            statuses.append(status)
            if not content_type.startswith("application/json") or status not in (201, 507):
                problems.append(f"answer {status} {content_type}: {body[:200]!r}")
                break
        if 507 not in statuses:
            problems.append(f"no size cap: {statuses.count(201)} links of 64 KiB stored")
        elif 201 in statuses[statuses.index(507) :]:
            problems.append(f"links stored after a 507: {statuses}")
        problems += [f"server stderr: {p}" for p in server_problems(server)]
        assert not problems, "\n".join(problems)


@behind_nginx
def test_half_open_requests_hold_no_threads_and_stall_nobody(
    server: LiveServer, player: Player
) -> None:
    baseline = server.threads()
    start = time.monotonic()
    with half_open_requests(server.port, 600):
        time.sleep(3)
        threads = server.threads()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=2)
        try:
            connection.request("GET", "/healthz")
            health = connection.getresponse().status
        except OSError as error:
            health = repr(error)
        finally:
            connection.close()
        end = time.monotonic()
    problems = problems_of(server, player, (start, end))
    if threads > baseline + EXTRA_THREADS_BOUND:
        problems.append(f"600 half-open requests: {baseline} -> {threads} server threads")
    if health != 200:
        problems.append(f"GET /healthz during the attack: {health}")
    assert not problems, "\n".join(problems)


def healthz(server: LiveServer, source: str = "127.0.0.1") -> int | str:
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=5, source_address=(source, 0)
    )
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    except OSError as error:
        return repr(error)
    finally:
        connection.close()


@behind_nginx
def test_slowloris_holds_no_threads_and_is_closed_by_nginx(
    server: LiveServer, player: Player
) -> None:
    """300 connections from 300 addresses that send a request head one byte every half
    second (each byte well within any read timeout, the head never complete): nginx holds
    them, the playground never sees them, and nginx closes each at its header timeout
    (client_header_timeout, deploy/nginx.conf)."""
    baseline = server.threads()
    sockets = []
    head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 4000
    for i in range(300):
        sock = loopback_socket(server.port, f"127.0.{3 + i // 250}.{2 + i % 250}")
        sock.setblocking(False)
        sockets.append(sock)
    start = time.monotonic()
    open_ = set(range(len(sockets)))
    sent = 0
    threads = baseline
    health: int | str = 200
    # Trickle until nginx has closed every one of them (a generous bound stops a hung run).
    while open_ and sent < len(head) and time.monotonic() < start + 60:
        for i in list(open_):
            try:
                sockets[i].send(head[sent : sent + 1])
                if sockets[i].recv(1024, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    open_.discard(i)
            except BlockingIOError:
                pass
            except OSError:
                open_.discard(i)
        sent += 1
        if sent == 6:  # all of them are trickling: measure during the attack
            threads = server.threads()
            health = healthz(server)
        time.sleep(0.5)
    end = time.monotonic()
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.close()
    problems = problems_of(server, player, (start, end))
    if open_:
        problems.append(f"{len(open_)} of 300 slowloris connections still open after {sent} bytes")
    if threads > baseline + EXTRA_THREADS_BOUND:
        problems.append(f"300 slowloris connections: {baseline} -> {threads} server threads")
    if health != 200:
        problems.append(f"GET /healthz during the attack: {health}")
    assert not problems, "\n".join(problems)


@behind_nginx
def test_a_connection_flood_stalls_nobody_and_websockets_per_address_are_bounded(
    server: LiveServer, player: Player
) -> None:
    """1500 TCP connections that send nothing, from 6 addresses, and 130 WebSockets from
    one more: nginx holds the idle ones without the playground's threads, one address gets
    at most its SERVER_MAX_CONNECTIONS_PER_CLIENT (100) WebSockets and a JSON refusal past
    them, and a newcomer is served throughout."""
    baseline = server.threads()
    idle = []
    start = time.monotonic()
    for i in range(1500):
        with contextlib.suppress(OSError):
            idle.append(loopback_socket(server.port, f"127.0.5.{2 + i % 6}"))
    tabs: list[RawClient] = []
    refusals: list[str] = []
    for _ in range(130):
        try:
            tabs.append(RawClient(server, source="127.0.6.2"))
        except websocket.WebSocketBadStatusException as error:
            body = (error.resp_body or b"").decode(errors="replace")
            refusals.append(f"{error.status_code} {body}")
    threads = server.threads()
    health = healthz(server, source="127.0.7.2")
    newcomer = RawClient(server, source="127.0.7.3")
    newcomer.emit("join", {})
    joined = wait_until(lambda: b'"snapshot"' in newcomer.seen, 10)
    end = time.monotonic()
    problems = problems_of(server, player, (start, end), [*tabs, newcomer])
    if len(tabs) > 100:
        problems.append(f"one address holds {len(tabs)} WebSockets (bound 100)")
    bad = [r for r in refusals if not (r.startswith(("503", "429")) and '"code"' in r)]
    if bad or len(tabs) + len(refusals) != 130:
        problems.append(f"refusals that are not JSON 503/429: {bad[:3]}")
    # A WebSocket holds four threads (gunicorn's for its request, simple-websocket's reader,
    # engine.io's writer and its ping task); the idle connections none.
    if threads > baseline + 4 * len(tabs) + EXTRA_THREADS_BOUND:
        problems.append(
            f"{len(tabs)} WebSockets and 1500 idle connections: {baseline} -> {threads} threads"
        )
    if health != 200:
        problems.append(f"GET /healthz during the flood: {health}")
    if not joined:
        problems.append(f"a newcomer could not start a session: {newcomer.seen[:200]!r}")
    for client in [*tabs, newcomer]:
        client.close()
    for sock in idle:
        with contextlib.suppress(OSError):
            sock.close()
    assert not problems, "\n".join(problems)


def test_malformed_packets_leave_no_traceback(server: LiveServer) -> None:
    client = RawClient(server, source="127.0.0.2")
    client.emit("join", {})
    for packet in RAW_PACKETS:
        if not client.send("4" + packet):
            client.close()
            client = RawClient(server, source="127.0.0.2")
    time.sleep(1.0)
    client.close()
    problems = problems_of(server, None, None, [client])
    assert not problems, "\n".join(problems)


def test_a_message_over_the_size_cap_gets_an_error_event(server: LiveServer) -> None:
    client = RawClient(server, source="127.0.0.2")
    client.emit("join", {})
    wait_until(lambda: b'"snapshot"' in client.seen, 5)
    client.seen = b""
    client.emit("apply", {"yaml": "x" * 600_000})  # over SOCKETIO_MAX_MESSAGE_BYTES
    wait_until(lambda: b'"error"' in client.seen or client.closed, 5)
    seen = client.seen
    client.close()
    assert b'"error"' in seen, f"no error event before the connection closed: {seen[:200]!r}"


def post_class(server: LiveServer, yaml: str, source: str) -> dict[str, Any]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=30, source_address=(source, 0)
    )
    try:
        connection.request(
            "POST",
            "/api/classes",
            body=json.dumps({"yaml": yaml}).encode(),
            headers={"Content-Type": "application/json"},
        )
        response = connection.getresponse()
        body = response.read()
        assert response.status == 201, body[:200]
        made: dict[str, Any] = json.loads(body)
        return made
    finally:
        connection.close()


def test_teachers_asking_and_forking_far_into_crash_loops_stall_no_other_player(
    server: LiveServer, player: Player
) -> None:
    """Anyone can create a class and teach it: three teachers of crash-looping runs seek to
    6600 s and ask "what will STATUS be in 600 seconds?" (7200 s) four times a second, a
    student of each forks the run every second and a hand-out at 7200 s goes out. Each used to be a
    replay from 0 to 7200 s in one request (seconds of CPU); now a look ahead from a
    checkpoint of the live run within a bound, charged to the teacher, and sliced seeks.
    One more teacher, reading its answers, still gets its question answered."""
    # What one teacher's seek to 6600 s costs the server on this machine, alone (a slower
    # machine spends more CPU on the same work): the setup's bound is four of them, nearly
    # twice over, and never less than SETUP_CPU_SECONDS.
    lone_seen: list[float] = []
    lone = socketio.Client(reconnection=False)
    lone.on("tick", lambda tick: lone_seen.append(tick.get("now", -1.0)))
    lone.connect(server.url, transports=["websocket"], wait_timeout=10)
    alone = post_class(server, CRASH_LOOP_POD, "127.0.0.8")
    lone.emit("class:teach", {"code": alone["code"], "key": alone["teacherKey"]})
    cpu_alone = server.cpu_seconds()
    lone.emit("clock", {"op": "seek", "value": 6600})
    assert wait_until(lambda: 6600 in lone_seen, SETUP_WALL_LIMIT, step=0.25)
    one_seek = server.cpu_seconds() - cpu_alone
    lone.disconnect()
    setup_cpu_bound = max(SETUP_CPU_SECONDS, 4 * 1.8 * one_seek)
    print(f"\none teacher's seek to 6600 s alone: server CPU {one_seek:.1f} s; "
          f"setup bound {setup_cpu_bound:.1f} s")  # fmt: skip
    teachers, students = [], []
    for i in range(3):
        source = f"127.0.0.{2 + i}"
        made = post_class(server, CRASH_LOOP_POD, source)
        teacher = RawClient(server, source=source)
        teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
        teacher.emit("clock", {"op": "seek", "value": 6600})
        student = RawClient(server, source=source)
        student.emit("class:join", {"code": made["code"], "name": f"s{i}"})
        teachers.append(teacher)
        students.append(student)
    seen: list[tuple[str, float]] = []
    reader = socketio.Client(reconnection=False)
    for event in ("class:question", "error"):
        reader.on(event, lambda _, event=event: seen.append((event, time.monotonic())))
    reader.connect(server.url, transports=["websocket"], wait_timeout=10)
    mine = post_class(server, CRASH_LOOP_POD, "127.0.0.9")
    reader.emit("class:teach", {"code": mine["code"], "key": mine["teacherKey"]})
    reader.on("tick", lambda tick: seen.append(("at", tick.get("now", -1.0))))
    cpu_before, seek_started = server.cpu_seconds(), time.monotonic()
    reader.emit("clock", {"op": "seek", "value": 6600})
    # Its own seek (4 s of CPU, in slices at its CPU share) is over before the attack. The
    # four teachers' seeks share the server's budget (one core), and on a loaded machine
    # the server gets less than that: the wait is bounded in the work the server did (the
    # four seeks, nearly twice over), not in wall time (SETUP_WALL_LIMIT only stops a hung
    # test).
    wait_until(
        lambda: ("at", 6600) in seen or server.cpu_seconds() - cpu_before >= setup_cpu_bound,
        SETUP_WALL_LIMIT,
        step=0.25,
    )
    setup_cpu, setup_wall = server.cpu_seconds() - cpu_before, time.monotonic() - seek_started
    print(
        f"\nthe reading teacher's seek to 6600 s beside three others: {setup_wall:.1f} s, "
        f"server CPU {setup_cpu:.1f} s = {setup_cpu / setup_wall:.2f} cores"
    )
    assert ("at", 6600) in seen, (
        f"the reading teacher's seek to 6600 s was not done after {setup_cpu:.1f} s of server "
        f"CPU ({setup_wall:.0f} s)"
    )
    start = time.monotonic()
    rounds, asked = 0, 0.0
    while time.monotonic() < start + 12:
        for teacher, student in zip(teachers, students, strict=True):
            teacher.emit("class:ask", {"question": {"kind": "status", "seconds": 600}})
            if rounds % 4 == 0:  # a fork a second (each sends a snapshot of a long run)
                student.emit("class:fork", {})
            if rounds == 4:
                teacher.emit("class:handout", {"yaml": CRASH_LOOP_POD, "at": 7200})
        if rounds == 24:  # in the thick of it, its own seek long done
            asked = time.monotonic()
            reader.emit("class:ask", {"question": {"kind": "status", "seconds": 600}})
        rounds += 1
        time.sleep(0.25)
    end = time.monotonic()
    attackers = teachers + students
    problems = problems_of(server, player, (start, end), attackers)
    if not wait_until(lambda: any(e == "class:question" for e, _ in seen), 5):
        problems.append(f"the reading teacher's question was not answered: {seen[:3]}")
    elif (waited := next(at for e, at in seen if e == "class:question") - asked) >= ANSWER_BOUND:
        # A replay from 0 to 7200 s of a crash-looping run: over 4 s of CPU alone.
        problems.append(f"the reading teacher's question was answered after {waited:.2f} s")
    reader.disconnect()
    for attacker in attackers:
        attacker.close()
    assert not problems, "\n".join(problems)
