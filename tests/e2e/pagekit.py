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


EDITOR_LOADED = "#yaml-editor .cm-content"
# CodeMirror's first load: a 368 KB module that a checkout compresses (brotli 11, about 0.8 s
# of CPU) on its first request; on a loaded CI machine that is more than expect's 5 s.
EDITOR_LOADS_MS = 30_000


def open_editor(page: Page) -> None:
    """Click into the YAML editor as a learner does: until first used it is a plain text area
    (static/js/editor.js), and the click loads CodeMirror in its place, focused."""
    page.locator("#yaml-editor textarea.cm-plain, #yaml-editor .cm-content").first.click()
    expect(page.locator(EDITOR_LOADED)).to_be_visible(timeout=EDITOR_LOADS_MS)
    page.locator(EDITOR_LOADED).click()


def load_editor(page: Page) -> None:
    """CodeMirror in the editor's place without moving the focus (what an error to underline
    or a line to go to does), for tests that measure or click its lines."""
    page.evaluate("() => import('/static/js/editor.js').then((m) => m.upgrade()).then(() => true)")
    expect(page.locator(EDITOR_LOADED)).to_be_visible(timeout=EDITOR_LOADS_MS)


def editor_value(page: Page) -> str:
    """The editor's text, loaded or not."""
    return page.evaluate("""() => {
      const root = document.querySelector('#yaml-editor').shadowRoot;
      const content = root.querySelector('.cm-content');
      return content ? content.innerText : root.querySelector('textarea.cm-plain').value;
    }""")


def set_editor_text(page: Page, text: str) -> None:
    """Replace the YAML editor's text as a paste would (no auto-indent)."""
    open_editor(page)
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)
