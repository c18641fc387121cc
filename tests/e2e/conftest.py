"""Playwright against a live server: a real Chromium, a real Socket.IO connection.

The browser is the one `scripts/test` found (`$CHROMIUM`), else /usr/bin/chromium, else
Playwright's own. With none, every browser test FAILS with a message: never a silent skip.
Screenshots land in test-artifacts/ so a person can look at them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

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
