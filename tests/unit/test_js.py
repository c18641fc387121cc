"""Runs the page's JavaScript unit tests (tests/js/*.test.mjs) with Node's test runner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_javascript_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed for the page's unit tests (node --test tests/js/).")
    result = subprocess.run(
        [node, "--test", "tests/js/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
