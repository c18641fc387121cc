"""The wheel is what users install: build it, install it into a fresh virtualenv, run it
from an unrelated directory, and fetch the page and every file the page references."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.request
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fetch(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


@pytest.fixture(scope="module")
def installed() -> Iterator[Path]:
    """The wheel built from the sdist (which proves the sdist carries static/ too),
    installed into a fresh virtualenv that every user may read and only root may write."""
    top = Path(tempfile.mkdtemp(prefix="playground-wheel-"))
    try:
        top.chmod(0o755)
        dist = top / "dist"
        subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
            check=True,
            capture_output=True,
        )
        wheel = next(dist.glob("*.whl"))
        env_dir = top / "venv"
        venv.create(env_dir, with_pip=True)
        subprocess.run(
            [
                str(env_dir / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                str(wheel),
            ],
            check=True,
            capture_output=True,
        )
        yield env_dir
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.slow
def test_wheel_installs_and_serves_the_page_from_anywhere(installed: Path, tmp_path: Path) -> None:
    env_dir = installed
    python = env_dir / "bin" / "python"
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


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to setuid")
def test_the_wheel_serves_as_the_images_user_on_a_root_it_cannot_write(installed: Path) -> None:
    """What the Containerfile's image does (USER 10001, a read-only root filesystem, the
    data folder and /tmp writable, as deploy/kubernetes mounts them): the installed wheel,
    run as uid 10001 with nothing writable but its data folder, starts, answers the probes,
    keeps a share link, and drains on SIGTERM within the Pod's grace period."""
    data = Path(tempfile.mkdtemp(prefix="playground-data-"))
    try:
        os.chown(data, 10001, 10001)
        data.chmod(0o700)
        env = {
            "PATH": f"{installed / 'bin'}:/usr/bin:/bin",
            "HOME": "/nonexistent",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "PLAYGROUND_DB": str(data / "links.sqlite3"),
            "PLAYGROUND_LOG_FORMAT": "json",
        }
        server = subprocess.Popen(
            [
                "setpriv",
                "--reuid=10001",
                "--regid=10001",
                "--clear-groups",
                str(installed / "bin" / "pod-playground"),
                "--host",
                "127.0.0.1",
                "--port",
                "0",
            ],
            cwd="/",
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:\d+/", line)
            assert match, (
                f"no URL printed: {line!r} {server.stderr.read() if server.stderr else ''}"
            )
            base = match.group(0).rstrip("/")
            assert _fetch(base + "/healthz")[0] == 200
            assert _fetch(base + "/readyz")[0] == 200
            text = (ROOT / "scenarios" / "plain-pod.yaml").read_text()
            request = urllib.request.Request(
                base + "/api/share",
                data=json.dumps({"yaml": text}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                share = json.loads(response.read())
            assert _fetch(base + share["url"])[0] == 200
            assert (data / "links.sqlite3").stat().st_uid == 10001
            server.send_signal(signal.SIGTERM)
            # deploy/kubernetes/base/deployment.yaml: terminationGracePeriodSeconds 60,
            # preStop 5 s before SIGTERM.
            assert server.wait(timeout=55) == 0
            errors = server.stderr.read() if server.stderr else ""
            assert "Traceback" not in errors and "Permission denied" not in errors, errors
        finally:
            if server.poll() is None:
                server.kill()
                server.wait(timeout=10)
    finally:
        shutil.rmtree(data, ignore_errors=True)
