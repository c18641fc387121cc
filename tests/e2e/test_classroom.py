"""The classroom in real browsers: one teacher and three students (one in 简体中文), each in
a browser context of their own, against a live server (issue 9, "Done when")."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.pagekit import ANY, collect_errors

CODE = re.compile(r"^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6,8}$")


def body(page: Page, name: str) -> str:
    return page.get_attribute("body", f"data-{name}") or ""


def start_class(teacher: Page) -> str:
    teacher.goto("/?scenario=crash-loop-backoff")
    expect(teacher.locator("body")).to_have_attribute("data-session", ANY)
    teacher.click("#class-menu")
    teacher.click("#class-start")
    teacher.wait_for_url(re.compile(r"/c/[A-Z0-9]+/teach$"))
    assert "#key" not in teacher.url  # the key never stays in the address bar
    code = teacher.locator("#class-code-big").inner_text()
    assert CODE.match(code), code
    expect(teacher.locator("body")).to_have_attribute("data-class-role", "teacher")
    expect(teacher.locator("body")).to_have_attribute("data-session", ANY)
    # The tab had a run of its own: it says it switched to the class.
    expect(teacher.locator("#class-note")).to_have_text(f"This tab joined class {code}.")
    return code


def join_class(page: Page, code: str, name: str, *, by_code: bool) -> None:
    if by_code:
        page.goto("/")
        page.click("#class-menu")
        page.fill("#class-code", code.lower())
        page.click("#class-code-go")
        page.wait_for_url(re.compile(rf"/c/{code}$"))
    else:
        page.goto(f"/c/{code}")
    page.fill("#class-name", name)
    page.click("#class-name-go")
    expect(page.locator("body")).to_have_attribute("data-class-following", "true")
    expect(page.locator("body")).to_have_attribute("data-session", ANY)


def same_moment(teacher: Page, student: Page) -> None:
    """The student shows the teacher's second and STATUS (both paused)."""
    now, status = body(teacher, "now"), body(teacher, "status")
    expect(student.locator("body")).to_have_attribute("data-now", now)
    expect(student.locator("body")).to_have_attribute("data-status", status)


