"""The task lessons in the page (issue 19, item 3), in Chromium, done by typing only
kubectl commands into the Terminal tab: each task shows as a task, its hints come one by
one, a wrong fix leaves it not done, the right one marks it done ("Task ✓ done") and the
steps after it come. The same runs as tests/web/test_task_lessons.py (LESSONS), with the
page's own clock: played at 10x to each moment, paused while the learner types."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pagekit import now, open_scenario, pause, play, wait_until_now
from tests.e2e.test_page_terminal import open_terminal, typed
from tests.web.test_task_lessons import LESSONS, TASK_LESSONS

DONE = "#lesson-steps .lesson-task.is-done"


def to(page: Page, seconds: float) -> None:
    """The page's clock at `seconds` (played at 10x, then paused)."""
    if now(page) < seconds:
        play(page, "10")
        wait_until_now(page, seconds, timeout=60_000)
        pause(page)


@pytest.mark.parametrize("scenario", TASK_LESSONS)
def test_a_task_lesson_is_done_in_the_page_by_typing_kubectl(page: Page, scenario: str) -> None:
    open_scenario(page, scenario)
    pause(page)
    open_terminal(page)
    to(page, LESSONS[scenario][0][0])  # the first task has come
    first = page.locator("#lesson-steps .lesson-task").first
    expect(first).to_be_visible()
    expect(first.locator(".lesson-when")).to_have_text("Task")
    # Its hints, one a click, never all at once.
    hint = first.locator(".lesson-hint-button")
    expect(hint).to_have_text(re.compile(r"Hint 1 of \d"))
    hint.click()
    expect(first.locator(".lesson-hint")).to_have_count(1)
    expect(page.locator("#lesson .lesson-waiting")).to_contain_text("Do the task to go on")
    # the second task comes only once the first is done
    expect(page.locator("#lesson-steps .lesson-task")).to_have_count(1)
    for seconds, line in LESSONS[scenario]:
        to(page, seconds)
        if line == "FIX":
            # The wrong fix was not counted: the last task is there, not done.
            expect(page.locator("#lesson-steps .lesson-task").last).not_to_have_class(
                re.compile("is-done")
            )
            expect(page.locator(DONE)).to_have_count(
                1 if scenario == "task-drain-pdb" else count_before_fix(scenario)
            )
            continue
        if line == "^C":
            page.locator("#terminal-input").press("Control+c")
            continue
        if not line:
            continue
        if "{crashing}" in line or "{pending}" in line:
            pods = typed(page, "kubectl get pods")["stdout"]
            key = "crashing" if "{crashing}" in line else "pending"
            pattern = (
                r"api-\w+-\w+(?=\s+0/1)"
                if key == "crashing"
                else r"web-\w+-\w+(?=\s+0/1\s+Pending)"
            )
            found = re.search(pattern, pods)
            assert found, pods
            line = line.format(**{key: found.group(0)})
        if line.startswith("kubectl drain") and "--timeout" in line:
            page.locator("#terminal-input").fill(line)  # it goes on: ^C (the next entry) stops it
            page.locator("#terminal-input").press("Enter")
            expect(page.locator("#terminal-output .term-block").last).to_contain_text(
                "evicting pod"
            )
            continue
        if line == "kubectl drain node-1":  # it waits for the evicted Pod: the clock plays
            page.locator("#terminal-input").fill(line)
            page.locator("#terminal-input").press("Enter")
            play(page, "10")
            expect(page.locator("#terminal-output .term-block").last).to_contain_text(
                "drained", timeout=60_000
            )
            pause(page)
            continue
        typed(page, line)
    to(page, LESSONS[scenario][-1][0] + 1)
    total = len(LESSON_TASKS[scenario])
    expect(page.locator(DONE)).to_have_count(total, timeout=30_000)
    expect(page.locator(DONE).last.locator(".lesson-when")).to_have_text("Task ✓ done")
    expect(page.locator("#lesson .lesson-waiting")).not_to_contain_text("Do the task")


def count_before_fix(scenario: str) -> int:
    return len(LESSON_TASKS[scenario]) - 1


def _tasks(name: str) -> list[int]:
    from tests.web.test_task_lessons import ROOT
    from webapp.manifest import parse_scenario

    text = (ROOT / "scenarios" / "tasks" / f"{name}.yaml").read_text()
    lesson = parse_scenario(text).simulation["lesson"]
    return [i for i, s in enumerate(lesson) if s.get("task")]


LESSON_TASKS = {name: _tasks(name) for name in TASK_LESSONS}


def test_a_task_reads_in_chinese(page: Page) -> None:
    open_scenario(page, "task-node-selector")
    page.click('.lang-button[data-lang="zh"]')
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    pause(page)
    open_terminal(page)
    task = page.locator("#lesson-steps .lesson-task").first
    expect(task.locator(".lesson-when")).to_have_text("任务")
    expect(task.locator(".lesson-text")).to_contain_text("只用 kubectl")
    expect(task.locator(".lesson-hint-button")).to_have_text("提示 1/2")
    typed(page, "kubectl describe pod ssd-app")
    expect(page.locator(DONE).first.locator(".lesson-when")).to_have_text("任务 ✓ 已完成")
