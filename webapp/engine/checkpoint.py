"""Checkpoints: a Simulation's whole state at one instant, to resume from instead of replaying
from second 0 (docs/internals.md, "Checkpoints").

A checkpoint is the pickled state of the Simulation minus what never changes or only grows:
the scenario, and the transition log and the watch history, which it shares with the run it
was taken from (it keeps their lengths, and copies of the few transitions that can still
change: the open probe runs). Restoring unpickles a new, independent Simulation, so one
checkpoint can be restored any number of times, and the result runs on exactly as the
original would have: same transitions, Events, objects and random draws (the generator is
part of the state).

A checkpoint can only be taken between the kubelet's blocking steps: a running sync (a
generator) cannot be copied, so :func:`take` returns None while one is live (a pull, a hook,
a kill in progress). Callers take the next chance.
"""

from __future__ import annotations

import bisect
import gc
import io
import pickle
import struct
import zlib
from dataclasses import dataclass, replace
from typing import Any

from webapp.engine.core.versions import VersionLog

_TRANSITIONS = "transitions"
_VERSIONS = "versions"
_SCENARIO = "scenario"
_POD, _STATUS, _SPEC = "pod", "status", "spec"
_STORE = "store"
# A cluster run's checkpoint up to this size is taken after the store's min_work / max_work
# events, a larger one after proportionally more (a one-Pod run's always after those).
WORK_BYTES = 8_000
_WATCH = "watch"  # a cluster run's watch of every Pod
_ROLLOUTS = "rollouts"  # ... and its Deployments' versions
_IN_HISTORY = "in-history"  # a checkpoint's Pod: the last version of its watch history
# The run's action log: the checkpoint keeps it as its `actions` (a tuple of copies whose
# values, a 60 KB `apply` YAML among them, are the log's own strings), so the state does
# not pickle it again: a checkpoint's cost and size do not grow with the history's actions.
_ACTIONS = "actions"


@dataclass(frozen=True, eq=False)
class Checkpoint:
    """The state of a Simulation at ``at_ms``, after the actions in ``actions`` (its whole
    action log then, each with its ``at``)."""

    at_ms: int
    actions: tuple[dict, ...]
    seed: int
    horizon_ms: int
    scenario: Any
    objects: dict[str, Any]  # shared objects that are replaced, never changed in place
    state: bytes
    transitions: Any  # the run's log (a RecordLog), shared: its first `transition_count` items
    transition_count: int
    versions: list[tuple]  # the run's watch history, shared: its first `version_count`
    version_count: int

    @property
    def at(self) -> float:
        return self.at_ms / 1000

    @property
    def size(self) -> int:
        """Bytes this checkpoint holds of its own (the shared logs are not counted)."""
        return len(self.state) + 64 * len(self.actions) + 200

    def fits(self, scenario: Any, actions: list[dict], seed: int, horizon_ms: int) -> bool:
        """Can a replay of ``actions`` (each with ``at``) resume here? The same run (scenario,
        seed, horizon), the checkpoint's actions are the first of ``actions``, and no other
        action of them comes before the checkpoint."""
        if scenario is not self.scenario and getattr(scenario, "text", None) != getattr(
            self.scenario, "text", None
        ):
            return False
        if seed != self.seed or horizon_ms != self.horizon_ms:
            return False
        count = len(self.actions)
        if len(actions) < count or list(actions[:count]) != list(self.actions):
            return False
        return all(_ms(action.get("at", 0)) >= self.at_ms for action in actions[count:])

    def rebased(self, sim: Any) -> Checkpoint | None:
        """This checkpoint sharing ``sim``'s logs instead of its own (``sim`` is on its
        history), or None when it already does or cannot (the logs are shorter)."""
        transitions, versions = sim._log.items, sim.pod_versions
        if self.transitions is transitions:
            return None
        if self.transition_count <= len(transitions) and self.version_count <= len(versions):
            return replace(self, transitions=transitions, versions=versions)
        return None

    def restore(self) -> Any:
        return restore(self)


