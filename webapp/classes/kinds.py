"""The kinds of question a teacher asks the class (issue 21, item 4), each answered from the
engine like "what will STATUS be in N seconds?" (asking.status_question): a copy of the
teacher's run (a checkpoint of it, the kept future included) is played on within the look
ahead's bound (webapp/classes/ahead.py), never the teacher's run itself.

class:ask {question: {kind, seconds}}:
    status     What will STATUS be in N seconds?            (asking.py)
    event      Which event comes next?                      the reason of the first Event
               (new, or a repeat: its count goes up) within N seconds (default 60), or
               "no new event"; Events as `kubectl get events` lists them
    restarts   How many restarts will the Pod have in N seconds?   the RESTARTS count
    endpoints  Will the Pod be in the Service's endpoints in N seconds?   a ready endpoint
               of an EndpointSlice of a Service (refused without a Service)
    stage      Which stage will the Pod be in, in N seconds?   the five stages of the diagram
    gone       How long until the Pod is gone?              within N seconds (default 120),
               in four spans of it, or "still there"
class:ask {question: {kind: "why", text}}: a free-text question (asking.py); the answers are
read by the teacher without names.

Each builder returns the question as stored: `question` and `choices` (each {en, zh}),
`answer` (the index of the right choice), `why` (what the run showed), `kind`, `at`.
"""

from __future__ import annotations

from typing import Any

from webapp.classes import ahead, quiz
from webapp.realtime.state import Refusal

# The five stages, as the page's diagram names them (static/js/i18n.js, stage.N).
STAGES = {
    1: {"en": "1 Scheduling and preparation", "zh": "1 调度与准备"},
    2: {"en": "2 Init containers", "zh": "2 初始化容器"},
    3: {"en": "3 App containers start", "zh": "3 应用容器启动"},
    4: {"en": "4 Running health checks", "zh": "4 运行中健康检测"},
    5: {"en": "5 Graceful termination", "zh": "5 优雅退出"},
}
# Event reasons a learner meets most (the kubelet's, the scheduler's: pkg/kubelet/events/
# event.go and the default scheduler); the distractors come from here.
USUAL_REASONS = (
    "Scheduled",
    "Pulling",
    "Pulled",
    "Created",
    "Started",
    "Killing",
    "Unhealthy",
    "BackOff",
    "Failed",
    "FailedScheduling",
)
EVENT_SECONDS = 60.0
GONE_SECONDS = 120.0


def _same(text: str) -> dict[str, str]:
    return {"en": text, "zh": text}


def _look(session: Any, seconds: float) -> tuple[ahead.Look, float, float]:
    """Where a look ahead of `seconds` from the session's moment starts, that moment and
    the second it reaches (at most the end of the session's clock)."""
    with session.lock:
        now = ahead.moment(session)
        target = min(now + seconds, session.clock.end)
        return ahead.capture(session, target), now, target


def restarts_question(session: Any, seconds: float) -> dict[str, Any]:
    look, now, target = _look(session, seconds)
    current = quiz.facts(ahead.run(_until(look, now)))["restarts"]
    seen = quiz.facts(ahead.run(look))
    count = seen["restarts"]
    if not isinstance(count, int):  # the Pod is gone: no RESTARTS cell
        raise Refusal("class_question_no_pod")
    current = current if isinstance(current, int) else 0
    pool = sorted({count, current, count + 1, max(0, count - 1), count + 2})
    start = max(0, min(pool.index(count) - 1, len(pool) - 4))
    choices = pool[start : start + 4]
    n, then = f"{seconds:g}", f"{round(target, 1):g}"
    return {
        "kind": "restarts",
        "question": {
            "en": f"How many restarts will the Pod have in {n} seconds?",
            "zh": f"{n} 秒后 Pod 的重启次数（RESTARTS）是多少？",
        },
        "choices": [_same(str(c)) for c in choices],
        "answer": choices.index(count),
        "why": {
            "en": f"At second {then} `kubectl get pods` shows RESTARTS {count}.",
            "zh": f"在第 {then} 秒，`kubectl get pods` 显示 RESTARTS 为 {count}。",
        },
        "at": now,
    }


def _until(look: ahead.Look, t: float) -> ahead.Look:
    """The same look ahead, stopped at `t` (before its end)."""
    return ahead.Look(
        look.engine,
        look.scenario,
        look.seed,
        [a for a in look.actions if a["at"] <= t],
        t,
        look.checkpoint if look.checkpoint is None or look.checkpoint.at <= t else None,
    )


def endpoints_question(session: Any, seconds: float) -> dict[str, Any]:
    look, now, target = _look(session, seconds)
    sim = ahead.run(look)
    if not _has_service(sim):
        raise Refusal("class_question_no_service")
    inside = bool(quiz.facts(sim)["inEndpoints"])
    n, then = f"{seconds:g}", f"{round(target, 1):g}"
    return {
        "kind": "endpoints",
        "question": {
            "en": f"Will the Pod be in the Service's endpoints in {n} seconds?",
            "zh": f"{n} 秒后 Pod 会在 Service 的端点（endpoints）里吗？",
        },
        "choices": [
            {"en": "Yes: a ready endpoint, it gets traffic", "zh": "会：是就绪的端点，会收到流量"},
            {"en": "No: it gets no traffic", "zh": "不会：它收不到流量"},
        ],
        "answer": 0 if inside else 1,
        "why": {
            "en": f"At second {then} the Service's EndpointSlice "
            + ("lists the Pod as a ready endpoint." if inside else "has no ready endpoint for it."),
            "zh": f"在第 {then} 秒，Service 的 EndpointSlice "
            + ("把这个 Pod 列为就绪端点。" if inside else "里没有它的就绪端点。"),
        },
        "at": now,
    }


