"""What the process model derived for each container, for the page (both languages).

Sent in the snapshot's ``scenario.containers``: per container its kind, image, the argv
the runtime execs, a plain description of what it does and of what PID 1 does with the
stop signal, the Simulation fields that override it, and located warnings for what the
model does not interpret (with the YAML line of the field they are in, for the editor).
"""

from __future__ import annotations

from typing import Any

from webapp.engine.programs.describe import describe
from webapp.manifest.yaml_reader import read_documents


def _pod_places(text: str) -> dict:
    try:
        documents, _errors = read_documents(text)
    except Exception:
        return {}
    for document in documents:
        if isinstance(document.data, dict) and document.data.get("kind") == "Pod":
            return document.places
    return {}


def _field_path(kind: str, index: int, field: str | None) -> tuple | None:
    if not field:
        return None
    key = "containers" if kind == "app" else "initContainers"
    if field == "image":
        return ("spec", key, index, "image")
    name, _, rest = field.partition("[")
    if not rest:
        return ("spec", key, index, name)
    return ("spec", key, index, name, int(rest.rstrip("]")))


def derived_payload(sim: Any, text: str) -> list[dict[str, Any]]:
    places = _pod_places(text)
    counters = {"app": 0, "init": 0}
    found = []
    for entry in sim.derived_containers():
        kind = entry["kind"]
        group = "app" if kind == "app" else "init"
        index = counters[group]
        counters[group] += 1
        derived = entry["derived"]
        texts = {lang: describe(derived, lang) for lang in ("en", "zh")}
        warnings = []
        for i, warning in enumerate(texts["en"]["warnings"]):
            path = _field_path(kind, index, warning["field"])
            place = places.get(path) if path else None
            warnings.append({
                "code": warning["code"],
                "text": {lang: texts[lang]["warnings"][i]["text"] for lang in texts},
                "where": {lang: texts[lang]["warnings"][i]["where"] for lang in texts},
                "line": place.value.line if place is not None else None,
            })  # fmt: skip
        found.append({
            "name": entry["name"],
            "kind": kind,
            "image": entry["image"],
            "argv": list(derived.argv),
            "summary": {lang: texts[lang]["summary"] for lang in texts},
            "stop": {lang: texts[lang]["stop"] for lang in texts},
            "stopSignal": derived.stop_signal,
            "overrides": entry["overrides"],
            "warnings": warnings,
        })  # fmt: skip
    return found