@dataclass(frozen=True, eq=False)
class ClusterCheckpoint:
    """The state of a ClusterSimulation (engine/cluster.py) at ``at_ms``: as a
    :class:`Checkpoint`, but each Pod's run shares its transition log and watch versions
    (and the cluster its watch of every Pod) with the run it was taken from; ``logs`` holds,
    per Pod run in creation order, ``(transitions, count, versions, count)``."""

    at_ms: int
    actions: tuple[dict, ...]
    seed: int
    horizon_ms: int
    scenario: Any
    state: bytes
    watch: list  # the cluster's watch of every Pod, shared: its first `watch_count` items
    watch_count: int
    logs: tuple[tuple[Any, int, list, int], ...]
    # Each Deployment's versions (what `rollout status` reads), shared: (name, list, count)
    rollouts: tuple[tuple[str, list, int], ...] = ()
    keys: tuple[Any, ...] = ()  # what each memo index of `state` refers to (take_cluster)

    at = Checkpoint.at
    fits = Checkpoint.fits

    @property
    def size(self) -> int:
        return len(self.state) + 64 * len(self.actions) + 200 + 32 * len(self.logs)

    def rebased(self, sim: Any) -> ClusterCheckpoint | None:
        runs = sim.created
        if len(runs) < len(self.logs) or len(sim.watch_versions) < self.watch_count:
            return None
        rollouts = []
        for name, _, count in self.rollouts:
            versions = sim.deployment_versions.get(name)
            if versions is None or len(versions) < count:
                return None
            rollouts.append((name, versions, count))
        logs = []
        for (_, t_count, _, v_count), run in zip(self.logs, runs, strict=False):
            if t_count > len(run._log.items) or v_count > len(run.pod_versions):
                return None
            logs.append((run._log.items, t_count, run.pod_versions, v_count))
        if (
            self.watch is sim.watch_versions
            and all(mine[0] is theirs[0] for mine, theirs in zip(self.logs, logs, strict=True))
            and all(m[1] is t[1] for m, t in zip(self.rollouts, rollouts, strict=True))
        ):
            return None
        return replace(self, watch=sim.watch_versions, logs=tuple(logs), rollouts=tuple(rollouts))

    def restore(self) -> Any:
        return _restore_cluster(self)


def _ms(seconds: Any) -> int:
    return round(float(seconds) * 1000)


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, shared: dict[int, str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._shared = shared

    def persistent_id(self, obj: Any) -> str | None:
        return self._shared.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, shared: dict[str, Any]) -> None:
        super().__init__(file)
        self._shared = shared

    def persistent_load(self, pid: Any) -> Any:
        return self._shared[pid]


def take(sim: Any) -> Checkpoint | None:
    """A checkpoint of ``sim`` now, or None while a kubelet step is under way."""
    if sim.clock.processes:
        return None
    if sim._dirty:
        sim._flush()
    transitions, versions = sim._log.items, sim.pod_versions
    shared = {id(sim.scenario): _SCENARIO, id(transitions): _TRANSITIONS, id(versions): _VERSIONS,
              id(sim.actions): _ACTIONS}  # fmt: skip
    if sim.checkpoints is not None:
        shared[id(sim.checkpoints)] = _STORE  # the store is not part of the state
    # Objects that are replaced, never changed in place, are shared too: the Pod object as
    # last written (also the newest watch event's) and the Pod's spec.
    pod, spec = sim._pod, sim.pod_object_dict.get("spec")
    extra = {_POD: pod, _STATUS: (pod or {}).get("status"), _SPEC: spec}
    shared.update({id(value): key for key, value in extra.items() if value is not None})
    buffer = io.BytesIO()
    _Pickler(buffer, shared).dump(sim)
    state = zlib.compress(buffer.getvalue(), 1)  # about a fifth of the size, in well under 1 ms
    objects = {key: value for key, value in extra.items() if value is not None}
    if isinstance(versions, VersionLog) and versions and pod is not None and versions[-1][2] is pod:
        # The Pod is the history's last version: found there again at restore (from a packed
        # chunk, a copy), rather than kept alive by every checkpoint (docs/limits.md).
        objects = {_POD: _IN_HISTORY}
        if spec is not None and spec is not pod.get("spec"):
            objects[_SPEC] = spec
    return Checkpoint(
        at_ms=sim.clock.now_ms,
        objects=objects,
        actions=tuple(dict(action) for action in sim.actions),
        seed=sim.seed,
        horizon_ms=sim.horizon_ms,
        scenario=sim.scenario,
        state=state,
        transitions=transitions,
        transition_count=len(transitions),
        versions=versions,
        version_count=len(versions),
    )


