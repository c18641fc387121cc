"""deploy/nginx.conf's own refusals (issue 22 item 2): JSON `{code, message}` with the
playground's messages (webapp/i18n.py) in the visitor's language, answered by a real nginx
(Debian's, started on a free loopback port in a temporary folder, as tests/integration
does) before anything reaches the playground."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.stack import Nginx, free_port, need_binaries
from webapp import i18n

ROOT = Path(__file__).resolve().parents[2]
CONF = (ROOT / "deploy" / "nginx.conf").read_text()


def messages(variable: str) -> dict[str, dict[str, str]]:
    """The JSON bodies of map `$variable` by language."""
    block = re.search(r"map \$playground_lang \$" + variable + r" \{(.*?)\n\}", CONF, re.S)
    assert block, variable
    found = {}
    for lang, text in re.findall(r"^\s*(\w+) '(.*)';$", block.group(1), re.M):
        found[lang] = json.loads(text.replace("\\'", "'"))
    return found


def test_the_refusals_are_the_playgrounds_messages_in_both_languages() -> None:
    rate = re.search(r"zone=playground_requests:\w+ rate=(\d+)r/s;", CONF)
    assert rate
    expected = {
        "playground_busy_message": ("rate_limited", {"limit": int(rate.group(1))}),
        "playground_large_message": ("request_too_large", {}),
        "playground_head_message": ("request_head_too_large", {}),
    }
    for variable, (code, params) in expected.items():
        bodies = messages(variable)
        assert set(bodies) == {"en", "zh"}
        for lang, body in bodies.items():
            assert body == {"code": code, "message": i18n.message(code, lang, **params)}


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Nginx]:
    need_binaries()
    server = Nginx(tmp_path / "nginx", free_port())  # nothing listens upstream
    yield server
    server.stop()


def request(nginx: Nginx, method: str, path: str, **headers: str) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", nginx.port, timeout=10)
    try:
        connection.putrequest(method, path)
        for name, value in headers.items():
            connection.putheader(name.replace("_", "-"), value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        connection.close()


def test_a_body_over_the_cap_is_a_json_413(nginx: Nginx) -> None:
    status, content_type, body = request(
        nginx, "POST", "/api/share", Content_Length=str(3 << 20), Accept_Language="zh-CN"
    )
    assert (status, content_type) == (413, "application/json")
    assert json.loads(body) == {"code": "request_too_large", "message": "请求太大了。"}


def test_a_head_over_16_kib_is_a_json_431(nginx: Nginx) -> None:
    status, content_type, body = request(nginx, "GET", "/", X_Big="a" * 20000)
    assert (status, content_type) == (431, "application/json")
    assert json.loads(body)["code"] == "request_head_too_large"


def test_past_the_request_burst_an_address_gets_a_json_429(nginx: Nginx) -> None:
    statuses: dict[int, int] = {}
    refusal = b""
    connection = http.client.HTTPConnection("127.0.0.1", nginx.port, timeout=10)
    try:
        for _ in range(400):  # past the burst of 300, faster than 30 a second refill it
            connection.request("GET", "/api/scenarios", headers={"Accept-Language": "en"})
            response = connection.getresponse()
            data = response.read()
            statuses[response.status] = statuses.get(response.status, 0) + 1
            if response.status == 429:
                refusal = data
                assert response.getheader("Content-Type") == "application/json"
                assert response.getheader("Retry-After") == "5"
                break
    finally:
        connection.close()
    assert statuses.get(429), statuses
    assert json.loads(refusal) == {
        "code": "rate_limited",
        "message": i18n.message("rate_limited", "en", limit=30),
    }


def test_assets_are_not_counted_against_the_request_rate(nginx: Nginx) -> None:
    for _ in range(350):
        status, _, _ = request(nginx, "GET", "/assets/js/main.000000000000.js")
        assert status != 429  # 502: nothing upstream, but never refused
