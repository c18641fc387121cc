"""A share link made in 简体中文 offers Chinese to an English reader, and never forces it
(issue 11, defect 19)."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.e2e.pagekit import ANY, open_scenario, play, wait_until_now


def make_link(page: Page) -> str:
    open_scenario(page, "crash-loop-backoff")
    page.click('.lang-button[data-lang="zh"]')
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    play(page, "10")
    wait_until_now(page, 5)
    page.click("#share")
    link = page.locator("#share-link")
    expect(link).to_have_value(ANY)
    return link.input_value()


def test_a_chinese_link_offers_chinese_to_an_english_reader(
    page: Page, browser: Browser, base_url: str
) -> None:
    url = make_link(page)
    reader = browser.new_context(base_url=base_url, locale="en-US")
    try:
        tab = reader.new_page()
        tab.goto(url)
        expect(tab.locator("body")).to_have_attribute("data-session", ANY)
        expect(tab.locator("html")).to_have_attribute("lang", "en")  # not switched
        offer = tab.locator("#lang-offer")
        expect(offer).to_be_visible()
        expect(offer).to_contain_text("This link was shared in Simplified Chinese.")
        expect(tab.locator("#lang-offer-switch")).to_have_text("切换到简体中文")
        expect(tab.locator("#lang-offer-keep")).to_have_text("Keep English")
        tab.click("#lang-offer-switch")
        expect(tab.locator("html")).to_have_attribute("lang", "zh-CN")
        expect(offer).to_be_hidden()
        # Answered: a reload does not ask again.
        tab.reload()
        expect(tab.locator("body")).to_have_attribute("data-session", ANY)
        expect(offer).to_be_hidden()
        # Another English reader says no: the page stays English.
        other = reader.new_page()
        other.add_init_script("localStorage.removeItem('pod-playground.lang')")
        other.goto(url)
        expect(other.locator("#lang-offer")).to_be_visible()
        other.click("#lang-offer-keep")
        expect(other.locator("#lang-offer")).to_be_hidden()
        expect(other.locator("html")).to_have_attribute("lang", "en")
    finally:
        reader.close()


def test_a_chinese_reader_of_a_chinese_link_is_offered_nothing(
    page: Page, browser: Browser, base_url: str
) -> None:
    url = make_link(page)
    reader = browser.new_context(base_url=base_url, locale="zh-CN")
    try:
        tab = reader.new_page()
        tab.goto(url)
        expect(tab.locator("body")).to_have_attribute("data-session", ANY)
        expect(tab.locator("html")).to_have_attribute("lang", "zh-CN")
        expect(tab.locator("#lang-offer")).to_be_hidden()
    finally:
        reader.close()
