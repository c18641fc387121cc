"""Prediction questions in a class (filled in by the questions step)."""

from __future__ import annotations

from typing import Any

from webapp.realtime.state import Refusal


def ask(classes: Any, rt: Any, cls: Any, payload: dict[str, Any]) -> None:
    raise Refusal("class_unknown_question", id="")


def reveal(classes: Any, cls: Any, payload: dict[str, Any]) -> None:
    raise Refusal("class_unknown_question", id="")


def answer(classes: Any, cls: Any, student: Any, payload: dict[str, Any]) -> None:
    raise Refusal("class_unknown_question", id="")