def _has_service(sim: Any) -> bool:
    """Whether the run has a Service: its EndpointSlices (the EndpointSlice controller
    keeps one for each Service with a selector, empty or not)."""
    objects = getattr(sim, "objects", None)
    if objects is not None:  # a cluster run: its API objects
        return bool(objects("Service"))
    slices = getattr(sim, "endpoint_slices", None)
    return bool(slices()) if slices is not None else False


def stage_question(session: Any, seconds: float) -> dict[str, Any]:
    look, now, target = _look(session, seconds)
    sim = ahead.run(look)
    transitions = sim.transitions
    stage = int(transitions[-1].get("stage") or 1) if transitions else 1
    n, then = f"{seconds:g}", f"{round(target, 1):g}"
    return {
        "kind": "stage",
        "question": {
            "en": f"Which stage will the Pod be in, in {n} seconds?",
            "zh": f"{n} 秒后 Pod 处在哪个阶段？",
        },
        "choices": [STAGES[i] for i in range(1, 6)],
        "answer": stage - 1,
        "why": {
            "en": f"At second {then} the diagram is at stage {STAGES[stage]['en']}.",
            "zh": f"在第 {then} 秒，流程图处在阶段 {STAGES[stage]['zh']}。",
        },
        "at": now,
    }


def event_question(session: Any, seconds: float) -> dict[str, Any]:
    look, now, target = _look(session, seconds)
    seen: dict[str, int] = {}
    first: list[Any] = []
    found: list[tuple[float, dict[str, Any]]] = []

    def visit(sim: Any, t: float) -> bool:
        events = sim.events()
        if not first:
            first.append(events[-1].get("reason") if events else None)
            seen.update(_counts(events))
            return False
        fresh = [e for e in events if int(e.get("count") or 1) > seen.get(e["metadata"]["name"], 0)]
        if fresh:
            fresh.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
            found.append((t, fresh[0]))
            return True
        return False

    ahead.run(look, visit=visit, start=now, every=0.5)
    last_reason = first[0] if first else None
    n = f"{seconds:g}"
    none = {"en": f"No new event within {n} s", "zh": f"{n} 秒内没有新事件"}
    pool: list[str] = []
    if found:
        pool.append(str(found[0][1].get("reason")))
    for reason in (last_reason, *USUAL_REASONS):
        if len(pool) >= 4:
            break
        if reason and reason not in pool:
            pool.append(reason)
    pool.sort()
    choices = [_same(r) for r in pool] + [none]
    if found:
        t, event = found[0]
        reason, message = str(event.get("reason")), str(event.get("message") or "")
        answer = pool.index(reason)
        why = {
            "en": f"By second {t:g}: {event.get('type', 'Normal')} {reason}: {message}",
            "zh": f"到第 {t:g} 秒：{event.get('type', 'Normal')} {reason}：{message}",
        }
    else:
        answer = len(choices) - 1
        why = {
            "en": f"No Event was recorded from second {now:g} to second {target:g}.",
            "zh": f"从第 {now:g} 秒到第 {target:g} 秒没有记录任何事件。",
        }
    return {
        "kind": "event",
        "question": {
            "en": "Which event comes next?",
            "zh": "下一个事件（Event）是什么？",
        },
        "choices": choices,
        "answer": answer,
        "why": why,
        "at": now,
    }


def _counts(events: list[dict[str, Any]]) -> dict[str, int]:
    return {e["metadata"]["name"]: int(e.get("count") or 1) for e in events}


def gone_question(session: Any, seconds: float) -> dict[str, Any]:
    look, now, target = _look(session, seconds)
    gone: list[float] = []

    def visit(sim: Any, t: float) -> bool:
        if sim.pod() is None:
            gone.append(t)
            return True
        return False

    ahead.run(look, visit=visit, start=now, every=0.5)
    if gone and gone[0] <= now:
        raise Refusal("class_question_no_pod")
    edges = [seconds / 12, seconds / 4, seconds / 2, seconds]
    labels = []
    low = 0.0
    for edge in edges:
        a, b = f"{low:g}", f"{round(edge, 1):g}"
        labels.append({"en": f"In {a}–{b} s", "zh": f"{a}–{b} 秒内"})
        low = round(edge, 1)
    labels.append({"en": f"Still there after {seconds:g} s", "zh": f"{seconds:g} 秒后还在"})
    if gone:
        after = gone[0] - now
        answer = next(i for i, edge in enumerate(edges) if after <= round(edge, 1) + 1e-9)
        why = {
            "en": f"The Pod is gone from the API by second {gone[0]:g}, "
            f"{after:g} s after second {now:g}.",
            "zh": f"到第 {gone[0]:g} 秒 Pod 已从 API 中消失，即第 {now:g} 秒之后 {after:g} 秒。",
        }
    else:
        answer = len(labels) - 1
        why = {
            "en": f"At second {target:g} the Pod is still in the API.",
            "zh": f"在第 {target:g} 秒 Pod 仍然在 API 中。",
        }
    return {
        "kind": "gone",
        "question": {"en": "How long until the Pod is gone?", "zh": "还要多久 Pod 会消失？"},
        "choices": labels,
        "answer": answer,
        "why": why,
        "at": now,
    }


BUILDERS = {
    "restarts": restarts_question,
    "endpoints": endpoints_question,
    "stage": stage_question,
    "event": event_question,
    "gone": gone_question,
}
DEFAULT_SECONDS = {"event": EVENT_SECONDS, "gone": GONE_SECONDS}
