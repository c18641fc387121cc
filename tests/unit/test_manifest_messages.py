"""The message catalogue: every code in English and Simplified Chinese, and localize_errors."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

import webapp.manifest
from webapp.manifest import ScenarioError, localize_errors, parse_scenario
from webapp.manifest.messages import MESSAGES, render

PACKAGE = Path(webapp.manifest.__file__).parent
# Functions whose string positional argument is an error code.
CODE_TAKERS = {"Finding", "located_error", "_refuse", "_error", "_extra"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def codes_used_in_source() -> set[str]:
    codes: set[str] = set()
    for source in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in CODE_TAKERS:
                codes.update(
                    arg.value
                    for arg in node.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                )
    return codes


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def test_every_code_the_package_raises_has_a_message() -> None:
    used = codes_used_in_source()
    assert len(used) > 30
    assert used <= set(MESSAGES)


@pytest.mark.parametrize("code", sorted(MESSAGES))
def test_code_has_english_and_chinese_with_the_same_placeholders(code: str) -> None:
    templates = MESSAGES[code]
    assert set(templates) == {"en", "zh"}
    assert CJK.search(templates["zh"]), "the Chinese template should be written in Chinese"
    assert not CJK.search(templates["en"])
    assert placeholders(templates["en"]) == placeholders(templates["zh"])


WRONG_PORT = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  restartPolicy: Sometimes
  containers:
  - name: app
    image: nginx:1.27
    ports:
    - containerPort: "80"
"""


def scenario_errors(text: str) -> list[dict]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text)
    return caught.value.errors


def test_localize_to_chinese_keeps_field_names_and_values() -> None:
    chinese = [e["message"] for e in localize_errors(scenario_errors(WRONG_PORT), "zh")]
    assert chinese == [
        '不允许使用 "Sometimes"；可用的值有：Always、OnFailure、Never',
        "类型错误：应为整数，实际是字符串",
    ]


def test_localize_returns_copies_and_keeps_everything_but_the_message() -> None:
    errors = scenario_errors(WRONG_PORT)
    before = [dict(e) for e in errors]
    chinese = localize_errors(errors, "zh")
    assert errors == before
    for original, translated in zip(errors, chinese, strict=True):
        assert {k: v for k, v in translated.items() if k != "message"} == {
            k: v for k, v in original.items() if k != "message"
        }


@pytest.mark.parametrize("language", ["en", "fr", ""])
def test_unknown_language_falls_back_to_english(language: str) -> None:
    errors = scenario_errors(WRONG_PORT)
    assert [e["message"] for e in localize_errors(errors, language)] == [
        e["message"] for e in errors
    ]


@pytest.mark.parametrize(
    ("code", "params", "english", "chinese"),
    [
        (
            "unknown_field_suggest",
            {"field": "labelz", "suggestion": "labels"},
            'unknown field "labelz" (did you mean "labels"?)',
            '未知字段 "labelz"（你是不是想写 "labels"？）',
        ),
        (
            "wrong_type",
            {"expected": "boolean", "found": "string"},
            "expected a boolean (true or false), got string",
            "类型错误：应为布尔值（true 或 false），实际是字符串",
        ),
        (
            "not_a_mapping",
            {"value_type": "list"},
            "a document must be a mapping of fields (apiVersion, kind, ...), not a list",
            "文档必须是由字段（apiVersion、kind 等）组成的映射，而不是列表",
        ),
        (
            "handler_missing",
            {"handler_of": "probe", "handlers": ["exec", "httpGet"]},
            "the probe needs one action: exec, httpGet",
            "探针需要指定一种动作：exec、httpGet",
        ),
        (
            "apply_yaml_invalid",
            {
                "count": 1,
                "line": 3,
                "column": 1,
                "error": {"code": "required", "params": {"field": "kind"}},
            },
            'the yaml to apply has 1 error(s); the first, at its line 3 column 1: required field "kind" is missing',
            '要 apply 的 yaml 中有 1 个错误；第一个在其第 3 行第 1 列：缺少必填字段 "kind"',
        ),
    ],
)
def test_render_in_both_languages(code: str, params: dict, english: str, chinese: str) -> None:
    assert render(code, params, "en") == english
    assert render(code, params, "zh") == chinese


def test_every_error_of_a_broken_scenario_renders_in_chinese() -> None:
    text = WRONG_PORT + "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: x}\n"
    text += "containers: {db: {}}\nscript: [{at: -1, action: boom}]\n"
    for error in localize_errors(scenario_errors(text), "zh"):
        assert CJK.search(error["message"]), error
        assert "{" not in error["message"]
