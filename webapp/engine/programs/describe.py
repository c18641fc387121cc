"""What the model derived for a container, in plain words (English and 简体中文).

``describe(derived, lang)`` turns :class:`~webapp.engine.programs.derive.Derived` into the
short text the page shows beside the editor: what the process does, what PID 1 does with
the stop signal, and a located line for every part the model does not interpret.
"""

from __future__ import annotations

from typing import Any

from webapp.engine.programs.derive import Derived

LANGUAGES = ("en", "zh")

STEPS: dict[str, dict[str, str]] = {
    "creates": {"en": "creates {file}", "zh": "创建 {file}"},
    "removes": {"en": "removes {file}", "zh": "删除 {file}"},
    "makes_dir": {"en": "makes the directory {dir}", "zh": "创建目录 {dir}"},
    "writes": {"en": "writes to {file}", "zh": "写入 {file}"},
    "prints": {"en": "prints “{text}”", "zh": "输出“{text}”"},
    "reads": {"en": "reads {file}", "zh": "读取 {file}"},
    "sleeps": {"en": "sleeps {seconds} s", "zh": "休眠 {seconds} 秒"},
    "sleeps_forever": {"en": "sleeps for ever", "zh": "永远休眠"},
    "exits": {"en": "exits with code {code}", "zh": "以退出码 {code} 退出"},
    "traps": {"en": "sets a trap on {signals}: {action}", "zh": "为 {signals} 设置 trap：{action}"},
    "waits": {"en": "waits for its background jobs", "zh": "等待后台任务"},
    "looks_up": {"en": "looks up {name} in the cluster DNS", "zh": "在集群 DNS 中查询 {name}"},
    "fetches": {"en": "fetches {url}", "zh": "请求 {url}"},
    "follows": {"en": "follows {file} for ever", "zh": "一直跟踪 {file}"},
    "serves": {"en": "runs {program}, serving {ports}", "zh": "运行 {program}，监听 {ports}"},
    "prints_pi": {
        "en": "computes pi to {digits} digits (Math::BigFloat bpi), prints it and exits 0",
        "zh": "计算 {digits} 位圆周率（Math::BigFloat bpi），输出后以 0 退出",
    },
    "serves_no_port": {"en": "runs {program}", "zh": "运行 {program}"},
    "partial": {
        "en": "runs {command} (not modelled: succeeds with no output)",
        "zh": "运行 {command}（未建模：成功且无输出）",
    },
    "unknown": {
        "en": "runs {command} (not modelled: treated as a long-running process)",
        "zh": "运行 {command}（未建模：视为长期运行的进程）",
    },
    "unknown_image": {
        "en": "runs the image's own program (unknown image: assumed to be a long-running server that answers its probes)",
        "zh": "运行镜像自带的程序（未知镜像：假定是一个能响应探针的长期运行服务）",
    },
    "not_found": {
        "en": "runs {command}, which the image does not have (sh: not found, exit 127)",
        "zh": "运行 {command}，但镜像里没有这个命令（sh: not found，退出码 127）",
    },
    "runs": {"en": "runs {command}", "zh": "运行 {command}"},
    "sets": {"en": "sets {names}", "zh": "设置 {names}"},
    "loops_forever": {"en": "loops for ever: {body}", "zh": "无限循环：{body}"},
    "loops_while": {"en": "while {condition}: {body}", "zh": "当 {condition} 成立时循环：{body}"},
    "loops_until": {"en": "until {condition}: {body}", "zh": "直到 {condition} 成功前循环：{body}"},
    "loops_for": {"en": "for each {var}: {body}", "zh": "对每个 {var}：{body}"},
    "branches": {"en": "if {condition} …", "zh": "如果 {condition} …"},
    "group": {"en": "({body})", "zh": "（{body}）"},
    "pipeline": {"en": "{stages}", "zh": "{stages}"},
    "background": {"en": "in the background, {what}", "zh": "在后台{what}"},
    "shell_no_input": {
        "en": "{shell} with no terminal reads end of input and exits 0 at once",
        "zh": "{shell} 没有终端，读到输入结束后立即以 0 退出",
    },
    "syntax_error": {
        "en": "the shell rejects the script: it prints a syntax error and exits 2",
        "zh": "shell 拒绝这个脚本：输出语法错误并以 2 退出",
    },
    "more": {"en": "…", "zh": "……"},
}
JOIN = {"en": "; ", "zh": "；"}
THEN_EXITS = {
    "en": "then exits with the last command's status",
    "zh": "然后以最后一条命令的状态退出",
}

STOP = {
    "handles": {
        "en": "PID 1 is {pid1}: the stop signal {signal} makes it exit{code}.",
        "zh": "1 号进程是 {pid1}：收到停止信号 {signal} 后退出{code}。",
    },
    "trap": {
        "en": "PID 1 is the shell, with a trap for {signal}: it runs once the current command returns.",
        "zh": "1 号进程是 shell，为 {signal} 设置了 trap：当前命令返回后执行。",
    },
    "ignores": {
        "en": "PID 1 is {pid1} with no handler for {signal}: as PID 1 it ignores it, so a stop takes the whole grace period and ends in SIGKILL (137).",
        "zh": "1 号进程是 {pid1}，没有 {signal} 的处理函数：作为 1 号进程它会忽略这个信号，所以停止要等满整个宽限期，最后被 SIGKILL（137）。",
    },
}
CODE = {"en": " with code {code}", "zh": "，退出码 {code}"}

