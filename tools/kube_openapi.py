"""Write webapp/kubeapi/openapi_data/: OpenAPI v3 (one document per group-version, as
api/openapi-spec/v3/ names them) and v2 for the kinds the playground's API serves.

The schemas come from the official Python client (`kubernetes`, the test extra), whose
models are generated from the Kubernetes 1.37 published OpenAPI ("The version of the OpenAPI
document: release-1.37" in each model): each field's JSON name, type, whether it is
required, and its description. The paths carry what kubectl reads: each operation's
`x-kubernetes-group-version-kind` and, on patch and create, the `fieldValidation` query
parameter (apply's validation, shared/KUBE-API-NOTES.md §5 and §9).

    python tools/kube_openapi.py        # rewrites the data files
"""

from __future__ import annotations

import datetime
import gzip
import json
import sys
import typing
from pathlib import Path

import kubernetes.client.models as models
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp.kubeapi.resources import RESOURCES  # noqa: E402

OUT = ROOT / "webapp" / "kubeapi" / "openapi_data"
PACKAGES = {
    "": "io.k8s.api.core", "apps": "io.k8s.api.apps", "batch": "io.k8s.api.batch",
    "policy": "io.k8s.api.policy", "discovery.k8s.io": "io.k8s.api.discovery",
    "storage.k8s.io": "io.k8s.api.storage", "authorization.k8s.io": "io.k8s.api.authorization",
}  # fmt: skip
META = {"ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry", "LabelSelector",
        "LabelSelectorRequirement", "Condition", "Time", "MicroTime"}  # fmt: skip
GROUP_OF_CLASS: dict[str, str] = {}


def _class_name(cls: type) -> str:
    """`V1PodSpec` -> (`v1`, `PodSpec`)."""
    name = cls.__name__
    for prefix in ("V2beta2", "V2beta1", "V1beta1", "V1alpha1", "V2", "V1"):
        if name.startswith(prefix):
            return prefix.lower() + ":" + name[len(prefix) :]
    return "v1:" + name


def schema_name(cls: type) -> str:
    version, name = _class_name(cls).split(":")
    if name in META:
        return f"io.k8s.apimachinery.pkg.apis.meta.{version}.{name}"
    group = GROUP_OF_CLASS.get(cls.__name__, "")
    return f"{PACKAGES[group]}.{version}.{name}"


def _unwrap(annotation: typing.Any) -> typing.Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _unwrap(args[0])
        return typing.Union[tuple(_unwrap(a) for a in args)]  # noqa: UP007
    return annotation


def type_schema(annotation: typing.Any, group: str, todo: list[type]) -> dict:
    annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        args = set(typing.get_args(annotation))
        if args == {int, str}:
            return {"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": True}
        if args <= {int, float}:
            return {"type": "number", "format": "double"}
        return {}
    if origin in (list, typing.List):  # noqa: UP006
        return {"type": "array", "items": type_schema(typing.get_args(annotation)[0], group, todo)}
    if origin in (dict, typing.Dict):  # noqa: UP006
        return {"type": "object",
                "additionalProperties": type_schema(typing.get_args(annotation)[1], group, todo)}  # fmt: skip
    if annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer", "format": "int32"}
    if annotation is float:
        return {"type": "number", "format": "double"}
    if annotation in (datetime.datetime, datetime.date):
        return {"type": "string", "format": "date-time"}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        GROUP_OF_CLASS.setdefault(annotation.__name__, group)
        todo.append(annotation)
        return {"allOf": [{"$ref": f"#/components/schemas/{schema_name(annotation)}"}]}
    return {"type": "object"}


def model_schema(cls: type, group: str, todo: list[type]) -> dict:
    properties = {}
    required = []
    description = " ".join((cls.__doc__ or "").split("Attributes:")[0].split())
    for key, field in cls.model_fields.items():
        name = field.serialization_alias or field.alias or key
        prop = type_schema(field.annotation, group, todo)
        if field.description:
            prop = {**prop, "description": field.description}
            if "allOf" in prop:  # a $ref beside a description goes in allOf (as published)
                prop = {"allOf": prop["allOf"], "description": field.description}
        properties[name] = prop
        if field.is_required():
            required.append(name)
    schema: dict = {"type": "object", "properties": properties}
    if description and not description.startswith("NOTE: This class is auto generated"):
        schema["description"] = description
    if required:
        schema["required"] = required
    return schema


