"""A workload scenario in Chromium: the cluster map lists every Pod with its STATUS,
clicking one makes it the focus of the diagram and the views, and the traffic line shows
the requests a rolling update without preStop drops."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import collect_errors, open_scenario, pause, play, set_editor_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_cluster_strip_lists_the_pods_and_focus_follows_a_click(
    page: Page, artifacts: Path
) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    expect(page.locator("#cluster")).to_be_hidden()
    text = (ROOT / "scenarios/workloads/rolling-update.yaml").read_text(encoding="utf-8")
    set_editor_text(page, text)
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    strip = page.locator("#cluster")
    expect(strip).to_be_visible()
    pods = page.locator(".cluster-pod")
    expect(pods).to_have_count(3)
    expect(page.locator(".cluster-owner").first).to_contain_text(re.compile(r"ReplicaSet/web-"))
    play(page, "10")
    expect(page.locator('.cluster-pod[data-status="Running"]')).to_have_count(3, timeout=20_000)
    # Paused, so that the rollout at 30 s does not replace the Pod before the click lands
    # (the map orders cards by node, so the Pod is found by name).
    pause(page)
    name = pods.nth(2).get_attribute("data-pod") or ""
    page.click(f'.cluster-pod[data-pod="{name}"]')
    expect(page.locator(".cluster-pod.is-focus")).to_have_attribute("data-pod", name)
    expect(page.locator("body")).to_have_attribute("data-status", "Running")
    play(page, "10")
    # the rollout at 30 s drops requests: the traffic line counts them
    page.wait_for_function(
        "() => Number(document.querySelector('.cluster-traffic')?.dataset.failed || 0) > 165",
        timeout=30_000,
    )
    expect(page.locator(".cluster-traffic")).to_contain_text("Requests to Service web")
    expect(page.locator(".cluster-traffic")).to_contain_text("since rollout 2:")
    # the chart marks the seconds with failures in red
    expect(page.locator(".cluster-chart .chart-failed").first).to_be_attached()
    page.click(".cluster-details summary")
    kubectl = page.locator("#cluster-kubectl")
    expect(kubectl).to_contain_text("$ kubectl get pods,rs,deploy,jobs,sts -o wide")
    expect(kubectl).to_contain_text("deployment.apps/web")
    expect(kubectl).to_contain_text("$ kubectl rollout status deployment/web")
    expect(kubectl).to_contain_text("$ kubectl get pods -w")
    page.screenshot(path=str(artifacts / "cluster-strip.png"))
    assert errors == []
