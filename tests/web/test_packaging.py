"""The wheel is what users install: build it, install it into a fresh virtualenv, run it
from an unrelated directory, and fetch the page and every file the page references."""

from __future__ import annotations

import json
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
        html = body.decode()
        refs = re.findall(r'(?:src|href)="(/assets/[^"]+)"', html)
        assert refs
        for ref in refs:
            assert _fetch(base + ref)[0] == 200, ref
        # Every module of the import map is served, brotli-compressed from the wheel's
        # prebuilt files (byte for byte what hatch_build.py wrote).
        imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', html)[1])
        built = (
            Path(
                subprocess.run(
                    [
                        str(python),
                        "-c",
                        "import webapp, pathlib; print(pathlib.Path(webapp.__file__).parent)",
                    ],
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd=elsewhere,
                ).stdout.strip()
            )
            / "assets_built"
        )
        for url in set(imports["imports"].values()):
            request = urllib.request.Request(base + url, headers={"Accept-Encoding": "br"})
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.headers["Content-Encoding"] == "br", url
                assert "immutable" in response.headers["Cache-Control"]
                assert (
                    response.read() == (built / (url.removeprefix("/assets/") + ".br")).read_bytes()
                )
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