def test_a_class_with_one_teacher_and_three_students(
    browser: Browser, base_url: str, artifacts: Path
) -> None:
    contexts: list[BrowserContext] = []

    def context(locale: str = "en-US", **kwargs: object) -> Page:
        ctx = browser.new_context(base_url=base_url, locale=locale, **kwargs)  # type: ignore[arg-type]
        contexts.append(ctx)
        return ctx.new_page()

    try:
        teacher = context(viewport={"width": 1280, "height": 720})
        errors = collect_errors(teacher)
        code = start_class(teacher)
        expect(teacher.locator("#class-join-url")).to_have_text(re.compile(rf"/c/{code}$"))
        assert teacher.evaluate("document.getElementById('class-qr').naturalWidth") > 0

        ann = context()
        bob = context()
        mei = context("zh-CN")
        join_class(ann, code, "Ann", by_code=True)
        join_class(bob, code, "<b>Bob</b>", by_code=False)
        join_class(mei, code, "小梅", by_code=True)
        expect(mei.locator("#class-follow-state")).to_have_text("正在跟随老师")
        students = [ann, bob, mei]
        for student in students:
            assert body(student, "session") == body(teacher, "session")

        # Roster: three rows, names as text.
        rows = teacher.locator("#class-roster-body tr")
        expect(rows).to_have_count(3)
        expect(teacher.locator("#class-roster-body .class-name-cell").nth(1)).to_have_text(
            "<b>Bob</b>"
        )
        assert teacher.locator("#class-roster-body b").count() == 0

        # Follow: the teacher plays at 5x and pauses; every student is at the same second
        # with the same STATUS. (Paused well before second 30, where the scenario asks its
        # own question of the class: 5x leaves 5 s of wall time for the pause to land on a
        # loaded machine; at 10x from 12 s, 1.8 s was not always enough.)
        teacher.select_option("#speed", "5")
        teacher.click("#play")
        teacher.wait_for_function("() => Number(document.body.dataset.now) >= 5", timeout=20_000)
        teacher.click("#play")
        expect(teacher.locator("body")).to_have_attribute("data-playing", "false")
        for student in students:
            same_moment(teacher, student)

        # Fork and follow again.
        ann.click("#class-try")
        expect(ann.locator("body")).to_have_attribute("data-class-following", "false")
        expect(ann.locator("body")).not_to_have_attribute("data-session", body(teacher, "session"))
        assert body(ann, "now") == body(teacher, "now")
        expect(teacher.locator("#class-roster-body tr").first).to_contain_text("Your own copy")
        ann.click("#class-follow")
        expect(ann.locator("body")).to_have_attribute("data-session", body(teacher, "session"))
        same_moment(teacher, ann)

        # A question: asked, answered by all three, counted, revealed.
        teacher.fill("#class-ask-seconds", "20")
        teacher.click("#class-ask")
        for student in students:
            expect(student.locator("#class-question-text")).to_be_visible()
        expect(mei.locator("#class-question-text")).to_have_text("20 秒后 STATUS 会是什么？")
        for student in students:
            student.locator(".class-choice").first.click()
        expect(teacher.locator("#class-answered")).to_have_text("3 of 3 answered")
        counts = teacher.locator("#class-bars .class-bar").evaluate_all(
            "bars => bars.map(b => Number(b.dataset.count))"
        )
        assert counts[0] == 3 and sum(counts) == 3
        teacher.click("#class-reveal")
        for student in students:
            expect(student.locator("#class-revealed")).to_be_visible()
        # Who answered what: hidden until the teacher asks for it.
        question = "What will STATUS be in 20 seconds?"
        expect(teacher.locator("#class-roster-body tr").first).to_contain_text(f"{question} ✓")
        teacher.click("#class-show-answers")
        expect(teacher.locator("#class-roster-body tr").first).to_contain_text(f"{question}:")

        # Hand out: each student gets their own session, paused at second 5.
        teacher.fill("#class-handout-at", "5")
        teacher.click("#class-handout")
        sessions = set()
        for student in students:
            expect(student.locator("body")).to_have_attribute("data-class-following", "false")
            expect(student.locator("body")).to_have_attribute("data-now", "5")
            expect(student.locator("body")).to_have_attribute("data-playing", "false")
            sessions.add(body(student, "session"))
        assert len(sessions) == 3 and body(teacher, "session") not in sessions
        expect(mei.locator("#class-follow-state")).to_contain_text("老师发给你的场景")

        # Everyone follows again.
        teacher.click("#class-mode")  # free -> "Everyone follows me"
        for student in students:
            expect(student.locator("body")).to_have_attribute(
                "data-session", body(teacher, "session")
            )

        # Teacher reload and a student's dropped connection both rejoin.
        teacher.reload()
        expect(teacher.locator("body")).to_have_attribute("data-class-role", "teacher")
        expect(teacher.locator("#class-roster-body tr")).to_have_count(3)
        bob.context.set_offline(True)
        expect(bob.locator("body")).to_have_attribute("data-connected", "false", timeout=30_000)
        bob.context.set_offline(False)
        expect(bob.locator("body")).to_have_attribute("data-connected", "true", timeout=30_000)
        expect(bob.locator("body")).to_have_attribute("data-session", body(teacher, "session"))
        expect(teacher.locator("#class-roster-body tr").nth(1)).to_contain_text("yes")

        # Presenter mode: editor hidden, text and diagram at least 1.5x.
        normal = measure(teacher)
        teacher.click("#present-toggle")
        expect(teacher.locator("body")).to_have_attribute("data-present", "true")
        expect(teacher.locator("#editor")).to_be_hidden()
        present = measure(teacher)
        assert present["font"] >= 1.5 * normal["font"], (normal, present)
        # The diagram shrinks to fit the screen's height so that all five stages show
        # (issue 21; tests/e2e/test_class_presenter.py): never smaller than outside it.
        assert present["diagram"] >= normal["diagram"], (normal, present)
        teacher.screenshot(path=str(artifacts / "class-teacher-present-1280x720.png"))
        teacher.set_viewport_size({"width": 1920, "height": 1080})
        teacher.screenshot(path=str(artifacts / "class-teacher-present-1920x1080.png"))
        teacher.click("#present-toggle")
        teacher.evaluate("() => window.scrollTo(0, 0)")
        teacher.screenshot(path=str(artifacts / "class-teacher-1920x1080.png"), full_page=True)
        mei.set_viewport_size({"width": 1280, "height": 720})
        mei.evaluate("() => window.scrollTo(0, 0)")
        mei.screenshot(path=str(artifacts / "class-student-zh-1280x720.png"))
        # Keyboard: Space plays and pauses in presenter mode.
        teacher.click("#present-toggle")
        teacher.locator("#diagram").focus()
        teacher.keyboard.press(" ")
        expect(teacher.locator("body")).to_have_attribute("data-playing", "true")
        teacher.keyboard.press(" ")
        expect(teacher.locator("body")).to_have_attribute("data-playing", "false")
        assert not [e for e in errors if "favicon" not in e], errors
    finally:
        for ctx in contexts:
            ctx.close()


