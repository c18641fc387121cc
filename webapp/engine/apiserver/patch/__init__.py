"""The API's three patch formats and kubectl apply's client-side three-way merge.

- :mod:`.merge_patch`: JSON merge patch (RFC 7386), ``application/merge-patch+json``.
- :mod:`.json_patch`: JSON patch (RFC 6902), ``application/json-patch+json``.
- :mod:`.strategic`: strategic merge patch (``application/strategic-merge-patch+json``),
  with the Kubernetes patch keys of :mod:`.meta`, and ``CreateThreeWayMergePatch``.
- :mod:`.last_applied`: the ``kubectl.kubernetes.io/last-applied-configuration``
  annotation as kubectl writes it.

All are pure functions of JSON values (dicts, lists, str, int/float, bool, None).
"""

from webapp.engine.apiserver.patch.errors import PatchError
from webapp.engine.apiserver.patch.json_patch import apply_json_patch
from webapp.engine.apiserver.patch.merge_patch import apply_merge_patch, create_merge_patch
from webapp.engine.apiserver.patch.strategic import (
    create_three_way_merge_patch,
    create_two_way_merge_patch,
    strategic_merge_patch,
)

__all__ = [
    "PatchError",
    "apply_json_patch",
    "apply_merge_patch",
    "create_merge_patch",
    "create_three_way_merge_patch",
    "create_two_way_merge_patch",
    "strategic_merge_patch",
]
