"""The built-in scenarios: `scenarios/*.yaml`, then the workload lessons of
`scenarios/workloads/*.yaml` (docs/workloads.md) and `scenarios/tasks/*.yaml` (lessons of
tasks: docs/lessons.md), parsed once and cached.

catalog = ScenarioCatalog(resource_dir("scenarios"))
catalog.get("plain-pod")      # a parsed Scenario, or None
catalog.listing()             # [{name, title: {en, zh}, description: {en, zh}}], by name
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from webapp.manifest import ScenarioError, parse_scenario

log = logging.getLogger(__name__)


class ScenarioCatalog:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._scenarios: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, Any]:
        with self._lock:
            if self._scenarios is None:
                scenarios = {}
                paths = sorted(self.folder.glob("*.yaml"))
                paths += sorted((self.folder / "workloads").glob("*.yaml"))
                paths += sorted((self.folder / "tasks").glob("*.yaml"))  # lessons of tasks
                for path in paths:
                    if path.stem in scenarios:
                        log.error("built-in scenario %s repeats a name", path)
                        continue
                    try:
                        scenario = parse_scenario(path.read_text(encoding="utf-8"))
                    except ScenarioError as error:
                        # A broken built-in is a bug to fix, not a reason to refuse service.
                        log.error("built-in scenario %s is invalid: %s", path.name, error)
                        continue
                    scenarios[path.stem] = scenario
                self._scenarios = scenarios
            return self._scenarios

    def names(self) -> list[str]:
        return list(self._load())

    def get(self, name: Any) -> Any | None:
        if not isinstance(name, str):
            return None
        return self._load().get(name)

    def listing(self, lang: str | None = None) -> list[dict[str, Any]]:
        """Every built-in's name, title and description in both languages, or only in
        `lang` ("en"/"zh"; the page asks for its own: half the bytes of its first visit's
        list)."""

        def texts(both: dict[str, str]) -> dict[str, str]:
            return both if lang is None else {lang: both.get(lang) or both.get("en", "")}

        return [
            {
                "name": name,
                "title": texts(scenario.simulation["title"]),
                "description": texts(scenario.simulation["description"]),
            }
            for name, scenario in self._load().items()
        ]
