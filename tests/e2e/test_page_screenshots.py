"""Screenshots of the page at four sizes, in English and 简体中文, at the moments a learner
meets first (start, running, CrashLoopBackOff, terminating), saved to test-artifacts/ for a
person to look at; each one also checks that the layout holds (issue 11, defects 2 and 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pagekit import ANY, open_scenario

SIZES = [(390, 844), (960, 540), (1280, 720), (1920, 1080)]

PANELS = ["editor", "lesson", "clock", "diagram", "timeline", "actions", "status", "views"]

LAYOUT = """(ids) => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y + scrollY, w: r.width, h: r.height}; };
  const panels = Object.fromEntries(ids.map((id) => [id, box(document.getElementById(id))]));
  // Diagram labels wider than their box run into the next one ("SubmittedScheduled").
  const squeezed = [...document.querySelectorAll('#diagram-svg .box')].filter((g) => {
    const rect = g.querySelector('.box-bg').getBBox();
    return [...g.querySelectorAll('.box-label')].some((t) => t.getBBox().width > rect.width + 1);
  }).map((g) => g.dataset.key);
  const watch = document.getElementById('kubectl-watch');
  const view = document.getElementById('view-watch');
  return {
    width: innerWidth, height: innerHeight,
    scrollWidth: document.scrollingElement.scrollWidth,
    panels, squeezed,
    watchCut: watch.scrollWidth > view.clientWidth + 1,
    watchFont: parseFloat(getComputedStyle(watch).fontSize),
    editorChars: (() => {
      const plain = document.querySelector('#yaml-editor').shadowRoot.querySelector('textarea.cm-plain');
      if (plain) {  // the editor before its first use (static/js/editor.js)
        const style = getComputedStyle(plain);
        const pen = document.createElement('canvas').getContext('2d');
        pen.font = style.font;
        const w = pen.measureText('0'.repeat(20)).width / 20;
        return Math.floor((plain.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)) / w);
      }
      const content = document.querySelector('#yaml-editor').shadowRoot.querySelector('.cm-content');
      const line = document.querySelector('#yaml-editor').shadowRoot.querySelector('.cm-scroller');
      const probe = document.createElement('span');
      probe.textContent = '0'.repeat(20);
      content.append(probe);
      const w = probe.getBoundingClientRect().width / 20;
      probe.remove();
      return Math.floor((line.clientWidth - content.offsetLeft) / w);
    })(),
  };
}"""


def overlaps(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["w"] - 1
        and b["x"] < a["x"] + a["w"] - 1
        and a["y"] < b["y"] + b["h"] - 1
        and b["y"] < a["y"] + a["h"] - 1
    )


def check_layout(layout: dict, where: str) -> None:
    width = layout["width"]
    panels = layout["panels"]
    assert layout["scrollWidth"] <= width, f"{where}: the page scrolls sideways"
    assert layout["squeezed"] == [], f"{where}: labels wider than their box {layout['squeezed']}"
    assert not layout["watchCut"], f"{where}: get pods -w is cut"
    for name, box in panels.items():
        assert box["w"] >= min(200, width * 0.9), f"{where}: {name} is {box['w']} px wide"
        assert box["h"] >= 30, f"{where}: {name} collapsed to {box['h']} px"
    # The sticky clock floats over the page it scrolls; everything else has its own place.
    names = [n for n in panels if not (width < 1000 and n == "clock")]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not overlaps(panels[a], panels[b]), f"{where}: {a} overlaps {b}"
    if width >= 1000:
        assert panels["lesson"]["h"] >= 200, f"{where}: the lesson shows a few lines only"
        assert panels["status"]["h"] >= 200, f"{where}: the status shows a few lines only"
        assert layout["editorChars"] >= 38, f"{where}: the editor is {layout['editorChars']} chars"
        assert layout["watchFont"] >= 9, f"{where}: get pods -w at {layout['watchFont']} px"


def seek(page: Page, seconds: int) -> None:
    """Forward with Shift+→ on the timeline, 10 s a press, each one waited for."""
    page.focus("#timeline-svg")
    start = float(page.get_attribute("body", "data-now") or 0)
    target = start
    while target < seconds:
        target = min(seconds, target + 10)
        page.keyboard.press("Shift+ArrowRight")
        page.wait_for_function("t => Number(document.body.dataset.now) >= t", arg=target)


def moment(page: Page, name: str) -> None:
    if name == "start":
        open_scenario(page, "plain-pod")
        page.click("#step")
    elif name == "running":
        open_scenario(page, "readiness-endpoints")
        seek(page, 20)
        expect(page.locator("body")).to_have_attribute("data-phase", "Running")
    elif name == "crashloop":
        open_scenario(page, "crash-loop-backoff")
        seek(page, 70)
        expect(page.locator("body")).to_have_attribute("data-status", "CrashLoopBackOff")
    elif name == "terminating":
        open_scenario(page, "graceful-shutdown-prestop")
        seek(page, 20)
        page.click("#delete")
        expect(page.locator("body")).to_have_attribute("data-status", "Terminating")
        seek(page, 30)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", ["start", "running", "crashloop", "terminating"])
def test_screenshots(page: Page, artifacts: Path, lang: str, name: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/")
    expect(page.locator("body")).to_have_attribute("data-session", ANY)
    page.click(f'.lang-button[data-lang="{lang}"]')
    moment(page, name)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / f"page-{name}-{lang}-{width}x{height}.png"))
        if width < 1000:  # one column: the whole page as it scrolls
            page.screenshot(
                path=str(artifacts / f"page-{name}-{lang}-{width}x{height}-full.png"),
                full_page=True,
            )
        check_layout(page.evaluate(LAYOUT, PANELS), f"{name} {lang} {width}x{height}")
