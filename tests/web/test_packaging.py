"""The wheel is what users install: build it, install it into a fresh virtualenv, run it
from an unrelated directory, and fetch the page and every file the page references."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fetch(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


@pytest.mark.slow
def test_wheel_installs_and_serves_the_page_from_anywhere(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # sdist first, then the wheel from the sdist: proves the sdist carries static/ too.
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = subprocess.Popen(
        [str(env_dir / "bin" / "pod-playground"), "--port", "0"],
        cwd=elsewhere,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, f"no URL printed: {line!r}"
        base = match.group(0).rstrip("/")
        status, body = _fetch(base + "/")
        assert status == 200
        refs = re.findall(r'(?:src|href)="(/static/[^"]+)"', body.decode())
        assert refs
        for ref in refs:
            assert _fetch(base + ref)[0] == 200, ref
        # Modules imported by the entry module are served too.
        main_js = _fetch(base + "/static/js/main.js")[1].decode()
        for module in re.findall(r'from "(/static/[^"]+)"', main_js):
            assert _fetch(base + module)[0] == 200, module
        assert _fetch(base + "/healthz")[0] == 200
        installed = subprocess.run(
            [str(python), "-c", "import webapp.paths as p; print(p.resource_dir('scenarios'))"],
            check=True,
            capture_output=True,
            text=True,
            cwd=elsewhere,
        ).stdout.strip()
        assert "site-packages" in installed
        assert any(Path(installed).glob("*.yaml"))
    finally:
        server.terminate()
        server.wait(timeout=10)