def restore(checkpoint: Checkpoint | ClusterCheckpoint) -> Any:
    """A new Simulation in the checkpoint's state; the checkpoint stays as it was."""
    if isinstance(checkpoint, ClusterCheckpoint):
        return _restore_cluster(checkpoint)
    transitions = checkpoint.transitions.head(checkpoint.transition_count)
    versions = checkpoint.versions[: checkpoint.version_count]
    objects = checkpoint.objects
    if objects.get(_POD) is _IN_HISTORY:
        pod = versions[-1][2]
        objects = {_POD: pod, _STATUS: pod.get("status"), _SPEC: pod.get("spec"), **objects}
        objects[_POD] = pod
        objects = {key: value for key, value in objects.items() if value is not None}
    shared = {_SCENARIO: checkpoint.scenario, _TRANSITIONS: transitions, _VERSIONS: versions,
              _STORE: None, _ACTIONS: _actions(checkpoint), **objects}  # fmt: skip
    sim = _Unpickler(io.BytesIO(zlib.decompress(checkpoint.state)), shared).load()
    # The open runs' items were pickled with the state (only the list is shared), as they
    # were then: they may have grown since in the run the checkpoint came from. Put those
    # copies, the very objects the restored log extends, in their places.
    for run in sim._log._runs.values():
        transitions[run[0]["seq"]] = run[0]
    return sim


def take_cluster(sim: Any) -> ClusterCheckpoint | None:
    """A checkpoint of a ClusterSimulation now, or None while a kubelet step of any of its
    Pods is under way (one clock: ``clock.processes`` counts them all).

    The shared objects go into the pickler's memo beforehand (a ``persistent_id`` would be
    a Python call for each of the run's 250,000 objects, most of a 100-Pod checkpoint's
    cost); :func:`_restore_cluster` puts them in the unpickler's memo at the same indices."""
    if sim.clock.processes:
        return None
    if sim.dirty:
        sim._flush_pods()
    keys: list[Any] = [_SCENARIO, _WATCH, _ACTIONS]
    objects: list[Any] = [sim.scenario, sim.watch_versions, sim.actions]
    if sim.checkpoints is not None:
        keys.append(_STORE)
        objects.append(sim.checkpoints)
    logs = []
    seen: set[int] = set()  # Pods of one template may share a spec object
    for index, run in enumerate(sim.created):
        transitions, versions = run._log.items, run.pod_versions
        keys += [(_TRANSITIONS, index), (_VERSIONS, index)]
        objects += [transitions, versions]
        pod = run._pod
        if pod is not None and versions and versions[-1][2] is pod:
            # found again as the last watch version, with its status and spec (the
            # kubelet's status and the Pod's spec as last written are those objects)
            keys.append((_POD, index))
            objects.append(pod)
            for part in (_STATUS, _SPEC):
                value = pod.get(part)
                if isinstance(value, dict) and id(value) not in seen:
                    keys.append((part, index))
                    objects.append(value)
                    seen.add(id(value))
        logs.append((transitions, len(transitions), versions, len(versions)))
    rollouts = []
    for name, versions in sim.deployment_versions.items():  # (t, copy) items, only appended
        keys.append((_ROLLOUTS, name))
        objects.append(versions)
        rollouts.append((name, versions, len(versions)))
    assert len({id(obj) for obj in objects}) == len(objects)
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.memo = {id(obj): (index, obj) for index, obj in enumerate(objects)}
    pickler.dump(sim)
    return ClusterCheckpoint(
        at_ms=sim.clock.now_ms,
        actions=tuple(dict(action) for action in sim.actions),
        seed=sim.seed,
        horizon_ms=sim.horizon_ms,
        scenario=sim.scenario,
        state=zlib.compress(buffer.getvalue(), 1),
        watch=sim.watch_versions,
        watch_count=len(sim.watch_versions),
        logs=tuple(logs),
        rollouts=tuple(rollouts),
        keys=tuple(keys),
    )


