"""Server-side messages in English and 简体中文, and the choice between them.

message("bad_speed", "zh", min=0.5, max=100)   # one message, parameters filled in
negotiate_language("zh-CN,zh;q=0.9,en;q=0.8")  # "zh"

Scenario errors carry their own catalogue (`webapp.manifest.localize_errors`); this one
holds what the server itself says: sessions, limits, payloads, share links and pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

LANGUAGES: Final = ("en", "zh")
DEFAULT_LANGUAGE: Final = "en"

CATALOGUE: Final[dict[str, dict[str, str]]] = {
    # Sessions and the connection
    "unknown_session": {
        "en": "This session has ended or never existed. Start a new one.",
        "zh": "这个会话已经结束或者不存在。请开始一个新的会话。",
    },
    "session_elsewhere": {
        "en": "This session is still running in another server process. Trying again in a moment.",
        "zh": "这个会话仍在另一个服务器进程中运行。稍后会自动重试。",
    },
    "no_session": {
        "en": "Join a session first.",
        "zh": "请先加入一个会话。",
    },
    "too_many_sessions": {
        "en": "The server is running {limit} sessions, its limit. Try again in a few minutes.",
        "zh": "服务器正在运行 {limit} 个会话，已达到上限。请过几分钟再试。",
    },
    "client_session_limit": {
        "en": "This address already has {limit} sessions open in other tabs. Close one you no "
        "longer use, then try again.",
        "zh": "这个地址已经在其他标签页中打开了 {limit} 个会话。请关闭一个不再使用的，然后再试。",
    },
    "new_sessions_rate_limited": {
        "en": "Too many new sessions from this address: at most {limit} a minute. Wait a "
        "moment and try again.",
        "zh": "这个地址新建的会话太多了：每分钟最多 {limit} 个。请稍等片刻再试。",
    },
    "rate_limited": {
        "en": "Too many requests: at most {limit} per second. Slow down a little.",
        "zh": "请求太多了：每秒最多 {limit} 次。请慢一点。",
    },
    "message_too_large": {
        "en": "The message is {size} KiB; the server takes at most {limit} KiB in one "
        "message. Nothing was changed.",
        "zh": "这条消息有 {size} KiB；服务器每条消息最多接收 {limit} KiB。没有做任何更改。",
    },
    "invalid_payload": {
        "en": "The message is not valid: {problem}.",
        "zh": "消息无效：{problem}。",
    },
    "unknown_scenario": {
        "en": 'There is no built-in scenario named "{name}".',
        "zh": '没有名为 "{name}" 的内置场景。',
    },
    "session_busy": {
        "en": "This session has used its share of the server ({share} % of a processor on "
        "average). Wait {seconds} s and try again; pausing is always possible.",
        "zh": "这个会话已经用完了它在服务器上的份额（平均 {share}% 个处理器）。"
        "请等 {seconds} 秒再试；暂停随时可用。",
    },
    "client_busy": {
        "en": "The sessions from this address have used their share of the server ({share} % "
        "of a processor on average). Wait {seconds} s and try again; pausing is always "
        "possible.",
        "zh": "来自这个地址的会话已经用完了它们在服务器上的份额（平均 {share}% 个处理器）。"
        "请等 {seconds} 秒再试；暂停随时可用。",
    },
    "internal_error": {
        "en": "Something went wrong on the server. Your session is unchanged.",
        "zh": "服务器出错了。你的会话没有受到影响。",
    },
    # The clock
    "bad_speed": {
        "en": "The speed must be between {min}× and {max}×.",
        "zh": "速度必须在 {min}× 到 {max}× 之间。",
    },
    "bad_seek": {
        "en": "You can seek to any second from 0 to {end}.",
        "zh": "只能跳转到 0 到 {end} 秒之间的时刻。",
    },
    "unknown_clock_op": {
        "en": 'Unknown clock control "{op}"; use play, pause, step, speed or seek.',
        "zh": '未知的时钟操作 "{op}"；请使用 play、pause、step、speed 或 seek。',
    },
    "at_end": {
        "en": "The simulation has reached its end at {end} seconds.",
        "zh": "模拟已经在第 {end} 秒结束。",
    },
    # Actions and apply
    "unknown_action": {
        "en": 'Unknown action "{action}".',
        "zh": '未知的操作 "{action}"。',
    },
    "action_refused": {
        "en": "The action was refused: {reason}",
        "zh": "操作被拒绝：{reason}",
    },
    "invalid_scenario": {
        "en": "The scenario has {count} error(s).",
        "zh": "场景中有 {count} 个错误。",
    },
    "text_too_large": {
        "en": "The scenario text is {size} KiB; the limit is {limit} KiB.",
        "zh": "场景文本大小为 {size} KiB，超过了 {limit} KiB 的上限。",
    },
    "terminal_line_too_long": {
        "en": "The command line is {size} KiB; the terminal reads at most {limit} KiB.",
        "zh": "命令行大小为 {size} KiB，终端最多读取 {limit} KiB。",
    },
    # Share links
    "share_not_found": {
        "en": "There is no shared scenario with this link.",
        "zh": "没有找到这个链接对应的共享场景。",
    },
    "share_too_large": {
        "en": "This is too large to share: the limit is {limit} KiB of scenario text.",
        "zh": "内容太大，无法分享：场景文本的上限是 {limit} KiB。",
    },
    "share_rate_limited": {
        "en": "Too many share links in a short time. Wait a minute and try again.",
        "zh": "短时间内创建的分享链接太多了。请等一分钟再试。",
    },
    "share_busy": {
        "en": "The server is receiving too many share links right now. Try again in a few seconds.",
        "zh": "服务器现在收到的分享链接太多了。请过几秒再试。",
    },
    "share_cpu_busy": {
        "en": "Checking your recent links used your share of the server. Wait {seconds} s "
        "and try again.",
        "zh": "检查你最近的链接已经用完了你在服务器上的份额。请等 {seconds} 秒再试。",
    },
    "share_storage_full": {
        "en": "The server's storage for share links is full ({limit} MiB); no new link can "
        "be made now. Links already made still open.",
        "zh": "服务器存放分享链接的空间已满（{limit} MiB），现在不能创建新链接。已有的链接仍然可以打开。",
    },
    "share_action_refused": {
        "en": "The link cannot be made: action {index} ({action} at {at} s) would be "
        "refused when the run gets there: {reason}",
        "zh": "无法创建链接：第 {index} 个操作（{at} 秒时的 {action}）在运行到那里时会被拒绝：{reason}",
    },
    "share_unopenable": {
        "en": "This link cannot be opened: {problem}.",
        "zh": "无法打开这个链接：{problem}。",
    },
    "share_broken": {
        "en": "This link cannot be opened: action {index} ({action} at {at} s) is refused: "
        "{reason}",
        "zh": "无法打开这个链接：第 {index} 个操作（{at} 秒时的 {action}）被拒绝：{reason}",
    },
    "share_invalid": {
        "en": "The link cannot be made: {problem}.",
        "zh": "无法创建链接：{problem}。",
    },
    # HTTP errors of the JSON API
    "not_found": {
        "en": "There is nothing at this address of the API.",
        "zh": "API 的这个地址上什么也没有。",
    },
    "method_not_allowed": {
        "en": "This address of the API does not take this method; it takes {allowed}.",
        "zh": "API 的这个地址不接受这种请求；它接受 {allowed}。",
    },
    "bad_request": {
        "en": "The request could not be read.",
        "zh": "无法读取这个请求。",
    },
    "request_too_large": {
        "en": "The request is too large.",
        "zh": "请求太大了。",
    },
    "unsupported_media_type": {
        "en": "The request body must be JSON (Content-Type: application/json).",
        "zh": "请求正文必须是 JSON（Content-Type: application/json）。",
    },
    "http_error": {
        "en": "The request failed: {http_status} {name}.",
        "zh": "请求失败：{http_status} {name}。",
    },
    # The database or Redis cannot be written (a full or read-only disk, Redis down):
    # webapp/storage.py write_fault, 507 on HTTP, an `error` event on the socket.
    "storage_unavailable": {
        "en": "The server cannot save anything right now (its storage is full or cannot be "
        "written); nothing was changed. Try again later.",
        "zh": "服务器现在无法保存任何内容（存储已满或无法写入）；没有做任何更改。请稍后再试。",
    },
    "storage_notice": {
        "en": "This server cannot save anything right now (its storage is full or cannot be "
        "written). You can play, but share links and classes cannot be made, and your run "
        "may not survive a restart.",
        "zh": "服务器现在无法保存任何内容（存储已满或无法写入）。你可以继续演练，但不能创建分享链接"
        "和课堂，运行也可能无法在服务器重启后恢复。",
    },
    "api_internal_error": {
        "en": "Something went wrong on the server; nothing was saved. Try again in a moment.",
        "zh": "服务器出错了，没有保存任何内容。请稍后再试。",
    },
    # Refusals of connections: webapp/serving.py (too many at once) and deploy/nginx.conf
    # (a head too large; its JSON says the same words)
    "too_many_connections": {
        "en": "The server is serving as many connections as it can. Try again in a few seconds.",
        "zh": "服务器的连接数已经满了。请过几秒再试。",
    },
    "request_head_too_large": {
        "en": "The request's headers are too large.",
        "zh": "请求头太大了。",
    },
    # The 404 page
    "page_not_found_title": {
        "en": "Page not found",
        "zh": "页面不存在",
    },
    "page_not_found_text": {
        "en": "There is nothing at this address. A shared link may have been mistyped.",
        "zh": "这个地址上什么也没有。分享的链接可能输错了。",
    },
    "share_not_found_text": {
        "en": "No shared scenario has this link. Check that it was copied in full.",
        "zh": "没有找到这个链接对应的共享场景。请检查链接是否完整复制。",
    },
    "scenario_not_found_text": {
        "en": 'There is no built-in scenario named "{name}".',
        "zh": '没有名为 "{name}" 的内置场景。',
    },
    "back_to_playground": {
        "en": "Open the playground",
        "zh": "打开演练场",
    },
    "app_title": {
        "en": "Pod Lifecycle Playground",
        "zh": "Pod 生命周期演练场",
    },
}

# Short problem phrases interpolated into invalid_payload / share_invalid.
PROBLEMS: Final[dict[str, dict[str, str]]] = {
    "not_object": {"en": "expected a JSON object", "zh": "应为一个 JSON 对象"},
    "not_string": {"en": '"{field}" must be text', "zh": '"{field}" 必须是文本'},
    "not_number": {"en": '"{field}" must be a number', "zh": '"{field}" 必须是数字'},
    "number_too_large": {
        "en": '"{field}" is too large a number (at most about 1.8e308)',
        "zh": '"{field}" 这个数太大了（最多约 1.8e308）',
    },
    "not_boolean": {
        "en": '"{field}" must be true or false',
        "zh": '"{field}" 必须是 true 或 false',
    },
    "not_list": {"en": '"{field}" must be a list', "zh": '"{field}" 必须是列表'},
    "negative": {"en": '"{field}" must not be negative', "zh": '"{field}" 不能是负数'},
    "too_long": {"en": '"{field}" is too long', "zh": '"{field}" 太长了'},
    "after_end": {
        "en": '"{field}" is after the end of a run ({end} s)',
        "zh": '"{field}" 超过了一次运行的终点（{end} 秒）',
    },
    "not_unicode": {
        "en": '"{field}" contains a character that is not valid Unicode (a lone surrogate)',
        "zh": '"{field}" 含有不是有效 Unicode 的字符（单独的代理项）',
    },
    "too_many": {
        "en": '"{field}" has more than {limit} items',
        "zh": '"{field}" 的条目超过了 {limit} 个',
    },
    "unknown_field": {"en": 'unknown field "{field}"', "zh": '未知字段 "{field}"'},
    "unknown_action": {"en": 'unknown action "{action}"', "zh": '未知的操作 "{action}"'},
    "missing": {"en": '"{field}" is required', "zh": '缺少 "{field}"'},
    "one_source": {
        "en": "give one of session, yaml, scenario or share",
        "zh": "请只给出 session、yaml、scenario 或 share 中的一个",
    },
    "bad_language": {"en": "the language must be en or zh", "zh": "语言只能是 en 或 zh"},
    "not_one_of": {
        "en": '"{field}" must be one of: {choices}',
        "zh": '"{field}" 只能是以下之一：{choices}',
    },
    "malformed": {
        "en": "it is not a Socket.IO packet the server can read",
        "zh": "它不是服务器能读懂的 Socket.IO 数据包",
    },
    "arguments": {
        "en": "send exactly one JSON object",
        "zh": "请只发送一个 JSON 对象",
    },
}


# Why the engine refused a live action (webapp.engine.ActionError codes). Parameters are the
# error's own; Kubernetes names (probes, fields, nodes) stay untranslated.
ACTION_REFUSALS: Final[dict[str, dict[str, str]]] = {
    # a workload scenario's actions (engine/cluster_actions.py)
    "bad_field": {
        "en": "The value of {field} is not valid for this action.",
        "zh": "{field} 的值不适用于这个操作。",
    },
    "run_too_heavy": {
        "en": "This would make the run do {work} units of work per virtual second (for every "
        "Pod at once: 1 per container plus 1 per probe run); the limit here is {limit}.",
        "zh": "这样运行每个虚拟秒的工作量将为 {work} 个单位（同时运行的每个 Pod：每个容器 1，"
        "每次探针运行 1），超过了 {limit} 的上限。",
    },
    "unknown_object": {
        "en": 'There is no {kind} named "{name}".',
        "zh": '没有名为 "{name}" 的 {kind}。',
    },
    "unknown_pod": {"en": 'There is no Pod named "{pod}".', "zh": '没有名为 "{pod}" 的 Pod。'},
    "paused": {
        "en": 'Deployment "{name}" is paused: resume it first.',
        "zh": 'Deployment "{name}" 已暂停：请先恢复它。',
    },
    "rollback": {"en": "error: {message}", "zh": "错误：{message}"},
    "already_paused": {
        "en": "deployment.apps/{name} already paused",
        "zh": "deployment.apps/{name} 已经暂停",
    },
    "not_paused": {
        "en": 'deployments.apps "{name}" is not paused',
        "zh": 'deployments.apps "{name}" 没有暂停',
    },
    "apply_kind": {
        "en": "kubectl apply cannot take this {kind} in this run: {reason}",
        "zh": "这次运行中 kubectl apply 不能接受这个 {kind}：{reason}",
    },
    "immutable_selector": {
        "en": "The API server refused the change: {reason}",
        "zh": "API Server 拒绝了这次修改（Kubernetes 的原文）：{reason}",
    },
    "immutable_field": {
        "en": "The API server refused the change: {reason}",
        "zh": "API Server 拒绝了这次修改（Kubernetes 的原文）：{reason}",
    },
    "bad_patch": {
        "en": "kubectl apply could not merge the change: {reason}",
        "zh": "kubectl apply 无法合并这次修改：{reason}",
    },
    "bad_action": {
        "en": "An action is a mapping with an 'action' word.",
        "zh": "操作必须是一个带 action 字段的映射。",
    },
    "unknown_action": {
        "en": "Unknown action {action!r}.",
        "zh": "未知的操作 {action!r}。",
    },
    "pod_gone": {
        "en": 'The Pod "{pod}" no longer exists: it has been removed from the API.',
        "zh": "Pod “{pod}” 已经不存在了：它已从 API 中删除。",
    },
    "bad_grace": {
        "en": "The grace period must be a whole number of seconds from 0 to 9223372036854775807.",
        "zh": "宽限期必须是 0 到 9223372036854775807 之间的整数秒。",
    },
    "bad_text": {
        "en": "{field} is not valid Unicode text (it has a lone surrogate).",
        "zh": "{field} 不是有效的 Unicode 文本（含有孤立的代理项）。",
    },
    "unknown_field": {
        "en": "{action} has no field {field}.",
        "zh": "{action} 没有 {field} 这个字段。",
    },
    "too_many_actions": {
        "en": "This run already has {limit} actions; start it again to act further.",
        "zh": "这次运行已经有 {limit} 个操作了；请重新开始后再继续操作。",
    },
    "too_much_action_text": {
        "en": "This run's actions already hold about {limit} KiB of text (the limit); "
        "start it again to act further.",
        "zh": "这次运行的操作已经包含约 {limit} KiB 的文本（上限）；请重新开始后再继续操作。",
    },
    "bad_force": {"en": "force must be true or false.", "zh": "force 只能是 true 或 false。"},
    "bad_container": {
        "en": "Name one of the Pod's containers.",
        "zh": "请指定 Pod 中的一个容器名。",
    },
    "container_required": {
        "en": "The Pod has several containers; name one of {containers}.",
        "zh": "这个 Pod 有多个容器，请指定其中一个：{containers}。",
    },
    "unknown_container": {
        "en": "The Pod has no container named {container!r}.",
        "zh": "这个 Pod 没有名为 {container!r} 的容器。",
    },
    "bad_command": {
        "en": "The command must be a list of one or more arguments (the program first), with no NUL byte.",
        "zh": "命令必须是一个或多个参数组成的列表（第一个是程序），且不能包含 NUL 字节。",
    },
    "command_too_long": {
        "en": "The command line has {args} arguments and {bytes} bytes; at most 1024 arguments and {limit} bytes.",
        "zh": "命令行有 {args} 个参数、{bytes} 字节；最多 1024 个参数、{limit} 字节。",
    },
    "bad_shell_state": {
        "en": "The shell's state is not valid: {reason}.",
        "zh": "shell 的状态无效：{reason}。",
    },
    "eviction_refused": {
        "en": "The eviction was refused: {message}",
        "zh": "驱逐被拒绝：{message}",
    },
    "container_not_running": {
        "en": "Container {container!r} is not running right now.",
        "zh": "容器 {container!r} 现在没有在运行。",
    },
    "bad_probe": {
        "en": "The probe must be liveness, readiness or startup.",
        "zh": "探针只能是 liveness、readiness 或 startup。",
    },
    "no_such_probe": {
        "en": "Container {container!r} has no {probe} probe.",
        "zh": "容器 {container!r} 没有定义 {probe} 探针。",
    },
    "bad_healthy": {"en": "healthy must be true or false.", "zh": "healthy 只能是 true 或 false。"},
    "bad_exit_code": {
        "en": "The exit code must be 0 to 255.",
        "zh": "退出码必须在 0 到 255 之间。",
    },
    "bad_node": {"en": "Name a node.", "zh": "请指定一个节点名。"},
    "node_required": {
        "en": "The Pod is not on a node yet; name the node to act on.",
        "zh": "Pod 还没有被调度到节点上，请指定要操作的节点。",
    },
    "unknown_node": {"en": "There is no node named {node!r}.", "zh": "没有名为 {node!r} 的节点。"},
    "node_already_down": {"en": "Node {node} is already down.", "zh": "节点 {node} 已经宕机了。"},
    "node_already_up": {"en": "Node {node} is already up.", "zh": "节点 {node} 已经在运行了。"},
    "bad_yaml": {
        "en": "apply needs the objects as YAML text.",
        "zh": "apply 需要 YAML 文本形式的对象。",
    },
    "invalid_objects": {
        "en": "The objects to apply are invalid: {reason}",
        "zh": "要应用的对象无效：{reason}",
    },
    "second_pod": {
        "en": 'The playground runs one Pod; it cannot create a second one ("{pod}").',
        "zh": "演练场只运行一个 Pod，不能再创建第二个（“{pod}”）。",
    },
    "pod_update_forbidden": {
        "en": "The API server refused the change: {reason}",
        "zh": "API Server 拒绝了这次修改（Kubernetes 的原文）：{reason}",
    },
}


def action_refusal(code: str, lang: str, reason: str, **params: Any) -> str:
    """Why the engine refused an action, in `lang`; unknown codes keep the engine's text."""
    entry = ACTION_REFUSALS.get(code)
    if entry is None:
        return message("action_refused", lang, reason=reason)
    return _fill(entry[normalize_language(lang)], {"reason": reason, **params})


