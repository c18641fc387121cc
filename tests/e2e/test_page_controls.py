"""Starting again and switching scenarios in Chromium: Restart, values and messages that
must not outlive their run, the container's kind in Pod status (issue 11, defects 9-11, 18)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.pagekit import collect_errors, load_editor, open_scenario, play, set_editor_text


def test_restart_brings_a_deleted_pod_back_from_second_zero(page: Page) -> None:
    errors = collect_errors(page)
    open_scenario(page, "plain-pod")
    body = page.locator("body")
    session = body.get_attribute("data-session")
    play(page, "10")
    expect(body).to_have_attribute("data-phase", "Running", timeout=15_000)
    page.fill("#grace", "0")
    page.check("#force")
    page.click("#delete")
    expect(body).to_have_attribute("data-status", "Gone", timeout=15_000)
    expect(page.locator("#delete")).to_be_disabled()
    # A Pod scenario has no other Pod: the note says how to start again.
    expect(page.locator(".control-note")).to_have_text(
        "The Pod is gone: press ↺ Restart, choose a scenario or Apply to start again."
    )
    # Choosing the same scenario in the picker fires no change; Restart is the way back.
    expect(page.locator("#reset")).to_have_text("↺ Restart")
    page.click("#reset")
    expect(body).to_have_attribute("data-now", "0")
    expect(body).to_have_attribute("data-playing", "false")
    expect(body).to_have_attribute("data-status", re.compile(r"^(Pending|ContainerCreating)$"))
    expect(body).to_have_attribute("data-outcome", "")
    expect(page.locator("#delete")).to_be_enabled()
    expect(page.locator(".control-note")).to_have_text("")
    expect(page.locator("#grace")).to_have_value("")
    expect(page.locator("#force")).not_to_be_checked()
    assert body.get_attribute("data-session") == session, "the same session, a new history"
    expect(page.locator("#scenario-picker")).to_have_value("plain-pod")
    play(page, "10")
    expect(body).to_have_attribute("data-phase", "Running", timeout=15_000)
    assert errors == []


def test_switching_scenario_forgets_typed_values_and_the_last_refusal(page: Page) -> None:
    open_scenario(page, "crash-loop-backoff")
    page.fill("#grace", "5")
    page.check("#force")
    page.fill("#exit-code", "7")
    # Crashing a container that is not running yet is refused by the engine.
    page.click("#crash")
    message = page.locator("#server-message")
    expect(message).to_contain_text("not running")
    page.select_option("#scenario-picker", "plain-pod")
    expect(page.locator("#lesson-title")).to_contain_text("plain Pod")
    expect(message).to_be_empty()
    expect(page.locator("#grace")).to_have_value("")
    expect(page.locator("#force")).not_to_be_checked()
    expect(page.locator("#exit-code")).to_have_value("1")


def test_pod_status_names_the_container_and_its_kind_apart(page: Page) -> None:
    open_scenario(page, "sidecar")
    page.click("#step")
    cards = page.locator("#container-list .container-card")
    expect(cards.first).to_be_visible()
    kinds = page.locator("#container-list .container-kind").all_text_contents()
    assert "app container" in kinds and "sidecar container" in kinds, kinds
    app = page.locator('#container-list .container-card[data-container="app"] .container-head')
    expect(app).not_to_have_text(re.compile(r"app\s*app\b"))
    page.click('.lang-button[data-lang="zh"]')
    expect(page.locator("#container-list .container-kind").first).to_contain_text("容器")
    page.click('.lang-button[data-lang="en"]')


def editor_text(page: Page) -> str:
    load_editor(page)
    return page.evaluate(
        """async () => {
          const { EditorView } = await import('/static/vendor/codemirror.bundle.js');
          const dom = document.querySelector('#yaml-editor').shadowRoot.querySelector('.cm-editor');
          return EditorView.findFromDOM(dom).state.doc.toString();
        }"""
    )


def test_unapplied_yaml_edits_are_offered_back_after_a_reload(page: Page) -> None:
    open_scenario(page, "plain-pod")
    original = editor_text(page)
    edited = original.replace("image: nginx:1.27", "image: nginx:1.28")
    assert edited != original
    set_editor_text(page, edited)
    session = page.get_attribute("body", "data-session")
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-session", session or "")
    offer = page.locator("#draft-offer")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text("never applied")
    assert editor_text(page) == original, "the run's own text until the learner says otherwise"
    page.click("#draft-restore")
    expect(offer).to_be_hidden()
    assert editor_text(page) == edited
    # Still not applied: a second reload offers it again; Discard forgets it.
    page.reload()
    expect(offer).to_be_visible()
    page.click("#draft-discard")
    expect(offer).to_be_hidden()
    assert editor_text(page) == original
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-session", session or "")
    expect(page.locator("#lesson-title")).not_to_be_empty()
    expect(offer).to_be_hidden()


def test_an_applied_edit_is_not_offered_again(page: Page) -> None:
    open_scenario(page, "plain-pod")
    edited = editor_text(page).replace("image: nginx:1.27", "image: nginx:1.28")
    set_editor_text(page, edited)
    page.click("#apply")
    expect(page.locator("#editor-summary")).to_contain_text("No errors")
    page.reload()
    expect(page.locator("#lesson-title")).not_to_be_empty()
    expect(page.locator("#draft-offer")).to_be_hidden()
    assert editor_text(page) == edited


def test_the_scenario_picker_speaks_the_page_language(page: Page) -> None:
    """The page asks for the list in its own language and again after a switch."""
    open_scenario(page, "plain-pod")
    option = page.locator('#scenario-picker option[value="plain-pod"]')
    expect(option).to_have_text(re.compile(r"plain Pod", re.I))
    page.click('.lang-button[data-lang="zh"]')
    expect(option).to_have_text("一个普通的 Pod：从提交到 Running")
    page.click('.lang-button[data-lang="en"]')
    expect(option).to_have_text(re.compile(r"plain Pod", re.I))
