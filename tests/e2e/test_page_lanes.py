"""The timeline of a workload scenario in Chromium: one lane per Pod grouped by owner, the
focus Pod unfolded into its container lanes (folds and unfolds), a click on another Pod's
lane follows that Pod as the cluster strip does, rollouts marked; a Pod scenario's timeline
is as before. Screenshots at three sizes in both languages (test-artifacts/lanes-*.png)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pagekit import ANY, collect_errors, open_scenario, set_editor_text

SIZES = [(390, 844), (1280, 720), (1920, 1080)]


def seek(page: Page, seconds: int) -> None:
    """Forward with Shift+→ on the timeline, 10 s a press, each one waited for."""
    page.focus("#timeline-svg")
    target = float(page.get_attribute("body", "data-now") or 0)
    while target < seconds:
        target = min(seconds, target + 10)
        page.keyboard.press("Shift+ArrowRight")
        page.wait_for_function("t => Number(document.body.dataset.now) >= t", arg=target)


def pod_labels(page: Page) -> list[str]:
    return page.eval_on_selector_all(".tl-pod-label", "els => els.map(e => e.dataset.pod)")


def test_one_lane_per_pod_fold_follow_and_rollouts(page: Page) -> None:
    errors = collect_errors(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    open_scenario(page, "rolling-update")
    expect(page.locator(".tl-pod-label")).to_have_count(3)
    seek(page, 70)
    # three old Pods (gone, their lanes kept up to the end) and three new ones
    expect(page.locator(".tl-pod-label")).to_have_count(6)
    names = pod_labels(page)
    assert len(set(names)) == 6
    live = page.eval_on_selector_all(".cluster-pod", "els => els.map(e => e.dataset.pod)")
    assert set(live) <= set(names) and len(live) == 3
    owners = page.eval_on_selector_all(".tl-group", "els => els.map(e => e.dataset.owner)")
    assert len(owners) == 2 and all(o.startswith("ReplicaSet/web-") for o in owners)
    expect(page.locator(".tl-gone")).to_have_count(3)
    expect(page.locator(".tl-deleted")).to_have_count(3)
    # both rollouts marked, revision 2 from 30 s, complete
    expect(page.locator('.tl-rollout[data-rollout="web:2"]')).to_have_class(ANY)
    words = page.get_attribute('.tl-rollout[data-rollout="web:2"]', "data-words") or ""
    assert "rollout of revision 2 from 30s" in words and "complete" in words, words
    expect(page.locator(".tl-rollout-band")).to_have_count(2)
    # the focus Pod (the first old one) is unfolded: its container lane and probes
    focus = page.locator(".tl-pod-label.is-focus")
    expect(focus).to_have_attribute("data-pod", names[0])
    expect(focus).to_have_attribute("aria-expanded", "true")
    expect(page.locator('[data-key="label:nginx"]')).to_have_count(1)
    focus.click()
    expect(page.locator(".tl-pod-label.is-focus")).to_have_attribute("aria-expanded", "false")
    expect(page.locator('[data-key="label:nginx"]')).to_have_count(0)
    page.locator(".tl-pod-label.is-focus").click()
    expect(page.locator('[data-key="label:nginx"]')).to_have_count(1)
    # a click on a new Pod's lane follows it: the strip, the diagram and the lanes agree
    other = live[1]
    page.locator(f'.tl-pseg[data-pod="{other}"]').last.click()
    expect(page.locator(".cluster-pod.is-focus")).to_have_attribute("data-pod", other)
    expect(page.locator(".tl-pod-label.is-focus")).to_have_attribute("data-pod", other)
    expect(page.locator(".tl-pod-label.is-focus")).to_have_attribute("aria-expanded", "true")
    expect(page.locator("body")).to_have_attribute("data-status", "Running")
    assert float(page.get_attribute("body", "data-now") or 0) == pytest.approx(70, abs=0.5)
    # the old ReplicaSet's group folds to its header, and unfolds
    old = f'.tl-group[data-owner="{owners[0]}"]'
    page.locator(old).click()
    expect(page.locator(".tl-pod-label")).to_have_count(3)
    expect(page.locator(old)).to_contain_text("(3)")
    page.locator(old).press("Enter")
    expect(page.locator(".tl-pod-label")).to_have_count(6)
    # a Pod label reached by keyboard follows with Enter
    page.locator(f'.tl-pod-label[data-pod="{live[2]}"]').press("Enter")
    expect(page.locator(".cluster-pod.is-focus")).to_have_attribute("data-pod", live[2])
    # a gone Pod's lane can be followed too: the views show it as removed
    page.locator(f'.tl-pod-label[data-pod="{names[1]}"]').click()
    expect(page.locator(".tl-pod-label.is-focus")).to_have_attribute("data-pod", names[1])
    expect(page.locator(".cluster-pod.is-focus")).to_have_count(0)
    # zoom and pan still work over the lanes
    page.click("#timeline-zoom-in")
    expect(page.locator("#timeline-window")).not_to_contain_text("showing 0 – 90")
    page.click("#timeline-fit")
    expect(page.locator(".tl-pod-label")).to_have_count(6)
    assert errors == []


def test_a_pod_scenario_has_no_pod_lanes(page: Page) -> None:
    open_scenario(page, "plain-pod")
    seek(page, 10)
    expect(page.locator('[data-key="label:probes"]')).to_have_count(1)
    expect(page.locator('[data-key="label:events"]')).to_have_count(1)
    for selector in (".tl-pod-label", ".tl-group", ".tl-rollout", '[data-key="label:workloads"]'):
        expect(page.locator(selector)).to_have_count(0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lanes_screenshots(page: Page, artifacts: Path, lang: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    open_scenario(page, "rolling-update")
    page.click(f'.lang-button[data-lang="{lang}"]')
    seek(page, 70)
    expect(page.locator(".tl-pod-label")).to_have_count(6)
    label = "发布" if lang == "zh" else "rollouts"
    expect(page.locator('[data-key="label:workloads"]')).to_have_text(label)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)
        timeline = page.locator("#timeline")
        timeline.scroll_into_view_if_needed()
        timeline.screenshot(path=str(artifacts / f"lanes-{lang}-{width}x{height}.png"))
        page.screenshot(path=str(artifacts / f"lanes-page-{lang}-{width}x{height}.png"))
        # every Pod label stays in the label column, none over the plot or another label
        boxes = page.eval_on_selector_all(
            ".tl-pod-label, .tl-label",
            "els => els.map(e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })",
        )
        plot_left = page.eval_on_selector(".tl-lane", "e => e.getBoundingClientRect().left")
        for box in boxes:
            assert box[2] <= plot_left + 1, f"{lang} {width}: a label runs into the plot {box}"
        rows = sorted(boxes, key=lambda b: b[1])
        for a, b in itertools.pairwise(rows):
            assert a[3] <= b[1] + 2, f"{lang} {width}: labels overlap {a} {b}"


MANY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: many
spec:
  replicas: 100
  selector:
    matchLabels:
      app: many
  template:
    metadata:
      labels:
        app: many
    spec:
      containers:
      - name: app
        image: nginx:1.27
"""


