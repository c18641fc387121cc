"""Action-to-screen latency in Chromium: click Delete until stage 5 is highlighted.

    python bench/latency.py [--runs 50] [--speed 100]

Serves the playground in a thread (as the browser tests do), opens a fresh session of the
built-in `plain-pod` scenario for every run, plays it until the Pod is Running, pauses,
then clicks "Delete Pod". The time is measured inside the page: from the button's
pointerdown to the first animation frame after the diagram marks stage 5 as current
(socket round trip + engine + rendering). Prints the median and p95; asserts nothing.
Stage 5 counts as shown when it is current or marked reached: `plain-pod` exits at once on
SIGTERM, so with the clock paused the Pod is removed in the same instant as the delete.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from webapp import create_app

MEASURE = """
() => { window.__latency = new Promise((resolve) => {
  let start;
  document.getElementById("delete").addEventListener(
    "pointerdown", () => { start = performance.now(); }, { once: true, capture: true });
  const svg = document.getElementById("diagram-svg");
  const observer = new MutationObserver(() => {
    // Stage 5 is current, or already passed (a Pod that exits at once on SIGTERM is removed
    // within the same instant, and the diagram then shows stage 5 reached and the outcome).
    const reached = '.stage[data-stage="5"].is-current, .stage[data-stage="5"].is-visited';
    if (start === undefined || !svg.querySelector(reached)) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - start));
  });
  observer.observe(svg, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
}); }
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--speed", default="100", help="clock speed while reaching Running")
    args = parser.parse_args()

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    db = Path(tempfile.mkdtemp()) / "links.sqlite3"
    app = create_app({"TESTING": True, "PLAYGROUND_DB": str(db)})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    samples: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{base}/healthz")
        for _ in range(args.runs + 1):  # the first run warms caches and is dropped
            # A new session each run: forget the tab's session, then load the scenario.
            page.evaluate("sessionStorage.clear()")
            page.goto(f"{base}/?scenario=plain-pod")
            page.wait_for_selector("body[data-session]:not([data-session=''])")
            page.select_option("#speed", args.speed)
            if page.get_attribute("body", "data-playing") != "true":
                page.click("#play")
            page.wait_for_selector("body[data-phase='Running']")
            page.click("#play")  # pause: measure the action alone, not the pacing ticks
            page.wait_for_selector("body[data-playing='false']")
            page.evaluate(MEASURE)
            page.click("#delete")
            samples.append(page.evaluate("window.__latency"))
        browser.close()
    server.shutdown()
    samples = samples[1:]
    print(
        f"action-to-screen latency, Delete -> stage 5 highlighted, {len(samples)} runs in Chromium"
    )
    print(f"  median {statistics.median(samples):.1f} ms")
    print(f"  p95    {percentile(samples, 95):.1f} ms")
    print(f"  min    {min(samples):.1f} ms   max {max(samples):.1f} ms")


if __name__ == "__main__":
    main()
