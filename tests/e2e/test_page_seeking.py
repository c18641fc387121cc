"""A far seek computed in slices, in Chromium (issue 12): opening a share link whose moment
is far into a crash-looping run shows a progress bar (reached of target) with "Stop here",
which ends the seek at the moment reached; the page then plays on from there."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import ANY, collect_errors
from tests.worst_case import CRASH_LOOP_POD


def test_a_far_share_shows_progress_and_stop_here_ends_the_seek(page: Page) -> None:
    errors = collect_errors(page)
    answer = page.request.post("/api/share", data={"yaml": CRASH_LOOP_POD, "at": 7200})
    assert answer.status == 201, answer.text()
    assert answer.json()["checkedUntil"] == 0  # no actions: nothing to check further
    page.goto(answer.json()["url"])
    body = page.locator("body")
    expect(body).to_have_attribute("data-session", ANY)
    box = page.locator("#seeking")
    expect(box).to_be_visible()
    expect(body).to_have_attribute("data-seeking", "true")
    expect(page.locator("#seek-label")).to_contain_text(re.compile(r"Seeking: .* of 7200s"))
    stop = page.locator("#seek-stop")
    expect(stop).to_have_text("Stop here")
    # The bar moves as the slices arrive.
    page.wait_for_function(
        "() => document.querySelector('#seek-progress').value > 0.001", timeout=30_000
    )
    stop.click()
    expect(body).to_have_attribute("data-seeking", "false", timeout=15_000)
    expect(box).to_be_hidden()
    reached = float(body.get_attribute("data-now") or 0)
    assert 0 < reached < 7200
    # It stays there: no seek goes on behind the page's back.
    page.wait_for_timeout(1000)
    assert float(body.get_attribute("data-now") or 0) == reached
    assert errors == []


def test_the_seek_bar_speaks_chinese(page: Page) -> None:
    answer = page.request.post(
        "/api/share", data={"yaml": CRASH_LOOP_POD, "at": 7200, "lang": "zh"}
    )
    assert answer.status == 201, answer.text()
    page.goto(
        answer.json()["url"],
    )
    page.evaluate("() => localStorage.setItem('pod-playground.lang', 'zh')")
    page.goto(answer.json()["url"])
    expect(page.locator("#seeking")).to_be_visible()
    expect(page.locator("#seek-stop")).to_have_text("停在这里")
    expect(page.locator("#seek-label")).to_contain_text("正在跳转")
    page.click("#seek-stop")
    expect(page.locator("body")).to_have_attribute("data-seeking", "false", timeout=15_000)
