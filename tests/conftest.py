"""Fixtures shared by every test layer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

from webapp import config as _config
from webapp import create_app

# The suite's in-process servers (the e2e live server lives for the whole run) would freeze
# the test process's objects once a second (webapp/sessions/memory.py, SESSION_GC_FREEZE),
# under the tests that count objects and memory and under the memory tests themselves
# (ci2: test_fair_pacing's settle() taken by the live server's scheduler, 13 MB frozen in the
# worst-case memory test). The real server processes of tests/dos keep the default.
_config.DEFAULTS["SESSION_GC_FREEZE"] = False


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """A fresh app with its own SQLite file, as in the Flask tutorial."""
    yield create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "links.sqlite3")})


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The playground on a free loopback port, served by Werkzeug in a thread."""
    db = tmp_path_factory.mktemp("db") / "links.sqlite3"
    app = create_app({"TESTING": True, "PLAYGROUND_DB": str(db)})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
