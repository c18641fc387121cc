"""Numbers at the door (issue 26 F6): one check for every number a client sends
(webapp/sessions/payloads.py `finite`), and a JSON reader that never converts an integer
too long for a float (`loads`)."""

from __future__ import annotations

import json

import pytest

from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check

FLOAT_MAX_DIGITS = 309  # 1.8e308 has 309 digits


@pytest.mark.parametrize("digits", [FLOAT_MAX_DIGITS, 400, 4300, 4301, 20_000])
def test_an_integer_too_large_for_a_float_is_refused_by_its_field(digits: int) -> None:
    payload = check.loads('{"op": "seek", "value": -' + "9" * digits + "}")
    with pytest.raises(PayloadProblem) as refused:
        check.number(payload, "value")
    assert (refused.value.code, refused.value.params) == ("number_too_large", {"field": "value"})


def test_the_largest_float_integer_is_a_number() -> None:
    largest = str(int(1.7976931348623157e308))
    assert (
        check.number(check.loads('{"value": ' + largest + "}"), "value") == 1.7976931348623157e308
    )
    assert check.number({"value": 10**308}, "value") == 1e308


def test_a_huge_integer_in_an_action_names_its_field() -> None:
    action = check.loads('{"action": "crash", "at": 1, "exitCode": ' + "9" * 500 + "}")
    with pytest.raises(PayloadProblem) as refused:
        check.check_action(action, yaml_limit=1000, timed=True)
    assert refused.value.params == {"field": "exitCode"}
    with pytest.raises(PayloadProblem) as refused:  # an int, not from loads: the same
        check.check_action({"action": "crash", "exitCode": 10**400}, yaml_limit=1000, timed=False)
    assert refused.value.code == "number_too_large"


def test_a_huge_integer_forwarded_as_json_stays_refused() -> None:
    """A class event is forwarded to another worker as JSON: it arrives as inf."""
    payload = check.loads('{"value": ' + "9" * 5000 + "}")
    again = check.loads(json.dumps(payload))
    with pytest.raises(PayloadProblem) as refused:
        check.number(again, "value")
    assert refused.value.code == "not_number"


def test_ordinary_numbers_read_as_before() -> None:
    assert check.loads('{"a": 3, "b": -2.5, "c": 1e3}') == {"a": 3, "b": -2.5, "c": 1000.0}