def documents() -> dict[str, dict]:
    docs: dict[str, dict] = {}
    schemas_by_gv: dict[str, dict] = {}
    # core kinds first: the types they share (PodSpec, ObjectMeta, ...) keep core's names
    ordered = sorted(RESOURCES, key=lambda r: (r.group != "", r.group))
    for res in ordered:
        cls = getattr(models, _client_class(res), None)
        if cls is None:
            continue
        gv = "api/v1" if res.group == "" else f"apis/{res.group}/{res.version}"
        schemas = schemas_by_gv.setdefault(gv, {})
        GROUP_OF_CLASS.setdefault(cls.__name__, res.group)
        todo = [cls]
        while todo:
            current = todo.pop()
            name = schema_name(current)
            if name in schemas:
                continue
            schemas[name] = model_schema(current, res.group, todo)
        root = schemas[schema_name(cls)]
        root["x-kubernetes-group-version-kind"] = [
            {"group": res.group, "version": res.version, "kind": res.kind}
        ]
        doc = docs.setdefault(gv, {"openapi": "3.0.0", "info": {"title": "Kubernetes",
                                                                 "version": "v1.37.1"},
                                   "paths": {}, "components": {"schemas": schemas}})  # fmt: skip
        doc["paths"].update(_paths(res, schema_name(cls)))
    return docs


def _client_class(res) -> str:
    version = res.version.capitalize()
    return f"{version}{res.kind}"


def _operation(res, verb: str, ref: str, *, validation: bool) -> dict:
    op: dict = {
        "description": f"{verb} {res.kind}",
        "operationId": f"{verb}{res.kind}",
        "x-kubernetes-action": verb,
        "x-kubernetes-group-version-kind": {
            "group": res.group,
            "version": res.version,
            "kind": res.kind,
        },
        "responses": {
            "200": {
                "description": "OK",
                "content": {
                    "application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}
                },
            }
        },
    }
    if validation:
        op["parameters"] = [{
            "name": "fieldValidation", "in": "query", "schema": {"type": "string",
                                                                  "uniqueItems": True},
            "description": "fieldValidation instructs the server on how to handle objects in "
            "the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid "
            "values are: - Ignore - Warn - Strict"}]  # fmt: skip
    return op


def _paths(res, ref: str) -> dict:
    base = "/api/v1" if res.group == "" else f"/apis/{res.group}/{res.version}"
    scope = "/namespaces/{namespace}" if res.namespaced else ""
    collection = f"{base}{scope}/{res.plural}"
    verbs = set(res.verbs)
    paths: dict = {collection: {}}
    if "list" in verbs:
        paths[collection]["get"] = _operation(res, "list", ref, validation=False)
    if "create" in verbs:
        paths[collection]["post"] = _operation(res, "post", ref, validation=True)
    if "get" in verbs:
        item = f"{collection}/{{name}}"
        paths[item] = {
            "get": _operation(res, "get", ref, validation=False),
            "put": _operation(res, "put", ref, validation=True),
            "patch": _operation(res, "patch", ref, validation=True),
            "delete": _operation(res, "delete", ref, validation=False),
        }
    return paths


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json.gz"):
        old.unlink()
    docs = documents()
    v2_definitions: dict = {}
    v2_paths: dict = {}
    for gv, doc in sorted(docs.items()):
        body = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
        (OUT / f"v3__{gv.replace('/', '__')}.json.gz").write_bytes(gzip.compress(body, 9, mtime=0))
        text = json.dumps(doc["components"]["schemas"]).replace("#/components/schemas/",
                                                                "#/definitions/")  # fmt: skip
        v2_definitions.update(json.loads(text))
        for path, ops in doc["paths"].items():
            v2_paths[path] = {verb: {k: v for k, v in op.items() if k != "responses"}
                              for verb, op in ops.items()}  # fmt: skip
    v2 = {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.37.1"},
          "paths": v2_paths, "definitions": v2_definitions}  # fmt: skip
    body = json.dumps(v2, sort_keys=True, separators=(",", ":")).encode()
    (OUT / "v2.json.gz").write_bytes(gzip.compress(body, 9, mtime=0))
    for path in sorted(OUT.glob("*.json.gz")):
        print(path.name, path.stat().st_size)


if __name__ == "__main__":
    main()
