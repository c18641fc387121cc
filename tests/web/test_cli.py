"""`python -m webapp` serves with no terminal attached, as in CI."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from pathlib import Path


def test_python_m_webapp_serves_without_a_terminal(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "webapp", "--host", "127.0.0.1", "--port", "0"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert match, line
        with urllib.request.urlopen(match.group(1) + "/healthz", timeout=10) as response:
            assert response.status == 200
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_help_names_both_uses() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "--help"], capture_output=True, text=True, check=True
    )
    assert "--port" in result.stdout
    assert "trace" in result.stdout


def test_several_workers_need_redis() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "--workers", "2"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "--redis" in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "--workers", "0"], capture_output=True, text=True
    )
    assert result.returncode == 2
