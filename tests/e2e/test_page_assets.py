"""What a visit costs on the wire: hashed, immutable, compressed assets (webapp/assets.py).

Bytes are counted as Chromium counts them (DevTools `Network.loadingFinished`
`encodedDataLength`: headers and body as received, 0 for a cache hit), over the page's
HTTP requests (the WebSocket's frames are the session, not the page).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.web.live import Served

# 206,445 B measured after issues 20, 21, 26 and 27 landed (the cluster map, menus, the
# teacher's link and PIN, the diagram's step rules, both catalogues' new strings); issue 23
# takes it under 150 KB by loading one language's catalogue and the editor after paint.
FIRST_VISIT_MAX_BYTES = 210 * 1024
REPEAT_VISIT_MAX_BYTES = 20 * 1024


class Wire:
    """Bytes and responses of the page's HTTP requests, seen through DevTools."""

    def __init__(self, page: Page) -> None:
        self.session = page.context.new_cdp_session(page)
        self.session.send("Network.enable")
        self.urls: dict[str, str] = {}
        self.headers: dict[str, dict[str, str]] = {}
        self.bytes: dict[str, int] = {}
        self.connections: set[Any] = set()
        self.session.on("Network.requestWillBeSent", self._sent)
        self.session.on("Network.responseReceived", self._received)
        self.session.on("Network.loadingFinished", self._finished)

    def _sent(self, event: dict[str, Any]) -> None:
        self.urls[event["requestId"]] = event["request"]["url"]

    def _received(self, event: dict[str, Any]) -> None:
        response = event["response"]
        self.headers[response["url"]] = {k.lower(): v for k, v in response["headers"].items()}
        if not response.get("fromDiskCache") and not response.get("fromPrefetchCache"):
            self.connections.add(response.get("connectionId"))

    def _finished(self, event: dict[str, Any]) -> None:
        url = self.urls.get(event["requestId"], "?")
        self.bytes[url] = self.bytes.get(url, 0) + int(event["encodedDataLength"])

    def page_bytes(self) -> dict[str, int]:
        return {url: n for url, n in self.bytes.items() if "/socket.io/" not in url}

    def total(self) -> int:
        return sum(self.page_bytes().values())

    def reset(self) -> None:
        self.urls.clear()
        self.headers.clear()
        self.bytes.clear()


def _load(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    expect(page.locator("body")).to_have_attribute("data-connected", "true")
    # The editor (CodeMirror, the largest module) and its shadow style sheet are in.
    expect(page.locator("#yaml-editor")).to_be_visible()
    page.wait_for_load_state("networkidle")


def test_first_and_repeat_visit_bytes_and_headers(browser: Browser, base_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    wire = Wire(page)
    _load(page, base_url)
    first = wire.page_bytes()
    first_total = wire.total()
    print(f"first visit: {first_total} B over {len(first)} requests")
    assets = {url: h for url, h in wire.headers.items() if "/assets/" in url}
    # Every file the page needs came from /assets/ under a hashed name.
    assert not [url for url in first if "/static/" in url], first
    names = {re.sub(r"^.*/assets/", "", url) for url in assets}
    for name in ("js/main", "js/state", "vendor/codemirror.bundle", "css/bundle"):
        assert any(re.fullmatch(rf"{name}\.[0-9a-f]{{12}}\.(js|css)", n) for n in names), name
    assert any(re.fullmatch(r"css/editor-shadow\.[0-9a-f]{12}\.css", n) for n in names)
    for url, headers in assets.items():
        assert headers["cache-control"] == "public, max-age=31536000, immutable", url
        assert headers["vary"] == "Accept-Encoding", url
        if not url.endswith(".svg"):
            assert headers.get("content-encoding") == "br", url
    html = wire.headers[base_url + "/"]
    assert html["cache-control"] == "no-cache"
    assert html["etag"].startswith('W/"')
    assert first_total < FIRST_VISIT_MAX_BYTES, first

    # Repeat visit: the HTML is revalidated (304), every asset comes from the cache.
    wire.reset()
    _load(page, base_url)
    repeat = wire.page_bytes()
    repeat_total = wire.total()
    print(f"repeat visit: {repeat_total} B over {len(repeat)} requests: {repeat}")
    assert wire.headers[base_url + "/"].get("etag") == html["etag"]
    assert all(n == 0 for url, n in repeat.items() if "/assets/" in url), repeat
    assert repeat_total < REPEAT_VISIT_MAX_BYTES, repeat
    assert errors == []
    context.close()


def test_our_server_keeps_the_page_requests_on_few_connections(
    browser: Browser, tmp_path: Path
) -> None:
    """Through the server `pod-playground` runs (gunicorn, webapp/serving.py), with its
    keep-alive."""
    served = Served(tmp_path)
    try:
        url = served.url
        context = browser.new_context()
        page = context.new_page()
        wire = Wire(page)
        _load(page, url)
        requests = wire.page_bytes()
        print(f"{len(requests)} requests over {len(wire.connections)} TCP connections")
        assert len(requests) >= 20
        # Chromium opens at most 6 connections to one host; without keep-alive, one each.
        assert 1 <= len(wire.connections) <= 6, wire.connections
        assert wire.headers[url + "/"].get("connection") == "keep-alive"
        context.close()
    finally:
        served.stop()
