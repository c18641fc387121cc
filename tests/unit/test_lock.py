"""The lock files (requirements/lock.txt, lock-test.txt; written by scripts/lock) agree
with pyproject.toml: every dependency is pinned to one version its specifier allows, with
the hashes of its files, and the image's lock is the test lock's own versions. A change to
pyproject.toml without `scripts/lock` fails here, naming what disagrees."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def locked(name: str) -> dict[str, tuple[str, int]]:
    """{canonical name: (version, hashes)} of a lock file."""
    pins: dict[str, tuple[str, int]] = {}
    current = None
    for line in (ROOT / "requirements" / name).read_text().splitlines():
        match = PIN.match(line)
        if match:
            current = canonicalize_name(match.group(1))
            pins[current] = (match.group(2), 0)
        if current and "--hash=sha256:" in line:
            version, hashes = pins[current]
            pins[current] = (version, hashes + line.count("--hash=sha256:"))
    return pins


def requirements(*extras: str) -> list[Requirement]:
    texts = list(PROJECT["dependencies"])
    for extra in extras:
        texts += PROJECT["optional-dependencies"][extra]
    return [Requirement(text) for text in texts]


@pytest.mark.parametrize(("lock", "extras"), [("lock.txt", ()), ("lock-test.txt", ("test", "dev"))])
def test_every_dependency_is_pinned_within_its_specifier(lock: str, extras: tuple) -> None:
    pins = locked(lock)
    wrong = []
    for requirement in requirements(*extras):
        name = canonicalize_name(requirement.name)
        if name not in pins:
            wrong.append(f"{requirement}: not in requirements/{lock}")
        elif not requirement.specifier.contains(pins[name][0], prereleases=True):
            wrong.append(f"{requirement}: locked at {pins[name][0]}")
    assert wrong == [], "run scripts/lock: " + "; ".join(wrong)


@pytest.mark.parametrize("lock", ["lock.txt", "lock-test.txt"])
def test_every_pin_carries_the_hashes_of_its_files(lock: str) -> None:
    pins = locked(lock)
    assert pins
    assert [name for name, (_, hashes) in pins.items() if hashes == 0] == []
    text = (ROOT / "requirements" / lock).read_text()
    assert "scripts/lock" in text.split("\n\n", 1)[0]  # the command that writes it
    assert "file://" not in text and "--extra-index-url" not in text  # nothing of one machine


def test_the_image_runs_the_versions_the_tests_ran() -> None:
    image, tested = locked("lock.txt"), locked("lock-test.txt")
    assert {n: v for n, (v, _) in image.items()} == {n: tested[n][0] for n in image}