WARNINGS: dict[str, dict[str, str]] = {
    "not_modelled": {
        "en": "not modelled: “{command}” is treated as a long-running process",
        "zh": "未建模：“{command}”被视为长期运行的进程",
    },
    "partially_modelled": {
        "en": "not modelled: “{command}” succeeds at once with no output",
        "zh": "未建模：“{command}”会立即成功且没有输出",
    },
    "command_not_in_image": {
        "en": "“{command}” is not in {image}: the shell says not found (exit 127)",
        "zh": "{image} 中没有“{command}”：shell 会报 not found（退出码 127）",
    },
    "not_modelled_syntax": {
        "en": "not modelled: the shell construct “{construct}”; the container is treated as a long-running process",
        "zh": "未建模：shell 结构“{construct}”；容器被视为长期运行的进程",
    },
    "script_syntax_error": {
        "en": "the shell rejects this script ({reason}): the container prints the error and exits 2",
        "zh": "shell 拒绝这个脚本（{reason}）：容器会输出错误并以 2 退出",
    },
    "script_limit": {
        "en": "the script is beyond the model's limits ({reason}): treated as a long-running process",
        "zh": "脚本超出了模型的限制（{reason}）：视为长期运行的进程",
    },
    "busy_loop": {
        "en": "a loop that never waits: it spins at 100 % CPU (at most 2000 commands per virtual second, then parked until something changes)",
        "zh": "从不等待的循环：CPU 占用 100%（每虚拟秒最多执行 2000 条命令，之后挂起，直到有变化）",
    },
    "background_in_loop": {
        "en": "starts a background job in every loop iteration: at most 64 processes, then “can't fork”",
        "zh": "每次循环都启动一个后台任务：最多 64 个进程，之后报“can't fork”",
    },
    "sleep_beyond_horizon": {
        "en": "sleep {seconds} is longer than any run: it never ends",
        "zh": "sleep {seconds} 比任何一次运行都长：它永远不会结束",
    },
    "unknown_image": {
        "en": "{image} is not in the image catalogue: assumed to be a long-running server that listens on its ports and answers its probes",
        "zh": "{image} 不在镜像目录中：假定它是一个长期运行、监听自己端口并能响应探针的服务",
    },
}
WHERE = {
    "script": {
        "en": "{field}, script line {line} column {column}",
        "zh": "{field}，脚本第 {line} 行第 {column} 列",
    },
    "field": {"en": "{field}", "zh": "{field}"},
}


def _fmt(table: dict[str, dict[str, str]], code: str, lang: str, params: dict[str, Any]) -> str:
    template = (table.get(code) or {}).get(lang) or (table.get(code) or {}).get("en") or code
    try:
        return template.format(**{k: v for k, v in params.items()})
    except (KeyError, IndexError):
        return template


def step_text(step: dict | None, lang: str) -> str:
    if step is None:
        return ""
    code, params = step["code"], dict(step.get("params") or {})
    if code == "serves" and not params.get("ports"):
        code = "serves_no_port"
    if "body" in params:
        params["body"] = JOIN[lang].join(step_text(s, lang) for s in params["body"])
    if code == "background":
        params["what"] = step_text(params["what"], lang)
    if code == "chain":
        parts = [step_text(params["first"], lang)]
        for op, nxt in params["rest"]:
            parts.append(("&& " if op == "&&" else "|| ") + step_text(nxt, lang))
        return " ".join(p for p in parts if p)
    if code == "pipeline":
        params["stages"] = " | ".join(step_text(s, lang) for s in params["stages"])
    if code == "exits" and params.get("code") == "$?":
        return THEN_EXITS[lang]
    return _fmt(STEPS, code, lang, params)


def describe(derived: Derived, lang: str = "en") -> dict[str, Any]:
    """{"summary", "stop", "warnings": [{"text", "where", "field", "line", "column"}]}."""
    lang = lang if lang in LANGUAGES else "en"
    steps = [step_text(step, lang) for step in derived.steps]
    summary = JOIN[lang].join(s for s in steps if s)
    if derived.script is not None and not derived.script_error and derived.steps and derived.steps[-1]["code"] not in (
        "exits", "sleeps_forever", "serves", "prints_pi", "loops_forever", "unknown", "follows",
    ):  # fmt: skip
        summary += JOIN[lang] + THEN_EXITS[lang]
    signal = derived.stop_signal
    if derived.handles_stop and derived.pid1 in ("sh", "bash", "ash", "dash"):
        stop = _fmt(STOP, "trap", lang, {"signal": signal})
    elif derived.handles_stop:
        code = "" if derived.stop_exit is None else CODE[lang].format(code=derived.stop_exit)
        stop = _fmt(STOP, "handles", lang, {"pid1": derived.pid1, "signal": signal, "code": code})
    else:
        stop = _fmt(STOP, "ignores", lang, {"pid1": derived.pid1 or "?", "signal": signal})
    warnings = []
    for warning in derived.warnings:
        text = _fmt(WARNINGS, warning["code"], lang, warning.get("params") or {})
        if warning.get("line") is not None:
            where = _fmt(WHERE, "script", lang, warning)
        else:
            where = _fmt(WHERE, "field", lang, {"field": warning.get("field") or ""})
        warnings.append({"text": text, "where": where, "code": warning["code"], "field": warning.get("field"),
                         "line": warning.get("line"), "column": warning.get("column")})  # fmt: skip
    return {"summary": summary, "stop": stop, "warnings": warnings}
