"""Prediction questions in a class: asked, answered, tallied, revealed."""

from __future__ import annotations

from typing import Any


def tally(cls: Any, qid: str) -> dict[str, Any]:
    """The teacher's view of question `qid`: counts per choice (no names), and, once
    revealed, the answer."""
    question = cls.questions[qid]
    if question.get("kind") == "why":
        # The answers without names, in an order that tells nothing of who wrote which.
        texts = sorted(list(cls.texts.get(qid, {}).values()), key=str.casefold)
        return {
            "id": qid,
            "kind": "why",
            "question": question.get("question"),
            "choices": [],
            "counts": [],
            "answered": len(texts),
            "texts": texts,
            "revealed": qid in cls.revealed,
            "answer": None,
            "correct": None,
        }
    counts = [0] * len(question.get("choices", []))
    for choice in list(cls.answers.get(qid, {}).values()):  # answers may arrive meanwhile
        if 0 <= choice < len(counts):
            counts[choice] += 1
    return {
        "id": qid,
        "kind": question.get("kind", "status"),
        "question": question.get("question"),
        "choices": question.get("choices"),
        "counts": counts,
        "answered": sum(counts),
        "revealed": qid in cls.revealed,
        "answer": question.get("answer") if qid in cls.revealed else None,
        "correct": question.get("answer"),
    }
