"""The five-stage diagram in Chromium: what it calls "now" in the first seconds, after a
Step, after Home, during play; an unschedulable Pod; a lost node (issue 11, defects 1, 4, 6)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import collect_errors, open_scenario, pause, play, wait_until_now

CAPTIONS = """() => {
  window.__captions = [document.getElementById('diagram-caption').textContent];
  new MutationObserver(() => window.__captions.push(document.getElementById('diagram-caption').textContent))
    .observe(document.getElementById('diagram-caption'), {childList: true, characterData: true, subtree: true});
}"""


def assert_in_stage_one(page: Page) -> None:
    expect(page.locator("#diagram-caption")).to_have_text(re.compile(r"^Now: 1 Scheduling"))
    expect(page.locator("body")).to_have_attribute("data-stage", "1")
    for key in ("1:pull", "3:start:app"):
        expect(page.locator(f'.box[data-key="{key}"]')).not_to_have_class(re.compile("is-skipped"))
    expect(page.locator('.box[data-key="4:readiness:app"]')).to_have_class(
        re.compile("is-undefined")
    )
    expect(page.locator(".box.is-current")).to_have_count(1)
    expect(page.locator('.stage.is-current[data-stage="1"]')).to_have_count(1)


def test_start_step_home_and_play_never_put_a_probeless_pod_at_readiness(page: Page) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    # A new session stands at second 0 before its first events run: one Step runs them.
    page.click("#step")
    assert_in_stage_one(page)
    # The next Step runs to the next event (the pull starts at 1 s).
    page.click("#step")
    page.wait_for_function("() => Number(document.body.dataset.now) > 0")
    assert_in_stage_one(page)
    expect(page.locator('.box[data-key="1:pull"]')).to_have_class(re.compile("is-current"))
    # Seek back to the start with Home, then play through ContainerCreating to Running.
    page.focus("#timeline-svg")
    page.keyboard.press("Home")
    page.wait_for_function("() => Number(document.body.dataset.now) === 0")
    assert_in_stage_one(page)
    page.evaluate(CAPTIONS)
    play(page, "2")
    expect(page.locator("body")).to_have_attribute("data-phase", "Running", timeout=20_000)
    pause(page)
    captions: list[str] = page.evaluate("() => window.__captions")
    assert captions, "the caption was watched"
    assert not [c for c in captions if "Readiness" in c], captions
    assert any("Pull images" in c for c in captions), captions
    assert captions[-1].startswith("Now: 4 Running health checks › Running (app)"), captions
    assert errors == []


def test_an_unschedulable_pod_is_marked_failed_at_scheduled(page: Page) -> None:
    open_scenario(page, "unschedulable")
    page.click("#step")
    box = page.locator('.box[data-key="1:scheduled"]')
    expect(box).to_have_class(re.compile(r"is-current.*is-failed|is-failed.*is-current"))
    expect(box.locator(".box-status")).to_contain_text("Unschedulable")
    expect(page.locator("#diagram-caption")).to_contain_text("Scheduling · Unschedulable")


def test_a_lost_node_is_shown_in_the_diagram(page: Page) -> None:
    open_scenario(page, "node-lost")
    play(page, "10")
    wait_until_now(page, 21)
    banner = page.locator("#diagram-node")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("worker-1")
    expect(page.locator('.box[data-key="1:kubelet"] .box-status')).to_have_text("✗ node down")
    expect(page.locator("#diagram-caption")).not_to_contain_text("Readiness")
    wait_until_now(page, 71, timeout=30_000)
    expect(banner).to_contain_text("Ready=Unknown")
    expect(page.locator("#diagram-caption")).not_to_contain_text("Readiness")


MARKS = """() => {
  const text = (key) => document.querySelector(`.box[data-key="${key}"] .box-status`)?.textContent ?? null;
  return {now: Number(document.body.dataset.now), sigterm: text("5:sigterm"), grace: text("5:grace"),
    sigkill: text("5:sigkill"), running: text("4:running:liveness"), liveness: text("4:liveness:liveness")};
}"""


def test_the_liveness_example_steps_through_its_kill_and_restart_with_true_marks(
    page: Page,
) -> None:
    """issue 20, item 5: the docs' exec liveness Pod, Step by Step through the kill (SIGTERM
    sent, the grace period running, SIGKILL) and the restart (stage 4 is the new instance)."""
    errors = collect_errors(page)
    open_scenario(page, "liveness-exec")
    # A new session stands at second 0 before its first events run: one Step runs them.
    page.click("#step")
    expect(page.locator("#diagram-caption")).to_have_text(re.compile(r"^Now: 1 Scheduling"))
    seen: list[dict] = []
    phases = set()
    for _ in range(60):
        before = page.evaluate(MARKS)["now"]
        page.click("#step")
        page.wait_for_function(f"() => Number(document.body.dataset.now) > {before}")
        expect(page.locator("body")).to_have_attribute("data-playing", "false")
        marks = page.evaluate(MARKS)
        seen.append(marks)
        t = marks["now"]
        where = f"at {t}s: {marks}"
        if t < 45:
            phases.add("before")
            assert (marks["sigterm"], marks["grace"], marks["sigkill"]) == ("not yet",) * 3, where
        elif t < 75:
            phases.add("killing")
            assert marks["sigterm"] == "✓ SIGTERM", where
            assert marks["grace"] == "… under way", where
            assert marks["sigkill"] == "not yet", where
            assert "failed" not in marks["running"], where
        elif t < 75.897:
            phases.add("killed")
            assert marks["sigterm"] == "✓ SIGTERM", where
            assert marks["sigkill"] in ("✓ done", "▶ now"), where
            assert marks["grace"] != "not yet", where
        else:
            phases.add("restarted")
            assert "failed" not in marks["running"], where
            assert (marks["sigterm"], marks["grace"], marks["sigkill"]) == ("not yet",) * 3, where
            if t >= 80:
                break
    assert phases == {"before", "killing", "killed", "restarted"}, seen
    expect(page.locator("#diagram-caption")).not_to_contain_text("failed")
    assert errors == []
