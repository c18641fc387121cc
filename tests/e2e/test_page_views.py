"""Languages, layout at laptop and projector sizes, keyboard, motion, share and downloads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.pagekit import (
    collect_errors,
    open_editor,
    open_scenario,
    pause,
    play,
    wait_until_now,
)

# A catalogue key leaking onto the page ("step.pull", "diagram.state.done").
RAW_KEY = re.compile(
    r"\b(app|conn|top|editor|lesson|diagram|stage|step|controls|probe|status|state|explain|"
    r"surprise|views|events|endpoints|timeline|result|err)\.[a-zA-Z]+"
)


def visible_text(page: Page) -> str:
    return page.evaluate(
        "() => document.body.innerText + ' ' + [...document.querySelectorAll('svg text')].map(t => t.textContent).join(' ')"
    )


def test_switching_language_changes_every_word_and_is_remembered(page: Page) -> None:
    errors = collect_errors(page)
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 25)
    english = visible_text(page)
    assert "Scheduling and" in english
    assert not RAW_KEY.search(english), RAW_KEY.search(english)
    page.click('.lang-button[data-lang="zh"]')
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#editor-heading")).to_have_text("场景 YAML")
    expect(page.locator("#diagram-caption")).to_contain_text("当前")
    expect(page.locator(".stage-title").first).to_contain_text("调度")
    expect(page.locator("#lesson-title")).to_contain_text("退避")
    assert page.title() == "Pod 生命周期演练场"
    chinese = visible_text(page)
    assert not RAW_KEY.search(chinese), RAW_KEY.search(chinese)
    for word in ("Scheduling and", "Graceful", "Delete Pod", "Timeline", "What it means"):
        assert word not in chinese, word
    assert page.evaluate("localStorage.getItem('pod-playground.lang')") == "zh"
    page.reload()
    expect(html).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#apply")).to_have_text("应用")
    page.click('.lang-button[data-lang="en"]')
    expect(html).to_have_attribute("lang", "en")
    expect(page.locator("#apply")).to_have_text("Apply")
    assert errors == []


def test_server_errors_come_back_in_the_chosen_language(page: Page) -> None:
    open_scenario(page, "plain-pod")
    page.click('.lang-button[data-lang="zh"]')
    open_editor(page)
    page.keyboard.press("Control+a")
    page.keyboard.insert_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec: {}\n")
    page.click("#apply")
    expect(page.locator("#error-list li").first).to_be_visible()
    message = page.locator("#error-list .error-message").first.inner_text()
    assert re.search(r"[\u4e00-\u9fff]", message), message


SIZES = [(1280, 720), (1920, 1080)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_layout_fits_and_screenshots(
    browser: Browser, base_url: str, artifacts: Path, width: int, height: int, lang: str
) -> None:
    context = browser.new_context(
        base_url=base_url,
        viewport={"width": width, "height": height},
        locale="zh-CN" if lang == "zh" else "en-US",
    )
    page = context.new_page()
    errors = collect_errors(page)
    try:
        open_scenario(page, "crash-loop-backoff")
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if lang == "zh" else "en")
        play(page, "10")
        expect(page.locator("body")).to_have_attribute(
            "data-status", "CrashLoopBackOff", timeout=20_000
        )
        pause(page)
        # Nothing sticks out sideways; the whole diagram, the timeline and the views are on screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for selector in (
            "#diagram-svg .outcome",
            "#timeline-svg",
            "#kubectl-watch",
            "#apply",
            "#delete",
        ):
            box = page.locator(selector).bounding_box()
            assert box is not None, selector
            assert box["y"] + box["height"] <= height + 1, (selector, box)
            assert box["x"] + box["width"] <= width + 1, (selector, box)
        font = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
        assert (13 <= font <= 15) if width == 1280 else (18 <= font <= 21), font
        page.screenshot(path=str(artifacts / f"page-{width}x{height}-{lang}.png"))
        assert errors == []
    finally:
        context.close()


def test_keyboard_alone_plays_switches_tabs_and_seeks(page: Page) -> None:
    open_scenario(page, "plain-pod")
    page.focus("#play")
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-playing", "true")
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-playing", "false")
    page.focus("#tab-watch")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-events")).to_be_focused()
    expect(page.locator("#view-events")).to_be_visible()
    expect(page.locator("#view-watch")).to_be_hidden()
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"


def test_reduced_motion_stops_the_glow(browser: Browser, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, reduced_motion="reduce")
    page = context.new_page()
    try:
        open_scenario(page, "plain-pod")
        play(page, "5")
        halo = page.locator(".box.is-current .box-halo").first
        expect(halo).to_be_attached()
        # Read in one go: the diagram may rebuild its SVG (a resize) between two calls.
        assert (
            page.evaluate(
                "() => getComputedStyle(document.querySelector('.box.is-current .box-halo'))"
                ".animationName"
            )
            == "none"
        )
    finally:
        context.close()
    page = browser.new_page(base_url=base_url)
    try:
        open_scenario(page, "plain-pod")
        halo = page.locator(".box.is-current .box-halo").first
        expect(halo).to_be_attached()
        assert "march" in halo.evaluate("el => getComputedStyle(el).animationName")
    finally:
        page.close()


def test_share_link_opens_the_same_run_and_downloads_work(
    page: Page, browser: Browser, base_url: str
) -> None:
    open_scenario(page, "liveness-restart")
    play(page, "10")
    wait_until_now(page, 12)
    pause(page)
    at = float(page.get_attribute("body", "data-now") or 0)
    page.click("#share")
    link = page.locator("#share-link")
    expect(link).to_have_value(re.compile(r"/s/[\w-]+$"))
    url = link.input_value()
    with page.expect_download() as download:
        page.click(".download > summary")
        page.click("#download-transcript")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "kubectl get pods -w" in text and "NAME" in text
    with page.expect_download() as download:
        page.click(".download > summary")
        page.click("#download-trace")
    assert '"transitions"' in Path(download.value.path()).read_text(encoding="utf-8")
    other = browser.new_page(base_url=base_url)
    try:
        other.goto(url)
        expect(other.locator("#lesson-title")).to_have_text(
            page.locator("#lesson-title").inner_text()
        )
        other.wait_for_function(
            "at => Math.abs(Number(document.body.dataset.now) - at) < 0.01", arg=at
        )
    finally:
        other.close()
