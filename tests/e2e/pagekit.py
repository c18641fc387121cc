"""Small helpers for the page's browser tests (tests/e2e/test_page_*.py)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

ANY = re.compile(r".+")


def open_scenario(page: Page, name: str, *, questions: bool = False) -> None:
    """Open a built-in scenario and wait for its first snapshot. Its prediction questions
    (which pause the clock when a run plays into them) are turned off unless `questions`."""
    value = "on" if questions else "off"
    page.add_init_script(f"localStorage.setItem('pod-playground.quiz', '{value}')")
    page.goto(f"/?scenario={name}")
    expect(page.locator("body")).to_have_attribute("data-session", ANY)
    expect(page.locator("#lesson-title")).not_to_be_empty()


def play(page: Page, speed: str = "10") -> None:
    page.select_option("#speed", speed)
    expect(page.locator("#speed")).to_have_value(speed)
    if page.get_attribute("body", "data-playing") != "true":
        page.click("#play")
    expect(page.locator("body")).to_have_attribute("data-playing", "true")


def pause(page: Page) -> None:
    if page.get_attribute("body", "data-playing") == "true":
        page.click("#play")
    expect(page.locator("body")).to_have_attribute("data-playing", "false")


def now(page: Page) -> float:
    return float(page.get_attribute("body", "data-now") or 0)


def wait_until_now(page: Page, seconds: float, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "t => Number(document.body.dataset.now) >= t", arg=seconds, timeout=timeout
    )


def collect_errors(page: Page) -> list[str]:
    """Console errors and uncaught exceptions (a CSP violation is a console error)."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def set_editor_text(page: Page, text: str) -> None:
    """Replace the YAML editor's text as a paste would (no auto-indent)."""
    page.locator("#yaml-editor .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)