def normalize_language(value: Any) -> str:
    """`"zh-CN"`, `"ZH"`, `"zh_Hans"` -> `"zh"`; anything unknown -> the default."""
    if isinstance(value, str):
        primary = value.strip().replace("_", "-").split("-", 1)[0].lower()
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def is_language(value: Any) -> bool:
    return isinstance(value, str) and value in LANGUAGES


def message(code: str, lang: str, **params: Any) -> str:
    """The catalogue entry `code` in `lang` with `params` filled in."""
    entry = CATALOGUE.get(code) or CATALOGUE["internal_error"]
    return _fill(entry[normalize_language(lang)], params)


def problem(code: str, lang: str, **params: Any) -> str:
    """A short phrase saying what is wrong with a payload (see PROBLEMS)."""
    entry = PROBLEMS.get(code) or PROBLEMS["not_object"]
    return _fill(entry[normalize_language(lang)], params)


def _fill(template: str, params: Mapping[str, Any]) -> str:
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template


def negotiate_language(accept_language: str | None) -> str:
    """The best of our languages for an `Accept-Language` header (RFC 9110 §12.5.4)."""
    best, best_q = DEFAULT_LANGUAGE, 0.0
    for item in (accept_language or "").split(","):
        tag, _, rest = item.strip().partition(";")
        q = 1.0
        for param in rest.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        primary = tag.strip().split("-", 1)[0].lower()
        if primary not in LANGUAGES or q <= 0:
            continue
        if q > best_q:  # ties go to the earlier entry, as browsers list by preference
            best, best_q = primary, q
    return best
