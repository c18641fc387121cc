"""A real PostgreSQL server for a test: Debian's `postgresql` package (scripts/test installs
it), a fresh cluster made by `initdb` in a temporary folder and started by `pg_ctl` on a
free loopback port, stopped and deleted after. PostgreSQL refuses to run as root: as root
the cluster belongs to the `postgres` user and its programs run through `runuser`.

pg = Postgres.start()        # skips the test when PostgreSQL is not installed
pg.url                       # postgresql://postgres@127.0.0.1:PORT/playground
pg.new_database("name")      # another empty database on the same server, its URL
pg.stop(); pg.start_again()  # the same cluster, down and up (its data kept)
pg.remove()
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.integration.stack import free_port

WAIT = 60.0


def _bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


class Postgres:
    def __init__(self, bin_dir: Path, folder: Path, port: int) -> None:
        self.bin = bin_dir
        self.folder = folder
        self.data = folder / "data"
        self.port = port
        self.url = f"postgresql://postgres@127.0.0.1:{port}/playground"

    @classmethod
    def start(cls) -> Postgres:
        bin_dir = _bin()
        if bin_dir is None:
            pytest.skip("PostgreSQL is not installed (scripts/test installs Debian's)")
        folder = Path(tempfile.mkdtemp(prefix="playground-pg-"))
        server = cls(bin_dir, folder, free_port())
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        server._run("initdb", "-D", str(server.data), "-U", "postgres", "--auth=trust",
                    "--encoding=UTF8", "--no-sync")  # fmt: skip
        server.start_again()
        server._run("createdb", "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres",
                    "playground")  # fmt: skip
        return server

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=WAIT)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stdout}\n{done.stderr}")

    def start_again(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.folder / "server.log"), "-w", "-t", str(int(WAIT)), "start")  # fmt: skip
        self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            done = subprocess.run(
                [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                capture_output=True,
            )
            if done.returncode == 0:
                return
            time.sleep(0.1)
        raise TimeoutError("PostgreSQL did not accept connections")

    def new_database(self, name: str) -> str:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        with contextlib.suppress(RuntimeError):  # already down
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
