"""``ObjectStore``: every API object of one run, as the API server and etcd keep them.

Objects are keyed ``(kind, namespace, name)`` (``namespace`` is ``""`` for cluster-scoped
kinds). One counter gives every write its resourceVersion, as etcd's revision does: a
create, an update that changes anything, a deletion mark and a removal each take the next
number, written as a string into ``metadata.resourceVersion`` (the wire's form). The store
sets ``uid``, ``creationTimestamp`` (from the virtual clock), ``generation`` (for kinds that
have one, bumped on a spec change and when a deletion is marked) and ``managedFields`` (for
a write that names its manager), and keeps ``deletionTimestamp`` and ``finalizers`` as the
API server's generic registry does: a delete of an object with finalizers (or a Pod's
graceful delete) only marks it; the object goes once its finalizers are gone.

Ownership: what the store returns (``get``, ``list``, watch events) is the stored object
itself, not a copy, and callers never mutate it; what a caller writes becomes the store's
(the store copies only the top level and ``metadata``, so the caller must not change what it
handed over: replace, never mutate). Errors are ``webapp.engine.store.errors`` (the API
server's Status errors, worded as k8s.io/apimachinery words them).

Two write paths:
- ``create``, ``update``, ``delete``: the REST semantics a client (kubectl, a controller)
  gets: optimistic concurrency on ``metadata.resourceVersion``, the status subresource kept
  apart, the 3 MiB request limit.
- ``put``, ``remove``: the storage layer under the registry, for the engine's components
  that stand in for the API server itself (the kubelet's status, the controllers' writes
  within one instant): the same resourceVersions, metadata and watch events, without the
  REST strategy.
"""

from __future__ import annotations

import json
import random
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from webapp.engine.store import errors, fields, labels
from webapp.engine.store.kinds import KINDS, Kind
from webapp.engine.store.managed import update_managed_fields

ADDED, MODIFIED, DELETED, BOOKMARK = "ADDED", "MODIFIED", "DELETED", "BOOKMARK"
# Watch events kept per kind (the watch cache's window): a watch from before the oldest one
# kept is 410 Expired ("too old resource version"), as after etcd's compaction.
HISTORY_PER_KIND = 2048
# The API server's request body limit (apiserver's MaxRequestBodyBytes): a larger object is
# 413 "Request entity too large: limit is 3145728".
MAX_OBJECT_BYTES = 3 * 1024 * 1024
# Objects one store holds at most (every kind together): past it a create is the API
# server's answer to a full etcd.
MAX_OBJECTS = 10_000
DATABASE_FULL = "etcdserver: mvcc: database space exceeded"
# names.SimpleNameGenerator: generateName plus five of these
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
DEFAULT_GRACE_SECONDS = 30

Key = tuple[str, str]  # (namespace, name)


def _no_time() -> str:
    return ""


def _parse_version(kind: Kind, text: Any) -> int:
    """``APIObjectVersioner.ParseResourceVersion``: "" and "0" are 0."""
    text = "" if text is None else str(text)
    if text in ("", "0"):
        return 0
    if text.isascii() and text.isdigit() and int(text) < 2**64:
        return int(text)
    reason = "value out of range" if text.isascii() and text.isdigit() else "invalid syntax"
    raise errors.new_invalid(kind.resource, kind.group, "", [errors.invalid_value(
        "resourceVersion", text, f'strconv.ParseUint: parsing {errors.go_quote(text)}: {reason}')])  # fmt: skip


def _label_selector(selector: Any) -> labels.Selector | None:
    if selector is None or isinstance(selector, labels.Selector):
        return selector
    if isinstance(selector, dict):
        return labels.selector_from_set(selector)
    try:
        return labels.parse(str(selector))
    except labels.SelectorError as error:
        raise errors.new_bad_request(str(error)) from None


def _field_selector(kind: str, selector: Any) -> fields.FieldSelector | None:
    if selector is None or isinstance(selector, fields.FieldSelector):
        return selector
    try:
        return fields.parse(str(selector), kind)
    except labels.SelectorError as error:
        raise errors.new_bad_request(str(error)) from None