def _actions(checkpoint: Checkpoint | ClusterCheckpoint) -> list[dict]:
    """The restored run's own action log: copies of the checkpoint's (it appends to it)."""
    return [dict(action) for action in checkpoint.actions]


def _memo_prologue(count: int) -> bytes:
    """Opcodes that put ``persistent_load(i)`` at memo index ``i`` for i < count (what the
    pickler's memo held before it pickled the state: it refers to them by index)."""
    out = bytearray(b"\x80" + bytes([pickle.HIGHEST_PROTOCOL]))
    for index in range(count):
        # BININT index, BINPERSID, MEMOIZE, POP
        out += b"J" + struct.pack("<i", index) + b"Q\x94" + b"0"
    return bytes(out)


class _MemoUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, objects: list[Any]) -> None:
        super().__init__(file)
        self._objects = objects

    def persistent_load(self, pid: Any) -> Any:
        return self._objects[pid]


def _restore_cluster(checkpoint: ClusterCheckpoint) -> Any:
    watch = checkpoint.watch[: checkpoint.watch_count]
    shared: dict[Any, Any] = {_SCENARIO: checkpoint.scenario, _WATCH: watch, _STORE: None,
                              _ACTIONS: _actions(checkpoint)}  # fmt: skip
    for index, (transitions, t_count, versions, v_count) in enumerate(checkpoint.logs):
        shared[(_TRANSITIONS, index)] = transitions.head(t_count)
        head = type(versions)._restore(watch, list(versions[:v_count]))
        shared[(_VERSIONS, index)] = head
        if v_count:
            pod = head[-1][2]
            shared[(_POD, index)] = pod
            shared[(_STATUS, index)] = pod.get(_STATUS)
            shared[(_SPEC, index)] = pod.get(_SPEC)
    for name, versions, count in checkpoint.rollouts:
        shared[(_ROLLOUTS, name)] = versions[:count]
    objects = [shared[key] for key in checkpoint.keys]
    data = _memo_prologue(len(objects)) + zlib.decompress(checkpoint.state)
    # Unpickling makes a quarter of a million objects: the cyclic collector would walk the
    # whole heap several times meanwhile (most of a restore's time), to find nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        sim = _MemoUnpickler(io.BytesIO(data), objects).load()
    finally:
        if collecting:
            gc.enable()
    for run in sim.created:  # the open probe runs as pickled (see restore)
        items = run._log.items
        for open_run in run._log._runs.values():
            items[open_run[0]["seq"]] = open_run[0]
    return sim


