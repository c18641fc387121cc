"""kubectl's texts for workloads: `get deploy|rs|jobs|sts|endpointslices|pdb`, `rollout status`,
`describe deployment|replicaset|job|statefulset`, and the one-line results of `rollout`/`scale`.

Ports of printDeployment, printReplicaSet, printJob, printStatefulSet, printEndpointSlice and
printPodDisruptionBudget (pkg/printers/internalversion/printers.go), the status viewers of
staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go, and describeDeployment,
describeReplicaSet, describeJob, describeStatefulSet and DescribePodTemplate
(staging/src/k8s.io/kubectl/pkg/describe/describe.go). Pure functions of API dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from webapp.kubectl.columns import POD_COLUMNS, POD_WIDE_COLUMNS, print_pod
from webapp.kubectl.containers import describe_containers
from webapp.kubectl.describe import (
    print_annotations_multiline,
    print_labels_multiline,
    print_pod_tolerations_multiline,
)
from webapp.kubectl.duration import human_duration
from webapp.kubectl.events import describe_events
from webapp.kubectl.prefix_writer import LEVEL_0, LEVEL_1, LEVEL_2, PrefixWriter
from webapp.kubectl.tables import format_table
from webapp.kubectl.tabwriter import describe_writer
from webapp.kubectl.timestamps import format_rfc1123z, parse_time, translate_timestamp_since
from webapp.kubectl.volumes import describe_volumes

Obj = dict[str, Any]

DEPLOYMENT_COLUMNS = ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE")
REPLICASET_COLUMNS = ("NAME", "DESIRED", "CURRENT", "READY", "AGE")
JOB_COLUMNS = ("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE")
STATEFULSET_COLUMNS = ("NAME", "READY", "AGE")
DAEMONSET_COLUMNS = ("NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE",
                     "NODE SELECTOR", "AGE")  # fmt: skip
ENDPOINTSLICE_COLUMNS = ("NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE")
PDB_COLUMNS = ("NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE")
_WIDE = ("CONTAINERS", "IMAGES", "SELECTOR")

# The resource names `kubectl get a,b,c` prints before each object name.
RESOURCE_PREFIX = {
    "Pod": "pod",
    "ReplicaSet": "replicaset.apps",
    "Deployment": "deployment.apps",
    "Job": "job.batch",
    "StatefulSet": "statefulset.apps",
    "DaemonSet": "daemonset.apps",
    "EndpointSlice": "endpointslice.discovery.k8s.io",
    "PodDisruptionBudget": "poddisruptionbudget.policy",
    "PersistentVolumeClaim": "persistentvolumeclaim",
    "PersistentVolume": "persistentvolume",
}


def _metadata(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def _spec(obj: Obj) -> Obj:
    return obj.get("spec") or {}


def _status(obj: Obj) -> Obj:
    return obj.get("status") or {}


def _replicas(obj: Obj) -> int:
    value = _spec(obj).get("replicas")
    return 1 if value is None else int(value)


# --- selectors and containers -----------------------------------------------------------


def _requirements(selector: Obj | None) -> list[tuple[str, str]]:
    """(key, text) of each requirement, as labels.Selector.String() sorts and prints them."""
    found: list[tuple[str, str]] = []
    for key, value in ((selector or {}).get("matchLabels") or {}).items():
        found.append((key, f"{key}={value}"))
    for expression in (selector or {}).get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = ",".join(sorted(expression.get("values") or []))
        text = {
            "In": f"{key} in ({values})",
            "NotIn": f"{key} notin ({values})",
            "Exists": key,
            "DoesNotExist": f"!{key}",
        }.get(operator, key)
        found.append((key, text))
    return sorted(found, key=lambda item: item[0])


def selector_string(selector: Obj | None) -> str:
    """``LabelSelectorAsSelector(s).String()``: ``app=nginx,tier in (a,b)``; empty for none."""
    return ",".join(text for _, text in _requirements(selector))


def format_label_selector(selector: Obj | None) -> str:
    """``metav1.FormatLabelSelector``: like selector_string, ``<none>`` when empty."""
    return selector_string(selector) or "<none>"


def layout_container_cells(containers: Sequence[Obj]) -> tuple[str, str]:
    """``layoutContainerCells``: names and images, comma-separated."""
    return ",".join(c.get("name", "") for c in containers), ",".join(
        c.get("image", "") for c in containers
    )


def _template_containers(obj: Obj) -> list[Obj]:
    return (((_spec(obj).get("template") or {}).get("spec")) or {}).get("containers") or []


def _age(obj: Obj, now: datetime) -> str:
    return translate_timestamp_since(_metadata(obj).get("creationTimestamp"), now)


# --- kubectl get ------------------------------------------------------------------------


def _wide_cells(obj: Obj, selector_text) -> dict[str, str]:
    """The -o wide columns of a controller with a Pod template: CONTAINERS, IMAGES, SELECTOR."""
    names, images = layout_container_cells(_template_containers(obj))
    return {
        "CONTAINERS": names,
        "IMAGES": images,
        "SELECTOR": selector_text(_spec(obj).get("selector")),
    }


def print_deployment(deployment: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printDeployment: READY ready/desired, UP-TO-DATE, AVAILABLE, AGE."""
    status = _status(deployment)
    cells = {
        "NAME": _metadata(deployment).get("name", ""),
        "READY": f"{int(status.get('readyReplicas') or 0)}/{_replicas(deployment)}",
        "UP-TO-DATE": str(int(status.get("updatedReplicas") or 0)),
        "AVAILABLE": str(int(status.get("availableReplicas") or 0)),
        "AGE": _age(deployment, now),
    }
    if wide:
        cells.update(_wide_cells(deployment, selector_string))
    return cells


