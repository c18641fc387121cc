"""(d) The Socket.IO handlers and the share API under hostile payloads: join, apply,
clock, act, lang, unknown events, malformed packets, share links (see socket_harness)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given

from tests.fuzz import corpus
from tests.fuzz.settings import fuzz
from tests.fuzz.socket_harness import Harness
from tests.fuzz.strategies import share_bodies, socket_run

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    harness = Harness()
    yield harness
    harness.close()


@fuzz(1500)
@given(steps=socket_run())
def test_any_socket_conversation_ends_in_state_or_a_localized_error(
    harness: Harness, steps: list[Any]
) -> None:
    harness.run(steps)


@fuzz(600)
@given(body=share_bodies)
def test_any_share_post_is_json_and_an_accepted_link_opens(harness: Harness, body: Any) -> None:
    harness.run([("share", body, "zh"), ("share", body, "en")])


@pytest.mark.parametrize("case", corpus.SOCKET, ids=corpus.ids)
def test_socket_regressions(harness: Harness, case: corpus.Case) -> None:
    harness.run(case.value)
