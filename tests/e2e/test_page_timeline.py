"""The timeline in Chromium: every repeat of an event, zoom and pan, long container names
(issue 11, defects 14 and 15)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import open_scenario, pause, play, set_editor_text, wait_until_now

LONG = "a-container-with-a-very-long-name-that-the-lane-cannot-show-whole"[:63]


def window(page: Page) -> tuple[float, float]:
    text = page.locator("#timeline-window").text_content() or ""
    numbers = [float(n) for n in re.findall(r"[\d.]+", text)]
    return numbers[0], numbers[1]


def test_each_liveness_failure_keeps_its_marker(page: Page) -> None:
    open_scenario(page, "liveness-restart")
    play(page, "10")
    wait_until_now(page, 45, timeout=30_000)
    pause(page)
    markers = page.locator('.tl-event[data-reason="Unhealthy"]')
    assert markers.count() >= 3, markers.count()
    words = markers.evaluate_all("els => els.map(e => e.dataset.words)")
    assert any("(1/" in w for w in words) and any("(3/" in w for w in words), words


def test_zoom_and_pan_with_buttons_keys_and_the_wheel(page: Page) -> None:
    open_scenario(page, "crash-loop-backoff")
    play(page, "100")
    wait_until_now(page, 610, timeout=40_000)
    pause(page)
    start, end = window(page)
    assert (start, end) == (0, 900) or start == 0, (start, end)
    whole = end - start
    page.click("#timeline-zoom-in")
    page.click("#timeline-zoom-in")
    page.click("#timeline-zoom-in")
    start, end = window(page)
    assert abs((end - start) - whole / 8) < 1, (start, end)
    # Keys on the focused timeline: "0" shows it all, "+" zooms in around now, "[" pans back.
    page.focus("#timeline-svg")
    page.keyboard.press("0")
    assert window(page) == (0, whole)
    for _ in range(4):
        page.keyboard.press("+")
    start, end = window(page)
    assert end - start < whole / 10
    page.keyboard.press("[")
    earlier = window(page)
    assert earlier[0] < start
    page.click("#timeline-pan-right")
    assert window(page)[0] > earlier[0]
    # Ctrl+wheel over the first minute zooms around the pointer; the first minute gets room.
    page.focus("#timeline-svg")
    page.keyboard.press("0")
    assert window(page) == (0, whole)
    page.locator("#timeline-svg").scroll_into_view_if_needed()
    lane = page.locator(".tl-lane").first.bounding_box()
    assert lane is not None
    page.mouse.move(lane["x"] + lane["width"] * 0.02, lane["y"] + lane["height"] / 2)
    page.keyboard.down("Control")
    for _ in range(4):
        page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    start, end = window(page)
    assert start < 20 and end - start <= whole / 16, (start, end)
    ticks = [float(t[:-1]) for t in page.locator(".tl-tick-text").all_text_contents()]
    assert len([t for t in ticks if t < 60]) >= 3, ticks
    first_band = page.locator(".tl-seg").first.bounding_box()
    assert first_band is not None and first_band["width"] > 40, first_band
    # Shift+wheel pans later.
    page.keyboard.down("Shift")
    page.mouse.wheel(0, 100)
    page.keyboard.up("Shift")
    assert window(page)[0] > start


def test_a_long_container_name_is_cut_with_its_full_name_at_hand(page: Page) -> None:
    open_scenario(page, "plain-pod")
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
        f"  - name: {LONG}\n    image: nginx:1.27\n"
    )
    set_editor_text(page, manifest)
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    page.click("#step")
    label = page.locator(f'.tl-label[data-full="{LONG}"]')
    expect(label).to_have_count(1)
    shown = label.evaluate("el => el.firstChild.textContent")
    assert shown.endswith("…") and LONG.startswith(shown[:-1]), shown
    expect(label.locator("title")).to_have_text(LONG)
    expect(label).to_have_attribute("aria-label", LONG)
    box = label.bounding_box()
    lane = page.locator(".tl-lane").first.bounding_box()
    assert box is not None and lane is not None
    assert box["x"] + box["width"] <= lane["x"] + 1, (box, lane)
    label.focus()
    expect(page.locator("#timeline-readout")).to_have_text(LONG)


def test_the_timeline_draws_a_snapshot_sent_as_a_table(page: Page) -> None:
    """The page joins with `transitions: "table"` (issue 12: a smaller snapshot); after a
    reload, its session's history arrives in one snapshot as a table and the timeline
    draws the same bars from it as from the ticks."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    open_scenario(page, "liveness-restart")
    play(page, "10")
    wait_until_now(page, 45, timeout=30_000)
    pause(page)
    bars = page.locator("#timeline-svg .tl-seg, #timeline-svg .tl-probe")
    drawn = "els => els.map(e => e.outerHTML)"
    before = bars.evaluate_all(drawn)
    assert len(before) >= 6, before  # state segments and probe results, from transitions
    frames.clear()
    page.reload()  # the tab re-joins its session: one snapshot with the whole history
    expect(page.locator("body")).to_have_attribute("data-session", re.compile(r".+"))
    expect(bars).to_have_count(len(before), timeout=15_000)
    assert bars.evaluate_all(drawn) == before
    snapshots = [f for f in frames if f.startswith('42["snapshot"')]
    assert snapshots and all('"transitionTable"' in f for f in snapshots), frames[:3]
    assert not any('"transitions":[{' in f for f in snapshots)