class ObjectStore:
    """One run's API objects; see the module docstring."""

    def __init__(
        self,
        *,
        first_version: int = 1,
        timestamp: Callable[[], str] = _no_time,
        uid: Callable[[], str] | None = None,
        seed: int | str = 0,
        history: int = HISTORY_PER_KIND,
        max_objects: int = MAX_OBJECTS,
        max_object_bytes: int = MAX_OBJECT_BYTES,
        namespaces: Iterable[str] = (),
    ) -> None:
        """``timestamp`` gives the virtual clock's RFC 3339 time and ``uid`` new UIDs (both
        picklable callables: a checkpoint pickles the store); without ``uid`` the UIDs and
        generated names come from a generator seeded with ``seed``. ``namespaces`` creates
        those Namespaces and makes a create in any other namespace NotFound."""
        self._rv = first_version - 1
        self._last = self._rv  # the version the write under way took
        self._pinned: int | None = None  # put(version=...) under way
        self._start = self._rv
        self._timestamp = timestamp
        self._rng = random.Random(f"{seed}/store")
        self._uid = uid if uid is not None else self._random_uid
        self._history_size = history
        self.max_objects = max_objects
        self.max_object_bytes = max_object_bytes
        self._objects: dict[str, dict[Key, dict]] = {kind: {} for kind in KINDS}
        self._count = 0
        # kind -> deque of (rv, type, object, previous object or None)
        self._history: dict[str, deque] = {kind: deque() for kind in KINDS}
        self._dropped: dict[str, bool] = dict.fromkeys(KINDS, False)
        self._check_namespaces = False
        for name in namespaces:
            self.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
                      "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})  # fmt: skip
        self._check_namespaces = bool(self._objects["Namespace"])

    def __getstate__(self) -> dict:
        """A checkpoint keeps the objects and the counter, not the watch history (it holds
        every object's earlier versions): a restored store's watches start at its current
        resourceVersion, as an API server's watch cache does after a restart (an older one
        is 410 Expired and the client lists again)."""
        state = dict(self.__dict__)
        state["_history"] = None
        state["_start"] = self._rv
        state["_dropped"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._history = {kind: deque() for kind in KINDS}
        self._dropped = dict.fromkeys(KINDS, False)

    # -- reading --------------------------------------------------------------------------

    @property
    def resource_version(self) -> str:
        """The store's current resourceVersion (the last write's), as the wire writes it."""
        return str(self._rv)

    def __len__(self) -> int:
        return self._count

    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        """The stored object (not a copy: never mutate it), or None."""
        info = self._kind(kind)
        return self._objects[kind].get((namespace or "" if info.namespaced else "", name))

    def require(self, kind: str, namespace: str | None, name: str) -> dict:
        """``get``, or the API server's NotFound."""
        obj = self.get(kind, namespace, name)
        if obj is None:
            info = self._kind(kind)
            raise errors.new_not_found(info.resource, info.group, name)
        return obj

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: Any = None,
        field_selector: Any = None,
    ) -> tuple[list[dict], str]:
        """(the matching objects ordered by namespace and name, the list's resourceVersion).
        ``label_selector``: text in the apimachinery syntax (``app=web,tier in (a,b),!x``), a
        dict of labels, or a parsed selector; ``field_selector``: text (``status.phase=Running``)
        with the fields the kind supports. Invalid selectors: BadRequest, the API server's
        message."""
        info = self._kind(kind)
        lsel = _label_selector(label_selector)
        fsel = _field_selector(kind, field_selector)
        items = self._objects[kind]
        keys = sorted(items)
        if namespace and info.namespaced:
            keys = [k for k in keys if k[0] == namespace]
        found = [items[k] for k in keys]
        if lsel is not None and not lsel.empty():
            found = [o for o in found if lsel.matches((o.get("metadata") or {}).get("labels"))]
        if fsel is not None and not fsel.empty():
            found = [o for o in found if fsel.matches(o)]
        return found, str(self._rv)

    def kinds(self) -> list[str]:
        return list(KINDS)

    def objects_of(self, kind: str, namespace: str = "default") -> dict[str, dict]:
        """name -> object of ``kind`` in ``namespace``, in the order they were created (the
        engine's views that keep its historical order; the API's list is ``list``)."""
        info = self._kind(kind)
        namespace = namespace if info.namespaced else ""
        return {name: obj for (ns, name), obj in self._objects[kind].items() if ns == namespace}

    # -- REST writes ----------------------------------------------------------------------

    def create(self, obj: dict, *, manager: str | None = None) -> dict:
        """``POST``: AlreadyExists, Invalid (no name), BadRequest (resourceVersion given),
        NotFound (no such namespace), RequestEntityTooLarge; the stored object."""
        info = self._kind_of(obj)
        self._check_size(obj)
        metadata = obj.get("metadata") or {}
        if metadata.get("resourceVersion") not in (None, ""):
            raise errors.new_bad_request(
                "resourceVersion should not be set on objects to be created"
            )
        obj = {**obj, "metadata": dict(metadata)}
        if info.status and "status" in obj:
            obj["status"] = {"phase": "Pending"} if info.kind == "Pod" else {}
        return self._create(info, obj, manager)

    def update(
        self, obj: dict, *, manager: str | None = None, subresource: str | None = None
    ) -> dict:
        """``PUT`` of the object (``subresource=None``: its status is kept as stored) or of
        its ``status`` (everything but the status is kept). A ``metadata.resourceVersion``
        other than the stored one is a Conflict; none is an unconditional update. A write
        that changes nothing takes no resourceVersion and sends no event."""
        info = self._kind_of(obj)
        self._check_size(obj)
        metadata = obj.get("metadata") or {}
        name = metadata.get("name") or ""
        key = self._key(info, metadata)
        old = self._objects[info.kind].get(key)
        if old is None:
            raise errors.new_not_found(info.resource, info.group, name)
        given = metadata.get("resourceVersion")
        if given not in (None, "") and str(given) != old["metadata"]["resourceVersion"]:
            raise errors.new_conflict(info.resource, info.group, name)
        new = {**obj, "metadata": dict(metadata)}
        if subresource == "status":
            new = {**old, "status": obj.get("status", {})}
            new["metadata"] = dict(old["metadata"])
        elif info.status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        return self._update(info, key, old, new, manager, subresource or "")

    def delete(
        self,
        kind: str,
        namespace: str | None,
        name: str,
        *,
        grace_period_seconds: int | None = None,
        preconditions: dict | None = None,
        propagation_policy: str | None = None,
        manager: str | None = None,
    ) -> tuple[dict, bool]:
        """``DELETE``: (the object's last state, True when it is gone). An object with
        finalizers, or a Pod on a node given a grace period, is only marked
        (``deletionTimestamp``); ``propagation_policy`` ``Foreground`` / ``Orphan`` adds
        the garbage collector's finalizer. ``preconditions`` ``{uid?, resourceVersion?}``
        that do not hold are a Conflict."""
        info = self._kind(kind)
        obj = self.require(kind, namespace, name)
        meta = obj["metadata"]
        for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
            want = (preconditions or {}).get(field)
            if want not in (None, "") and want != meta.get(field):
                raise errors.new_conflict(info.resource, info.group, name,
                                          f"Precondition failed: {label} in precondition: {want}, "
                                          f"{label} in object meta: {meta.get(field, '')}")  # fmt: skip
        grace = 0
        if info.graceful:
            spec, status = obj.get("spec") or {}, obj.get("status") or {}
            grace = grace_period_seconds
            if grace is None:
                grace = spec.get("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
            if not spec.get("nodeName") or status.get("phase") in ("Succeeded", "Failed"):
                grace = 0  # CheckGracefulDelete: nothing runs it, or it has ended
        finalizers = list(meta.get("finalizers") or [])
        for policy, finalizer in (("Foreground", "foregroundDeletion"), ("Orphan", "orphan")):
            if propagation_policy == policy and finalizer not in finalizers:
                finalizers.append(finalizer)
        pending = meta.get("deletionTimestamp") is not None
        if grace <= 0 and not finalizers:
            return self._remove(info, self._key(info, meta), obj), True
        if pending:
            current = meta.get("deletionGracePeriodSeconds")
            if (
                current is not None
                and grace >= current
                and finalizers == list(meta.get("finalizers") or [])
            ):
                return obj, False  # already being deleted, no sooner
        new_meta = {**meta, "deletionGracePeriodSeconds": max(grace, 0)}
        new_meta["deletionTimestamp"] = self._timestamp_after(grace)
        if finalizers:
            new_meta["finalizers"] = finalizers
        if not pending and info.generation and meta.get("generation"):
            new_meta["generation"] = meta["generation"] + 1
        new = {**obj, "metadata": new_meta}
        return self._write(info, self._key(info, meta), obj, new, manager, ""), False

    # -- storage writes (the engine's own) ------------------------------------------------

    def reserve(self, count: int) -> int:
        """Take the next ``count`` resourceVersions at once and return the one before them:
        writes that happened one by one are done in one step (the kubelet's coasted probe
        ticks, each of which would have bumped an Event), each ``put(obj, version=v)`` at
        the version it would have had; the versions no write takes are gaps, as etcd's
        revisions taken by other keys."""
        base = self._rv
        self._rv += max(0, count)
        return base

    def put(self, obj: dict, *, manager: str | None = None, version: int | None = None) -> dict:
        """Create or replace the whole object (metadata, spec and status as given), with the
        store's metadata filled in; no resourceVersion check. A write that changes nothing
        takes no resourceVersion. ``version``: one of the versions :meth:`reserve` took."""
        info = self._kind_of(obj)
        metadata = obj.get("metadata") or {}
        key = self._key(info, metadata)
        old = self._objects[info.kind].get(key)
        obj = {**obj, "metadata": dict(metadata)}
        if (
            old is not None
            and metadata.get("uid")
            and metadata["uid"] != old["metadata"].get("uid")
        ):
            self._remove(info, key, old)  # another object of the same name: the old one went
            old = None
        if version is not None:
            self._pinned = version
        try:
            if old is None:
                return self._create(info, obj, manager, storage=True)
            return self._update(info, key, old, obj, manager, "", storage=True)
        finally:
            self._pinned = None

    def remove(self, kind: str, namespace: str | None, name: str) -> dict | None:
        """Take the object out now (finalizers or not): its DELETED event; None if absent."""
        info = self._kind(kind)
        key = (namespace or "" if info.namespaced else "", name)
        obj = self._objects[kind].get(key)
        return None if obj is None else self._remove(info, key, obj)

    # -- watching -------------------------------------------------------------------------

    def watch_since(
        self,
        kind: str,
        resource_version: Any,
        namespace: str | None = None,
        label_selector: Any = None,
        field_selector: Any = None,
    ) -> list[tuple[str, dict]]:
        """The events of ``kind`` after ``resource_version``, oldest first, as a watch
        from it receives them: ``("ADDED"|"MODIFIED"|"DELETED", object)``, an object moving
        into the selection as ADDED and out of it as DELETED (the watch cache's filter).
        ``""`` or ``"0"``: every current object as ADDED. Errors: Expired (410, ``too old
        resource version: X (Y)``) before the history kept, Timeout (504, ``Too large
        resource version``) past the store's, Invalid for a non-number, BadRequest for a
        bad selector. ``bookmark(kind)`` is the caller's BOOKMARK."""
        info = self._kind(kind)
        rv = _parse_version(info, resource_version)
        lsel = _label_selector(label_selector)
        fsel = _field_selector(kind, field_selector)

        def passes(obj: dict | None) -> bool:
            if obj is None:
                return False
            meta = obj.get("metadata") or {}
            if namespace and info.namespaced and meta.get("namespace") != namespace:
                return False
            if lsel is not None and not lsel.matches(meta.get("labels")):
                return False
            return fsel is None or fsel.matches(obj)

        if rv == 0:
            items, _ = self.list(kind, namespace, lsel, fsel)
            return [(ADDED, obj) for obj in items]
        if rv > self._rv:
            raise errors.new_too_large_resource_version(rv, self._rv)
        history = self._history[kind]
        oldest_allowed = history[0][0] - 1 if self._dropped[kind] else self._start
        if rv < oldest_allowed:
            raise errors.new_resource_expired(f"too old resource version: {rv} ({oldest_allowed})")
        found: list[tuple[str, dict]] = []
        for event_rv, event_type, obj, prev in self._events_after(history, rv):
            del event_rv
            now, before = passes(obj), passes(prev)
            if event_type == DELETED:
                if now:
                    found.append((DELETED, obj))
            elif now and before:
                found.append((MODIFIED, obj))
            elif now:
                found.append((ADDED, obj))
            elif before:
                gone = {**prev, "metadata": {**prev["metadata"],
                                             "resourceVersion": obj["metadata"]["resourceVersion"]}}  # fmt: skip
                found.append((DELETED, gone))
        return found

    @staticmethod
    def _events_after(history: deque, rv: int) -> list:
        # binary search: the history is in resourceVersion order
        lo, hi = 0, len(history)
        while lo < hi:
            mid = (lo + hi) // 2
            if history[mid][0] <= rv:
                lo = mid + 1
            else:
                hi = mid
        return [history[i] for i in range(lo, len(history))]

    def bookmark(self, kind: str, *, initial_events_end: bool = False) -> tuple[str, dict]:
        """A BOOKMARK event at the store's current resourceVersion (an object of the kind
        with nothing but ``metadata.resourceVersion``, and the ``k8s.io/initial-events-end``
        annotation when it ends a watch's initial events)."""
        info = self._kind(kind)
        metadata: dict[str, Any] = {"resourceVersion": str(self._rv)}
        if initial_events_end:
            metadata["annotations"] = {"k8s.io/initial-events-end": "true"}
        return BOOKMARK, {"kind": kind, "apiVersion": info.api_version, "metadata": metadata}

    # -- inside ---------------------------------------------------------------------------

    def _kind(self, kind: str) -> Kind:
        info = KINDS.get(kind)
        if info is None:
            raise errors.new_bad_request(
                f"the server could not find the requested resource ({kind})"
            )
        return info

    def _kind_of(self, obj: Any) -> Kind:
        if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
            raise errors.new_bad_request("Object 'Kind' is missing in the request body")
        return self._kind(obj["kind"])

    def _key(self, info: Kind, metadata: dict) -> Key:
        namespace = (metadata.get("namespace") or "default") if info.namespaced else ""
        return namespace, metadata.get("name") or ""

    def _check_size(self, obj: dict) -> None:
        size = len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())
        if size > self.max_object_bytes:
            raise errors.new_request_entity_too_large(self.max_object_bytes)

    def _random_uid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def _timestamp_after(self, seconds: int) -> str:
        now = self._timestamp()
        if seconds <= 0 or not now:
            return now
        from datetime import datetime, timedelta

        try:
            when = datetime.strptime(now, "%Y-%m-%dT%H:%M:%SZ") + timedelta(seconds=seconds)
        except (ValueError, OverflowError):
            return now
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")

    def _next_version(self) -> str:
        pinned = self.__dict__.get("_pinned")
        if pinned is not None:
            self._last = pinned
            return str(pinned)
        self._rv += 1
        self._last = self._rv
        return str(self._rv)

    def _record(self, kind: str, event_type: str, obj: dict, prev: dict | None) -> None:
        history = self._history[kind]
        entry = (self._last, event_type, obj, prev)
        if history and history[-1][0] > self._last:  # a reserved version, written late
            index = len(history)
            while index > 0 and history[index - 1][0] > self._last:
                index -= 1
            history.insert(index, entry)
        else:
            history.append(entry)
        if len(history) > self._history_size:
            history.popleft()
            self._dropped[kind] = True

    def _create(self, info: Kind, obj: dict, manager: str | None, *, storage: bool = False) -> dict:
        metadata = obj["metadata"]
        if not metadata.get("name"):
            prefix = metadata.get("generateName")
            if not prefix:
                raise errors.new_invalid(info.kind, info.group, "", [errors.required_value(
                    "metadata.name", "name or generateName is required")])  # fmt: skip
            metadata["name"] = self._generate_name(info, metadata, prefix)
        if info.namespaced:
            metadata["namespace"] = metadata.get("namespace") or "default"
            if (
                self._check_namespaces
                and ("", metadata["namespace"]) not in self._objects["Namespace"]
            ):
                raise errors.new_not_found("namespaces", "", metadata["namespace"])
        else:
            metadata.pop("namespace", None)
        key = self._key(info, metadata)
        if key in self._objects[info.kind]:
            raise errors.new_already_exists(info.resource, info.group, metadata["name"])
        if self._count >= self.max_objects:
            raise errors.new_internal_error(DATABASE_FULL)
        if not metadata.get("uid"):
            metadata["uid"] = self._uid()
        if not metadata.get("creationTimestamp"):
            metadata["creationTimestamp"] = self._timestamp()
        if info.generation and not (storage and "generation" in metadata):
            metadata["generation"] = 1
        if "apiVersion" not in obj:
            obj["apiVersion"] = info.api_version
        if manager:
            metadata["managedFields"] = update_managed_fields(
                None, obj, manager, obj["apiVersion"], self._timestamp()
            )
        metadata["resourceVersion"] = self._next_version()
        self._objects[info.kind][key] = obj
        self._count += 1
        self._record(info.kind, ADDED, obj, None)
        return obj

    def _generate_name(self, info: Kind, metadata: dict, prefix: str) -> str:
        namespace = metadata.get("namespace") or "default" if info.namespaced else ""
        base = prefix[: 63 - 5] if len(prefix) > 58 else prefix
        for _ in range(8):
            name = base + "".join(self._rng.choice(NAME_ALPHABET) for _ in range(5))
            if (namespace, name) not in self._objects[info.kind]:
                return name
        raise errors.new_already_exists(info.resource, info.group, name)

    def _update(
        self, info: Kind, key: Key, old: dict, new: dict, manager: str | None,
        subresource: str, *, storage: bool = False,
    ) -> dict:  # fmt: skip
        """The REST update (``storage=False``: what the server owns is kept from the stored
        object) or the engine's storage write (``put``: the metadata as given, the store's
        fields filled in where missing)."""
        meta, old_meta = new["metadata"], old["metadata"]
        for field in ("uid", "creationTimestamp"):
            if field in old_meta and (not storage or field not in meta):
                meta[field] = old_meta[field]
        meta["name"] = old_meta["name"]
        if info.namespaced:
            meta["namespace"] = old_meta.get("namespace", "default")
        if not storage:
            for field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
                if field in old_meta:
                    meta[field] = old_meta[field]
                else:
                    meta.pop(field, None)
        if info.generation and not (storage and "generation" in meta):
            generation = old_meta.get("generation", 1)
            if new.get("spec") != old.get("spec"):
                generation += 1
            meta["generation"] = generation
        if "apiVersion" not in new:
            new["apiVersion"] = old.get("apiVersion", info.api_version)
        if (not storage and old_meta.get("deletionTimestamp") is not None
                and not meta.get("finalizers") and old_meta.get("deletionGracePeriodSeconds") == 0):  # fmt: skip
            return self._remove(info, key, old)  # ShouldDeleteDuringUpdate
        return self._write(info, key, old, new, manager, subresource)

    def _write(self, info: Kind, key: Key, old: dict, new: dict, manager: str | None,
               subresource: str) -> dict:  # fmt: skip
        meta = new["metadata"]
        meta["resourceVersion"] = old["metadata"]["resourceVersion"]
        if "managedFields" in old["metadata"]:
            meta["managedFields"] = old["metadata"]["managedFields"]
        else:
            meta.pop("managedFields", None)
        if new == old:
            return old  # nothing changed: no new resourceVersion, no event
        if manager:
            meta["managedFields"] = update_managed_fields(
                old, new, manager, new.get("apiVersion", info.api_version), self._timestamp(),
                subresource=subresource)  # fmt: skip
        meta["resourceVersion"] = self._next_version()
        self._objects[info.kind][key] = new
        self._record(info.kind, MODIFIED, new, old)
        return new

    def _remove(self, info: Kind, key: Key, obj: dict) -> dict:
        del self._objects[info.kind][key]
        self._count -= 1
        gone = {**obj, "metadata": {**obj["metadata"], "resourceVersion": self._next_version()}}
        self._record(info.kind, DELETED, gone, obj)
        return gone
