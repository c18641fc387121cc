"""Issue 21, item 2 of the issue (presenter mode for a projector): at 1920x1080 and 1280x720
the teacher's presenter view shows the whole five-stage diagram, the Pod status, the watch
view and the current lesson step without scrolling, text at least 1.5x; the class strip is
one line (code and answered count) and a question's chart opens over the page and closes.
The screenshots go to /tmp (and the artifacts folder)."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.e2e.test_classroom import join_class, start_class

GEOMETRY = """() => {
  const vw = innerWidth, vh = innerHeight;
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const inside = (r) => r && r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 && r.r <= vw + 0.5 && r.b <= vh + 0.5;
  const stages = [...document.querySelectorAll('#diagram-svg g.stage rect.stage-bg')].map(box);
  const named = {status: '#status', watch: '#views', lesson: '#lesson', strip: '#class-panel',
    chart: '#class-chart'};
  const out = {vw, vh, scroll: document.scrollingElement.scrollHeight - vh, stages,
    stagesInside: stages.length === 5 && stages.every(inside),
    font: parseFloat(getComputedStyle(document.querySelector('#status')).fontSize)};
  for (const [k, sel] of Object.entries(named)) { out[k] = box(document.querySelector(sel));
    out[k + 'Inside'] = inside(out[k]); }
  return out;
}"""


def test_presenter_mode_fits_a_projector(browser: Browser, base_url: str, artifacts: Path) -> None:
    teacher_ctx = browser.new_context(base_url=base_url, viewport={"width": 1920, "height": 1080})
    student_ctx = browser.new_context(base_url=base_url)
    try:
        teacher = teacher_ctx.new_page()
        code = start_class(teacher)
        teacher.click("#class-access-close")
        student = student_ctx.new_page()
        join_class(student, code, "Ann", by_code=False)
        teacher.fill("#class-ask-seconds", "5")
        teacher.click("#class-ask")
        student.locator(".class-choice").first.click()
        expect(teacher.locator("#class-answered")).to_have_text("1 of 1 answered")
        normal = {}
        for width, height in ((1920, 1080), (1280, 720)):
            teacher.set_viewport_size({"width": width, "height": height})
            normal[width] = teacher.evaluate(GEOMETRY)["font"]
        teacher.click("#present-toggle")
        expect(teacher.locator("body")).to_have_attribute("data-present", "true")
        for width, height in ((1920, 1080), (1280, 720)):
            teacher.set_viewport_size({"width": width, "height": height})
            # The diagram refits on resize: wait until its boxes are inside (or time out).
            fits = f"() => ({GEOMETRY})().stagesInside"
            with contextlib.suppress(Exception):  # reported with the geometry below
                teacher.wait_for_function(fits, timeout=5_000)
            shot = f"/tmp/class-present-{width}x{height}.png"
            teacher.screenshot(path=shot)
            shutil.copy(shot, artifacts / Path(shot).name)
            g = teacher.evaluate(GEOMETRY)
            print(f"\n{width}x{height}: {g}")
            assert g["stagesInside"], g["stages"]
            assert g["scroll"] <= 0, g
            for part in ("status", "watch", "lesson"):
                assert g[part + "Inside"], (part, g[part])
            assert g["font"] >= 1.5 * normal[width], (g["font"], normal[width])
            # The class strip is one line: the code and the answered count.
            rows = teacher.evaluate(
                """() => ['#class-code-big', '#class-strip-answered', '#class-chart-open']
                  .map(s => document.querySelector(s).getBoundingClientRect())
                  .map(r => [r.top, r.bottom])"""
            )
            middle = [(top + bottom) / 2 for top, bottom in rows]
            assert all(top < min(middle) + 1 and bottom > max(middle) - 1 for top, bottom in rows)
            assert g["strip"]["h"] <= 2.6 * g["font"], g["strip"]  # one line, not 324 px
            expect(teacher.locator("#class-strip-answered")).to_have_text("1 of 1 answered")
            expect(teacher.locator("#class-chart")).to_be_hidden()
            # The chart opens over the page, inside the screen, and closes.
            teacher.click("#class-chart-open")
            expect(teacher.locator("#class-bars")).to_be_visible()
            over = teacher.evaluate(GEOMETRY)
            assert over["chartInside"] and over["stagesInside"], over["chart"]
            teacher.screenshot(path=f"/tmp/class-present-{width}x{height}-chart.png")
            teacher.click("#class-chart-close")
            expect(teacher.locator("#class-chart")).to_be_hidden()
    finally:
        teacher_ctx.close()
        student_ctx.close()
