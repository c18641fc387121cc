"""Lesson plans (issue 21, item 3): an ordered list of steps for a class hour, authored as
YAML beside the scenarios (`scenarios/plans/*.yaml`, one plan a file, its name the file's).

    name: five-stages                  # the file's name
    title: {en: ..., zh: ...}          # a string, or a map of language to string
    minutes: 45                        # how long the plan takes (1-240)
    steps:                             # 1-100 steps, done in order by the teacher's "Next step"
    - open: lifecycle-demo             # the class's run restarts with a built-in scenario
      say: {en: ..., zh: ...}          # (any step) what the step is about, shown to everyone
    - play: 20                         # the class's run plays to virtual second 20, then pauses
    - handout: crash-loop-backoff      # each student gets a run of their own of it, paused
      at: 0                            # ... at this second (default 0)
    - ask: {kind: restarts, seconds: 60}          # a question (webapp/classes/kinds.py);
    - ask: {kind: why, text: {en: ..., zh: ...}}  # a free-text one
    - reveal: true                     # the last question asked is revealed
    - explore: 5                       # free exploration for 5 minutes, with a timer on every
                                       # page; when it runs out everyone follows again

Every error carries the plan's line and column (`validate`), as a scenario's do
(webapp/manifest), with a message in English and 简体中文. A broken built-in plan is
logged and left out, never a reason to refuse service (as built-in scenarios).

Over Socket.IO: `class:plan {plan: name | null}` (teacher: the class follows that plan from
its start, or none), `class:next {}` (teacher: do the next step); `class:state` carries
`plan: {name, title, minutes, step, steps: [{kind, say, ...}], timer: {remaining, minutes}}`.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path as FilePath
from typing import Any

from webapp.manifest import ScenarioError
from webapp.manifest.errors import Finding, Path
from webapp.manifest.messages import MESSAGES as SCENARIO_MESSAGES
from webapp.manifest.yaml_reader import read_documents

log = logging.getLogger(__name__)

STEP_KINDS = ("open", "play", "handout", "ask", "reveal", "explore")
MAX_STEPS = 100
MAX_MINUTES = 240
MAX_PLAY_SECONDS = 7200.0
ASK_KINDS = ("status", "event", "restarts", "endpoints", "stage", "gone")

MESSAGES: dict[str, dict[str, str]] = {
    "plan_not_a_map": {
        "en": "a lesson plan is a map with name, title, minutes and steps",
        "zh": "课程计划是一个包含 name、title、minutes 和 steps 的映射",
    },
    "plan_one_document": {
        "en": "a lesson plan is one YAML document",
        "zh": "课程计划只能是一个 YAML 文档",
    },
    "plan_unknown_field": {
        "en": 'unknown field "{field}" (a plan has {allowed})',
        "zh": "未知字段“{field}”（可用的字段：{allowed}）",
    },
    "plan_missing": {"en": 'missing field "{field}"', "zh": "缺少字段“{field}”"},
    "plan_not_text": {
        "en": "{field} must be a string or a map of en/zh to strings",
        "zh": "{field} 必须是字符串，或者 en/zh 到字符串的映射",
    },
    "plan_bad_number": {
        "en": "{field} must be a number from {low} to {high}",
        "zh": "{field} 必须是 {low} 到 {high} 之间的数字",
    },
    "plan_bad_name": {
        "en": 'name "{name}" must be the file\'s name, "{file}"',
        "zh": "name“{name}”必须和文件名“{file}”一致",
    },
    "plan_no_steps": {
        "en": "steps must be a list of 1 to {limit} steps",
        "zh": "steps 必须是包含 1 到 {limit} 个步骤的列表",
    },
    "plan_step_kind": {
        "en": "each step has exactly one of {kinds} (and may have say)",
        "zh": "每个步骤必须且只能有 {kinds} 中的一个（可以另加 say）",
    },
    "plan_unknown_scenario": {
        "en": 'there is no built-in scenario "{name}"',
        "zh": "没有名为“{name}”的内置场景",
    },
    "plan_bad_ask": {
        "en": "ask is {{kind: {kinds}, seconds?}} or {{kind: why, text}}",
        "zh": "ask 的写法是 {{kind: {kinds}, seconds?}} 或 {{kind: why, text}}",
    },
    "plan_reveal_first": {
        "en": "reveal comes after an ask",
        "zh": "reveal 必须在 ask 之后",
    },
    "plan_no_scenario": {
        "en": "the first step that plays, hands out or asks needs a scenario open before it",
        "zh": "在播放、分发或提问之前，必须先用 open 打开一个场景",
    },
}
SCENARIO_MESSAGES.update(MESSAGES)  # localize_errors renders these codes in both languages

_TOP_FIELDS = ("name", "title", "description", "minutes", "steps")


def _text(value: Any) -> dict[str, str] | None:
    """A string or {en, zh} map as {en, zh}; None if it is neither."""
    if isinstance(value, str) and value.strip():
        return {"en": value, "zh": value}
    if (
        isinstance(value, dict)
        and value
        and set(value) <= {"en", "zh"}
        and all(isinstance(v, str) and v.strip() for v in value.values())
    ):
        return {"en": value.get("en") or value["zh"], "zh": value.get("zh") or value["en"]}
    return None


def _number(value: Any, low: float, high: float) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def validate(text: str, file_name: str, scenarios: Any) -> dict[str, Any]:
    """The plan in `text` (the file `file_name`.yaml), its scenarios checked against the
    catalog `scenarios` (names -> scenario); raises ScenarioError with every located
    error."""
    documents, errors = read_documents(text)
    if errors:
        raise ScenarioError(errors)
    real = [d for d in documents if d.data is not None]
    if len(real) != 1:
        doc = real[1] if len(real) > 1 else documents[0]
        raise ScenarioError([doc.locate(Finding((), "plan_one_document", {}))])
    doc = real[0]
    findings: list[Finding] = []

    def problem(path: Path, code: str, point: str = "value", **params: Any) -> None:
        findings.append(Finding(path, code, params, point))  # type: ignore[arg-type]

    data = doc.data
    if not isinstance(data, dict):
        raise ScenarioError([doc.locate(Finding((), "plan_not_a_map", {}))])
    for key in data:
        if key not in _TOP_FIELDS:
            problem((key,), "plan_unknown_field", "key", field=key, allowed=", ".join(_TOP_FIELDS))
    for field in ("name", "title", "minutes", "steps"):
        if field not in data:
            problem((field,), "plan_missing", field=field)
    if "name" in data and data["name"] != file_name:
        problem(("name",), "plan_bad_name", name=str(data["name"])[:64], file=file_name)
    for field in ("title", "description"):
        if field in data and _text(data[field]) is None:
            problem((field,), "plan_not_text", field=field)
    if "minutes" in data and not _number(data["minutes"], 1, MAX_MINUTES):
        problem(("minutes",), "plan_bad_number", field="minutes", low=1, high=MAX_MINUTES)
    steps = data.get("steps")
    checked: list[dict[str, Any]] = []
    if "steps" in data and (not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS):
        problem(("steps",), "plan_no_steps", limit=MAX_STEPS)
    elif isinstance(steps, list):
        opened = asked = False
        for i, step in enumerate(steps):
            path: Path = ("steps", i)
            found = _step(step, path, problem, scenarios)
            if found is None:
                continue
            kind = found["kind"]
            if kind == "open":
                opened = True
            elif kind in ("play", "handout", "ask") and not opened:
                problem(path, "plan_no_scenario")
            if kind == "ask":
                asked = True
            if kind == "reveal" and not asked:
                problem(path, "plan_reveal_first")
            checked.append(found)
    if findings:
        raise ScenarioError([doc.locate(f) for f in findings])
    return {
        "name": data["name"],
        "title": _text(data["title"]),
        "description": _text(data.get("description", "")) or {"en": "", "zh": ""},
        "minutes": data["minutes"],
        "steps": checked,
    }


def _step(step: Any, path: Path, problem: Any, scenarios: Any) -> dict[str, Any] | None:
    kinds = ", ".join(STEP_KINDS)
    if not isinstance(step, dict):
        problem(path, "plan_step_kind", kinds=kinds)
        return None
    present = [k for k in STEP_KINDS if k in step]
    allowed = {*present, "say", *(("at",) if present == ["handout"] else ())}
    for key in step:
        if key not in allowed and key not in STEP_KINDS:
            problem((*path, key), "plan_unknown_field", "key", field=key, allowed=", ".join(
                [*STEP_KINDS, "say", "at"]))  # fmt: skip
    if len(present) != 1:
        problem(path, "plan_step_kind", kinds=kinds)
        return None
    kind = present[0]
    value = step[kind]
    out: dict[str, Any] = {"kind": kind}
    if "say" in step:
        say = _text(step["say"])
        if say is None:
            problem((*path, "say"), "plan_not_text", field="say")
        out["say"] = say
    where = (*path, kind)
    if kind in ("open", "handout"):
        if not isinstance(value, str) or scenarios.get(value) is None:
            problem(where, "plan_unknown_scenario", name=str(value)[:64])
        out["scenario"] = value
        if kind == "handout":
            at = step.get("at", 0)
            if not _number(at, 0, MAX_PLAY_SECONDS):
                problem((*path, "at"), "plan_bad_number", field="at", low=0, high=MAX_PLAY_SECONDS)
            out["at"] = at
    elif kind == "play":
        if not _number(value, 0, MAX_PLAY_SECONDS):
            problem(where, "plan_bad_number", field="play", low=0, high=MAX_PLAY_SECONDS)
        out["to"] = value
    elif kind == "explore":
        if not _number(value, 1, MAX_MINUTES):
            problem(where, "plan_bad_number", field="explore", low=1, high=MAX_MINUTES)
        out["minutes"] = value
    elif kind == "reveal":
        if value is not True:
            problem(where, "plan_bad_number", field="reveal", low="true", high="true")
    else:  # ask
        out["question"] = _ask(value, where, problem)
    return out


def _ask(value: Any, where: Path, problem: Any) -> dict[str, Any]:
    kinds = ", ".join(ASK_KINDS)
    if not isinstance(value, dict):
        problem(where, "plan_bad_ask", kinds=kinds)
        return {}
    kind = value.get("kind")
    if kind == "why":
        text = _text(value.get("text"))
        if set(value) != {"kind", "text"} or text is None:
            problem(where, "plan_bad_ask", kinds=kinds)
        return {"kind": "why", "text": text}
    if kind not in ASK_KINDS or not set(value) <= {"kind", "seconds"}:
        problem(where, "plan_bad_ask", kinds=kinds)
        return {}
    if "seconds" in value and not _number(value["seconds"], 1, 600):
        problem((*where, "seconds"), "plan_bad_number", field="seconds", low=1, high=600)
    return dict(value)


class PlanCatalog:
    """The built-in plans of `folder` (scenarios/plans), read and checked once."""

    def __init__(self, folder: FilePath, scenarios: Any) -> None:
        self.folder = folder
        self.scenarios = scenarios
        self._plans: dict[str, dict[str, Any]] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            if self._plans is None:
                plans = {}
                for path in sorted(self.folder.glob("*.yaml")):
                    try:
                        plans[path.stem] = validate(
                            path.read_text(encoding="utf-8"), path.stem, self.scenarios
                        )
                    except ScenarioError as error:
                        log.error("built-in lesson plan %s is invalid: %s", path.name, error)
                self._plans = plans
            return self._plans

    def get(self, name: Any) -> dict[str, Any] | None:
        return self._load().get(name) if isinstance(name, str) else None

    def listing(self) -> list[dict[str, Any]]:
        return [
            {
                "name": p["name"],
                "title": p["title"],
                "description": p["description"],
                "minutes": p["minutes"],
                "steps": len(p["steps"]),
            }
            for p in self._load().values()
        ]


def first_scenario(plan: dict[str, Any]) -> str:
    return next(s["scenario"] for s in plan["steps"] if s["kind"] == "open")