def measure(page: Page) -> dict[str, float]:
    return page.evaluate(
        """() => {
          const svg = document.getElementById('diagram-svg');
          const viewBox = svg.viewBox.baseVal.width;
          const title = svg.querySelector('.stage-title');
          return {
            font: parseFloat(getComputedStyle(document.querySelector('#status')).fontSize),
            diagram: svg.getBoundingClientRect().width / viewBox,
            title: title.getBoundingClientRect().height,
          };
        }"""
    )


def test_presenter_at_1280x720_with_200_percent_zoom(
    browser: Browser, base_url: str, artifacts: Path
) -> None:
    """200 % browser zoom at 1280x720 is a 640x360 CSS-pixel viewport at scale 2."""
    ctx = browser.new_context(
        base_url=base_url, viewport={"width": 640, "height": 360}, device_scale_factor=2
    )
    try:
        page = ctx.new_page()
        page.goto("/?scenario=crash-loop-backoff&present=1")
        expect(page.locator("body")).to_have_attribute("data-session", ANY)
        expect(page.locator("body")).to_have_attribute("data-present", "true")
        expect(page.locator("#editor")).to_be_hidden()
        expect(page.locator("#diagram-svg")).to_be_visible()
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 640, width  # no sideways scroll
        page.screenshot(path=str(artifacts / "class-present-1280x720-zoom200.png"))
    finally:
        ctx.close()


def test_a_scenario_question_alone_is_a_quiz(page: Page) -> None:
    page.goto("/?scenario=crash-loop-backoff")
    expect(page.locator("body")).to_have_attribute("data-session", ANY)
    page.select_option("#speed", "10")
    page.click("#play")
    expect(page.locator("#quiz-text")).to_be_visible(timeout=20_000)
    expect(page.locator("body")).to_have_attribute("data-playing", "false")  # the clock paused
    # Stopped at the question's second exactly, though the page's clock runs ahead of the
    # server's ticks (the server paused a little before it, under load).
    page.wait_for_function("() => Number(document.body.dataset.now) === 30", timeout=20_000)
    page.locator("#quiz .class-choice", has_text="CrashLoopBackOff").click()
    expect(page.locator("#quiz-result")).to_have_text("You answered right.")
    expect(page.locator("#quiz .class-choice.right")).to_have_text("CrashLoopBackOff")
    page.click("#quiz-close")
    expect(page.locator("#quiz")).to_be_hidden()
    # Played on, the run bears the answer out.
    page.click("#play")
    page.wait_for_function("() => Number(document.body.dataset.now) >= 41", timeout=20_000)
    page.click("#play")
    expect(page.locator("body")).to_have_attribute("data-status", "CrashLoopBackOff")


def test_the_scenarios_question_is_asked_of_the_class(browser: Browser, base_url: str) -> None:
    teacher_ctx = browser.new_context(base_url=base_url)
    student_ctx = browser.new_context(base_url=base_url, locale="zh-CN")
    try:
        teacher = teacher_ctx.new_page()
        code = start_class(teacher)
        student = student_ctx.new_page()
        join_class(student, code, "小明", by_code=False)
        teacher.select_option("#speed", "10")
        teacher.click("#play")
        # At second 30 the teacher's page asks the class; the run pauses for everyone.
        expect(student.locator("#class-question-text")).to_have_text(
            "应用刚刚第三次崩溃，kubelet 这次要先退避 20 秒再重启它。10 秒后 STATUS 会是什么？",
            timeout=20_000,
        )
        expect(teacher.locator("body")).to_have_attribute("data-playing", "false")
        student.locator(".class-choice", has_text="CrashLoopBackOff").click()
        expect(teacher.locator("#class-answered")).to_have_text("1 of 1 answered")
        teacher.click("#class-reveal")
        expect(student.locator("#class-revealed")).to_have_text("答案：CrashLoopBackOff")
        expect(student.locator("#class-question")).to_contain_text("你答对了。")
    finally:
        teacher_ctx.close()
        student_ctx.close()


