"""Which tags exist: the registries' published tags of the well-known images.

The data (``registry_tags.yaml``, a snapshot; its header says where each list came from)
is read once at import. :func:`tag_published` answers for one reference: True or False
for a repository it lists, None for any other (the engine then keeps its older rule:
the tag exists unless the scenario says otherwise). A reference by digest is not checked
(None): no digest of these images is known here.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from webapp.engine.programs import parse_reference

_DATA = yaml.safe_load(Path(__file__).with_name("registry_tags.yaml").read_text(encoding="utf-8"))
SNAPSHOT: str = _DATA["snapshot"]


def _base_tags(entry: dict) -> frozenset[str]:
    """Every version tag: ``X.Y.Z`` for each release of a line, the line ``X.Y`` and ``X``."""
    tags: set[str] = set()
    for line, patches in (entry.get("versions") or {}).items():
        line = str(line)
        tags.add(line)
        if patches == "":
            continue  # a version published as it stands (0.24, 3.4.1)
        first, _, last = str(patches).partition("-")
        tags.update(f"{line}.{patch}" for patch in range(int(first), int(last or first) + 1))
        tags.add(line.split(".", 1)[0])
    return frozenset(tags)


def _load() -> dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]]:
    table = {}
    for repository, entry in _DATA["repositories"].items():
        literal = frozenset(str(t) for t in entry.get("tags") or ())
        table[repository] = (
            _base_tags(entry),
            frozenset(str(v) for v in entry.get("variants") or ()),
            literal,
        )
    return table


_REPOSITORIES = _load()


def tag_published(image: str) -> bool | None:
    """Does the registry publish ``image``'s tag? None: the repository is not listed here,
    or the reference names a digest."""
    ref = parse_reference(image)
    known = _REPOSITORIES.get(ref.repository)
    if known is None or ref.digest:
        return None
    versions, variants, literal = known
    tag = ref.tag or "latest"
    if tag in versions or tag in literal or tag in variants:
        return True
    for variant in variants:  # "<tag>-<variant>": 1.27-alpine, stable-perl, 3.12-slim-bookworm
        base = tag.removesuffix("-" + variant)
        if base != tag and (base in versions or (base in literal and base != "latest")):
            return True
    return False


def published_repositories() -> list[str]:
    """The repositories whose tags are known (for docs and tests)."""
    return sorted(_REPOSITORIES)
