"""Check Kubernetes objects against kubernetes-validate's strict 1.37 JSON schemas.

One jsonschema validator per kind, built on first use and cached for the process. Every
jsonschema error becomes a `Finding` with a learner's wording.
"""

from __future__ import annotations

import difflib
import importlib.resources
import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource

from webapp.manifest.errors import Finding

SCHEMA_VERSION = "v1.37.0-local-strict"
SCHEMA_FILES = {
    "Pod": "pod-v1.json",
    "Node": "node-v1.json",
    "Service": "service-v1.json",
    "ConfigMap": "configmap-v1.json",
    "Secret": "secret-v1.json",
    "Deployment": "deployment-apps-v1.json",
    "ReplicaSet": "replicaset-apps-v1.json",
    "Job": "job-batch-v1.json",
    "StatefulSet": "statefulset-apps-v1.json",
    "DaemonSet": "daemonset-apps-v1.json",
    "PodDisruptionBudget": "poddisruptionbudget-policy-v1.json",
}
_QUANTITY_DEFINITION = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_QUANTITY_KEYWORD = "x-playground-quantity"

# Kubernetes' resource.Quantity grammar: a decimal number and an optional suffix
# (binary Ki..Ei, decimal n..E, or a decimal exponent).
_EXPONENT = re.compile(r"[eE][+-]?\d+")
QUANTITY = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?")


def is_quantity(value: Any) -> bool:
    """True for a valid Kubernetes quantity: "100m", "128Mi", "1.5", 2, 0.5. A decimal
    exponent is an int32, as ParseQuantity's suffix parser reads it ("1e9999999999" is not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    match = QUANTITY.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return False
    suffix = match.group(3) or ""
    if _EXPONENT.fullmatch(suffix):
        exponent = suffix[1:].lstrip("+-").lstrip("0")
        return len(exponent) <= 10 and int(exponent or "0") <= 2**31 - 1
    return True


def _check_quantity(
    validator: Any, enabled: bool, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    if enabled and isinstance(instance, str) and not is_quantity(instance):
        yield jsonschema.ValidationError(f"{instance!r} is not a quantity")


# Integer fields as the API server's Go types hold them (`format` in the OpenAPI schema).
# A number outside them never reaches validation there: decoding the JSON fails.
INTEGER_FORMATS = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def _check_integer_format(
    validator: Any, format_name: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """`format: int32 | int64`: the value fits the Go integer type (other formats: no check,
    as before). An integral float (`30.0`) is the integer JSON would carry."""
    bounds = INTEGER_FORMATS.get(format_name)
    if bounds is None or isinstance(instance, bool) or not isinstance(instance, int | float):
        return
    if isinstance(instance, float) and not instance.is_integer():
        return  # the type keyword reports it
    low, high = bounds
    if not low <= instance <= high:
        error = jsonschema.ValidationError(f"{instance} does not fit in {format_name}")
        error.validator_value = format_name
        yield error


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {_QUANTITY_KEYWORD: _check_quantity, "format": _check_integer_format},
)


def _schema_dir() -> Any:
    return (
        importlib.resources.files("kubernetes_validate") / "kubernetes-json-schema" / SCHEMA_VERSION
    )


@cache
def _registry() -> Registry:
    definitions = json.loads((_schema_dir() / "_definitions.json").read_text())
    definitions["$defs"][_QUANTITY_DEFINITION][_QUANTITY_KEYWORD] = True
    return Registry().with_resource(definitions["$id"], Resource.from_contents(definitions))


@cache
def validator_for(kind: str) -> Any:
    """The cached validator for one of SCHEMA_FILES' kinds."""
    schema = json.loads((_schema_dir() / SCHEMA_FILES[kind]).read_text())
    registry = _registry().with_resource(schema["$id"], Resource.from_contents(schema))
    return _Validator(schema, registry=registry)


def json_type(value: Any) -> str:
    """The JSON type word of a Python value: string, integer, number, boolean, mapping, list, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return "string"


def suggest(name: str, candidates: Any) -> str | None:
    """The closest known name to a misspelt one, if any is close enough."""
    matches = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_field(path: tuple[Any, ...], name: str, known: Any) -> Finding:
    """An unknown field at `path + (name,)`, pointing at its key, with a suggestion if any."""
    suggestion = suggest(name, known)
    if suggestion is None:
        return Finding((*path, name), "unknown_field", {"field": name}, point="key")
    return Finding(
        (*path, name),
        "unknown_field_suggest",
        {"field": name, "suggestion": suggestion},
        point="key",
    )


def schema_findings(kind: str, data: dict[str, Any]) -> list[Finding]:
    """Every schema error of one Kubernetes object of `kind`."""
    findings: list[Finding] = []
    for error in validator_for(kind).iter_errors(data):
        findings.extend(_translate(error))
    return findings


def _translate(error: jsonschema.ValidationError) -> Iterator[Finding]:
    path = tuple(error.absolute_path)
    keyword = error.validator
    if keyword == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        for name in sorted(set(error.instance) - known):
            yield unknown_field(path, name, known)
    elif keyword == "required" and isinstance(error.instance, dict):
        for name in error.validator_value:
            if name not in error.instance:
                yield Finding((*path, name), "required", {"field": name})
    elif keyword == "type":
        expected = [t for t in _as_list(error.validator_value) if t != "null"]
        yield Finding(
            path,
            "wrong_type",
            {
                "expected": _type_word(expected[0] if expected else "null"),
                "found": json_type(error.instance),
            },
        )
    elif keyword == _QUANTITY_KEYWORD or (
        keyword == "oneOf" and _branch_types(error) == {"string", "number"}
    ):
        yield Finding(path, "quantity", {"value": _shown(error.instance)})
    elif keyword == "oneOf" and _branch_types(error) == {"string", "integer"}:
        yield Finding(path, "int_or_string", {"value": _shown(error.instance)})
    elif keyword == "format" and error.validator_value in INTEGER_FORMATS:
        low, high = INTEGER_FORMATS[error.validator_value]
        yield Finding(
            path,
            "integer_range",
            {"value": _shown(error.instance), "format": error.validator_value,
             "minimum": low, "maximum": high},
        )  # fmt: skip
    elif keyword == "enum":
        yield Finding(
            path, "enum", {"value": _shown(error.instance), "allowed": list(error.validator_value)}
        )
    else:
        yield Finding(path, "invalid", {"detail": error.message})


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _type_word(schema_type: str) -> str:
    return {"object": "mapping", "array": "list"}.get(schema_type, schema_type)


def _branch_types(error: jsonschema.ValidationError) -> set[str]:
    types: set[str] = set()
    for branch in error.validator_value:
        types.update(t for t in _as_list(branch.get("type", [])) if t != "null")
    return types


def _shown(value: Any) -> str:
    """A value as a learner wrote it, for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json_type(value)
    return str(value)