def test_the_teacher_removes_a_student_from_the_roster(browser: Browser, base_url: str) -> None:
    """Issue 26, F4: the roster's Remove control; the removed tab is told in its language
    and may join again, the name being free."""
    contexts: list[BrowserContext] = []
    try:
        pages = []
        for locale in ("en-US", "zh-CN"):
            ctx = browser.new_context(base_url=base_url, locale=locale)
            contexts.append(ctx)
            pages.append(ctx.new_page())
        teacher, mei = pages
        code = start_class(teacher)
        join_class(mei, code, "小梅", by_code=False)
        rows = teacher.locator("#class-roster-body tr")
        expect(rows).to_have_count(1)
        teacher.once("dialog", lambda dialog: dialog.accept())
        teacher.click("#class-roster-body .class-remove")
        expect(teacher.locator("#class-roster-body td.hint")).to_be_visible()
        expect(mei.locator("#class-message")).to_have_text(re.compile("老师已将你移出课堂"))
        expect(mei.locator("body")).to_have_attribute("data-class-removed", "true")
        expect(mei.locator("#class-name-form")).to_be_visible()
        mei.fill("#class-name", "小梅")
        mei.click("#class-name-go")
        expect(mei.locator("body")).to_have_attribute("data-class-following", "true")
        expect(rows).to_have_count(1)
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_teacher_moves_with_the_teacher_link_and_with_the_pin(
    browser: Browser, base_url: str, artifacts: Path
) -> None:
    """Issue 21, item 1: Start a class shows the teacher link (copy, QR) and PIN; a fresh
    context opens the link and carries on; another types the PIN at /c/CODE/teach."""
    contexts: list[BrowserContext] = []

    def context(locale: str = "en-US", **kwargs: object) -> Page:
        ctx = browser.new_context(base_url=base_url, locale=locale, **kwargs)  # type: ignore[arg-type]
        contexts.append(ctx)
        return ctx.new_page()

    try:
        teacher = context(permissions=["clipboard-read", "clipboard-write"])
        code = start_class(teacher)
        access = teacher.locator("#class-access")
        expect(access).to_be_visible()
        link = teacher.locator("#class-teacher-link").input_value()
        assert re.fullmatch(rf"{re.escape(base_url)}/c/{code}/teach#key=[\w-]+&pin=\d{{6}}", link)
        pin = teacher.locator("#class-teacher-pin").inner_text()
        assert re.fullmatch(r"\d{6}", pin) and link.endswith(f"&pin={pin}")
        expect(teacher.locator("#class-teacher-qr")).to_be_visible()
        teacher.wait_for_function(
            "() => document.getElementById('class-teacher-qr').naturalWidth > 0"
        )
        teacher.click("#class-teacher-copy")
        expect(teacher.locator("#class-teacher-copied")).to_have_text("Copied.")
        assert teacher.evaluate("navigator.clipboard.readText()") == link
        teacher.screenshot(path=str(artifacts / "class-teacher-access.png"))
        teacher.click("#class-access-close")
        expect(access).to_be_hidden()
        teacher.click("#class-menu")
        teacher.click("#class-show-access")
        expect(access).to_be_visible()
        expect(teacher.locator("#class-teacher-link")).to_have_value(link)

        ann = context()
        join_class(ann, code, "Ann", by_code=False)
        student_html = ann.content()
        assert pin not in student_html and link.split("key=")[1].split("&")[0] not in student_html

        # A fresh context opens the teacher link and carries on there: asks, sees answers.
        laptop = context()
        laptop.goto(link)
        expect(laptop.locator("body")).to_have_attribute("data-class-role", "teacher")
        assert "#key" not in laptop.url
        expect(laptop.locator("#class-roster-body tr")).to_have_count(1)
        laptop.fill("#class-ask-seconds", "5")
        laptop.click("#class-ask")
        expect(ann.locator("#class-question-text")).to_be_visible()
        ann.locator(".class-choice").first.click()
        expect(laptop.locator("#class-answered")).to_have_text("1 of 1 answered")
        # Raise hand (issue 21, item 5): in the roster until the teacher lowers it.
        ann.click("#class-hand")
        expect(ann.locator("#class-hand")).to_have_attribute("aria-pressed", "true")
        expect(laptop.locator("#class-roster-body .class-lower")).to_be_visible()
        laptop.click("#class-roster-body .class-lower")
        expect(ann.locator("#class-hand")).to_have_attribute("aria-pressed", "false")
        expect(ann.locator("#class-hand")).to_have_text("Raise hand")
        expect(laptop.locator("#class-roster-body .class-lower")).to_have_count(0)
        laptop.click("#class-menu")
        laptop.click("#class-show-access")
        expect(laptop.locator("#class-teacher-pin")).to_have_text(pin)

        # A projector PC in 简体中文: the PIN, a wrong one first.
        projector = context("zh-CN")
        projector.goto(f"/c/{code}/teach")
        expect(projector.locator("#class-pin-form")).to_be_visible()
        projector.fill("#class-pin", "000000" if pin != "000000" else "111111")
        projector.click("#class-pin-go")
        expect(projector.locator("#class-message")).to_have_text(
            re.compile("这不是课堂 .* 的教师 PIN")
        )
        projector.fill("#class-pin", pin)
        projector.click("#class-pin-go")
        expect(projector.locator("body")).to_have_attribute("data-class-role", "teacher")
        expect(projector.locator("#class-answered")).to_have_text(re.compile("1"))
        projector.reload()  # the PIN is remembered in this browser
        expect(projector.locator("body")).to_have_attribute("data-class-role", "teacher")
        expect(projector.locator("#class-roster-body tr")).to_have_count(1)
        projector.click("#class-reveal")
        expect(ann.locator("#class-revealed")).to_be_visible()
        projector.click("#class-menu")
        projector.click("#class-show-access")
        expect(projector.locator("#class-teacher-nolink")).to_be_visible()
        expect(projector.locator("#class-teacher-link")).to_be_hidden()
        assert pin not in ann.content()
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_leftovers_of_a_real_class(browser: Browser, base_url: str) -> None:
    """Issue 21's leftovers: no stale "already called" after joining under another name; a
    hand-out clears the revealed question; "Let students explore" is visible to students;
    the roster names questions by their text; "End the class" turns every control off and
    nobody is online any more (both languages)."""
    contexts: list[BrowserContext] = []

    def context(locale: str = "en-US") -> Page:
        ctx = browser.new_context(base_url=base_url, locale=locale)
        contexts.append(ctx)
        return ctx.new_page()

    try:
        teacher = context()
        code = start_class(teacher)
        teacher.click("#class-access-close")
        alice = context()
        join_class(alice, code, "Alice", by_code=False)
        mei = context("zh-CN")
        mei.goto(f"/c/{code}")
        mei.fill("#class-name", "alice")
        mei.click("#class-name-go")
        expect(mei.locator("#class-message")).to_contain_text("alice")
        mei.fill("#class-name", "小梅")
        mei.click("#class-name-go")
        expect(mei.locator("body")).to_have_attribute("data-class-following", "true")
        expect(mei.locator("#class-message")).to_be_hidden()

        # "Let students explore": the student's page says so.
        teacher.click("#class-mode")
        expect(alice.locator("#class-follow-state")).to_contain_text("The teacher lets you explore")
        expect(mei.locator("#class-follow-state")).to_contain_text("老师允许你自由探索")
        expect(alice.locator("body")).to_have_attribute("data-class-mode", "free")

        # A question, answered and revealed; the roster names it by its text.
        teacher.fill("#class-ask-seconds", "5")
        teacher.click("#class-ask")
        alice.locator(".class-choice").first.click()
        expect(teacher.locator("#class-roster-body tr").first).to_contain_text(
            "What will STATUS be in 5 seconds? ✓"
        )
        teacher.click("#class-reveal")
        expect(alice.locator("#class-revealed")).to_be_visible()
        # A hand-out: the revealed question of the scenario before leaves the students' panels.
        teacher.click("#class-handout")
        expect(alice.locator("body")).to_have_attribute("data-class-following", "false")
        expect(alice.locator("#class-question")).to_be_hidden()
        expect(mei.locator("#class-question")).to_be_hidden()

        # End the class: every control off, nobody online, said in both languages.
        teacher.once("dialog", lambda dialog: dialog.accept())
        teacher.click("#class-end")
        expect(teacher.locator("#class-message")).to_have_text("This class has ended.")
        expect(mei.locator("#class-message")).to_have_text("这个课堂已经结束。")
        for page in (teacher, alice, mei):
            expect(page.locator("body")).to_have_attribute("data-class-ended", "true")
            enabled = page.evaluate(
                """() => [...document.querySelectorAll('#class-panel button, #class-panel input')]
                  .filter(c => !c.disabled && c.offsetParent !== null
                    && c.id !== 'class-access-close' && c.id !== 'class-watch-close')
                  .map(c => c.id || c.className)"""
            )
            assert enabled == [], enabled
        expect(teacher.locator("#class-roster-body tr").first).to_contain_text("no")
    finally:
        for ctx in contexts:
            ctx.close()
