"""What the page's cluster map (static/js/cluster.js) costs Chromium at 100 Pods.

Serves the playground on a loopback port, opens it in Chromium (CHROMIUM or
/usr/bin/chromium), applies a 100-replica Deployment whose Pods crash-loop (every card
changes every few seconds: the worst case) behind a Service, plays it at 10x for
`--seconds` of wall time and prints, from Chrome's own counters (CDP Performance.getMetrics):
script, style and layout time per second, the number of DOM mutations in the map and the
number of cards. Usage: python bench/cluster_view.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from webapp import create_app

CRASH_LOOP = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: crash
spec:
  replicas: 100
  selector:
    matchLabels: {app: crash}
  template:
    metadata:
      labels: {app: crash}
    spec:
      containers:
      - name: app
        image: busybox:1.36
        command: ["sh", "-c", "sleep 5; exit 1"]
---
apiVersion: v1
kind: Service
metadata:
  name: crash
spec:
  selector: {app: crash}
  ports:
  - port: 80
"""

METRICS = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "links.sqlite3"
    server = make_server(
        "127.0.0.1", 0, create_app({"TESTING": True, "PLAYGROUND_DB": str(db)}), threaded=True
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.add_init_script("localStorage.setItem('pod-playground.quiz', 'off')")
        page.goto(f"http://127.0.0.1:{server.server_port}/?scenario=plain-pod")
        page.wait_for_selector("body[data-session]")
        page.locator("#yaml-editor .cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.insert_text(CRASH_LOOP)
        page.click("#apply")
        page.wait_for_function("() => document.querySelectorAll('.cluster-pod').length === 100")
        page.select_option("#speed", "10")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.evaluate("""() => { window.__mutations = 0;
          new MutationObserver((r) => { window.__mutations += r.length; })
            .observe(document.getElementById('cluster-map'),
              { subtree: true, childList: true, characterData: true, attributes: true }); }""")
        cdp.send("Profiler.enable")
        cdp.send("Profiler.start")
        before = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        start_now = float(page.get_attribute("body", "data-now") or 0)
        page.click("#play")
        page.wait_for_timeout(args.seconds * 1000)
        after = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        profile = cdp.send("Profiler.stop")["profile"]
        virtual = float(page.get_attribute("body", "data-now") or 0) - start_now
        cards = page.evaluate("document.querySelectorAll('.cluster-pod').length")
        elements = page.evaluate("document.querySelectorAll('#cluster-map *').length")
        mutations = page.evaluate("window.__mutations")
        browser.close()
    server.shutdown()
    print(
        f"{cards} Pods, {elements} elements in the map, {virtual:.0f} virtual s in {args.seconds:.0f} s"
    )
    for name in METRICS:
        spent = after.get(name, 0) - before.get(name, 0)
        print(f"{name:20} {spent * 1000 / args.seconds:7.1f} ms per wall second")
    print(f"map mutations        {mutations / args.seconds:7.1f} per wall second")
    print("script self time by file (CPU profile):")
    for name, ms in by_file(profile)[:14]:
        print(f"  {name:28} {ms / args.seconds:7.1f} ms per wall second")


def by_file(profile: dict) -> list[tuple[str, float]]:
    """Self time of the sampled functions, summed per script file."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    spent: dict[str, float] = {}
    deltas = profile.get("timeDeltas", [])
    for sample, delta in zip(profile.get("samples", []), deltas, strict=False):
        url = (
            nodes[sample]["callFrame"].get("url", "") or nodes[sample]["callFrame"]["functionName"]
        )
        name = url.rsplit("/", 1)[-1].split("?")[0] or "(native)"
        name = name.split(".")[0] + "." + name.rsplit(".", 1)[-1] if name.count(".") > 1 else name
        spent[name] = spent.get(name, 0.0) + delta / 1000
    return sorted(spent.items(), key=lambda kv: -kv[1])


if __name__ == "__main__":
    main()
