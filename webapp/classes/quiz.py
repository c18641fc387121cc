"""Prediction questions of a scenario (`lesson.questions` in the Simulation document): which
choice is right is computed from the run, never written by hand.

A question asked at virtual second `t` with `after: N` is answered by the state of the same
timeline at `t + N`: a replay of the scenario with the session's actions up to then (its
kept future included: what playing on would do). Each choice states checks on that state
(`status`: kubectl's STATUS cell, `restarts`: the RESTARTS count, `phase` (or `Gone`),
`ready`: the Ready condition, `inEndpoints`: the Pod is a ready endpoint of a Service);
the right choice is the one whose checks all hold. A question where none or several hold
has no answer (None), which tests/unit/test_questions.py forbids for built-in scenarios.

quiz:ask {id} (any tab, on its own session): answered with `quiz:answer {id, answer, why,
checkAt}`; the page asks once the learner has chosen (alone it is a quiz). In a class, the
teacher's `class:ask {question: {id}}` asks it of the class (webapp/classes/asking.py).
"""

from __future__ import annotations

from typing import Any

from webapp import kubectl

CHECKS = ("status", "restarts", "phase", "ready", "inEndpoints")


def facts(sim: Any) -> dict[str, Any]:
    """What the checks read, from the engine's state now."""
    pod = sim.pod()
    if pod is None:
        return {"status": None, "restarts": None, "phase": "Gone", "ready": False,
                "inEndpoints": False}  # fmt: skip
    columns = kubectl.pod_columns(pod, sim.wall_time())
    restarts = str(columns.get("RESTARTS", "0")).split(" ", 1)[0]
    conditions = (pod.get("status") or {}).get("conditions") or []
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
    name = (pod.get("metadata") or {}).get("name")
    endpoints = sim.endpoint_slices() if hasattr(sim, "endpoint_slices") else []
    in_endpoints = any(
        (e.get("targetRef") or {}).get("name") == name
        and (e.get("conditions") or {}).get("ready") is True
        for s in endpoints
        for e in s.get("endpoints") or []
    )
    return {
        "status": columns.get("STATUS"),
        "restarts": int(restarts) if restarts.isdigit() else restarts,
        "phase": (pod.get("status") or {}).get("phase"),
        "ready": ready,
        "inEndpoints": in_endpoints,
    }


def holds(choice: dict[str, Any], seen: dict[str, Any]) -> bool:
    return all(seen[k] == choice[k] for k in CHECKS if k in choice)


def answer(
    replay: Any,
    scenario: Any,
    actions: list[dict[str, Any]],
    asked_at: float,
    question: dict[str, Any],
) -> tuple[int | None, float, dict[str, Any]]:
    """(index of the right choice or None, the second it is checked at, the facts there)."""
    check_at = asked_at + float(question["after"])
    sim = replay(scenario, [a for a in actions if a["at"] <= check_at], check_at)
    seen = facts(sim)
    right = [i for i, c in enumerate(question["choices"]) if holds(c, seen)]
    return (right[0] if len(right) == 1 else None), check_at, seen


def public(question: dict[str, Any]) -> dict[str, Any]:
    """A question as a learner sees it before answering: text and choices, no checks."""
    return {
        "id": question["id"],
        "kind": "scenario",
        "question": question["question"],
        "choices": [c["text"] for c in question["choices"]],
    }
