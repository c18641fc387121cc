"""The message catalogue: one English and one Simplified Chinese template per error code.

Templates are `str.format` strings over an error's `params`. Kubernetes field names and
values stay untranslated in both languages, so a learner can search for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LANGUAGES = ("en", "zh")
DEFAULT_LANGUAGE = "en"

MESSAGES: dict[str, dict[str, str]] = {
    # Reading YAML safely
    "not_text": {
        "en": "the scenario must be text",
        "zh": "场景必须是文本",
    },
    "too_large": {
        "en": "the text is {size} KiB; the limit is {limit} KiB",
        "zh": "文本大小为 {size} KiB，超过了 {limit} KiB 的上限",
    },
    "too_deep": {
        "en": "the YAML is nested more than {limit} levels deep",
        "zh": "YAML 的嵌套超过了 {limit} 层",
    },
    "too_many_nodes": {
        "en": "the YAML has more than {limit} values; make it smaller",
        "zh": "YAML 中的值超过了 {limit} 个，请精简一些",
    },
    "too_many_documents": {
        "en": "the text has more than {limit} documents",
        "zh": "文本中的文档超过了 {limit} 个",
    },
    "yaml_alias": {
        "en": "YAML aliases (*{name}) are not allowed here; write the value out in full",
        "zh": "这里不允许使用 YAML 别名（*{name}），请把值完整写出来",
    },
    "yaml_anchor": {
        "en": "YAML anchors (&{name}) are not allowed here; write each value out in full",
        "zh": "这里不允许使用 YAML 锚点（&{name}），请把每个值完整写出来",
    },
    "yaml_tag": {
        "en": "the YAML tag {tag} is not allowed; remove it",
        "zh": "不允许使用 YAML 标签 {tag}，请删除它",
    },
    "yaml_syntax": {
        "en": "YAML syntax error: {problem}",
        "zh": "YAML 语法错误：{problem}",
    },
    "empty": {
        "en": "the text is empty: write at least one document, such as a Pod",
        "zh": "文本是空的：请至少写一个文档，例如一个 Pod",
    },
    "empty_document": {
        "en": "this document is empty; remove the extra '---' or fill it in",
        "zh": "这个文档是空的：请删除多余的 '---'，或者补全内容",
    },
    "not_a_mapping": {
        "en": "a document must be a mapping of fields (apiVersion, kind, ...), not {value_type}",
        "zh": "文档必须是由字段（apiVersion、kind 等）组成的映射，而不是{value_type}",
    },
    "duplicate_key": {
        "en": 'the key "{key}" appears twice in this mapping (first on line {first_line})',
        "zh": '键 "{key}" 在同一个映射中出现了两次（第一次在第 {first_line} 行）',
    },
    "complex_key": {
        "en": "a key must be a plain name, not a list or a mapping",
        "zh": "键必须是一个普通的名字，不能是列表或映射",
    },
    # Which documents a scenario holds
    "unknown_kind": {
        "en": 'unknown kind "{kind}" with apiVersion "{apiVersion}"; use one of: {allowed}',
        "zh": '未知的 kind "{kind}"（apiVersion 为 "{apiVersion}"）；可用的有：{allowed}',
    },
    "wrong_api_version": {
        "en": '{kind} uses apiVersion "{expected}", not "{apiVersion}"',
        "zh": '{kind} 的 apiVersion 应为 "{expected}"，而不是 "{apiVersion}"',
    },
    "no_pod": {
        "en": "the scenario needs exactly one Pod, and it has none",
        "zh": "场景中必须有且只有一个 Pod，但现在一个也没有",
    },
    "extra_pod": {
        "en": "the scenario needs exactly one Pod; the first one starts on line {first_line}",
        "zh": "场景中只能有一个 Pod；第一个 Pod 从第 {first_line} 行开始",
    },
    "extra_simulation": {
        "en": "only one Simulation document is allowed; the first one starts on line {first_line}",
        "zh": "只能有一个 Simulation 文档；第一个从第 {first_line} 行开始",
    },
    "simulation_not_allowed": {
        "en": "a Simulation document cannot be applied to a running simulation",
        "zh": "不能把 Simulation 文档 apply 到正在运行的模拟中",
    },
    "duplicate_object": {
        "en": '{kind} "{name}" is defined twice (first on line {first_line})',
        "zh": '{kind} "{name}" 被定义了两次（第一次在第 {first_line} 行）',
    },
    # Schema
    "unknown_field": {
        "en": 'unknown field "{field}"',
        "zh": '未知字段 "{field}"',
    },
    "unknown_field_suggest": {
        "en": 'unknown field "{field}" (did you mean "{suggestion}"?)',
        "zh": '未知字段 "{field}"（你是不是想写 "{suggestion}"？）',
    },
    "wrong_type": {
        "en": "expected {expected}, got {found}",
        "zh": "类型错误：应为{expected}，实际是{found}",
    },
    "required": {
        "en": 'required field "{field}" is missing',
        "zh": '缺少必填字段 "{field}"',
    },
    "quantity": {
        "en": '"{value}" must be a quantity such as 100m or 128Mi',
        "zh": '"{value}" 必须是一个数量，例如 100m 或 128Mi',
    },
    "int_or_string": {
        "en": "must be a number or a name, such as 8080 or http",
        "zh": "必须是数字或名称，例如 8080 或 http",
    },
    "enum": {
        "en": '"{value}" is not allowed; use one of: {allowed}',
        "zh": '不允许使用 "{value}"；可用的值有：{allowed}',
    },
    "invalid": {
        "en": "invalid value: {detail}",
        "zh": "无效的值：{detail}",
    },
    # Rules the schema does not check
    "init_restart_policy": {
        "en": 'an init container\'s restartPolicy can only be "Always" (a sidecar), not "{value}"',
        "zh": 'init 容器的 restartPolicy 只能是 "Always"（即 sidecar 容器），不能是 "{value}"',
    },
    "image_required": {
        "en": 'container "{container}" needs an image',
        "zh": '容器 "{container}" 必须指定 image',
    },
    "success_threshold": {
        "en": "successThreshold must be 1 for a {probe}, not {value}",
        "zh": "{probe} 的 successThreshold 必须为 1，不能是 {value}",
    },
    "readiness_termination_grace": {
        "en": "terminationGracePeriodSeconds must not be set for readinessProbes",
        "zh": "readinessProbe 中不能设置 terminationGracePeriodSeconds",
    },
    "minimum": {
        "en": "must be at least {minimum}, not {value}",
        "zh": "不能小于 {minimum}，当前是 {value}",
    },
    "duplicate_container": {
        "en": 'the container name "{name}" is used twice (first at {first})',
        "zh": '容器名 "{name}" 被用了两次（第一次在 {first}）',
    },
    "too_many_containers": {
        "en": "the Pod has {count} containers; the limit here is {limit}",
        "zh": "这个 Pod 有 {count} 个容器，超过了 {limit} 个的上限",
    },
    "no_containers": {
        "en": "a Pod needs at least one container",
        "zh": "Pod 至少需要一个容器",
    },
    "node_name_gated": {
        "en": "Forbidden: cannot be set until all schedulingGates have been cleared",
        "zh": "Forbidden：在清空所有 schedulingGates 之前不能设置",
    },
    "handler_missing": {
        "en": "the {handler_of} needs one action: {handlers}",
        "zh": "{handler_of}需要指定一种动作：{handlers}",
    },
    "handler_multiple": {
        "en": "the {handler_of} may have only one action, but sets {found}",
        "zh": "{handler_of}只能指定一种动作，但这里设置了 {found}",
    },
    # The Simulation document
    "unknown_container": {
        "en": 'the Pod has no container named "{container}"; its containers are: {available}',
        "zh": 'Pod 中没有名为 "{container}" 的容器；现有的容器是：{available}',
    },
    "script_no_probe": {
        "en": 'container "{container}" has no {probe} probe ({field}), so set-probe cannot change it',
        "zh": '容器 "{container}" 没有 {probe} 探针（{field}），set-probe 无法改变它',
    },
    "script_unknown_node": {
        "en": 'there is no node named "{node}" at {at} s; the nodes are: {available}',
        "zh": '第 {at} 秒时没有名为 "{node}" 的节点；现有的节点是：{available}',
    },
    "script_other_pod": {
        "en": 'the playground runs one Pod ("{pod}"); this apply would create another one, "{other}"',
        "zh": '练习场只运行一个 Pod（"{pod}"）；这次 apply 会再创建一个 "{other}"',
    },
    "lesson_timing": {
        "en": "a lesson step needs either at (seconds) or when (a status such as Running), not both",
        "zh": "课程步骤需要 at（秒）或 when（某个状态，例如 Running）二者之一，不能同时设置",
    },
    "text_language": {
        "en": "give the text in en, zh or both",
        "zh": "请用 en、zh 或两者同时提供文本",
    },
    "apply_yaml_invalid": {
        "en": "the yaml to apply has {count} error(s); the first, at its line {line} column "
        "{column}: {error}",
        "zh": "要 apply 的 yaml 中有 {count} 个错误；第一个在其第 {line} 行第 {column} 列：{error}",
    },
}

# Words for the `expected`, `value_type` and `found` parameters (JSON type names).
TYPE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "a boolean (true or false)",
        "mapping": "a mapping",
        "list": "a list",
        "null": "an empty value",
    },
    "zh": {
        "string": "字符串",
        "integer": "整数",
        "number": "数字",
        "boolean": "布尔值（true 或 false）",
        "mapping": "映射",
        "list": "列表",
        "null": "空值",
    },
}
FOUND_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "string": "string",
        "integer": "integer",
        "number": "number",
        "boolean": "boolean",
        "mapping": "mapping",
        "list": "list",
        "null": "an empty value",
    },
    "zh": TYPE_WORDS["zh"],
}

# Descriptions of where a handler sits, for handler_missing / handler_multiple.
HANDLER_OF_WORDS: dict[str, dict[str, str]] = {
    "en": {"probe": "probe", "hook": "lifecycle hook"},
    "zh": {"probe": "探针", "hook": "生命周期钩子"},
}

_LIST_SEPARATOR = {"en": ", ", "zh": "、"}


def _language(language: str) -> str:
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def _format_param(name: str, value: Any, language: str) -> Any:
    if name in ("expected", "value_type"):
        return TYPE_WORDS[language].get(value, value)
    if name == "found" and isinstance(value, str):
        return FOUND_WORDS[language].get(value, value)
    if name == "handler_of":
        return HANDLER_OF_WORDS[language].get(value, value)
    if name == "error" and isinstance(value, Mapping):
        return render(str(value.get("code", "")), value.get("params", {}), language)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return _LIST_SEPARATOR[language].join(str(item) for item in value)
    return value


def render(code: str, params: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> str:
    """The message for `code` in `language` ("en" or "zh"; anything else gives English)."""
    language = _language(language)
    templates = MESSAGES.get(code)
    if templates is None:
        return code
    values = {name: _format_param(name, value, language) for name, value in params.items()}
    try:
        return templates[language].format(**values)
    except (KeyError, IndexError, ValueError):
        return templates[language]


def localize_errors(errors: Sequence[Mapping[str, Any]], language: str) -> list[dict[str, Any]]:
    """Copies of located errors whose "message" is in `language` (unknown -> English)."""
    return [
        {**error, "message": render(error["code"], error.get("params", {}), language)}
        for error in errors
    ]