def test_a_hundred_pods_stay_usable(page: Page, artifacts: Path) -> None:
    errors = collect_errors(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    open_scenario(page, "plain-pod")
    set_editor_text(page, MANY)
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    expect(page.locator(".cluster-pod")).to_have_count(100)
    seek(page, 20)
    # at most 30 Pod lanes until asked, the rest counted
    expect(page.locator(".tl-pod-label")).to_have_count(30)
    more = page.locator(".tl-more")
    expect(more).to_have_text("+ 70 more Pods: show all 100")
    # the lanes scroll in a box of bounded height; the axis stays in sight under it
    box = page.eval_on_selector(".tl-scroll", "e => [e.clientHeight, e.scrollHeight]")
    assert box[0] <= 0.42 * 720 + 1 < box[1], box
    axis = page.eval_on_selector("#timeline-axis", "e => e.getBoundingClientRect().bottom")
    scroller = page.eval_on_selector(".tl-scroll", "e => e.getBoundingClientRect().bottom")
    assert axis <= scroller + 1
    more.scroll_into_view_if_needed()
    more.click()
    expect(page.locator(".tl-pod-label")).to_have_count(100)
    page.locator(".tl-more").click()  # "show fewer"
    expect(page.locator(".tl-pod-label")).to_have_count(30)
    page.locator("#timeline").screenshot(path=str(artifacts / "lanes-100-pods.png"))
    assert errors == []


GONE_NOTE = {
    "en": "The Pod {pod} is gone. To act on another, pick it in “Pods of the cluster” or click "
    "its timeline lane.",
    "zh": "Pod {pod} 已不存在。要操作其他 Pod，请在“集群中的 Pod”中选择它，或点击它在时间线上的泳道。",
}


def diagram_rows(page: Page) -> list[list[float]]:
    """Each stage row's box clipped to the viewport and to the centre column's scroll box:
    [top, bottom, visible height]."""
    return page.eval_on_selector_all(
        "#diagram-svg .stage-bg",
        """els => els.map(e => {
          const b = e.getBoundingClientRect();
          let top = Math.max(b.top, 0), bottom = Math.min(b.bottom, innerHeight);
          for (let p = e.parentElement; p; p = p.parentElement) {
            if (!/(auto|scroll)/.test(getComputedStyle(p).overflowY)) continue;
            const r = p.getBoundingClientRect();
            top = Math.max(top, r.top); bottom = Math.min(bottom, r.bottom);
          }
          return [b.top, b.bottom, Math.max(0, bottom - top)];
        })""",
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_cluster_run_keeps_the_diagram_readable_and_says_the_pod_is_gone(
    page: Page, artifacts: Path, lang: str
) -> None:
    errors = collect_errors(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    open_scenario(page, "rolling-update")
    page.click(f'.lang-button[data-lang="{lang}"]')
    seek(page, 70)
    # the focus Pod (the first old one) is gone; the cluster runs on with three others
    expect(page.locator(".cluster-pod")).to_have_count(3)
    gone = page.get_attribute(".tl-pod-label.is-focus", "data-pod") or ""
    note = page.locator(".control-note")
    expect(note).to_have_text(GONE_NOTE[lang].format(pod=gone))
    expect(page.locator("#delete")).to_be_disabled()
    expect(page.locator("#status-gone")).to_contain_text(gone)
    for width, height in [(1280, 720), (960, 540), (1920, 1080), (390, 844)]:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)
        page.evaluate(
            "() => { scrollTo(0, 0); document.querySelector('.col-center').scrollTop = 0; }"
        )
        page.screenshot(path=str(artifacts / f"cluster-page-{lang}-{width}x{height}.png"))
        title = page.eval_on_selector(
            "#diagram-svg .stage-title", "e => e.getBoundingClientRect().height"
        )
        assert title >= 9, f"{lang} {width}x{height}: stage titles {title} px high"
        if width >= 1000:
            # as first seen (nothing scrolled) most of the diagram is in sight, ...
            rows = diagram_rows(page)
            seen = sum(row[2] for row in rows)
            assert len(rows) == 5 and seen >= 0.6 * sum(r[1] - r[0] for r in rows), rows
            # ... and scrolled to, all five stage rows are, in full
            page.locator("#diagram").scroll_into_view_if_needed()
            for top, bottom, visible in diagram_rows(page):
                assert bottom - top >= 40 and visible >= bottom - top - 1, (width, height, rows)
    # a live Pod followed: its controls are back and the note is gone
    page.set_viewport_size({"width": 1280, "height": 720})
    page.locator(".cluster-pod").first.click()
    expect(page.locator("#delete")).to_be_enabled()
    expect(note).to_have_text("")
    assert errors == []
