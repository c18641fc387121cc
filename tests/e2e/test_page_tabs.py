"""Tabs in Chromium: a duplicated tab (the browser copies sessionStorage into it) gets its
own session with the same scenario; a reload keeps the tab's session (issue 11, defect 16)."""

from __future__ import annotations

import json

from playwright.sync_api import BrowserContext, Page, expect

from tests.e2e.pagekit import ANY, open_scenario, play, set_editor_text, wait_until_now


def duplicate(context: BrowserContext, original: Page) -> Page:
    """A new tab that starts with a copy of `original`'s sessionStorage, as Chrome's
    "Duplicate tab" does, at the same URL."""
    items = original.evaluate("() => JSON.stringify(Object.entries(sessionStorage))")
    copy = context.new_page()
    copy.add_init_script(
        f"""if (!sessionStorage.getItem('test.duplicated')) {{
              for (const [k, v] of {items}) sessionStorage.setItem(k, v);
              sessionStorage.setItem('test.duplicated', '1');
            }}"""
    )
    copy.goto(original.url)
    expect(copy.locator("body")).to_have_attribute("data-session", ANY)
    return copy


def test_a_duplicated_tab_gets_its_own_session_with_the_same_scenario(
    page: Page, context: BrowserContext
) -> None:
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 3)
    original = page.get_attribute("body", "data-session")
    stored = json.loads(page.evaluate("() => JSON.stringify(Object.keys(sessionStorage))"))
    assert "pod-playground.tab" in stored and "pod-playground.session" in stored
    copy = duplicate(context, page)
    expect(copy.locator("body")).to_have_attribute("data-duplicate", "true")
    second = copy.get_attribute("body", "data-session")
    assert second and second != original
    expect(copy.locator("#lesson-title")).to_contain_text("CrashLoopBackOff")
    expect(copy.locator("body")).to_have_attribute("data-now", "0")
    # Driving the copy leaves the original's run alone, and the original keeps its session.
    copy.click("#step")
    copy.click("#reset")
    expect(page.locator("body")).to_have_attribute("data-playing", "true")
    assert page.get_attribute("body", "data-session") == original
    assert copy.evaluate("() => sessionStorage.getItem('pod-playground.tab')") != page.evaluate(
        "() => sessionStorage.getItem('pod-playground.tab')"
    )
    # The copy's own reload keeps the copy's session.
    copy.reload()
    expect(copy.locator("body")).to_have_attribute("data-session", second or "")
    copy.close()


def test_a_custom_scenario_is_duplicated_too(page: Page, context: BrowserContext) -> None:
    open_scenario(page, "plain-pod")
    custom = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: custom-one\nspec:\n  containers:\n"
        "  - name: app\n    image: nginx:1.27\n"
    )
    set_editor_text(page, custom)
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    expect(page.locator("#editor-summary")).to_contain_text("No errors")
    copy = duplicate(context, page)
    assert copy.get_attribute("body", "data-session") != page.get_attribute("body", "data-session")
    copy.click("#step")
    expect(copy.locator("#kubectl-watch")).to_contain_text("custom-one")
    copy.close()


def test_following_a_scenario_link_in_the_same_tab_opens_that_scenario(page: Page) -> None:
    open_scenario(page, "plain-pod")
    first = page.get_attribute("body", "data-session")
    page.goto("/?scenario=crash-loop-backoff")
    expect(page.locator("#lesson-title")).to_contain_text("CrashLoopBackOff")
    second = page.get_attribute("body", "data-session")
    assert second and second != first
    # A reload of that address resumes the session it now has.
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-session", second)
