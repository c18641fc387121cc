"""What the components ask of the cluster they run in: the API server's objects and the
simulation's shared services (clock, transitions, Events, the Pod's identity).

:class:`webapp.engine.simulation.Simulation` is the one implementation. The kubelet,
``killContainer``, the user actions and the transition differ are written against this
protocol rather than against the Simulation class, so none of them imports the module that
wires them together and the package has no import circle (docs/architecture.md).
"""

from __future__ import annotations

import random
from typing import Any, Protocol


class Cluster(Protocol):
    # -- the Pod: identity, placement, deletion (the API server's record) ----------------
    uid: str
    node_name: str | None
    pod_object_dict: dict
    pod_removed: bool
    start_time_ms: int | None
    deletion_ms: int | None
    deletion_grace_seconds: int | None
    behaviours: dict[str, dict]  # container name -> its Simulation document entry

    @property
    def namespace(self) -> str: ...
    @property
    def pod_name(self) -> str: ...
    @property
    def pod_spec(self) -> dict: ...
    @property
    def pod_object(self) -> str: ...
    @property
    def pod_format(self) -> str: ...
    def pod(self) -> dict | None: ...
    def add_pod_condition(self, condition: dict) -> None: ...

    # -- the other API objects -----------------------------------------------------------
    config_maps: dict[str, dict]
    secrets: dict[str, dict]
    services: dict[str, dict]
    nodes_by_name: dict[str, Any]  # name -> controllers.node_lifecycle.NodeState
    images: Any  # kubelet.images.ImageRegistry

    def node_up(self, name: str) -> bool: ...
    def node_images(self, name: str) -> dict[str, str]: ...
    def memory_limit_bytes(self, container: dict) -> int | None: ...

    # -- shared services -----------------------------------------------------------------
    clock: Any  # core.clock.Clock
    rng: random.Random
    kubelet: Any  # kubelet.kubelet.Kubelet | None, once the Pod is bound

    @property
    def now_ms(self) -> int: ...
    def mark_dirty(self) -> None: ...
    def transition(self, step: str, obj: str, field: str, before: Any, after: Any, cause: str, *,
                   container: str | None = None, stage: int | None = None,
                   seconds: float | None = None) -> None: ...  # fmt: skip
    def pod_event(self, event_type: str, reason: str, message: str, *, component: str,
                  host: str = "", field_path: str = "", with_uid: bool = True) -> None: ...  # fmt: skip

    # -- what the kubelet reports back and asks for ---------------------------------------
    def allocate_pod_ip(self) -> str: ...
    def runtime_start(self, instance: Any) -> None: ...
    def runtime_exit(self, instance: Any) -> None: ...
    def kubelet_grace_seconds(self) -> int: ...
    def kubelet_finished_pod(self) -> None: ...

    # -- what user actions ask of the control plane ---------------------------------------
    def delete_pod(
        self, grace_seconds: int | None, *, force: bool = False, cause: str = ""
    ) -> None: ...
    def kubelet_admits(self) -> None: ...
    def mark_pod_not_ready(self) -> None: ...
    def retry_scheduling(self) -> None: ...
    def update_services(self) -> None: ...
