"""Faults as a host and an attacker see them (issue 26, F6 F7 F10), against a real server
process (tests/dos/harness.py): numbers too large for a float, a full or read-only disk,
and a forged X-Forwarded-For.

F6: every number a client sends is checked at the door (webapp/sessions/payloads.py
`finite`, `loads`): an integer of 309 to 4,300 digits (math.isfinite raised OverflowError
on it) and one of more (Python will not convert it) is `invalid_payload` naming its field
on the socket and a located 400 on HTTP, never internal_error or a traceback.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dos.harness import ROOT, LiveServer, RawClient, server_problems, wait_until
from tests.samples import POD

pytestmark = pytest.mark.dos

# 308 digits still fit a float (under 1.8e308); 309 nines do not; 4301 is over Python's
# int-string conversion limit.
DIGITS = (309, 400, 4300, 4301, 10_000)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    server = LiveServer()
    yield server
    server.stop()


def request(
    server: LiveServer, method: str, path: str, body: bytes | None = None, headers=None
) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_integers_too_large_for_a_float_are_refused_by_name(server: LiveServer) -> None:
    client = RawClient(server, source="127.0.0.2")
    client.emit("join", {"scenario": "plain-pod"})
    assert wait_until(lambda: b'"snapshot"' in client.seen, 10), client.seen[:200]
    problems = []
    for digits in DIGITS:
        number = "9" * digits
        for op in ("seek", "speed"):
            client.seen = b""
            # json.dumps cannot write more than 4300 digits: the packet is written by hand.
            client.send(f'42["clock",{{"op":"{op}","value":{number}}}]')
            if not wait_until(lambda: b'"error"' in client.seen, 10):
                problems.append(f"clock {op} of {digits} digits: no answer")
                continue
            seen = client.seen.decode(errors="replace")
            if "invalid_payload" not in seen or '\\"value\\"' not in seen:
                problems.append(f"clock {op} of {digits} digits answered {seen[:300]}")
        body = f'{{"yaml":{json.dumps(POD)},"at":{number}}}'.encode()
        status, answer = request(
            server, "POST", "/api/share", body, {"Content-Type": "application/json"}
        )
        errors = json.loads(answer).get("errors") if answer.startswith(b"{") else None
        if status != 400 or not errors or errors[0].get("path") != "at":
            problems.append(f"share at of {digits} digits: {status} {answer[:300]!r}")
        if errors and errors[0].get("code") != "number_too_large":
            problems.append(f"share at of {digits} digits: {errors}")
    client.close()
    if client.internal_errors:
        problems.append(f"{client.internal_errors} internal_error answer(s)")
    problems += [f"server stderr: {p}" for p in server_problems(server)]
    assert not problems, "\n".join(problems)
    print(f"\nF6: {len(DIGITS) * 3} huge numbers, each a located refusal, no traceback")


# -- F10: X-Forwarded-For is believed only from the proxies TRUSTED_PROXIES names ---------


def start_refused(env: dict[str, str], directory: Path) -> tuple[int, str]:
    """`python -m webapp` that must not start: its exit code and stderr."""
    process = subprocess.run(
        [sys.executable, "-m", "webapp", "--port", "0"],
        cwd=ROOT,
        env={
            **os.environ,
            "PLAYGROUND_DB": str(directory / "links.sqlite3"),
            "PYTHONUNBUFFERED": "1",
            **env,
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return process.returncode, process.stderr


def get(server: LiveServer, path: str, source: str, forwarded: str | None) -> int:
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=30, source_address=(source, 0)
    )
    try:
        connection.request("GET", path, headers={"X-Forwarded-For": forwarded} if forwarded else {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_a_forged_forwarded_for_from_outside_the_proxy_is_not_believed() -> None:
    # The proxy is 127.0.0.5; 127.0.0.2 reaches the port directly. (Every peer here is
    # loopback, which /metrics admits anyway: a forged header from outside is
    # tests/web/test_operations.py's.)
    env = {"PLAYGROUND_TRUSTED_PROXIES": "127.0.0.5", "PLAYGROUND_SHARE_POSTS_PER_MINUTE": "3"}
    with LiveServer(env=env) as server:
        problems = []
        outside = get(server, "/metrics", "127.0.0.5", "203.0.113.9")
        if outside != 403:
            problems.append(f"/metrics for 203.0.113.9 through the proxy: {outside}")
        local = get(server, "/metrics", "127.0.0.5", "127.0.0.1")
        if local != 200:
            problems.append(f"/metrics for a loopback visitor through the proxy: {local}")
        # The per-address share limit (3 a minute) holds for a client that forges a new
        # X-Forwarded-For on every post.
        statuses = []
        for i in range(6):
            connection = http.client.HTTPConnection(
                "127.0.0.1", server.port, timeout=30, source_address=("127.0.0.2", 0)
            )
            connection.request(
                "POST",
                "/api/share",
                body=b'{"yaml": 5}',
                headers={"Content-Type": "application/json", "X-Forwarded-For": f"10.9.0.{i}"},
            )
            statuses.append(connection.getresponse().status)
            connection.close()
        if 429 not in statuses:
            problems.append(f"6 share posts with forged addresses, limit 3: {statuses}")
        problems += [f"server stderr: {p}" for p in server_problems(server)]
        assert not problems, "\n".join(problems)
        print(f"\nF10: share posts from one address forging a new one each time: {statuses}")


def test_a_count_of_trusted_proxies_is_refused_at_start_saying_what_to_write(
    tmp_path: Path,
) -> None:
    code, stderr = start_refused({"PLAYGROUND_TRUSTED_PROXIES": "1"}, tmp_path)
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "TRUSTED_PROXIES=127.0.0.1" in lines[0], stderr
    print(f"\nF10: {lines[0]}")


# -- F7: a full or read-only disk under the database ----------------------------------


@contextlib.contextmanager
def small_disk(megabytes: int) -> Iterator[Path]:
    """A real file system of `megabytes` (tmpfs), mounted for the test; skipped where this
    process may not mount (not root, no CAP_SYS_ADMIN)."""
    folder = Path(tempfile.mkdtemp(prefix="faults-disk-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        with contextlib.suppress(OSError):
            folder.rmdir()


def fill(folder: Path) -> Path:
    """Write a file until the file system is full."""
    filler = folder / "filler"
    with open(filler, "wb") as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\0" * 65536)
            handle.flush()
    return filler


def readyz(server: LiveServer) -> tuple[int, dict]:
    status, body = request(server, "GET", "/readyz")
    return status, json.loads(body)


def post_json(server: LiveServer, path: str, body: object) -> tuple[int, dict]:
    status, answer = request(
        server, "POST", path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    return status, json.loads(answer) if answer.startswith(b"{") else {"raw": answer[:200]}


def test_a_full_disk_is_507_and_not_ready_and_new_visitors_still_play() -> None:
    with small_disk(4) as disk:
        env = {"PLAYGROUND_DB": str(disk / "playground.sqlite3")}
        with LiveServer(env=env) as server:
            problems = []
            status, ready = readyz(server)
            if status != 200:
                problems.append(f"/readyz before the disk filled: {status} {ready}")
            filler = fill(disk)
            share_status, share = post_json(server, "/api/share", {"yaml": POD + "# full\n"})
            if share_status != 507 or share.get("code") != "storage_unavailable":
                problems.append(f"POST /api/share on a full disk: {share_status} {share}")
            class_status, made = post_json(server, "/api/classes", {"scenario": "plain-pod"})
            if class_status != 507 or made.get("code") != "storage_unavailable":
                problems.append(f"POST /api/classes on a full disk: {class_status} {made}")
            # A new visitor still gets a session (served from memory, its record written
            # once the disk has room again).
            visitor = RawClient(server, source="127.0.0.3")
            visitor.emit("join", {"scenario": "plain-pod"})
            if not wait_until(lambda: b'"snapshot"' in visitor.seen, 10):
                problems.append(f"a new visitor on a full disk got {visitor.seen[:300]!r}")
            visitor.emit("clock", {"op": "play"})
            if not wait_until(lambda: readyz(server)[0] == 503, 10):
                problems.append(f"/readyz on a full disk: {readyz(server)}")
            page_status, page = request(server, "GET", "/")
            if page_status != 200 or b'id="storage-notice"' not in page:
                problems.append(
                    f"the page on a full disk tells new visitors nothing ({page_status})"
                )
            _, full = readyz(server)
            cause = full.get("checks", {}).get("database", "")
            if "No space left on device" not in cause and "full" not in cause:
                problems.append(f"/readyz names no cause: {full}")
            filler.unlink()
            if not wait_until(lambda: readyz(server)[0] == 200, 30, step=0.5):
                problems.append(f"/readyz after the disk had room again: {readyz(server)}")
            if b'id="storage-notice"' in request(server, "GET", "/")[1]:
                problems.append("the page still shows the storage notice once there is room")
            visitor.close()
            if visitor.internal_errors:
                problems.append(f"{visitor.internal_errors} internal_error answer(s)")
            problems += [f"server stderr: {p}" for p in server_problems(server)]
            assert not problems, "\n".join(problems)
            print(f"\nF7: full disk: share {share_status}, class {class_status}; /readyz: {cause}")


def test_a_read_only_database_folder_is_one_line_at_start() -> None:
    with small_disk(1) as disk:
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        code, stderr = start_refused({}, disk)
        assert code == 2, (code, stderr)
        assert "Traceback" not in stderr, stderr
        lines = stderr.strip().splitlines()
        assert len(lines) == 1, stderr
        assert str(disk / "links.sqlite3") in lines[0], stderr
        assert "Read-only file system" in lines[0], stderr
        print(f"\nF7: {lines[0]}")
