"""`kubectl exec -it liveness-exec -- sh` in the page's Terminal tab, in Chromium: the shell's
prompt replaces `$ `, each line runs in the container (the docs' liveness example: `rm
/tmp/healthy` at the prompt makes the probe fail and the kubelet restart the container),
`exit` gives kubectl's prompt back; Ctrl+C at the prompt drops the line, Tab completes
nothing of kubectl's there, ↑ recalls; and the page's non-interactive exec prints what the
real kubectl 1.37 prints against the same session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_page_terminal import (
    kubeconfig_for,
    kubectl_installed,  # noqa: F401  (the fixture)
    real_kubectl,
    restarted_by_liveness,
    running_liveness,
    typed,
)


def at_prompt(page: Page, line: str, prompt: str) -> dict[str, str]:
    """Type `line` at the open shell's prompt and wait until the shell answers it."""
    terminal = page.locator("#terminal-input")
    blocks = page.locator("#terminal-output .term-block")
    before = blocks.count()
    terminal.fill(line)
    terminal.press("Enter")
    block = blocks.nth(before)
    expect(block).to_have_class(re.compile("is-done"))
    expect(block.locator(".term-command")).to_have_text(prompt + line)
    return page.evaluate(
        """i => {
            const b = document.querySelectorAll('#terminal-output .term-block')[i];
            const part = (s) => [...b.querySelectorAll(`[data-stream=${s}]`)].map(e => e.textContent).join('');
            return {stdout: part('stdout'), stderr: part('stderr')};
        }""",
        before,
    )


def test_a_shell_at_the_prompt_removes_the_file_and_the_probe_restarts_the_container(
    page: Page,
) -> None:
    running_liveness(page)
    terminal = page.locator("#terminal-input")
    prompt = page.locator("#terminal-prompt")
    expect(prompt).to_have_text("$")
    terminal.fill("kubectl exec -it liveness-exec -- sh")
    terminal.press("Enter")
    expect(prompt).to_have_text("/ #")
    expect(page.locator("#terminal-hint")).to_contain_text("exit or Ctrl+D")
    assert at_prompt(page, "ls /tmp", "/ # ") == {"stdout": "healthy\n", "stderr": ""}
    # Tab completes nothing of kubectl's in the shell; Ctrl+C drops the line
    terminal.fill("kub")
    terminal.press("Tab")
    expect(terminal).to_have_value("kub")
    terminal.press("Control+c")
    expect(terminal).to_have_value("")
    expect(page.locator("#terminal-output .term-block").last).to_have_text("/ # kub^C")
    expect(prompt).to_have_text("/ #")
    assert at_prompt(page, "rm /tmp/healthy", "/ # ") == {"stdout": "", "stderr": ""}
    terminal.press("ArrowUp")
    expect(terminal).to_have_value("rm /tmp/healthy")
    assert at_prompt(page, "ls /tmp", "/ # ") == {"stdout": "", "stderr": ""}
    blocks = page.locator("#terminal-output .term-block")
    before = blocks.count()
    terminal.fill("exit")
    terminal.press("Enter")
    expect(blocks.nth(before)).to_have_attribute("data-exit-code", "0")
    expect(prompt).to_have_text("$")
    exec_block = page.locator(
        "#terminal-output .term-block", has_text="kubectl exec -it liveness-exec -- sh"
    )
    expect(exec_block).to_have_attribute("data-exit-code", "0")
    # the shell's rm is the container's: three failed probes, and the kubelet restarts it
    events = restarted_by_liveness(page)
    expect(events).to_contain_text("Container liveness failed liveness probe, will be restarted")


def test_exit_n_prints_kubectls_line_and_a_missing_bash_is_the_runtimes_error(page: Page) -> None:
    running_liveness(page)
    terminal = page.locator("#terminal-input")
    terminal.fill("kubectl exec -it liveness-exec -- sh")
    terminal.press("Enter")
    expect(page.locator("#terminal-prompt")).to_have_text("/ #")
    at_prompt(page, "cd /tmp", "/ # ")
    assert at_prompt(page, "pwd", "/tmp # ") == {"stdout": "/tmp\n", "stderr": ""}
    assert typed(page, "exit 3") == {
        "stdout": "",
        "stderr": "command terminated with exit code 3\n",
        "code": "3",
    }
    got = typed(page, "kubectl exec -it liveness-exec -- bash")
    assert got["code"] == "126" and got["stderr"].endswith(
        'exec: "bash": executable file not found in $PATH: unknown\ncommand terminated with exit code 126\n'
    )
    expect(page.locator("#terminal-prompt")).to_have_text("$")


@pytest.mark.usefixtures("kubectl_installed")
def test_the_pages_exec_prints_what_the_real_kubectl_prints(page: Page, tmp_path: Path) -> None:
    running_liveness(page)
    kubeconfig = kubeconfig_for(page, tmp_path)
    for line in ("exec liveness-exec -- ls /tmp", "exec liveness-exec -- cat /nope",
                 "exec -t liveness-exec -- ls /tmp", "exec liveness-exec -- bash"):  # fmt: skip
        page_said = typed(page, f"kubectl {line}")
        real = real_kubectl(kubeconfig, tmp_path, line)
        if "bash" in line:  # the exec id in containerd's words is the session's instant's
            page_said["stderr"] = re.sub(r'exec "[0-9a-f]+"', 'exec "…"', page_said["stderr"])
            real["stderr"] = re.sub(r'exec "[0-9a-f]+"', 'exec "…"', real["stderr"])
        assert page_said == real, line