class CheckpointStore:
    """The checkpoints of one history (a session's), holding at most ``budget`` bytes.

    A Simulation given a store (``sim.checkpoints = store``) offers it checkpoints as it runs
    (:meth:`offer`: by the work done since the last one, and by intervals of virtual time);
    replays resume from the latest one that fits their actions. When the checkpoints outgrow
    the budget, every other one is dropped and the spacing doubles, so memory stays bounded
    and they stay evenly spread over the run.
    """

    def __init__(
        self,
        interval: float = 60.0,
        budget: int = 1_500_000,
        *,
        min_work: int = 100,
        max_work: int = 500,
    ) -> None:
        self.interval_ms = max(1, round(interval * 1000))
        self.budget = budget
        self.min_work = min_work
        self.max_work = max_work
        self.items: list[Checkpoint | ClusterCheckpoint] = []  # by at_ms
        # The work between two checkpoints of a cluster run grows with their size (100 Pods'
        # are ten times a Pod's): taking one costs about its size, so checkpointing stays a
        # small part of the run's work whatever the number of Pods.
        self.scale = 1.0
        self.min_scale = 1.0

    @property
    def size(self) -> int:
        return sum(item.size for item in self.items)

    def offer(self, sim: Any) -> None:
        """Called by ``sim`` as it runs. A checkpoint is taken, at the first instant one can
        be, once the run has done ``max_work`` events one by one since its last, or has
        entered a new interval of virtual time after at least ``min_work`` of them: so a
        resumed replay redoes at most ``max_work`` events (coasted probe ticks cost next to
        nothing and do not count). For a cluster run ``max_work`` grows by ``scale``, its
        last checkpoint's size over WORK_BYTES (at least 1), and a new interval needs as
        much work: its events are dense and a checkpoint costs about its size. Where this history already has a checkpoint since the
        run's last, the run only lends it its logs (:meth:`_rebase`)."""
        mark = sim.checkpoint_mark
        at_ms, steps = mark if mark is not None else (None, 0)
        work = sim.clock.steps - steps
        now_ms = sim.clock.now_ms
        new_interval = at_ms is None or now_ms // self.interval_ms != at_ms // self.interval_ms
        if work < self.max_work * self.scale and not (
            new_interval and work >= self.min_work * self.min_scale
        ):
            return
        if sim.clock.processes:
            return  # a kubelet step is under way: try again after the next event
        at = [item.at_ms for item in self.items]
        index = bisect.bisect_right(at, now_ms)
        for i in range(index - 1, -1, -1):
            if at_ms is not None and self.items[i].at_ms <= at_ms:
                break
            if _same_history(self.items[i], sim):
                sim.checkpoint_mark = (now_ms, sim.clock.steps)
                self._rebase(sim, index)
                return
        sim.checkpoint_mark = (now_ms, sim.clock.steps)  # part of the state: set it first
        checkpoint = sim.checkpoint()
        if checkpoint is not None:
            if isinstance(checkpoint, ClusterCheckpoint):
                # a cluster run's events are dense (controllers, traffic): by work alone
                self.scale = max(1.0, checkpoint.size / WORK_BYTES)
                self.min_scale = self.scale * self.max_work / self.min_work
            self.add(checkpoint)

    def adopt(self, sim: Any) -> None:
        """``sim`` was just restored (or has just acted): the checkpoints of its history up
        to now refer to its logs from now on, so those of runs left behind can be let go."""
        index = bisect.bisect_right([item.at_ms for item in self.items], sim.clock.now_ms)
        self._rebase(sim, index)

    def _rebase(self, sim: Any, index: int) -> None:
        """The first ``index`` checkpoints of ``sim``'s history share ``sim``'s logs: for the
        same history the logs agree item for item up to each checkpoint (closed items never
        change again; the open ones each checkpoint keeps in its own state)."""
        for i in range(index):
            item = self.items[i]
            if not _same_history(item, sim):
                continue
            rebased = item.rebased(sim)
            if rebased is not None:
                self.items[i] = rebased

    def add(self, checkpoint: Checkpoint) -> None:
        at = [item.at_ms for item in self.items]
        index = bisect.bisect_left(at, checkpoint.at_ms)
        self.items.insert(index, checkpoint)
        while self.size > self.budget and len(self.items) > 1:
            self.items = self.items[::2]
            self.interval_ms *= 2
            self.min_work *= 2
            self.max_work *= 2

    def best(self, scenario: Any, actions: list[dict], until_ms: int, seed: int,
             horizon_ms: int) -> Checkpoint | None:  # fmt: skip
        """The latest checkpoint at or before ``until_ms`` a replay of ``actions`` can
        resume from, or None."""
        for item in reversed(self.items):
            if item.at_ms <= until_ms and item.fits(scenario, actions, seed, horizon_ms):
                return item
        return None

    def discard_after(self, at_ms: int) -> None:
        """Forget the checkpoints later than ``at_ms`` (history changed there)."""
        self.items = [item for item in self.items if item.at_ms <= at_ms]

    def clear(self) -> None:
        self.items = []


def _same_history(checkpoint: Checkpoint, sim: Any) -> bool:
    """Is ``sim`` on the checkpoint's history (same run, and the checkpoint's actions are
    the first of ``sim``'s, none of the others earlier)?"""
    return checkpoint.at_ms <= sim.clock.now_ms and checkpoint.fits(
        sim.scenario, sim.actions, sim.seed, sim.horizon_ms
    )
