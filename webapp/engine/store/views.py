"""``KindView``: the objects of one kind in one namespace of an ``ObjectStore``, seen as a
mapping from name to object (what the engine's components used to keep as private dicts:
the ConfigMaps, Secrets and Services a kubelet and the endpoints controller read). Reading
reads the store; assigning writes it (``put``); nothing is kept here."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any


class KindView(MutableMapping):
    __slots__ = ("kind", "namespace", "store")

    def __init__(self, store: Any, kind: str, namespace: str = "default") -> None:
        self.store = store
        self.kind = kind
        self.namespace = namespace

    def _items(self) -> dict:
        return self.store.objects_of(self.kind, self.namespace)

    def __getitem__(self, name: str) -> dict:
        obj = self.store.get(self.kind, self.namespace, name)
        if obj is None:
            raise KeyError(name)
        return obj

    def get(self, name: str, default: Any = None) -> Any:
        obj = self.store.get(self.kind, self.namespace, name)
        return default if obj is None else obj

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.store.get(self.kind, self.namespace, name) is not None

    def __setitem__(self, name: str, obj: dict) -> None:
        metadata = {**(obj.get("metadata") or {}), "name": name}
        metadata.setdefault("namespace", self.namespace)
        self.store.put({**obj, "metadata": metadata})

    def __delitem__(self, name: str) -> None:
        if self.store.remove(self.kind, self.namespace, name) is None:
            raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._items()))

    def __len__(self) -> int:
        return len(self._items())

    def __bool__(self) -> bool:
        return bool(self._items())

    def values(self) -> list[dict]:  # type: ignore[override]
        return list(self._items().values())

    def items(self) -> list[tuple[str, dict]]:  # type: ignore[override]
        return list(self._items().items())

    def keys(self) -> list[str]:  # type: ignore[override]
        return list(self._items())
