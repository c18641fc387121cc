"""Faults as a host and an attacker see them (issue 26, F6 F7 F10), against a real server
process (tests/dos/harness.py): numbers too large for a float, a full or read-only disk,
and a forged X-Forwarded-For.

F6: every number a client sends is checked at the door (webapp/sessions/payloads.py
`finite`, `loads`): an integer of 309 to 4,300 digits (math.isfinite raised OverflowError
on it) and one of more (Python will not convert it) is `invalid_payload` naming its field
on the socket and a located 400 on HTTP, never internal_error or a traceback.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator

import pytest

from tests.dos.harness import LiveServer, RawClient, server_problems, wait_until
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
