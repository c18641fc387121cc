"""The page shows what each container does and its logs (issue 8), in English and 简体中文."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import (
    collect_errors,
    open_editor,
    open_scenario,
    pause,
    play,
    set_editor_text,
    wait_until_now,
)

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_derived_behaviour_beside_the_editor_in_both_languages(page: Page, artifacts: Path) -> None:
    errors = collect_errors(page)
    open_scenario(page, "liveness-exec")
    box = page.locator("#derived")
    container = box.locator('.derived-container[data-container="liveness"]')
    expect(container.locator(".derived-summary")).to_have_text(
        "creates /tmp/healthy; sleeps 30 s; removes /tmp/healthy; sleeps 600 s; "
        "then exits with the last command's status"
    )
    expect(container.locator(".derived-stop")).to_contain_text("PID 1 is sleep")
    expect(container.locator(".derived-argv")).to_have_text(
        "/bin/sh -c touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"
    )
    page.click('.lang-button[data-lang="zh"]')
    expect(container.locator(".derived-summary")).to_contain_text("创建 /tmp/healthy")
    expect(page.locator("#derived-heading")).to_have_text("每个容器在做什么")
    page.screenshot(path=str(artifacts / "derived-zh.png"))
    page.click('.lang-button[data-lang="en"]')
    assert errors == []


def test_not_modelled_command_is_a_located_warning(page: Page) -> None:
    open_scenario(page, "plain-pod")
    set_editor_text(
        page,
        (
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
            "  - name: app\n    image: debian:12\n    command:\n    - sh\n    - -c\n"
            "    - java -jar /app.jar\n"
        ),
    )
    page.click("#start-over")  # a new scenario: a restart (issue 17)
    warning = page.locator('#derived .derived-warning[data-code="not_modelled"]')
    expect(warning).to_contain_text("not modelled: “java” is treated as a long-running process")
    expect(warning).to_contain_text("command[2], script line 1 column 1")
    goto = warning.locator(".error-goto")
    expect(goto).to_have_text("line 12")
    goto.click()
    page.click('.lang-button[data-lang="zh"]')
    expect(warning).to_contain_text("未建模")
    page.click('.lang-button[data-lang="en"]')


def test_logs_view_current_previous_and_timestamps(page: Page, artifacts: Path) -> None:
    errors = collect_errors(page)
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 30)
    pause(page)
    page.click("#tab-logs")
    logs = page.locator("#kubectl-logs")
    expect(logs).to_contain_text("$ kubectl logs web -c app --tail=200")
    expect(page.locator("#logs-container")).to_have_value("app")
    page.check("#logs-previous")
    expect(logs).to_contain_text("$ kubectl logs web -c app --previous --tail=200")
    expect(logs).to_contain_text("connecting to database...")
    expect(logs).to_contain_text("fatal: DB_HOST is not set")
    page.check("#logs-timestamps")
    expect(logs).to_contain_text(
        re.compile(r"2026-01-01T00:00:\d\d(\.\d+)?Z connecting to database\.\.\.")
    )
    page.screenshot(path=str(artifacts / "logs-en.png"))
    page.click('.lang-button[data-lang="zh"]')
    expect(page.locator("#tab-logs")).to_have_text("日志")
    assert CJK.search(page.locator("label:has(#logs-container)").inner_text())
    page.click('.lang-button[data-lang="en"]')
    assert errors == []


def test_logs_previous_is_not_kept_into_a_new_run_that_would_open_on_an_error(page: Page) -> None:
    """issue 20: --previous stayed ticked after Restart or another scenario, so the new run's
    logs opened on "previous terminated container ... not found"."""
    errors = collect_errors(page)
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 30)
    pause(page)
    page.click("#tab-logs")
    logs = page.locator("#kubectl-logs")
    page.check("#logs-previous")
    expect(logs).to_contain_text("fatal: DB_HOST is not set")
    page.click("#reset")
    page.wait_for_function("() => Number(document.body.dataset.now) < 1")
    expect(page.locator("#logs-previous")).not_to_be_checked()
    expect(logs).to_contain_text("$ kubectl logs web -c app --tail=200")
    expect(logs).not_to_contain_text("previous terminated container")
    assert errors == []


def test_logs_of_a_waiting_init_container_and_the_default_notice(page: Page) -> None:
    open_scenario(page, "init-wait-for-service")
    play(page, "10")
    wait_until_now(page, 20)
    pause(page)
    page.click("#tab-logs")
    logs = page.locator("#kubectl-logs")
    expect(logs).to_contain_text(
        'container "myapp-container" in pod "init-wait-for-service" is waiting to start: PodInitializing'
    )
    page.select_option("#logs-container", "init-mydb")
    expect(logs).to_contain_text("waiting for mydb")
    expect(logs).to_contain_text("nslookup: can't resolve 'mydb.default.svc.cluster.local'")


def test_transcript_carries_the_logs(page: Page) -> None:
    open_scenario(page, "crash-loop-backoff")
    play(page, "10")
    wait_until_now(page, 15)
    pause(page)
    page.click(".download summary")
    with page.expect_download() as info:
        page.click("#download-transcript")
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert "$ kubectl logs web -c app --tail=200" in text
    assert "connecting to database..." in text


def test_the_editor_does_not_say_the_scenario_is_running_while_it_holds_unapplied_edits(
    page: Page,
) -> None:
    """issue 20: "No errors: the scenario is running" stood beside edits not yet applied."""
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    summary = page.locator("#editor-summary")
    expect(summary).to_have_text("No errors: the scenario is running.")
    open_editor(page)
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n# an edit not applied yet\n")
    expect(summary).to_contain_text("Edited, not applied")
    expect(summary).not_to_contain_text("is running.")
    page.click('.lang-button[data-lang="zh"]')
    expect(summary).to_contain_text("尚未应用")
    page.click('.lang-button[data-lang="en"]')
    page.click("#apply")
    expect(summary).to_have_text("No errors: the scenario is running.")
    assert errors == []
