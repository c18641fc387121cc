"""The lesson "A DaemonSet during a drain" in Chromium: the cluster map shows the agent's
Pods under their DaemonSet, one per node, and the kubectl transcript shows both drains
(the refused one without --ignore-daemonsets) and `kubectl get ds`."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import collect_errors, open_scenario, play, wait_until_now

SHOTS = Path(os.environ.get("DS_SHOTS", "/tmp/dsshots"))


def test_a_daemonset_during_a_drain(page: Page, artifacts: Path) -> None:
    errors = collect_errors(page)
    open_scenario(page, "daemonset-drain")
    expect(page.locator("#cluster")).to_be_visible()
    expect(page.locator(".cluster-pod")).to_have_count(6)
    expect(page.locator(".cluster-owner", has_text="DaemonSet/log-agent")).to_have_count(1)
    play(page, "10")
    wait_until_now(page, 45, timeout=30_000)
    agents = page.locator('.cluster-pod[data-pod^="log-agent-"][data-status="Running"]')
    expect(agents).to_have_count(3)
    page.click(".cluster-details summary")
    kubectl = page.locator("#cluster-kubectl")
    expect(kubectl).to_contain_text("$ kubectl get ds -n kube-system -o wide")
    expect(kubectl).to_contain_text("$ kubectl drain node-2\n")
    expect(kubectl).to_contain_text("cannot delete DaemonSet-managed Pods")
    expect(kubectl).to_contain_text("$ kubectl drain node-1 --ignore-daemonsets")
    expect(kubectl).to_contain_text(
        "Warning: ignoring DaemonSet-managed Pods: kube-system/log-agent-"
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "daemonset-drain.png"), full_page=True)
    page.screenshot(path=str(artifacts / "daemonset-drain.png"))
    assert errors == []
