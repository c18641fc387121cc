from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect


def test_page_connects_over_websocket(page: Page, artifacts: Path) -> None:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto("/")
    expect(page.locator("body")).to_have_attribute("data-connected", "true")
    expect(page.locator("body")).to_have_attribute("data-transport", "websocket")
    page.screenshot(path=str(artifacts / "connect.png"))
    assert errors == []
