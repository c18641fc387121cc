"""Names checked as the API server checks them, a missing image shown at its container, and
YAML syntax errors in 简体中文 (issue 11, defect 13)."""

from __future__ import annotations

import pytest

from webapp.manifest import ScenarioError, localize_errors, parse_objects, parse_scenario
from webapp.manifest.messages import YAML_PROBLEMS_ZH

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def pod(name: str = "web", container: str = "app", image_line: str = "    image: nginx\n") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n"
        f"  name: {name}\nspec:\n  containers:\n  - name: {container}\n{image_line}"
    )


def errors_of(text: str, objects: bool = False) -> list[dict]:
    with pytest.raises(ScenarioError) as caught:
        (parse_objects if objects else parse_scenario)(text)
    return caught.value.errors


def test_an_invalid_pod_name_gets_the_api_servers_message_at_the_value() -> None:
    [error] = errors_of(pod(name="Invalid_Name"))
    assert (error["path"], error["line"], error["column"]) == ("metadata.name", 4, 9)
    assert error["code"] == "dns1123_subdomain"
    assert error["message"] == f'Invalid value: "Invalid_Name": {SUBDOMAIN}'
    [zh] = localize_errors([error], "zh")
    assert zh["message"].startswith('无效的值 "Invalid_Name"：小写的 RFC 1123 子域名')
    assert "[a-z0-9]([-a-z0-9]*[a-z0-9])?" in zh["message"]


@pytest.mark.parametrize("name", ["web", "web-1", "my.pod.example", "0abc", "a"])
def test_valid_subdomain_names_pass(name: str) -> None:
    parse_scenario(pod(name=name))


@pytest.mark.parametrize("name", ["Web", "web_1", "-web", "web-", "web..x", ".web", "wéb"])
def test_invalid_subdomain_names_are_refused(name: str) -> None:
    codes = [e["code"] for e in errors_of(pod(name=f'"{name}"'))]
    assert codes == ["dns1123_subdomain"]


def test_too_long_is_said_beside_the_pattern_as_kubernetes_does() -> None:
    long_ok = "a" * 254
    errors = errors_of(pod(name=long_ok))
    assert [e["code"] for e in errors] == ["max_length"]
    assert (
        errors[0]["message"] == f'Invalid value: "{long_ok}": must be no more than 253 characters'
    )
    both = errors_of(pod(name="A" * 254))
    assert sorted(e["code"] for e in both) == ["dns1123_subdomain", "max_length"]


def test_container_names_are_dns_1123_labels() -> None:
    [error] = errors_of(pod(container="Side_Car"))
    assert (error["path"], error["line"], error["column"]) == ("spec.containers[0].name", 7, 11)
    assert error["message"] == f'Invalid value: "Side_Car": {LABEL}'
    [dots] = errors_of(pod(container="side.car"))
    assert dots["message"] == 'Invalid value: "side.car": must not contain dots'
    assert [e["code"] for e in errors_of(pod(container="c" * 64))] == ["max_length"]
    init = pod().replace(
        "spec:\n", "spec:\n  initContainers:\n  - name: Init\n    image: busybox\n"
    )
    assert [e["path"] for e in errors_of(init)] == ["spec.initContainers[0].name"]
    parse_scenario(pod(container="123-abc"))


@pytest.mark.parametrize(
    ("kind", "name", "code"),
    [
        ("ConfigMap", "Bad_Config", "dns1123_subdomain"),
        ("Secret", "Secret!", "dns1123_subdomain"),
        ("Node", "Worker_1", "dns1123_subdomain"),
        ("Service", "my.svc", "dns1035_label"),
        ("Service", "1web", "dns1035_label"),
    ],
)
def test_other_kinds_are_named_as_their_api_validation_says(
    kind: str, name: str, code: str
) -> None:
    text = f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: '{name}'\n"
    [error] = errors_of(text, objects=True)
    assert (error["code"], error["path"], error["line"]) == (code, "metadata.name", 4)
    if code == "dns1035_label":
        assert error["message"] == f'Invalid value: "{name}": {DNS1035}'


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("ConfigMap", "app.config"),
        ("Secret", "db-pass"),
        ("Node", "node-1.zone-a"),
        ("Service", "web"),
    ],
)
def test_good_names_of_other_kinds_pass(kind: str, name: str) -> None:
    parse_objects(f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n")


def test_an_empty_image_key_is_shown_at_the_key_not_after_the_end_of_its_line() -> None:
    for text in (pod(image_line="    image:\n"), pod(image_line="    image:")):
        [error] = errors_of(text)
        assert (error["line"], error["column"]) == (8, 5), text
        assert error["line"] <= len(text.splitlines())
    [absent] = errors_of(pod(image_line=""))
    assert (absent["line"], absent["column"]) == (7, 5), "the container's own line"


BROKEN = {
    "two colons": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   b: c\n",
    "unclosed list": "a: [b, c\n",
    "unclosed map": "a: {b: c\n",
    "tab": "a:\n\tb: c\n",
    "bad indent": "a:\n  b: c\n d: e\n",
    "list in map": "a: b\n- c\n",
    "at sign": "a: @x\n",
    "unclosed quote": "a: 'x\n",
    "escape": 'a: "\\q"\n',
    "no colon": "a:\n  b: c\n  d\n  e: f\n",
}


@pytest.mark.parametrize("name", BROKEN)
def test_yaml_syntax_errors_are_said_in_chinese(name: str) -> None:
    [error] = errors_of(BROKEN[name])
    assert error["code"] == "yaml_syntax"
    problem = error["params"]["problem"]
    [zh] = localize_errors([error], "zh")
    assert zh["message"].startswith("YAML 语法错误：")
    assert problem not in zh["message"], zh["message"]
    assert error["message"] == f"YAML syntax error: {problem}"


def test_every_translation_is_chinese() -> None:
    for english, chinese in YAML_PROBLEMS_ZH.items():
        assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese), english
