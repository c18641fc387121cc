"""The page in Chromium against the real server and engine: play, break, delete, rewind."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import (
    collect_errors,
    now,
    open_scenario,
    pause,
    play,
    set_editor_text,
    wait_until_now,
)


def test_choose_a_scenario_play_it_and_watch_stage_and_status(page: Page) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    body = page.locator("body")
    first_session = body.get_attribute("data-session")
    page.select_option("#scenario-picker", "crash-loop-backoff")
    expect(page.locator("#lesson-title")).to_contain_text("CrashLoopBackOff")
    expect(body).not_to_have_attribute("data-session", first_session or "")
    play(page, "10")
    expect(body).to_have_attribute("data-stage", "4", timeout=15_000)
    expect(body).to_have_attribute("data-status", "CrashLoopBackOff", timeout=20_000)
    # The phase stays Running, and the page says so.
    expect(body).to_have_attribute("data-phase", "Running")
    expect(page.locator('[data-surprise="crashloop"]')).to_be_visible()
    expect(page.locator('#explanations [data-reason="CrashLoopBackOff"]')).to_be_visible()
    expect(page.locator('.stage.is-current[data-stage="4"]')).to_have_count(1)
    expect(page.locator(".loop-restart")).to_have_count(1)
    expect(page.locator(".loop-label")).to_contain_text(re.compile(r"back-off \d+s"))
    expect(page.locator(".lesson-step").first).to_be_visible()
    assert errors == []


def test_a_yaml_error_is_underlined_on_its_line_and_listed(page: Page) -> None:
    open_scenario(page, "plain-pod")
    broken = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
        "  - name: app\n    image: nginx:1.27\n    bogusField: 1\n"
    )
    set_editor_text(page, broken)
    page.click("#apply")
    underline = page.locator("#yaml-editor .cm-lintRange-error")
    expect(underline).to_have_count(1)
    line_text = page.evaluate(
        """() => document.querySelector('#yaml-editor').shadowRoot
             .querySelector('.cm-lintRange-error').closest('.cm-line').textContent"""
    )
    assert line_text == "    bogusField: 1"
    expect(page.locator("#error-list")).to_contain_text("line 9, column 5")
    expect(page.locator("#error-list")).to_contain_text("bogusField")
    expect(page.locator("#editor-summary")).to_contain_text("1 error")
    # Fixing it and applying again clears the diagnostics and restarts the run.
    set_editor_text(page, broken.replace("    bogusField: 1\n", ""))
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    expect(underline).to_have_count(0)
    expect(page.locator("#error-list li")).to_have_count(0)


def test_delete_counts_the_grace_period_down_then_sigkill(page: Page) -> None:
    open_scenario(page, "sigterm-ignored")
    body = page.locator("body")
    play(page, "5")
    expect(body).to_have_attribute("data-phase", "Running", timeout=15_000)
    page.fill("#grace", "10")
    page.click("#delete")
    expect(body).to_have_attribute("data-stage", "5")
    expect(body).to_have_attribute("data-status", "Terminating")
    countdown = page.locator('.stage[data-stage="5"] .stage-phase')
    expect(countdown).to_have_text(re.compile(r"^\d+s left$"))
    first = int(re.findall(r"\d+", countdown.text_content() or "")[0])
    assert 1 <= first <= 10
    expect(page.locator('.box[data-key="5:grace"] .box-status')).to_contain_text("left of 10s")
    page.wait_for_function(
        "n => { const m = document.querySelector('.stage[data-stage=\"5\"] .stage-phase')"
        ".textContent.match(/\\d+/); return !m || Number(m[0]) < n; }",
        arg=first,
    )
    sigkill = page.locator('.box[data-key="5:sigkill"]')
    expect(sigkill).to_have_class(re.compile(r"is-(done|current)"), timeout=15_000)
    expect(body).to_have_attribute("data-outcome", "removed", timeout=15_000)
    expect(body).to_have_attribute("data-status", "Gone")
    expect(page.locator(".outcome-text")).to_contain_text("removed from the API")
    expect(page.locator("#delete")).to_be_disabled()


def test_reload_mid_run_continues_the_same_session(page: Page) -> None:
    open_scenario(page, "plain-pod")
    play(page, "2")
    wait_until_now(page, 4)
    session = page.get_attribute("body", "data-session")
    before = now(page)
    page.reload()
    body = page.locator("body")
    expect(body).to_have_attribute("data-session", session or "")
    assert now(page) >= before
    wait_until_now(page, before + 2)
    expect(body).to_have_attribute("data-phase", "Running")
    expect(page.locator("#kubectl-watch")).to_contain_text("Running")


def test_clicking_the_timeline_seeks_back(page: Page) -> None:
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 45)
    pause(page)
    late = now(page)
    expect(page.locator(".loop-label")).to_contain_text(re.compile(r"restart #[23]"))
    # Where 10 s is on the axis (the tick spacing depends on the timeline's width).
    ticks = page.locator(".tl-tick-text")
    zero, second = ticks.nth(0).bounding_box(), ticks.nth(1).bounding_box()
    step = float((ticks.nth(1).text_content() or "").rstrip("s"))
    lane = page.locator(".tl-lane").first.bounding_box()
    assert zero is not None and second is not None and lane is not None
    x0 = zero["x"] + zero["width"] / 2
    x10 = x0 + (second["x"] + second["width"] / 2 - x0) * 10 / step
    page.mouse.click(x10, lane["y"] + lane["height"] / 2)
    page.wait_for_function("late => Number(document.body.dataset.now) < late", arg=late)
    assert abs(now(page) - 10) < 1.5
    # History is replayed to that moment: only the first restart has happened.
    expect(page.locator(".loop-label")).to_contain_text("restart #1")
    # Keyboard: Home goes back to the start.
    page.focus("#timeline-svg")
    page.keyboard.press("Home")
    page.wait_for_function("() => Number(document.body.dataset.now) === 0")
