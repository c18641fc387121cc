"""Apply is kubectl apply (issue 17 item 3), in Chromium: the docs' nginx-deployment
(deployment.md), started, played 30 s, then applied with nginx:1.16.1 rolls out revision 2
while the clock goes on; the page shows kubectl's line and says the run was not restarted;
`kubectl get pods,rs,...` in the page shows both ReplicaSets with deployment.md's counts.
"Start over from this YAML" is the explicit restart, and says so."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import (
    collect_errors,
    now,
    open_scenario,
    pause,
    play,
    set_editor_text,
    wait_until_now,
)

ROOT = Path(__file__).resolve().parents[2]
# kubernetes/website content/en/examples/controllers/nginx-deployment.yaml
NGINX = (ROOT / "tests" / "unit" / "data" / "docs" / "nginx-deployment.yaml").read_text(
    encoding="utf-8"
)
NEW_RS = re.compile(
    r"replicaset\.apps/nginx-deployment-\S+\s+3\s+3\s+3\s+\S+\s+nginx\s+nginx:1\.16\.1"
)
OLD_RS = re.compile(
    r"replicaset\.apps/nginx-deployment-\S+\s+0\s+0\s+0\s+\S+\s+nginx\s+nginx:1\.14\.2"
)


def lowest_now_from_here(page: Page) -> None:
    """Record the lowest virtual second the page shows from now on (a restart would show 0)."""
    page.evaluate("""() => {
      window.__lowestNow = Number(document.body.dataset.now);
      new MutationObserver(() => {
        window.__lowestNow = Math.min(window.__lowestNow, Number(document.body.dataset.now));
      }).observe(document.body, { attributes: true, attributeFilter: ["data-now"] });
    }""")


def test_apply_rolls_out_revision_2_without_the_clock_going_back(
    page: Page, artifacts: Path
) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    set_editor_text(page, NGINX)
    page.click("#start-over")
    expect(page.locator("#apply-mode")).to_have_text(
        "Started over from this YAML: a new run from second 0."
    )
    expect(page.locator(".cluster-pod")).to_have_count(3)
    play(page, "10")
    wait_until_now(page, 30, timeout=30_000)
    pause(page)
    expect(page.locator('.cluster-pod[data-status="Running"]')).to_have_count(3)
    before = now(page)
    assert before >= 30
    lowest_now_from_here(page)
    set_editor_text(page, NGINX.replace("nginx:1.14.2", "nginx:1.16.1"))
    page.click("#apply")
    lines = page.locator("#apply-lines")
    expect(lines).to_contain_text("deployment.apps/nginx-deployment configured")
    # the scenario's objects were created without kubectl's annotation, as `kubectl create`
    expect(lines).to_contain_text(
        "Warning: resource deployments/nginx-deployment is missing the "
        "kubectl.kubernetes.io/last-applied-configuration annotation"
    )
    expect(page.locator("#apply-mode")).to_have_text(
        re.compile(
            r"^kubectl apply changed the running cluster at \d+(\.\d)? s; the clock goes on:$"
        )
    )
    expect(page.locator("#editor-summary")).to_have_text("No errors: the scenario is running.")
    play(page, "10")
    wait_until_now(page, before + 60, timeout=40_000)
    pause(page)
    assert page.evaluate("window.__lowestNow") >= before  # the clock never went back
    page.click(".cluster-details summary")
    kubectl = page.locator("#cluster-kubectl")
    expect(kubectl).to_contain_text(NEW_RS)
    expect(kubectl).to_contain_text(OLD_RS)
    expect(kubectl).to_contain_text('deployment "nginx-deployment" successfully rolled out')
    expect(page.locator(".cluster-revision")).to_contain_text(["revision 2"])
    page.click('.lang-button[data-lang="zh"]')
    expect(page.locator("#apply-mode")).to_contain_text("kubectl 在第")
    expect(page.locator("#start-over")).to_have_text("从这份 YAML 重新开始")
    page.click('.lang-button[data-lang="en"]')
    page.screenshot(path=str(artifacts / "apply-revision-2.png"))
    # Applying the same text again: kubectl's "unchanged".
    page.click("#apply")
    expect(lines).to_have_text("deployment.apps/nginx-deployment unchanged")
    assert errors == []


def test_an_api_refusal_is_shown_and_the_run_goes_on(page: Page) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    play(page, "10")
    wait_until_now(page, 5)
    pause(page)
    before = now(page)
    text = (ROOT / "scenarios" / "plain-pod.yaml").read_text(encoding="utf-8")
    edited = text.replace("- containerPort: 80\n", "- containerPort: 8080\n")
    assert edited != text
    set_editor_text(page, edited)
    page.click("#apply")
    summary = page.locator("#editor-summary")
    expect(summary).to_contain_text('The Pod "')
    expect(summary).to_contain_text(
        "is invalid: spec: Forbidden: pod updates may not change fields other than "
        "`spec.containers[*].image`"
    )
    assert now(page) >= before
    assert errors == []
