"""Shape and type checks for what clients send: Socket.IO payloads and share-link bodies.

A failed check raises `PayloadProblem(code, **params)`; `code` is a key of
`webapp.i18n.PROBLEMS`, so the caller can say what is wrong in the client's language.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from typing import Any

# The engine's action words (ARCHITECTURE.md, "Engine API").
ACTION_WORDS = frozenset(
    {"delete", "set-probe", "crash", "oom", "node-down", "node-up", "apply"}
    # a workload scenario's (engine/cluster_actions.py); a Pod scenario's engine refuses them
    | {
        "scale",
        "rollout-restart",
        "rollout-undo",
        "set-image",
        "cordon",
        "uncordon",
        "drain",
        "focus",
    }
)
MAX_ACTIONS = 1000
MAX_SHORT_TEXT = 256  # names, ids, container names: anything that is not YAML
# The largest integer a float holds (about 1.8e308, 309 digits); larger ones are refused
# at the door (`finite`), and longer ones are never even converted (`loads`).
MAX_FLOAT_INT = int(sys.float_info.max)
MAX_FLOAT_DIGITS = len(str(MAX_FLOAT_INT))


class HugeNumber(float):
    """An integer of a client's JSON too long to be a float (more than 308 digits), as
    `loads` reads it: never converted (Python refuses to convert more than 4300 digits at
    all, and a float cannot hold it), so the check of the field it is in refuses it
    (`number_too_large`). It is the float ±inf, so that wherever it goes unchecked (a
    class event forwarded to another worker as JSON) it is a number no check accepts."""

    __slots__ = ("digits",)

    def __new__(cls, text: str) -> HugeNumber:
        number = super().__new__(cls, "-inf" if text.startswith("-") else "inf")
        number.digits = len(text.lstrip("-"))
        return number

    def __repr__(self) -> str:
        return f"HugeNumber({self.digits} digits)"


def _parse_int(text: str) -> int | HugeNumber:
    return HugeNumber(text) if len(text.lstrip("-")) > MAX_FLOAT_DIGITS else int(text)


def loads(text: str | bytes, **kwargs: Any) -> Any:
    """`json.loads` for what clients send (Socket.IO packets, HTTP bodies): an integer of
    more than 308 digits is a `HugeNumber`, for the field's check to refuse with its name,
    instead of a ValueError for the whole message (over 4300 digits) or an OverflowError
    later in a check (309 to 4300)."""
    return json.loads(text, parse_int=_parse_int, **kwargs)


class PayloadProblem(ValueError):
    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def require_object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PayloadProblem("not_object")
    return value


def shown_name(key: Any) -> str:
    """A client's field name as an error may quote it: at most MAX_SHORT_TEXT characters,
    and what is not valid Unicode text (a lone surrogate) escaped as ``\\udxxx``, so the
    refusal never carries the invalid string back."""
    return str(key)[:MAX_SHORT_TEXT].encode("utf-8", "backslashreplace").decode("utf-8")


def only_fields(payload: dict[str, Any], allowed: Iterable[str]) -> None:
    allowed = set(allowed)
    for key in payload:
        if key not in allowed:
            raise PayloadProblem("unknown_field", field=shown_name(key))


def text(payload: dict[str, Any], field: str, *, limit: int = MAX_SHORT_TEXT) -> str:
    value = payload.get(field)
    if value is None:
        raise PayloadProblem("missing", field=field)
    if not isinstance(value, str):
        raise PayloadProblem("not_string", field=field)
    if utf8_size(value, field) > limit:
        raise PayloadProblem("too_long", field=field)
    return value


def choice(payload: dict[str, Any], field: str, choices: Iterable[str]) -> str:
    """One of the words ``choices``, refused as `not_one_of` otherwise."""
    choices = tuple(choices)
    value = text(payload, field)
    if value not in choices:
        raise PayloadProblem("not_one_of", field=field, choices=", ".join(choices))
    return value


def utf8_size(value: str, field: str) -> int:
    """Bytes of `value` in UTF-8; a lone surrogate (JSON allows "\\ud800", Unicode does
    not) is refused as `not_unicode`."""
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise PayloadProblem("not_unicode", field=field[:MAX_SHORT_TEXT]) from None


def number(payload: dict[str, Any], field: str) -> float:
    value = payload.get(field)
    if value is None:
        raise PayloadProblem("missing", field=field)
    return finite(value, field)


def finite(value: Any, field: str) -> float:
    """A number from a client as a float, or `not_number` / `number_too_large` naming
    `field`. The door for every number: JSON's integers have no bound, and one of more
    than 308 digits has no float (`math.isfinite` and `float` raise OverflowError on it)."""
    if isinstance(value, HugeNumber):
        raise PayloadProblem("number_too_large", field=field)
    # bool is an int in Python, never a number on the wire.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PayloadProblem("not_number", field=field)
    if isinstance(value, int):
        if not -MAX_FLOAT_INT <= value <= MAX_FLOAT_INT:
            raise PayloadProblem("number_too_large", field=field)
        return float(value)
    if not math.isfinite(value):
        raise PayloadProblem("not_number", field=field)
    return value


def check_action(value: Any, *, yaml_limit: int, timed: bool) -> dict[str, Any]:
    """An action dict: a known `action` word and flat JSON scalars. `timed` requires (and
    otherwise forbids) `at`, a number of virtual seconds >= 0."""
    action = require_object(value)
    word = text(action, "action")
    if word not in ACTION_WORDS:
        raise PayloadProblem("unknown_action", action=word[:MAX_SHORT_TEXT])
    if timed:
        if number(action, "at") < 0:
            raise PayloadProblem("negative", field="at")
    elif "at" in action:
        raise PayloadProblem("unknown_field", field="at")
    for key, item in action.items():
        if not isinstance(key, str) or len(key) > MAX_SHORT_TEXT:
            raise PayloadProblem("unknown_field", field=str(key)[:MAX_SHORT_TEXT])
        utf8_size(key, "action")  # a lone surrogate in a field name
        if isinstance(item, str):
            text(action, key, limit=yaml_limit if key == "yaml" else MAX_SHORT_TEXT)
        elif isinstance(item, int | float | HugeNumber) and not isinstance(item, bool):
            finite(item, key)
        elif item is not None and not isinstance(item, bool):
            raise PayloadProblem("not_string", field=key)
    return action


def check_actions(value: Any, *, yaml_limit: int) -> list[dict[str, Any]]:
    """A timeline of timed actions, at most MAX_ACTIONS, sorted by `at` (stable)."""
    if not isinstance(value, list):
        raise PayloadProblem("not_list", field="actions")
    if len(value) > MAX_ACTIONS:
        raise PayloadProblem("too_many", field="actions", limit=MAX_ACTIONS)
    actions = [check_action(item, yaml_limit=yaml_limit, timed=True) for item in value]
    return sorted(actions, key=lambda a: a["at"])
