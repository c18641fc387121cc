"""Playwright against a live server: a real Chromium, a real Socket.IO connection.

The browser is the one `scripts/test` found (`$CHROMIUM`), else /usr/bin/chromium, else
Playwright's own. With none, every browser test FAILS with a message: never a silent skip.
Screenshots land in test-artifacts/ so a person can look at them.

Every page of every context a test opens is watched: a console error, an uncaught exception
or a Content-Security-Policy violation fails the test (issue 27). A test that provokes one
on purpose says which with `@pytest.mark.console_errors_allowed(r"regex", ...)`.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def find_chromium() -> str | None:
    candidates = [os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    executable = find_chromium()
    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-sync",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
    ]
    if executable is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            bundled = p.chromium.executable_path
        if not os.path.exists(bundled):
            pytest.fail(
                "No Chromium for the browser tests: set CHROMIUM, install Debian's "
                "`chromium`, or run scripts/test (it installs one when run as root)."
            )
        return {**browser_type_launch_args, "args": args}
    return {**browser_type_launch_args, "executable_path": executable, "args": args}


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    return live_server


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# What the watched pages reported during the current test.
_REPORTED: list[str] = []

# Lets a page report CSP violations that Chromium does not log to the console (a violation
# inside a shadow root or in report-only mode still fires this event on the document).
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI || ""} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample || ""}`);
}, true);
"""


def _watch_page(page: Page) -> None:
    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            where = message.location or {}
            _REPORTED.append(
                f"console error on {page.url}: {message.text} ({where.get('url', '')}:{where.get('lineNumber', '')})"
            )

    page.on("console", on_console)
    page.on("pageerror", lambda error: _REPORTED.append(f"uncaught on {page.url}: {error}"))


def _watch_context(context: BrowserContext) -> None:
    context.add_init_script(_CSP_LISTENER)
    context.on("page", _watch_page)
    for page in context.pages:
        _watch_page(page)


@pytest.fixture(scope="session", autouse=True)
def _watch_every_context() -> Iterator[None]:
    """Wraps Browser.new_context (what pytest-playwright's `context` and the tests' own
    contexts use) so that every page is watched from its first line."""
    original = Browser.new_context

    def new_context(self: Browser, *args: Any, **kwargs: Any) -> BrowserContext:
        context = original(self, *args, **kwargs)
        _watch_context(context)
        return context

    Browser.new_context = new_context  # type: ignore[method-assign]
    yield
    Browser.new_context = original  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _no_console_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    _REPORTED.clear()
    yield
    allowed = [
        re.compile(pattern)
        for marker in request.node.iter_markers("console_errors_allowed")
        for pattern in marker.args
    ]
    unexpected = [r for r in _REPORTED if not any(p.search(r) for p in allowed)]
    _REPORTED.clear()
    if unexpected:
        pytest.fail("the page reported errors:\n" + "\n".join(unexpected), pytrace=False)
