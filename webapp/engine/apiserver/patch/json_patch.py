"""JSON patch (RFC 6902): ``application/json-patch+json``, with the error texts of the
evanphx/json-patch library the API server uses (a failed operation is a 422)."""

from __future__ import annotations

import copy
from typing import Any

from webapp.engine.apiserver.patch.errors import PatchError
from webapp.engine.apiserver.patch.merge_patch import same

MAX_OPERATIONS = 10_000  # the API server's jsonpatch.DecodePatch has no limit; ours


def _pointer(path: Any) -> list[str]:
    """RFC 6901: "/a/b~1c" -> ["a", "b/c"]."""
    if not isinstance(path, str):
        raise PatchError(f"path is not a string: {path!r}")
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f'add operation does not apply: doc is missing path: "{path}"')
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _index(container: list, token: str, path: str, *, adding: bool) -> int:
    if adding and token == "-":
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token.startswith("0")):
        raise PatchError(f"Unable to access invalid index: {token}: invalid index referenced")
    index = int(token)
    limit = len(container) if adding else len(container) - 1
    if index > limit:
        raise PatchError(f"Unable to access invalid index: {index}: invalid index referenced")
    return index


def _parent(doc: Any, parts: list[str], path: str, op: str) -> Any:
    node = doc
    for token in parts[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": '
                             "missing value")  # fmt: skip
    if not isinstance(node, (dict, list)):
        raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": '
                         "missing value")  # fmt: skip
    return node


def _get(doc: Any, parts: list[str]) -> tuple[bool, Any]:
    node = doc
    for token in parts:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None
    return True, node


def _add(doc: Any, path: str, value: Any) -> Any:
    parts = _pointer(path)
    if not parts:
        return value
    parent = _parent(doc, parts, path, "add")
    if isinstance(parent, dict):
        parent[parts[-1]] = value
    else:
        parent.insert(_index(parent, parts[-1], path, adding=True), value)
    return doc


def _remove(doc: Any, path: str, op: str = "remove") -> tuple[Any, Any]:
    parts = _pointer(path)
    if not parts:
        raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}"')
    parent = _parent(doc, parts, path, op)
    key = parts[-1]
    if isinstance(parent, dict):
        if key not in parent:
            raise PatchError(f"Unable to remove nonexistent key: {key}: missing value")
        return doc, parent.pop(key)
    return doc, parent.pop(_index(parent, key, path, adding=False))


def apply_json_patch(doc: Any, operations: Any) -> Any:
    """The document after the operations, in order; ``doc`` is not changed. Any failed
    operation fails the whole patch (PatchError)."""
    if not isinstance(operations, list):
        raise PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    if len(operations) > MAX_OPERATIONS:
        raise PatchError(f"a JSON patch has at most {MAX_OPERATIONS} operations")
    doc = copy.deepcopy(doc)
    for operation in operations:
        if not isinstance(operation, dict):
            raise PatchError("json: cannot unmarshal into Go value of type jsonpatch.Operation")
        op = operation.get("op")
        path = operation.get("path")
        if op == "add":
            doc = _add(doc, path, copy.deepcopy(_value(operation)))
        elif op == "remove":
            doc, _ = _remove(doc, path)
        elif op == "replace":
            parts = _pointer(path)
            found, _ = _get(doc, parts)
            if not found:
                raise PatchError(
                    f"replace operation does not apply: doc is missing key: {path}: missing value"
                )
            if not parts:
                doc = copy.deepcopy(_value(operation))
            else:
                parent = _parent(doc, parts, path, "replace")
                key = parts[-1] if isinstance(parent, dict) else int(parts[-1])
                parent[key] = copy.deepcopy(_value(operation))
        elif op in ("move", "copy"):
            source = operation.get("from")
            found, value = _get(doc, _pointer(source))
            if not found:
                raise PatchError(f"{op} operation does not apply: doc is missing from path: "
                                 f"{source}: missing value")  # fmt: skip
            if op == "move":
                if isinstance(path, str) and path.startswith(f"{source}/"):
                    raise PatchError(f"Unable to move {source} into its own child {path}")
                doc, value = _remove(doc, source, "move")
            doc = _add(doc, path, copy.deepcopy(value))
        elif op == "test":
            found, value = _get(doc, _pointer(path))
            if not found or not same(value, operation.get("value")):
                raise PatchError(f"testing value {path} failed: test failed")
        else:
            raise PatchError(f"Unexpected kind: {op}")
    return doc


def _value(operation: dict) -> Any:
    if "value" not in operation:
        raise PatchError(f"operation missing value: {operation.get('op')} {operation.get('path')}")
    return operation["value"]
