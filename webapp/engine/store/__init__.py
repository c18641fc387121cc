"""The API object store: the bottom layer of the engine (it imports nothing else of it).

``ObjectStore`` (``store.py``) holds every API object of a run with one resourceVersion
counter, selectors (``labels.py``, ``fields.py``, ported from k8s.io/apimachinery),
watches with a bounded history, and the API server's errors (``errors.py``).
"""

from webapp.engine.store.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Expired,
    Invalid,
    NotFound,
    RequestEntityTooLarge,
    Timeout,
)
from webapp.engine.store.kinds import KINDS, Kind
from webapp.engine.store.store import (
    ADDED,
    BOOKMARK,
    DELETED,
    HISTORY_PER_KIND,
    MAX_OBJECT_BYTES,
    MAX_OBJECTS,
    MODIFIED,
    ObjectStore,
)

__all__ = [
    "ADDED", "BOOKMARK", "DELETED", "HISTORY_PER_KIND", "KINDS", "MAX_OBJECTS",
    "MAX_OBJECT_BYTES", "MODIFIED", "AlreadyExists", "ApiError", "BadRequest", "Conflict",
    "Expired", "Invalid", "Kind", "NotFound", "ObjectStore", "RequestEntityTooLarge", "Timeout",
]  # fmt: skip
