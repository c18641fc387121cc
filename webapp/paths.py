"""Where the page's files live, installed or in a checkout.

A wheel carries `static/`, `templates/` and `scenarios/` inside the package (see
`[tool.hatch.build.targets.wheel.force-include]` in pyproject.toml); a checkout or an
editable install keeps them at the repository root, one level above the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder `name` ("static", "templates", "scenarios") in either layout."""
    inside = _PACKAGE / name
    return inside if inside.is_dir() else _PACKAGE.parent / name