def print_replicaset(rs: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printReplicaSet: DESIRED spec.replicas, CURRENT status.replicas, READY readyReplicas."""
    status = _status(rs)
    cells = {
        "NAME": _metadata(rs).get("name", ""),
        "DESIRED": str(_replicas(rs)),
        "CURRENT": str(int(status.get("replicas") or 0)),
        "READY": str(int(status.get("readyReplicas") or 0)),
        "AGE": _age(rs, now),
    }
    if wide:
        cells.update(_wide_cells(rs, format_label_selector))
    return cells


def _has_condition(obj: Obj, condition_type: str) -> bool:
    return any(
        c.get("type") == condition_type and c.get("status") == "True"
        for c in _status(obj).get("conditions") or []
    )


def job_status_cell(job: Obj) -> str:
    """printJob's STATUS: Complete, Failed, Terminating, Suspended, FailureTarget, else Running.

    A Job with only SuccessCriteriaMet (its Pods still terminating) shows Running in the
    printer version ported here; newer printers may differ (UNCONFIRMED).
    """
    if _has_condition(job, "Complete"):
        return "Complete"
    if _has_condition(job, "Failed"):
        return "Failed"
    if _metadata(job).get("deletionTimestamp") is not None:
        return "Terminating"
    if _has_condition(job, "Suspended"):
        return "Suspended"
    if _has_condition(job, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_completions_cell(job: Obj) -> str:
    """printJob's COMPLETIONS: ``succeeded/completions``; without completions ``n/1`` or
    ``n/1 of <parallelism>``."""
    succeeded = int(_status(job).get("succeeded") or 0)
    completions = _spec(job).get("completions")
    if completions is not None:
        return f"{succeeded}/{int(completions)}"
    parallelism = int(_spec(job).get("parallelism") or 0)
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def job_duration_cell(job: Obj, now: datetime) -> str:
    """printJob's DURATION: empty before startTime, running time, or completion − start."""
    started = parse_time(_status(job).get("startTime"))
    if started is None:
        return ""
    completed = parse_time(_status(job).get("completionTime"))
    return human_duration((completed or now) - started)


def print_job(job: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printJob: NAME, STATUS, COMPLETIONS, DURATION, AGE."""
    cells = {
        "NAME": _metadata(job).get("name", ""),
        "STATUS": job_status_cell(job),
        "COMPLETIONS": job_completions_cell(job),
        "DURATION": job_duration_cell(job, now),
        "AGE": _age(job, now),
    }
    if wide:
        cells.update(_wide_cells(job, format_label_selector))
    return cells


def print_statefulset(sts: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printStatefulSet: READY readyReplicas/replicas; wide adds CONTAINERS and IMAGES only."""
    cells = {
        "NAME": _metadata(sts).get("name", ""),
        "READY": f"{int(_status(sts).get('readyReplicas') or 0)}/{_replicas(sts)}",
        "AGE": _age(sts, now),
    }
    if wide:
        names, images = layout_container_cells(_template_containers(sts))
        cells.update(CONTAINERS=names, IMAGES=images)
    return cells


def format_labels(labels: Obj | None) -> str:
    """``labels.FormatLabels``: ``k=v,k2=v2`` sorted by key, ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def print_daemonset(ds: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printDaemonSet: the status counts and the template's nodeSelector; wide adds
    CONTAINERS, IMAGES and SELECTOR."""
    status = _status(ds)
    cells = {"NAME": _metadata(ds).get("name", "")}
    for column, key in (("DESIRED", "desiredNumberScheduled"),
                        ("CURRENT", "currentNumberScheduled"), ("READY", "numberReady"),
                        ("UP-TO-DATE", "updatedNumberScheduled"),
                        ("AVAILABLE", "numberAvailable")):  # fmt: skip
        cells[column] = str(int(status.get(key) or 0))
    template_spec = ((_spec(ds).get("template") or {}).get("spec")) or {}
    cells["NODE SELECTOR"] = format_labels(template_spec.get("nodeSelector"))
    cells["AGE"] = _age(ds, now)
    if wide:
        cells.update(_wide_cells(ds, format_label_selector))
    return cells


def _list_with_more(items: list[str], more: bool, count: int, maximum: int) -> str:
    """listWithMoreString: ``a,b,c + N more...``; ``<unset>`` when empty."""
    text = ",".join(items)
    if more:
        return f"{text} + {count - maximum} more..."
    return text or "<unset>"


def format_discovery_ports(ports: Sequence[Obj]) -> str:
    """formatDiscoveryPorts: up to 3 port numbers (a name when no number, else ``*``)."""
    items: list[str] = []
    more, count = False, 0
    for port in ports:
        if len(items) < 3:
            number = port.get("port")
            items.append(
                str(number)
                if number is not None
                else (port.get("name") if port.get("name") is not None else "*")
            )
        elif len(items) == 3:
            more = True
        count += 1
    return _list_with_more(items, more, count, 3)


def format_discovery_endpoints(endpoints: Sequence[Obj]) -> str:
    """formatDiscoveryEndpoints: up to 3 addresses of any endpoint, ready or not."""
    items: list[str] = []
    more, count = False, 0
    for endpoint in endpoints:
        for address in endpoint.get("addresses") or []:
            if len(items) < 3:
                items.append(address)
            elif len(items) == 3:
                more = True
            count += 1
    return _list_with_more(items, more, count, 3)


def print_endpointslice(eps: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printEndpointSlice: NAME, ADDRESSTYPE, PORTS, ENDPOINTS, AGE (no wide columns)."""
    return {
        "NAME": _metadata(eps).get("name", ""),
        "ADDRESSTYPE": eps.get("addressType", ""),
        "PORTS": format_discovery_ports(eps.get("ports") or []),
        "ENDPOINTS": format_discovery_endpoints(eps.get("endpoints") or []),
        "AGE": _age(eps, now),
    }


def print_pdb(pdb: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printPodDisruptionBudget: MIN AVAILABLE / MAX UNAVAILABLE (``N/A`` when unset)."""
    spec = _spec(pdb)
    return {
        "NAME": _metadata(pdb).get("name", ""),
        "MIN AVAILABLE": str(spec["minAvailable"])
        if spec.get("minAvailable") is not None
        else "N/A",
        "MAX UNAVAILABLE": str(spec["maxUnavailable"])
        if spec.get("maxUnavailable") is not None
        else "N/A",
        "ALLOWED DISRUPTIONS": str(int(_status(pdb).get("disruptionsAllowed") or 0)),
        "AGE": _age(pdb, now),
    }


def _access_modes(modes: Sequence[str] | None) -> str:
    """``GetAccessModesAsString``: RWO, ROX, RWX, RWOP in that order."""
    short = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
             ("ReadWriteOncePod", "RWOP"))  # fmt: skip
    present = set(modes or [])
    return ",".join(text for mode, text in short if mode in present)


def print_persistent_volume_claim(
    claim: Obj, now: datetime, *, wide: bool = False
) -> dict[str, str]:
    """printPersistentVolumeClaim: VOLUME, CAPACITY and ACCESS MODES once bound (from the
    status), ``<unset>`` for no VolumeAttributesClass; VOLUMEMODE with -o wide."""
    spec, status = _spec(claim), _status(claim)
    phase = "Terminating" if _metadata(claim).get("deletionTimestamp") else status.get("phase", "")
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(status.get("accessModes"))
        capacity = str((status.get("capacity") or {}).get("storage", ""))
    cells = {
        "NAME": _metadata(claim).get("name", ""),
        "STATUS": phase,
        "VOLUME": spec.get("volumeName", ""),
        "CAPACITY": capacity,
        "ACCESS MODES": modes,
        "STORAGECLASS": spec.get("storageClassName") or "",
        "VOLUMEATTRIBUTESCLASS": spec.get("volumeAttributesClassName") or "<unset>",
        "AGE": _age(claim, now),
    }
    if wide:
        cells["VOLUMEMODE"] = spec.get("volumeMode") or "<unset>"
    return cells


def print_persistent_volume(volume: Obj, now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printPersistentVolume: CLAIM as ``namespace/name``, RECLAIM POLICY, REASON."""
    spec, status = _spec(volume), _status(volume)
    ref = spec.get("claimRef")
    phase = "Terminating" if _metadata(volume).get("deletionTimestamp") else status.get("phase", "")
    cells = {
        "NAME": _metadata(volume).get("name", ""),
        "CAPACITY": str((spec.get("capacity") or {}).get("storage", "")),
        "ACCESS MODES": _access_modes(spec.get("accessModes")),
        "RECLAIM POLICY": spec.get("persistentVolumeReclaimPolicy", ""),
        "STATUS": phase,
        "CLAIM": f"{ref.get('namespace', '')}/{ref.get('name', '')}" if ref else "",
        "STORAGECLASS": spec.get("storageClassName") or "",
        "VOLUMEATTRIBUTESCLASS": spec.get("volumeAttributesClassName") or "<unset>",
        "REASON": status.get("reason", ""),
        "AGE": _age(volume, now),
    }
    if wide:
        cells["VOLUMEMODE"] = spec.get("volumeMode") or "<unset>"
    return cells


PVC_COLUMNS = ("NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
               "VOLUMEATTRIBUTESCLASS", "AGE")  # fmt: skip
PV_COLUMNS = ("NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM",
              "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE")  # fmt: skip

_PRINTERS = {
    "PersistentVolumeClaim": (
        print_persistent_volume_claim,
        PVC_COLUMNS,
        (*PVC_COLUMNS, "VOLUMEMODE"),
    ),
    "PersistentVolume": (print_persistent_volume, PV_COLUMNS, (*PV_COLUMNS, "VOLUMEMODE")),
    "Pod": (print_pod, POD_COLUMNS, POD_WIDE_COLUMNS),
    "Deployment": (print_deployment, DEPLOYMENT_COLUMNS, (*DEPLOYMENT_COLUMNS, *_WIDE)),
    "ReplicaSet": (print_replicaset, REPLICASET_COLUMNS, (*REPLICASET_COLUMNS, *_WIDE)),
    "Job": (print_job, JOB_COLUMNS, (*JOB_COLUMNS, *_WIDE)),
    "StatefulSet": (
        print_statefulset,
        STATEFULSET_COLUMNS,
        (*STATEFULSET_COLUMNS, "CONTAINERS", "IMAGES"),
    ),
    "DaemonSet": (print_daemonset, DAEMONSET_COLUMNS, (*DAEMONSET_COLUMNS, *_WIDE)),
    "EndpointSlice": (print_endpointslice, ENDPOINTSLICE_COLUMNS, ENDPOINTSLICE_COLUMNS),
    "PodDisruptionBudget": (print_pdb, PDB_COLUMNS, PDB_COLUMNS),
}


def get_table(
    kind: str, objects: Iterable[Obj], now: datetime, *, wide: bool = False, with_kind: bool = False
) -> str:
    """`kubectl get <kind>` (`-o wide`): the header and one row per object, or "" for none.

    ``with_kind`` prefixes names as a multi-type get does (``deployment.apps/web``).
    """
    printer, columns, wide_columns = _PRINTERS[kind]
    rows = []
    for obj in objects:
        cells = printer(obj, now, wide=wide)
        if with_kind:
            cells["NAME"] = f"{RESOURCE_PREFIX[kind]}/{cells['NAME']}"
        rows.append(list(cells.values()))
    if not rows:
        return ""
    return format_table(wide_columns if wide else columns, rows)


def get_many(
    sections: Sequence[tuple[str, Sequence[Obj]]], now: datetime, *, wide: bool = False
) -> str:
    """`kubectl get pods,rs,deploy,jobs,sts` (`-o wide`): one table per kind that has objects,
    in the order asked, names prefixed with the resource, a blank line between tables.

    With a single kind the names are not prefixed (as `kubectl get pods` prints). With no
    objects at all kubectl prints ``No resources found in default namespace.`` on stderr.
    """
    present = [(kind, objects) for kind, objects in sections if objects]
    with_kind = len(sections) > 1
    tables = [
        get_table(kind, objects, now, wide=wide, with_kind=with_kind) for kind, objects in present
    ]
    return "\n".join(tables)


def get_deployments(deployments: Iterable[Obj], now: datetime, *, wide: bool = False) -> str:
    return get_table("Deployment", deployments, now, wide=wide)


def get_replicasets(replica_sets: Iterable[Obj], now: datetime, *, wide: bool = False) -> str:
    return get_table("ReplicaSet", replica_sets, now, wide=wide)


def get_jobs(jobs: Iterable[Obj], now: datetime, *, wide: bool = False) -> str:
    return get_table("Job", jobs, now, wide=wide)


def get_statefulsets(sets: Iterable[Obj], now: datetime, *, wide: bool = False) -> str:
    return get_table("StatefulSet", sets, now, wide=wide)


def get_endpointslices(slices: Iterable[Obj], now: datetime) -> str:
    return get_table("EndpointSlice", slices, now)


def get_pdbs(pdbs: Iterable[Obj], now: datetime) -> str:
    return get_table("PodDisruptionBudget", pdbs, now)


# --- kubectl rollout status -------------------------------------------------------------


class RolloutStatusError(Exception):
    """A status viewer's error: kubectl prints ``error: <message>`` and exits 1."""


def deployment_rollout_status(deployment: Obj, revision: int = 0) -> tuple[str, bool]:
    """``DeploymentStatusViewer.Status``: (the line kubectl prints, including its ``\\n``, done)."""
    name = _metadata(deployment).get("name", "")
    status = _status(deployment)
    if revision > 0:
        current = int(
            (
                (_metadata(deployment).get("annotations") or {}).get(
                    "deployment.kubernetes.io/revision"
                )
            )
            or 0
        )
        if revision != current:
            raise RolloutStatusError(
                f"desired revision ({revision}) is different from the running revision ({current})"
            )
    if int(_metadata(deployment).get("generation") or 0) > int(
        status.get("observedGeneration") or 0
    ):
        return "Waiting for deployment spec update to be observed...\n", False
    for condition in status.get("conditions") or []:
        if (
            condition.get("type") == "Progressing"
            and condition.get("reason") == "ProgressDeadlineExceeded"
        ):
            raise RolloutStatusError(f'deployment "{name}" exceeded its progress deadline')
    desired = _spec(deployment).get("replicas")
    updated = int(status.get("updatedReplicas") or 0)
    replicas = int(status.get("replicas") or 0)
    available = int(status.get("availableReplicas") or 0)
    prefix = f'Waiting for deployment "{name}" rollout to finish: '
    if desired is not None and updated < int(desired):
        return f"{prefix}{updated} out of {int(desired)} new replicas have been updated...\n", False
    if replicas > updated:
        return f"{prefix}{replicas - updated} old replicas are pending termination...\n", False
    if available < updated:
        return f"{prefix}{available} of {updated} updated replicas are available...\n", False
    return f'deployment "{name}" successfully rolled out\n', True


def statefulset_rollout_status(sts: Obj) -> tuple[str, bool]:
    """``StatefulSetStatusViewer.Status``. Reads the spec as stored: the partitioned texts
    appear only when a rollingUpdate block was given (the API defaults partition inside it)."""
    strategy = _spec(sts).get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        raise RolloutStatusError("rollout status is only available for RollingUpdate strategy type")
    status = _status(sts)
    observed = int(status.get("observedGeneration") or 0)
    if observed == 0 or int(_metadata(sts).get("generation") or 0) > observed:
        return "Waiting for statefulset spec update to be observed...\n", False
    desired = _spec(sts).get("replicas")
    ready = int(status.get("readyReplicas") or 0)
    if desired is not None and ready < int(desired):
        return f"Waiting for {int(desired) - ready} pods to be ready...\n", False
    updated = int(status.get("updatedReplicas") or 0)
    rolling = strategy.get("rollingUpdate")
    if rolling is not None:
        partition = rolling.get("partition")
        if (
            desired is not None
            and partition is not None
            and updated < int(desired) - int(partition)
        ):
            wanted = int(desired) - int(partition)
            return (
                f"Waiting for partitioned roll out to finish: {updated} out of {wanted} new pods have been updated...\n",
                False,
            )
        return f"partitioned roll out complete: {updated} new pods have been updated...\n", True
    if status.get("updateRevision") != status.get("currentRevision"):
        return (
            f"waiting for statefulset rolling update to complete {updated} pods at revision {status.get('updateRevision', '')}...\n",
            False,
        )
    current = int(status.get("currentReplicas") or 0)
    return (
        f"statefulset rolling update complete {current} pods at revision {status.get('currentRevision', '')}...\n",
        True,
    )


def rollout_status_transcript(
    kind: str, versions: Iterable[Obj], revision: int = 0
) -> tuple[str, bool]:
    """`kubectl rollout status` over the object versions its watch sees (one per update).

    Prints the viewer's line for every version, as kubectl does, and stops at the first
    done version. An error ends the text with ``error: <message>\\n``. Returns (text, done).
    """
    out: list[str] = []
    for version in versions:
        try:
            line, done = (
                deployment_rollout_status(version, revision)
                if kind == "Deployment"
                else statefulset_rollout_status(version)
            )
        except RolloutStatusError as error:
            out.append(f"error: {error}\n")
            return "".join(out), False
        out.append(line)
        if done:
            return "".join(out), True
    return "".join(out), False


def resource_result(kind: str, name: str, operation: str) -> str:
    """The name printer's line: ``deployment.apps/web scaled`` (``paused``, ``already paused``,
    ``resumed``, ``restarted``, ``rolled back``, ``skipped rollback (...)``, ``cordoned``…)."""
    prefix = RESOURCE_PREFIX.get(kind, kind.lower())
    return f"{prefix}/{name} {operation}"


# --- kubectl describe -------------------------------------------------------------------


class _TemplateWriter:
    """The PrefixWriter as the describers see it inside ``DescribePodTemplate``: section
    headings (LEVEL_0) get the ``space`` prefix and container/volume names one more space,
    exactly as describeContainers/describeVolumes do when called with space "  "."""

    def __init__(self, w: PrefixWriter, space: str = "  ") -> None:
        self._w, self._space = w, space

    def write(self, level: int, text: str) -> None:
        if level == LEVEL_0:
            text = self._space + text
        elif level == LEVEL_1 and text.endswith(":\n") and "\t" not in text:
            text = " " + text
        self._w.write(level, text)


def describe_pod_template(w: PrefixWriter, template: Obj | None) -> None:
    """``DescribePodTemplate``: labels, annotations, containers, volumes, node selectors and
    tolerations of a workload's Pod template, indented under ``Pod Template:``."""
    w.write(LEVEL_0, "Pod Template:\n")
    if template is None:
        w.write(LEVEL_1, "<unset>")
        return
    metadata, spec = template.get("metadata") or {}, template.get("spec") or {}
    print_labels_multiline(w, "  Labels", metadata.get("labels"))
    if metadata.get("annotations"):
        print_annotations_multiline(w, "  Annotations", metadata["annotations"])
    if spec.get("serviceAccountName"):
        w.write(LEVEL_1, f"Service Account:\t{spec['serviceAccountName']}\n")
    spaced = _TemplateWriter(w)
    if spec.get("initContainers"):
        describe_containers(spaced, "Init Containers", spec["initContainers"], [], {})  # type: ignore[arg-type]
    describe_containers(spaced, "Containers", spec.get("containers") or [], [], {})  # type: ignore[arg-type]
    describe_volumes(spaced, spec.get("volumes") or [])  # type: ignore[arg-type]
    if spec.get("priorityClassName"):
        w.write(LEVEL_1, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    print_labels_multiline(w, "  Node-Selectors", spec.get("nodeSelector"))
    print_pod_tolerations_multiline(w, "  Tolerations", spec.get("tolerations"))


def events_of_object(obj: Obj, kind: str, events: Iterable[Obj]) -> list[Obj]:
    """The events whose involvedObject is this object (searchEvents)."""
    metadata = _metadata(obj)
    found = []
    for event in events:
        involved = event.get("involvedObject") or {}
        if (
            involved.get("kind") == kind
            and involved.get("name") == metadata.get("name")
            and involved.get("namespace", "default") == metadata.get("namespace", "default")
            and (not metadata.get("uid") or involved.get("uid") in (None, metadata.get("uid")))
        ):
            found.append(event)
    return found


def _controlled_by(obj: Obj) -> str:
    for owner in _metadata(obj).get("ownerReferences") or []:
        if owner.get("controller"):
            return f"{owner.get('kind', '')}/{owner.get('name', '')}"
    return ""


def _conditions_table(w: PrefixWriter, obj: Obj) -> None:
    conditions = _status(obj).get("conditions") or []
    if conditions:
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(LEVEL_1, "----\t------\t------\n")
        for condition in conditions:
            w.write(
                LEVEL_1,
                f"{condition.get('type', '')} \t{condition.get('status', '')}\t{condition.get('reason', '')}\n",
            )


def pod_status_counts(owner: Obj, pods: Iterable[Obj]) -> tuple[int, int, int, int]:
    """``getPodStatusForController``: (Running, Waiting=Pending, Succeeded, Failed) of the
    Pods whose controller is ``owner``."""
    uid = _metadata(owner).get("uid")
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in pods:
        ref = next(
            (r for r in _metadata(pod).get("ownerReferences") or [] if r.get("controller")), None
        )
        if ref is None or ref.get("uid") != uid:
            continue
        phase = _status(pod).get("phase")
        if phase in counts:
            counts[phase] += 1
    return counts["Running"], counts["Pending"], counts["Succeeded"], counts["Failed"]


def _replica_sets_by_labels(replica_sets: Sequence[Obj]) -> str:
    """printReplicaSetsByLabels: ``name (status/spec replicas created)``, ``<none>``."""
    texts = [
        f"{_metadata(rs).get('name', '')} ({int(_status(rs).get('replicas') or 0)}/{_replicas(rs)} replicas created)"
        for rs in replica_sets
    ]
    return ", ".join(texts) or "<none>"


def required_old_replica_sets(old_rss: Sequence[Obj]) -> list[Obj]:
    """kubectl's ``findOldReplicaSets`` (``pkg/util/deployment``): the old ReplicaSets
    whose ``spec.replicas`` (defaulted to 1) is not 0: those scaled down to 0 are left out."""
    return [rs for rs in old_rss if _replicas(rs) != 0]


def describe_deployment(
    deployment: Obj,
    old_rss: Sequence[Obj],
    new_rss: Sequence[Obj],
    events: list[Obj],
    now: datetime,
) -> str:
    """``describeDeployment``: pass the Deployment's old and new ReplicaSets and its events.

    ``old_rss`` may hold every old ReplicaSet: as kubectl's ``GetAllReplicaSets`` (its
    ``findOldReplicaSets``) it prints only those whose ``spec.replicas`` is not 0, so a
    finished rollout shows ``OldReplicaSets:  <none>``.
    """
    w = PrefixWriter()
    metadata, spec, status = _metadata(deployment), _spec(deployment), _status(deployment)
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', 'default')}\n")
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(metadata.get('creationTimestamp'))}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    w.write(LEVEL_0, f"Selector:\t{selector_string(spec.get('selector'))}\n")
    w.write(
        LEVEL_0,
        f"Replicas:\t{_replicas(deployment)} desired | {int(status.get('updatedReplicas') or 0)} updated | "
        f"{int(status.get('replicas') or 0)} total | {int(status.get('availableReplicas') or 0)} available | "
        f"{int(status.get('unavailableReplicas') or 0)} unavailable\n",
    )
    strategy = spec.get("strategy") or {}
    w.write(LEVEL_0, f"StrategyType:\t{strategy.get('type', 'RollingUpdate')}\n")
    w.write(LEVEL_0, f"MinReadySeconds:\t{int(spec.get('minReadySeconds') or 0)}\n")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None:
        w.write(
            LEVEL_0,
            f"RollingUpdateStrategy:\t{rolling.get('maxUnavailable', '25%')} max unavailable, {rolling.get('maxSurge', '25%')} max surge\n",
        )
    describe_pod_template(w, spec.get("template"))
    _conditions_table(w, deployment)
    if old_rss or new_rss:
        required = required_old_replica_sets(old_rss)
        w.write(LEVEL_0, f"OldReplicaSets:\t{_replica_sets_by_labels(required)}\n")
        w.write(LEVEL_0, f"NewReplicaSet:\t{_replica_sets_by_labels(new_rss)}\n")
    describe_events(w, events, now)
    return w.text()


def describe_replicaset(rs: Obj, pods: Iterable[Obj], events: list[Obj], now: datetime) -> str:
    """``describeReplicaSet``: pass every Pod (those it controls are counted) and its events."""
    w = PrefixWriter()
    metadata, spec, status = _metadata(rs), _spec(rs), _status(rs)
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', 'default')}\n")
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    if controlled_by := _controlled_by(rs):
        w.write(LEVEL_0, f"Controlled By:\t{controlled_by}\n")
    w.write(
        LEVEL_0,
        f"Replicas:\t{int(status.get('replicas') or 0)} current / {_replicas(rs)} desired\n",
    )
    running, waiting, succeeded, failed = pod_status_counts(rs, pods)
    w.write(
        LEVEL_0,
        f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n",
    )
    describe_pod_template(w, spec.get("template"))
    _conditions_table(w, rs)
    describe_events(w, events, now)
    return w.text()


def _cap_indexes(indexes: str, soft_limit: int = 50) -> str:
    """capIndexesListOrNone: cut after the first comma past 50 characters, then ``...``."""
    if not indexes:
        return "<none>"
    cut = indexes.find(",", soft_limit)
    return indexes if cut < 0 else indexes[: cut + 1] + "..."


def describe_job(job: Obj, events: list[Obj], now: datetime) -> str:
    """``describeJob``: the Job's spec and counters (it prints no conditions), its template."""
    w = PrefixWriter()
    metadata, spec, status = _metadata(job), _spec(job), _status(job)
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', 'default')}\n")
    w.write(LEVEL_0, f"Selector:\t{selector_string(spec.get('selector'))}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    if controlled_by := _controlled_by(job):
        w.write(LEVEL_0, f"Controlled By:\t{controlled_by}\n")
    if spec.get("parallelism") is not None:
        w.write(LEVEL_0, f"Parallelism:\t{int(spec['parallelism'])}\n")
    completions = spec.get("completions")
    w.write(
        LEVEL_0, f"Completions:\t{int(completions) if completions is not None else '<unset>'}\n"
    )
    if spec.get("completionMode") is not None:
        w.write(LEVEL_0, f"Completion Mode:\t{spec['completionMode']}\n")
    if spec.get("suspend") is not None:
        w.write(LEVEL_0, f"Suspend:\t{'true' if spec['suspend'] else 'false'}\n")
    if spec.get("backoffLimit") is not None:
        w.write(LEVEL_0, f"Backoff Limit:\t{int(spec['backoffLimit'])}\n")
    if spec.get("ttlSecondsAfterFinished") is not None:
        w.write(LEVEL_0, f"TTL Seconds After Finished:\t{int(spec['ttlSecondsAfterFinished'])}\n")
    started, completed = status.get("startTime"), status.get("completionTime")
    if started:
        w.write(LEVEL_0, f"Start Time:\t{format_rfc1123z(started)}\n")
    if completed:
        w.write(LEVEL_0, f"Completed At:\t{format_rfc1123z(completed)}\n")
    if started and completed:
        w.write(
            LEVEL_0, f"Duration:\t{human_duration(parse_time(completed) - parse_time(started))}\n"
        )  # type: ignore[operator]
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(LEVEL_0, f"Active Deadline Seconds:\t{int(spec['activeDeadlineSeconds'])}s\n")
    active, succeeded, failed = (int(status.get(k) or 0) for k in ("active", "succeeded", "failed"))
    if status.get("ready") is None:
        w.write(
            LEVEL_0, f"Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed\n"
        )
    else:
        w.write(
            LEVEL_0,
            f"Pods Statuses:\t{active} Active ({int(status['ready'])} Ready) / {succeeded} Succeeded / {failed} Failed\n",
        )
    if spec.get("completionMode") == "Indexed":
        w.write(
            LEVEL_0, f"Completed Indexes:\t{_cap_indexes(status.get('completedIndexes') or '')}\n"
        )
    describe_pod_template(w, spec.get("template"))
    describe_events(w, events, now)
    return w.text()


def _labels_with_indent(
    w: PrefixWriter, indent: str, title: str, labels: dict[str, str] | None
) -> None:
    """printLabelsMultilineWithIndent with an initial indent (``<none>`` is not indented)."""
    w.write(LEVEL_0, f"{indent}{title}:\t")
    if not labels:
        w.write(LEVEL_0, "<none>\n")
        return
    for index, key in enumerate(sorted(labels)):
        w.write(LEVEL_0, (f"{indent}\t" if index else "") + f"{key}={labels[key]}\n")


def describe_statefulset(sts: Obj, pods: Iterable[Obj], events: list[Obj], now: datetime) -> str:
    """``describeStatefulSet``: pass every Pod (those it controls are counted) and its events."""
    w = PrefixWriter()
    metadata, spec, status = _metadata(sts), _spec(sts), _status(sts)
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', 'default')}\n")
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(metadata.get('creationTimestamp'))}\n")
    w.write(LEVEL_0, f"Selector:\t{selector_string(spec.get('selector'))}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    if spec.get("serviceName"):
        w.write(LEVEL_0, f"Service Name:\t{spec['serviceName']}\n")
    w.write(LEVEL_0, f"Pod Management Policy:\t{spec.get('podManagementPolicy', 'OrderedReady')}\n")
    w.write(
        LEVEL_0, f"Replicas:\t{_replicas(sts)} desired | {int(status.get('replicas') or 0)} total\n"
    )
    strategy = spec.get("updateStrategy") or {
        "type": "RollingUpdate",
        "rollingUpdate": {"partition": 0},
    }
    w.write(LEVEL_0, f"Update Strategy:\t{strategy.get('type', 'RollingUpdate')}\n")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None and rolling.get("partition") is not None:
        w.write(LEVEL_1, f"Partition:\t{int(rolling['partition'])}\n")
        if rolling.get("maxUnavailable") is not None:
            w.write(LEVEL_1, f"MaxUnavailable:\t{rolling['maxUnavailable']}\n")
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        w.write(LEVEL_0, "Persistent Volume Claim Retention Policy:\n")
        w.write(LEVEL_1, f"WhenDeleted:\t{retention.get('whenDeleted', 'Retain')}\n")
        w.write(LEVEL_1, f"WhenScaled:\t{retention.get('whenScaled', 'Retain')}\n")
    running, waiting, succeeded, failed = pod_status_counts(sts, pods)
    w.write(
        LEVEL_0,
        f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n",
    )
    describe_pod_template(w, spec.get("template"))
    claims = spec.get("volumeClaimTemplates") or []
    if not claims:
        w.write(LEVEL_0, "Volume Claims:\t<none>\n")
    else:
        w.write(LEVEL_0, "Volume Claims:\n")
        for claim in claims:
            claim_metadata, claim_spec = claim.get("metadata") or {}, claim.get("spec") or {}
            w.write(LEVEL_1, f"Name:\t{claim_metadata.get('name', '')}\n")
            w.write(LEVEL_1, f"StorageClass:\t{claim_spec.get('storageClassName', '')}\n")
            _labels_with_indent(w, "  ", "Labels", claim_metadata.get("labels"))
            _labels_with_indent(w, "  ", "Annotations", claim_metadata.get("annotations"))
            storage = ((claim_spec.get("resources") or {}).get("requests") or {}).get("storage")
            w.write(LEVEL_1, f"Capacity:\t{storage if storage is not None else '<default>'}\n")
            w.write(LEVEL_1, f"Access Modes:\t[{' '.join(claim_spec.get('accessModes') or [])}]\n")
    describe_events(w, events, now)
    return w.text()


def describe_daemonset(ds: Obj, pods: Iterable[Obj], events: list[Obj], now: datetime) -> str:
    """``describeDaemonSet``: pass every Pod (those it controls are counted) and its events."""
    w = PrefixWriter()
    metadata, spec, status = _metadata(ds), _spec(ds), _status(ds)
    template_spec = (spec.get("template") or {}).get("spec") or {}
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', 'default')}\n")
    w.write(LEVEL_0, f"Selector:\t{selector_string(spec.get('selector'))}\n")
    w.write(LEVEL_0, f"Node-Selector:\t{format_labels(template_spec.get('nodeSelector'))}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    for label, key in (("Desired Number of Nodes Scheduled", "desiredNumberScheduled"),
                       ("Current Number of Nodes Scheduled", "currentNumberScheduled"),
                       ("Number of Nodes Scheduled with Up-to-date Pods", "updatedNumberScheduled"),
                       ("Number of Nodes Scheduled with Available Pods", "numberAvailable"),
                       ("Number of Nodes Misscheduled", "numberMisscheduled")):  # fmt: skip
        w.write(LEVEL_0, f"{label}: {int(status.get(key) or 0)}\n")
    running, waiting, succeeded, failed = pod_status_counts(ds, pods)
    w.write(
        LEVEL_0,
        f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n",
    )
    describe_pod_template(w, spec.get("template"))
    describe_events(w, events, now)
    return w.text()


# --- kubectl rollout history ------------------------------------------------------------

CHANGE_CAUSE_ANNOTATION = "kubernetes.io/change-cause"


def rollout_history(deployment_name: str, replica_sets: Sequence[Obj]) -> str:
    """`kubectl rollout history deployment/<name>` (DeploymentHistoryViewer.ViewHistory).

    One row per revision of the Deployment's ReplicaSets, ascending, with the RS's
    ``kubernetes.io/change-cause`` annotation or ``<none>``; printed after the name
    printer's ``deployment.apps/<name> `` (trailing space) and followed by a blank line.
    """
    history: dict[int, str] = {}
    for rs in replica_sets:
        annotations = _metadata(rs).get("annotations") or {}
        try:
            revision = int(annotations.get("deployment.kubernetes.io/revision", "0"))
        except ValueError:
            continue
        history[revision] = annotations.get(CHANGE_CAUSE_ANNOTATION) or "<none>"
    if not history:
        body = "No rollout history found."
    else:
        writer = describe_writer()
        writer.write("REVISION\tCHANGE-CAUSE\n")
        for revision in sorted(history):
            writer.write(f"{revision}\t{history[revision]}\n")
        body = writer.flush()
    return f"deployment.apps/{deployment_name} \n{body}\n"


def describe_pdb(pdb: Obj, events: list[Obj], now: datetime) -> str:
    """``describePodDisruptionBudget``: the budget (minAvailable or maxUnavailable), its
    selector and the disruption controller's counts."""
    w = PrefixWriter()
    metadata, spec, status = _metadata(pdb), _spec(pdb), _status(pdb)
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', 'default')}\n")
    if spec.get("minAvailable") is not None:
        w.write(LEVEL_0, f"Min available:\t{spec['minAvailable']}\n")
    elif spec.get("maxUnavailable") is not None:
        w.write(LEVEL_0, f"Max unavailable:\t{spec['maxUnavailable']}\n")
    if spec.get("selector") is not None:
        w.write(LEVEL_0, f"Selector:\t{format_label_selector(spec['selector'])}\n")
    else:
        w.write(LEVEL_0, "Selector:\t<unset>\n")
    w.write(LEVEL_0, "Status:\n")
    w.write(LEVEL_2, f"Allowed disruptions:\t{int(status.get('disruptionsAllowed') or 0)}\n")
    w.write(LEVEL_2, f"Current:\t{int(status.get('currentHealthy') or 0)}\n")
    w.write(LEVEL_2, f"Desired:\t{int(status.get('desiredHealthy') or 0)}\n")
    w.write(LEVEL_2, f"Total:\t{int(status.get('expectedPods') or 0)}\n")
    describe_events(w, events, now)
    return w.text()


def format_endpoint_slices(slices: Sequence[Obj], port_name: str | None) -> str:
    """``formatEndpointSlices``: the ready endpoints' host:port, at most 3, then
    ``+ N more...``; ``<none>`` with no slice at all."""
    if not slices:
        return "<none>"
    shown: list[str] = []
    count = 0
    for eps in slices:
        endpoints = [e for e in eps.get("endpoints") or []
                     if (e.get("conditions") or {}).get("ready") is not False and e.get("addresses")]  # fmt: skip
        ports = eps.get("ports") or []
        if not ports:
            for endpoint in endpoints:
                if len(shown) < 3:
                    shown.append(endpoint["addresses"][0])
                count += 1
            continue
        for port in ports:
            if port_name is not None and (port.get("name") or "") != port_name:
                continue
            for endpoint in endpoints:
                if len(shown) < 3:
                    address = endpoint["addresses"][0]
                    host = f"[{address}]" if ":" in address else address
                    shown.append(f"{host}:{port.get('port')}")
                count += 1
    text = ",".join(shown)
    return f"{text} + {count - 3} more..." if count > 3 else text


def describe_service(service: Obj, slices: Sequence[Obj], events: list[Obj], now: datetime) -> str:
    """``describeService``: type, addresses, each port with its target and endpoints."""
    from webapp.kubectl.describe import print_annotations_multiline, print_labels_multiline

    w = PrefixWriter()
    metadata, spec = _metadata(service), _spec(service)
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    selector = spec.get("selector") or {}
    w.write(
        LEVEL_0,
        f"Selector:\t{','.join(f'{k}={v}' for k, v in sorted(selector.items())) or '<none>'}\n",
    )
    w.write(LEVEL_0, f"Type:\t{spec.get('type', '')}\n")
    if spec.get("ipFamilyPolicy"):
        w.write(LEVEL_0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    w.write(LEVEL_0, f"IP Families:\t{','.join(spec.get('ipFamilies') or []) or '<none>'}\n")
    w.write(LEVEL_0, f"IP:\t{spec.get('clusterIP', '')}\n")
    w.write(LEVEL_0, f"IPs:\t{','.join(spec.get('clusterIPs') or []) or '<none>'}\n")
    if spec.get("externalIPs"):
        w.write(LEVEL_0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    ports = spec.get("ports") or []
    for port in ports:
        protocol = port.get("protocol", "TCP")
        w.write(LEVEL_0, f"Port:\t{port.get('name') or '<unset>'}\t{port.get('port')}/{protocol}\n")
        w.write(LEVEL_0, f"TargetPort:\t{port.get('targetPort', port.get('port'))}/{protocol}\n")
        if port.get("nodePort"):
            w.write(
                LEVEL_0,
                f"NodePort:\t{port.get('name') or '<unset>'}\t{port['nodePort']}/{protocol}\n",
            )
        w.write(LEVEL_0, f"Endpoints:\t{format_endpoint_slices(slices, port.get('name') or '')}\n")
    if not ports:
        w.write(LEVEL_0, f"Endpoints:\t{format_endpoint_slices(slices, None)}\n")
    w.write(LEVEL_0, f"Session Affinity:\t{spec.get('sessionAffinity', '')}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(LEVEL_0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy"):
        w.write(LEVEL_0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    describe_events(w, events, now)
    return w.text()
