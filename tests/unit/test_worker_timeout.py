"""gunicorn's worker timeout, from SERVER_WORKER_TIMEOUT_SECONDS (webapp/serving.py)."""

from __future__ import annotations

import pytest

from webapp.config import load_config
from webapp.serving import worker_timeout_seconds


def test_the_default_is_gunicorns_30_seconds() -> None:
    assert load_config({})["SERVER_WORKER_TIMEOUT_SECONDS"] == 30
    assert worker_timeout_seconds(30) == 30


def test_the_environment_sets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_SERVER_WORKER_TIMEOUT_SECONDS", "600")
    assert worker_timeout_seconds(load_config({})["SERVER_WORKER_TIMEOUT_SECONDS"]) == 600


@pytest.mark.parametrize("value", [0, 9, 3601, "x"])
def test_out_of_range_is_refused_with_its_name(value: object) -> None:
    with pytest.raises(ValueError, match=r"SERVER_WORKER_TIMEOUT_SECONDS|invalid literal"):
        worker_timeout_seconds(value)


def test_gunicorn_gets_it() -> None:
    from webapp.serving import gunicorn_settings

    config = load_config({})
    assert gunicorn_settings("127.0.0.1", 8000, 2, config)["timeout"] == 30
    config = load_config({"SERVER_WORKER_TIMEOUT_SECONDS": 600})
    assert gunicorn_settings("127.0.0.1", 8000, 2, config)["timeout"] == 600
