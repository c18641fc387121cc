"""User-written strings are text, never markup (issue 4: "rendered as text, never as markup").

A scenario whose title, description, lesson, Pod annotation and container command carry
HTML is applied through the editor; the strings must show literally, create no elements,
run no handler, and trip no Content-Security-Policy violation.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import collect_errors, open_scenario, play, set_editor_text

IMG = "<img src=x onerror=\"document.body.dataset.pwned='1'\">"
BOLD = "<b>bold</b>"


def q(text: str) -> str:
    """A YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


MARKED_UP = f"""\
apiVersion: playground/v1
kind: Simulation
metadata:
  name: markup-check
title:
  en: {q(f"Title {IMG} {BOLD}")}
  zh: {q(f"Title {IMG} {BOLD}")}
description:
  en: {q(f"Description {BOLD} {IMG}")}
  zh: {q(f"Description {BOLD} {IMG}")}
lesson:
- at: 0
  text:
    en: {q(f"Lesson {IMG} and {BOLD}")}
    zh: {q(f"Lesson {IMG} and {BOLD}")}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
  annotations:
    note: {q(f"{IMG} {BOLD}")}
spec:
  containers:
  - name: app
    image: nginx:1.27
    command: ["sh", "-c", "echo '{BOLD}'", {q(IMG)}]
"""


def test_markup_in_user_strings_is_shown_as_text(page: Page, artifacts: Path) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    set_editor_text(page, MARKED_UP)
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    expect(page.locator("#lesson-title")).to_have_text(f"Title {IMG} {BOLD}")
    expect(page.locator(".lesson-description")).to_have_text(f"Description {BOLD} {IMG}")
    expect(page.locator("#lesson-steps")).to_contain_text(f"Lesson {IMG} and {BOLD}")

    play(page, "10")
    expect(page.locator("body")).to_have_attribute("data-phase", "Running", timeout=20_000)

    page.click("#tab-describe")
    describe = page.locator("#kubectl-describe")
    expect(describe).to_contain_text(IMG)
    expect(describe).to_contain_text(BOLD)
    page.click("#tab-yaml")
    yaml_view = page.locator("#kubectl-yaml")
    expect(yaml_view).to_contain_text("pwned")
    expect(yaml_view).to_contain_text(BOLD)
    page.screenshot(path=str(artifacts / "page-safety.png"))

    # Nothing became an element: no image, no bold anywhere outside the editor's own DOM
    # (CodeMirror lives in a shadow root and holds the text as text too).
    assert page.locator("img:not(.topbar-logo)").count() == 0
    assert page.locator("b").count() == 0
    assert page.evaluate("() => document.body.dataset.pwned ?? null") is None
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
