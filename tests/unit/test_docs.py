"""The repository explains itself: README and docs/ link only to files inside it, and every
such link resolves (issue 11, item 20)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_stay_inside_the_repository(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    assert "../shared" not in text and "project workspace" not in text
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{doc.name} links outside the repository: {target}"
        assert path.exists(), f"{doc.name} links to a missing file: {target}"


def test_architecture_page_exists_and_readme_points_to_it() -> None:
    assert "(docs/architecture.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for heading in (
        "## Layers",
        "## From manifest to page",
        "## Contracts",
        "## Where each Kubernetes rule lives",
    ):
        assert heading in text
