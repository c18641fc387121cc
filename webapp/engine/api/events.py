"""core/v1 Events with the client-go recorder's aggregation.

``tools/record/events_cache.go`` EventCorrelator: an event with the same source, involved
object, type, reason and message as an earlier one bumps that event's ``count`` and
``lastTimestamp`` instead of creating a new object.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.engine.core.timefmt import rfc3339, unix_nano

NORMAL = "Normal"
WARNING = "Warning"


@dataclass(frozen=True, slots=True)
class ObjectReference:
    """``v1.ObjectReference`` of the involved object (``fieldPath`` names a container)."""

    kind: str
    name: str
    namespace: str = "default"
    uid: str = ""
    api_version: str = "v1"
    field_path: str = ""
    resource_version: str = ""

    def as_dict(self) -> dict:
        ref = {"kind": self.kind, "namespace": self.namespace, "name": self.name}
        if self.uid:
            ref["uid"] = self.uid
        ref["apiVersion"] = self.api_version
        if self.resource_version:
            ref["resourceVersion"] = self.resource_version
        if self.field_path:
            ref["fieldPath"] = self.field_path
        return ref


class EventRecorder:
    """Records Events; ``items`` is oldest first (by first occurrence)."""

    __slots__ = ("_by_key", "items", "revision")

    def __init__(self) -> None:
        self.items: list[dict] = []
        self._by_key: dict[tuple, dict] = {}
        self.revision = 0  # moves whenever an Event is added or aggregated into

    def seen(self, ref: ObjectReference, event_type: str, reason: str, message: str, *,
             component: str, host: str = "") -> dict | None:  # fmt: skip
        """The Event an identical ``record`` would aggregate into, if there is one."""
        return self._by_key.get((component, host, ref, event_type, reason, message))

    def again(self, event: dict, count: int, ms: int) -> None:
        """``count`` more identical records of ``event``, the last at ``ms``."""
        self.revision += 1
        event["count"] += count
        event["lastTimestamp"] = rfc3339(ms)

    def record(
        self,
        ms: int,
        ref: ObjectReference,
        event_type: str,
        reason: str,
        message: str,
        *,
        component: str,
        host: str = "",
    ) -> dict:
        """``recorder.Eventf``; returns the (possibly aggregated) Event object."""
        key = (component, host, ref, event_type, reason, message)
        stamp = rfc3339(ms)
        self.revision += 1
        event = self._by_key.get(key)
        if event is not None:
            event["count"] += 1
            event["lastTimestamp"] = stamp
            return event
        source = {"component": component}
        if host:
            source["host"] = host
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{ref.name}.{unix_nano(ms) + len(self.items):x}",
                "namespace": ref.namespace,
                "creationTimestamp": stamp,
            },
            "involvedObject": ref.as_dict(),
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
            "type": event_type,
            "eventTime": None,
            "reportingComponent": component,
            "reportingInstance": host,
        }
        self._by_key[key] = event
        self.items.append(event)
        return event
