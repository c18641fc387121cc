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

# 206,445 B measured after issues 20, 21, 26 and 27 landed; 106,4xx B once the editor loads
# CodeMirror (about 104 KB compressed) on its first use instead of with the page (issue 23).
FIRST_VISIT_MAX_BYTES = 150 * 1024
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
    # The editor, a plain text area until first used, and its shadow style sheet are in.
    expect(page.locator("#yaml-editor")).to_be_visible()
    page.wait_for_load_state("networkidle")


def _first_visit(browser: Browser, base_url: str) -> tuple[Any, Page, Wire, list[str]]:
    """A new browser context's first visit, its bytes watched and its console errors kept."""
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    wire = Wire(page)
    _load(page, base_url)
    return context, page, wire, errors


def test_first_and_repeat_visit_bytes_and_headers(browser: Browser, base_url: str) -> None:
    context, page, wire, errors = _first_visit(browser, base_url)
    first = wire.page_bytes()
    first_total = wire.total()
    print(f"first visit: {first_total} B over {len(first)} requests")
    assets = {url: h for url, h in wire.headers.items() if "/assets/" in url}
    # Every file the page needs came from /assets/ under a hashed name.
    assert not [url for url in first if "/static/" in url], first
    names = {re.sub(r"^.*/assets/", "", url) for url in assets}
    for name in ("js/main", "js/state", "css/bundle"):
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
    # CodeMirror (the largest module) is not part of a visit that only watches.
    assert not [n for n in names if "codemirror" in n or "editor-view" in n], names

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


def test_the_editor_loads_codemirror_on_first_use_and_keeps_what_was_typed(
    browser: Browser, base_url: str
) -> None:
    """Until first used the editor is a plain text area with the scenario's text; a press
    loads CodeMirror in its place with the text and the keys typed meanwhile (issue 23)."""
    context, page, wire, errors = _first_visit(browser, base_url)
    plain = page.locator("#yaml-editor textarea.cm-plain")
    expect(plain).to_have_value(re.compile(r"kind: Pod"))
    assert not [u for u in wire.page_bytes() if "codemirror" in u]
    plain.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("# typed at once\n")
    content = page.locator("#yaml-editor .cm-content")
    expect(content).to_contain_text("# typed at once")  # the caret's line is in sight
    expect(page.locator("body")).to_have_attribute("data-editor", "codemirror")
    expect(plain).to_have_count(0)
    loaded = [u for u in wire.page_bytes() if "/assets/vendor/codemirror.bundle." in u]
    assert len(loaded) == 1, wire.page_bytes()
    # The caret and the focus moved into CodeMirror: typing goes on where it was.
    page.keyboard.insert_text("# and after")
    whole = "() => import('/static/js/editor.js').then((m) => m.text())"
    assert page.evaluate(whole).endswith("# typed at once\n# and after")
    expect(page.locator("#editor-summary")).to_contain_text("Edited, not applied")
    assert errors == []
    context.close()
