"""Columns a learner can widen, fold and find again after a reload (issue 11, defect 8)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import ANY, open_scenario


def width_of(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["width"]


def test_columns_resize_with_keys_and_pointer_fold_and_are_remembered(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    open_scenario(page, "plain-pod")
    left = page.locator(".split-left")
    expect(left).to_have_attribute("role", "separator")
    expect(left).to_have_attribute("aria-label", "Width of the editor and lesson column")
    before = width_of(page, "#editor")
    left.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect(left).to_have_attribute("aria-valuenow", "38")
    wider = width_of(page, "#editor")
    assert wider > before + 100, (before, wider)
    # Drag the right splitter to the left: the status column grows.
    status_before = width_of(page, "#status")
    grip = page.locator(".split-right").bounding_box()
    assert grip is not None
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + 10)
    page.mouse.down()
    page.mouse.move(grip["x"] - 80, grip["y"] + 10, steps=5)
    page.mouse.up()
    assert width_of(page, "#status") > status_before + 60
    # The editor gets taller against the lesson with the row splitter.
    editor_h = page.locator("#editor").bounding_box()["height"]  # type: ignore[index]
    page.locator('.splitter[data-key="editor"]').focus()
    page.keyboard.press("Shift+ArrowDown")
    assert page.locator("#editor").bounding_box()["height"] > editor_h + 30  # type: ignore[index]
    # Fold the right column: the diagram takes the room.
    diagram = width_of(page, "#diagram")
    page.click(".split-right .split-toggle")
    expect(page.locator("#status")).to_be_hidden()
    assert width_of(page, "#diagram") > diagram + 200
    expect(page.locator(".split-right .split-toggle")).to_have_attribute("aria-expanded", "false")
    # All of it is there again after a reload.
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-session", ANY)
    expect(page.locator("#status")).to_be_hidden()
    assert abs(width_of(page, "#editor") - wider) < 90  # same column, minus what the fold gave
    expect(page.locator(".split-left")).to_have_attribute("aria-valuenow", "38")
    page.click(".split-right .split-toggle")
    expect(page.locator("#status")).to_be_visible()
    # A double click puts a splitter back to its default.
    page.locator(".split-left").dblclick()
    expect(page.locator(".split-left")).to_have_attribute("aria-valuenow", "28")


def test_under_1000_px_the_page_is_one_scrolling_column(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_scenario(page, "plain-pod")
    expect(page.locator(".split-left")).to_be_hidden()
    boxes = [
        page.locator(f"#{p}").bounding_box() for p in ("lesson", "diagram", "status", "editor")
    ]
    assert all(b is not None and b["width"] > 340 for b in boxes), boxes
    ys = [b["y"] for b in boxes if b]
    assert ys == sorted(ys), "stacked in reading order"
    assert page.evaluate("document.scrollingElement.scrollHeight") > 844 * 2
    # The clock stays at hand while the page scrolls.
    page.mouse.wheel(0, 1500)
    page.wait_for_function("() => window.scrollY > 1000")
    clock = page.locator("#clock").bounding_box()
    assert clock is not None and clock["y"] < 10, clock
