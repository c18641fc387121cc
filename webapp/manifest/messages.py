"""The message catalogue: one English and one Simplified Chinese template per error code.

Templates are `str.format` strings over an error's `params`. Kubernetes field names and
values stay untranslated in both languages, so a learner can search for them.
"""

from __future__ import annotations

import re
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
    "lone_surrogate": {
        "en": "this text has a character that is not valid Unicode ({code_point}, a lone "
        "surrogate); it cannot be stored as UTF-8",
        "zh": "这段文本含有无效的 Unicode 字符（{code_point}，孤立的代理项），无法以 UTF-8 保存",
    },
    "not_finite": {
        "en": "{value} is not a finite number: Kubernetes objects travel as JSON, which has no "
        "NaN or infinity",
        "zh": "{value} 不是有限的数：Kubernetes 对象以 JSON 传输，而 JSON 没有 NaN 和无穷大",
    },
    "number_too_long": {
        "en": "the number {value} is longer than {limit} digits; no field takes a number this "
        "large",
        "zh": "数字 {value} 超过了 {limit} 位，没有任何字段接受这么大的数",
    },
    "tag_mismatch": {
        "en": "{value} is not a valid {tag} value; remove the tag or fix the value",
        "zh": "{value} 不是有效的 {tag} 值：请删除这个标签或改正这个值",
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
    "kind_not_run_yet": {
        "en": 'kind "{kind}" is real Kubernetes, but this playground does not run it yet; '
        "it runs: {allowed}",
        "zh": 'kind "{kind}" 是真实的 Kubernetes 类型，但本演练场还不能运行它；可运行的有：{allowed}',
    },
    "run_too_heavy": {
        "en": "this run would do {work} units of work per virtual second (for every Pod at "
        "once: 1 per container plus 1 per probe run); the limit here is {limit} "
        "(MAX_RUN_WORK: fewer replicas, containers or probes, or longer periodSeconds)",
        "zh": "这个运行每个虚拟秒的工作量为 {work} 个单位（同时运行的每个 Pod："
        "每个容器 1，每次探针运行 1），超过了 {limit} 的上限"
        "（MAX_RUN_WORK：请减少副本、容器或探针，或加长 periodSeconds）",
    },
    "playground_limit": {
        "en": "{value} is more than this playground runs (at most {limit})",
        "zh": "{value} 超出了本演练场能运行的范围（最多 {limit}）",
    },
    "script_unknown_object": {
        "en": 'the scenario has no {kind} named "{name}"',
        "zh": '场景中没有名为 "{name}" 的 {kind}',
    },
    "traffic_unknown_service": {
        "en": 'the traffic goes to Service "{service}", which the scenario does not have',
        "zh": '流量发往 Service "{service}"，但场景中没有这个 Service',
    },
    "pdb_both": {
        "en": "minAvailable and maxUnavailable cannot be both set",
        "zh": "minAvailable 和 maxUnavailable 不能同时设置",
    },
    "empty_selector": {
        "en": "the selector must not be empty: it must select the template's labels",
        "zh": "selector 不能为空：它必须选中模板的标签",
    },
    "selector_mismatch": {
        "en": 'selector does not match template labels (selector "{selector}")',
        "zh": 'selector 与模板的标签不匹配（selector 为 "{selector}"）',
    },
    "not_run_yet_field": {
        "en": "this field is valid Kubernetes, but this playground does not run it yet",
        "zh": "这个字段在 Kubernetes 中有效，但本演练场还不能运行它",
    },
    "pod_and_workload": {
        "en": "a scenario has either one Pod or workloads (Deployment, ReplicaSet, Job, StatefulSet, DaemonSet), not both; "
        "the Pod starts on line {first_line}",
        "zh": "场景中要么只有一个 Pod，要么是工作负载（Deployment、ReplicaSet、Job、StatefulSet、DaemonSet），不能两者都有；"
        "Pod 从第 {first_line} 行开始",
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
    "integer_range": {
        "en": "{value} does not fit in this field's {format}: the API server takes {minimum} to "
        "{maximum}",
        "zh": "{value} 超出了这个字段的 {format} 范围：API Server 只接受 {minimum} 到 {maximum}",
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
    # Names, with the API server's own words (k8s.io/apimachinery/pkg/util/validation)
    "dns1123_subdomain": {
        "en": 'Invalid value: "{value}": a lowercase RFC 1123 subdomain must consist of lower '
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "zh": '无效的值 "{value}"：小写的 RFC 1123 子域名只能由小写字母、数字、'
        "'-' 和 '.' 组成，并且必须以字母或数字开头和结尾（例如 'example.com'，校验用的正则表达式是 "
        r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'）",
    },
    "dns1123_label": {
        "en": 'Invalid value: "{value}": a lowercase RFC 1123 label must consist of lower case '
        "alphanumeric characters or '-', and must start and end with an alphanumeric character "
        "(e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "zh": '无效的值 "{value}"：小写的 RFC 1123 标签只能由小写字母、数字和 '
        "'-' 组成，并且必须以字母或数字开头和结尾（例如 'my-name' 或 '123-abc'，校验用的正则表达式是 "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?'）",
    },
    "label_dots": {
        "en": 'Invalid value: "{value}": must not contain dots',
        "zh": '无效的值 "{value}"：不能包含点号（.）',
    },
    "dns1035_label": {
        "en": 'Invalid value: "{value}": a DNS-1035 label must consist of lower case alphanumeric '
        "characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')",
        "zh": '无效的值 "{value}"：DNS-1035 标签只能由小写字母、数字和 '
        "'-' 组成，必须以字母开头，并以字母或数字结尾（例如 'my-name' 或 'abc-123'，校验用的正则表达式是 "
        "'[a-z]([-a-z0-9]*[a-z0-9])?'）",
    },
    "max_length": {
        "en": 'Invalid value: "{value}": must be no more than {limit} characters',
        "zh": '无效的值 "{value}"：不能超过 {limit} 个字符',
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
    "maximum": {
        "en": "must be at most {maximum}, not {value}",
        "zh": "不能大于 {maximum}，当前是 {value}",
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
    "beyond_horizon": {
        "en": "{value} s is past the end of the run at {horizon} s: nothing after it is ever "
        "simulated",
        "zh": "{value} 秒已经超过了运行的终点 {horizon} 秒：终点之后的事情不会被模拟",
    },
    "too_many_items": {
        "en": "this list has {count} entries; the limit here is {limit}",
        "zh": "这个列表有 {count} 项，超过了 {limit} 项的上限",
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
    "question_check": {
        "en": "a choice needs a check on the run that makes it right: one of {checks}",
        "zh": "每个选项都需要一个判断运行状态的条件：{checks} 之一",
    },
    "task_check": {
        "en": "a task needs a check that says it is done: one of {checks}",
        "zh": "每个任务都需要一个判断完成的条件：{checks} 之一",
    },
    "question_choices": {
        "en": "a question needs 2 to 5 choices",
        "zh": "一个问题需要 2 到 5 个选项",
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

# What the YAML reader says (libyaml's problems, and PyYAML's when libyaml is missing) in
# Chinese. Kept in English when unknown: the text still locates the problem.
YAML_PROBLEMS_ZH: dict[str, str] = {
    "mapping values are not allowed in this context": "这里不能出现映射的值（多半是冒号后少了空格、缩进不对，或一行里写了两个冒号）",
    "mapping values are not allowed here": "这里不能出现映射的值（多半是冒号后少了空格、缩进不对，或一行里写了两个冒号）",
    "mapping keys are not allowed in this context": "这里不能出现映射的键",
    "mapping keys are not allowed here": "这里不能出现映射的键",
    "block sequence entries are not allowed in this context": "这里不能出现列表项（'-'）：请检查缩进",
    "sequence entries are not allowed here": "这里不能出现列表项（'-'）：请检查缩进",
    "could not find expected ':'": "找不到应有的 ':'（键后面要跟冒号和空格）",
    "did not find expected key": "找不到应有的键：这一行的缩进和上面的映射对不齐",
    "did not find expected '-' indicator": "找不到应有的 '-'：列表项的缩进不一致",
    "did not find expected node content": "找不到应有的内容：这里缺少一个值",
    "did not find expected ',' or ']'": "找不到应有的 ',' 或 ']'：方括号列表没有闭合",
    "did not find expected ',' or '}'": "找不到应有的 ',' 或 '}'：花括号映射没有闭合",
    "did not find expected <document start>": "找不到应有的文档开头（'---'）",
    "did not find expected comment or line break": "这里应该是注释或换行",
    "did not find expected whitespace or line break": "这里应该是空格或换行",
    "did not find expected whitespace": "这里应该是空格",
    "did not find expected alphabetic or numeric character": "这里应该是字母或数字",
    "did not find expected tag URI": "找不到应有的标签 URI",
    "did not find expected '!'": "找不到应有的 '!'",
    "found character that cannot start any token": "这个字符不能出现在值的开头（例如 '@'、'`' 或制表符）；需要时请给值加上引号",
    "found unexpected end of stream": "文本意外结束：引号没有闭合",
    "found unexpected document indicator": "这里意外出现了文档分隔符（'---' 或 '...'）",
    "found unknown escape character": "双引号字符串中有未知的转义字符（'\\' 后面的字符）",
    "found undefined tag handle": "使用了未定义的标签前缀",
    "found a tab character that violates indentation": "制表符（Tab）破坏了缩进：YAML 只能用空格缩进",
    "found a tab character where an indentation space is expected": "这里应该用空格缩进，却出现了制表符（Tab）",
    "found an indentation indicator equal to 0": "块标量的缩进指示符不能是 0",
    "found incompatible YAML document": "不兼容的 YAML 文档版本（需要 1.x）",
    "found unknown directive name": "未知的指令名（以 '%' 开头的行）",
    "found duplicate %YAML directive": "重复的 %YAML 指令",
    "found duplicate %TAG directive": "重复的 %TAG 指令",
    "found unexpected ':'": "这里意外出现了 ':'",
    "control characters are not allowed": "文本中不允许出现控制字符",
    "invalid leading UTF-8 octet": "无效的 UTF-8 字节",
    "invalid trailing UTF-8 octet": "无效的 UTF-8 字节",
    "incomplete UTF-8 octet sequence": "不完整的 UTF-8 字节序列",
    "invalid Unicode character": "无效的 Unicode 字符",
    "found invalid Unicode character escape code": "无效的 Unicode 转义码",
    "expected a single document in the stream": "这里只能有一个文档",
    "invalid indentation or unclosed '[' or '{'": "缩进不对，或者 '[' / '{' 没有闭合",
    "special characters are not allowed": "不允许出现特殊字符",
}
# PyYAML's problems that quote what they found: "expected <block end>, but found '-'".
_YAML_PATTERNS_ZH: tuple[tuple[str, str], ...] = (
    (r"expected <block end>, but found (.+)", "缩进不对：这里应该结束上一个块，却遇到了 {0}"),
    (r"expected ',' or '\]', but got (.+)", "方括号列表中应为 ',' 或 ']'，却遇到了 {0}"),
    (r"expected ',' or '\}', but got (.+)", "花括号映射中应为 ',' 或 '}}'，却遇到了 {0}"),
    (r"expected the node content, but found (.+)", "这里应该是一个值，却遇到了 {0}"),
    (
        r"found character (.+) that cannot start any token",
        "字符 {0} 不能出现在值的开头；需要时请给值加上引号",
    ),
    (r"found unknown escape character (.+)", "双引号字符串中有未知的转义字符 {0}"),
    (r"found undefined tag handle (.+)", "使用了未定义的标签前缀 {0}"),
    (r"expected '<document start>', but found (.+)", "这里应该是文档开头（'---'），却遇到了 {0}"),
    (r"unacceptable character (.+)", "不允许出现的字符 {0}"),
)


def yaml_problem(text: str, language: str) -> str:
    """A YAML reader's problem phrase in `language` (English as given when unknown)."""
    if language != "zh":
        return text
    known = YAML_PROBLEMS_ZH.get(text.strip())
    if known is not None:
        return known
    for pattern, template in _YAML_PATTERNS_ZH:
        match = re.fullmatch(pattern, text.strip(), flags=re.DOTALL)
        if match:
            return template.format(*match.groups())
    return text


def _language(language: str) -> str:
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def _format_param(name: str, value: Any, language: str) -> Any:
    if name in ("expected", "value_type"):
        return TYPE_WORDS[language].get(value, value)
    if name == "found" and isinstance(value, str):
        return FOUND_WORDS[language].get(value, value)
    if name == "handler_of":
        return HANDLER_OF_WORDS[language].get(value, value)
    if name == "problem" and isinstance(value, str):
        return yaml_problem(value, language)
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
