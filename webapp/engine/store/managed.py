"""``metadata.managedFields`` as the API server's field manager writes them for ``Update``
operations: which manager set which fields (FieldsV1), at what time.

A field set is a set of paths; a path is a tuple of FieldsV1 keys (``f:spec``,
``k:{"name":"app"}`` for an item of a list keyed by its merge key, ``.`` for a map or item
itself). On each write the manager takes the fields it changed or added from whoever held
them; fields the write removed leave every set; a manager left with nothing is dropped.
"""

from __future__ import annotations

import json
from typing import Any

# lists of maps merged by key (the Kubernetes patch keys); any other list is atomic
MERGE_KEYS: dict[str, tuple[str, ...]] = {
    "containers": ("name",), "initContainers": ("name",), "ephemeralContainers": ("name",),
    "env": ("name",), "volumes": ("name",), "volumeMounts": ("mountPath",),
    "conditions": ("type",), "ownerReferences": ("uid",), "imagePullSecrets": ("name",),
    "containerStatuses": ("name",), "initContainerStatuses": ("name",),
    "ephemeralContainerStatuses": ("name",), "podIPs": ("ip",), "hostIPs": ("ip",),
    "volumeClaimTemplates": ("metadata",),
}  # fmt: skip
PORT_KEYS = ("containerPort", "protocol")
SERVICE_PORT_KEYS = ("port", "protocol")
# what the API server keeps for itself
_SERVER_METADATA = {"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
                    "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}  # fmt: skip


def _item_key(list_name: str, item: Any, parent: tuple) -> str | None:
    if not isinstance(item, dict):
        return None
    if list_name == "ports":
        keys = SERVICE_PORT_KEYS if "port" in item and "containerPort" not in item else PORT_KEYS
        item = {"protocol": "TCP", **item}
    else:
        keys = MERGE_KEYS.get(list_name, ())
    if not keys or any(k not in item for k in keys):
        return None
    return "k:" + json.dumps({k: item[k] for k in keys}, separators=(",", ":"), sort_keys=True)


def field_set(obj: dict) -> set[tuple[str, ...]]:
    """Every path of ``obj`` a manager can own (server-set metadata left out)."""
    paths: set[tuple[str, ...]] = set()

    def walk(value: Any, path: tuple[str, ...], name: str) -> None:
        if isinstance(value, dict):
            if len(path) > 1:
                paths.add((*path, "."))
            for key, child in value.items():
                walk(child, (*path, f"f:{key}"), key)
            if not value:
                paths.add(path)
        elif isinstance(value, list) and (name in MERGE_KEYS or name == "ports"):
            keyed = [(_item_key(name, item, path), item) for item in value or []]
            if any(k is None for k, _ in keyed):
                paths.add(path)
                return
            for key, item in keyed:
                item_path = (*path, key)
                paths.add((*item_path, "."))
                for child_key, child in item.items():
                    walk(child, (*item_path, f"f:{child_key}"), child_key)
        else:
            paths.add(path)

    for key, value in obj.items():
        if key in ("apiVersion", "kind"):
            continue
        if key == "metadata" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in _SERVER_METADATA
                     and k not in ("name", "namespace")}  # fmt: skip
            if not value:
                continue
        walk(value, (f"f:{key}",), key)
    return paths


def _leaves(obj: dict) -> dict[tuple[str, ...], Any]:
    """Each path's value, to see which fields a write changed."""
    found: dict[tuple[str, ...], Any] = {}
    for path in field_set(obj):
        found[path] = _value_at(obj, path)
    return found


def _value_at(obj: Any, path: tuple[str, ...]) -> Any:
    value = obj
    for step in path:
        if step == ".":
            return None
        if step.startswith("f:"):
            if not isinstance(value, dict):
                return None
            value = value.get(step[2:])
        else:  # k:{...}
            want = json.loads(step[2:])
            value = next((i for i in value or [] if isinstance(i, dict) and all(
                ({"protocol": "TCP", **i} if "protocol" in want else i).get(k) == v
                for k, v in want.items())), None)  # fmt: skip
    return json.dumps(value, sort_keys=True)


def to_fields_v1(paths: set[tuple[str, ...]]) -> dict:
    tree: dict = {}
    for path in sorted(paths):
        node = tree
        for step in path:
            node = node.setdefault(step, {})
    return tree


def from_fields_v1(tree: dict, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    paths: set[tuple[str, ...]] = set()
    for key, child in tree.items():
        path = (*prefix, key)
        if child:
            paths |= from_fields_v1(child, path)
        else:
            paths.add(path)
    return paths


def update_managed_fields(
    old: dict | None, new: dict, manager: str, api_version: str, time: str,
    operation: str = "Update", subresource: str = "",
) -> list[dict]:  # fmt: skip
    """The ``managedFields`` of ``new`` written by ``manager`` over ``old`` (None: a create)."""
    entries = [] if old is None else list((old.get("metadata") or {}).get("managedFields") or [])
    new_leaves = _leaves(new)
    if old is None:
        changed = set(new_leaves)
        removed: set[tuple[str, ...]] = set()
    else:
        old_leaves = _leaves(old)
        changed = {p for p, v in new_leaves.items() if old_leaves.get(p, object()) != v}
        removed = set(old_leaves) - set(new_leaves)
    kept = []
    mine: set[tuple[str, ...]] = set()
    for entry in entries:
        owned = from_fields_v1(entry.get("fieldsV1") or {})
        same = (entry.get("manager") == manager and entry.get("operation") == operation
                and entry.get("subresource", "") == subresource)  # fmt: skip
        if same:
            mine = owned - removed
            continue
        owned = owned - changed - removed
        if owned:
            kept.append({**entry, "fieldsV1": to_fields_v1(owned)})
    mine |= changed
    if not changed and not mine:
        return kept
    entry = {"manager": manager, "operation": operation, "apiVersion": api_version,
             "time": time, "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(mine)}  # fmt: skip
    if subresource:
        entry["subresource"] = subresource
    return [*kept, entry]
