"""Pages and the JSON API besides share links; the server's message catalogue."""

from __future__ import annotations

import re

import pytest
from flask import Flask

from webapp import i18n


def test_the_builtin_scenarios_are_listed_with_titles_in_both_languages(app: Flask) -> None:
    response = app.test_client().get("/api/scenarios")
    assert response.status_code == 200
    listing = response.json
    names = [item["name"] for item in listing]
    assert "plain-pod" in names
    for item in listing:
        assert set(item) == {"name", "title", "description"}
        assert item["title"]["en"] and item["title"]["zh"]
        assert item["description"]["en"] and item["description"]["zh"]


def test_the_list_can_be_asked_for_in_one_language(app: Flask) -> None:
    client = app.test_client()
    both = {item["name"]: item for item in client.get("/api/scenarios").json}
    for lang in ("en", "zh"):
        listing = client.get(f"/api/scenarios?lang={lang}").json
        assert [item["name"] for item in listing] == list(both)
        for item in listing:
            assert item["title"] == {lang: both[item["name"]]["title"][lang]}
            assert item["description"] == {lang: both[item["name"]]["description"][lang]}
    refused = client.get("/api/scenarios?lang=fr", headers={"Accept-Language": "zh-CN"})
    assert refused.status_code == 400
    assert refused.json["code"] == "bad_request" and "语言" in refused.json["message"]
    assert refused.json["errors"][0]["path"] == "lang"


def test_a_builtin_scenario_opens_by_name(app: Flask) -> None:
    response = app.test_client().get("/?scenario=plain-pod")
    assert response.status_code == 200


def test_an_unknown_scenario_name_is_a_404_page_that_shows_the_name_as_text(
    app: Flask,
) -> None:
    response = app.test_client().get("/?scenario=<script>alert(1)</script>")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_any_unknown_page_is_the_friendly_404(app: Flask) -> None:
    response = app.test_client().get("/no/such/page", headers={"Accept-Language": "zh"})
    assert response.status_code == 404
    assert "页面不存在" in response.get_data(as_text=True)
    assert response.headers["Content-Security-Policy"]


def test_unknown_api_paths_answer_json(app: Flask) -> None:
    response = app.test_client().get("/api/nothing")
    assert response.status_code == 404
    assert response.json["code"] == "not_found"


def test_the_404_page_loads_only_our_stylesheet(app: Flask) -> None:
    html = app.test_client().get("/s/zzzzzzzzzzzzzzzz").get_data(as_text=True)
    refs = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert "/static/css/base.css" in refs
    assert all(ref.startswith("/") for ref in refs)
    assert "<script" not in html


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("en-US,en;q=0.9,zh;q=0.8", "en"),
        ("fr-FR,zh-TW;q=0.5", "zh"),
        ("de, en;q=0.1, zh;q=0.2", "zh"),
        ("zh;q=0, en", "en"),
        ("ZH-hans", "zh"),
        ("*", "en"),
        ("zh;q=abc", "en"),
    ],
)
def test_negotiate_language(header: str | None, expected: str) -> None:
    assert i18n.negotiate_language(header) == expected


def test_every_server_message_exists_in_both_languages() -> None:
    for catalogue in (i18n.CATALOGUE, i18n.PROBLEMS):
        for code, entry in catalogue.items():
            assert set(entry) == set(i18n.LANGUAGES), code
            en_fields = set(re.findall(r"{(\w+)}", entry["en"]))
            assert en_fields == set(re.findall(r"{(\w+)}", entry["zh"])), code


def test_a_message_with_a_missing_parameter_still_renders() -> None:
    assert i18n.message("bad_speed", "zh") == i18n.CATALOGUE["bad_speed"]["zh"]
    assert i18n.message("no_such_code", "en") == i18n.CATALOGUE["internal_error"]["en"]
