"""The Job controller's rules (``pkg/controller/job``), as pure functions.

Sources: ``job_controller.go`` (syncJob, manageJob, trackJobStatusAndRemoveFinalizers,
enactJobFinished, pastBackoffLimitOnFailure, pastActiveDeadline, isPodFailed),
``backoff_utils.go`` (newBackoffRecord, getFinishedTime, getRemainingTime),
``pod_failure_policy.go`` (matchPodFailurePolicy), ``indexed_job_utils.go`` (intervals,
firstPendingIndexes, index failure counts, podGenerateNameWithIndex) and the
``ttlafterfinished`` controller.

Feature gates are taken as in current releases: JobPodReplacementPolicy and
JobBackoffLimitPerIndex, JobSuccessPolicy, PodIndexLabel are on, so the terminal
condition is delayed: ``FailureTarget`` (or ``SuccessCriteriaMet``) first, then ``Failed``
(or ``Complete``) with the same reason and message once no Pod is terminating.

The Pod-failure back-off cap is the controller's ``MaxJobPodFailureBackOff = 10 * time.Minute``;
the Job documentation says "capped at six minutes", which the code no longer does.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.controllers.rules.deployment import is_pod_ready
from webapp.engine.controllers.rules.objects import metadata as _metadata
from webapp.engine.controllers.rules.objects import spec as _spec
from webapp.engine.controllers.rules.objects import status as _status
from webapp.engine.controllers.rules.replicaset import (
    filter_active_pods,
    is_pod_terminating,
    sort_active_pods,
)
from webapp.engine.controllers.rules.timestamps import timestamp, to_seconds

Obj = dict[str, Any]

DEFAULT_JOB_POD_FAILURE_BACKOFF = 10.0
MAX_JOB_POD_FAILURE_BACKOFF = 600.0
MAX_POD_CREATE_DELETE_PER_SYNC = 500
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
JOB_INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count"
JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count"
COMPLETION_INDEX_ENV_NAME = "JOB_COMPLETION_INDEX"
MAX_GENERATED_NAME_LENGTH = 58

BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")
MAX_FAILED_INDEXES_EXCEEDED = (
    "MaxFailedIndexesExceeded",
    "Job has exceeded the specified maximal number of failed indexes",
)
FAILED_INDEXES = ("FailedIndexes", "Job has failed indexes")
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
POD_FAILURE_POLICY_REASON = "PodFailurePolicy"


# --- spec accessors with the API defaults -----------------------------------------------


def completions(job: Obj) -> int | None:
    """spec.completions; ``SetDefaults_Job`` sets 1 when both it and parallelism are unset."""
    spec = _spec(job)
    if spec.get("completions") is None and spec.get("parallelism") is None:
        return 1
    value = spec.get("completions")
    return None if value is None else int(value)


def parallelism(job: Obj) -> int:
    value = _spec(job).get("parallelism")
    return 1 if value is None else int(value)


def backoff_limit(job: Obj) -> int:
    """spec.backoffLimit: 6, or MaxInt32 when backoffLimitPerIndex is set."""
    value = _spec(job).get("backoffLimit")
    if value is not None:
        return int(value)
    return 2**31 - 1 if _spec(job).get("backoffLimitPerIndex") is not None else 6


def is_indexed_job(job: Obj) -> bool:
    return _spec(job).get("completionMode") == "Indexed"


def has_backoff_limit_per_index(job: Obj) -> bool:
    return _spec(job).get("backoffLimitPerIndex") is not None


def job_suspended(job: Obj) -> bool:
    return bool(_spec(job).get("suspend"))


def pod_replacement_policy(job: Obj) -> str:
    """Default ``Failed`` with a podFailurePolicy, else ``TerminatingOrFailed``."""
    value = _spec(job).get("podReplacementPolicy")
    if value:
        return value
    return "Failed" if _spec(job).get("podFailurePolicy") is not None else "TerminatingOrFailed"


def only_replace_failed_pods(job: Obj) -> bool:
    """``onlyReplaceFailedPods``: podReplacementPolicy Failed, or any podFailurePolicy."""
    return pod_replacement_policy(job) == "Failed" or _spec(job).get("podFailurePolicy") is not None


def generate_selector(job: Obj) -> dict[str, str]:
    """The labels the API server adds to the template and selector of a Job (job strategy)."""
    metadata = _metadata(job)
    uid, name = metadata.get("uid", ""), metadata.get("name", "")
    return {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }


# --- Pod states -------------------------------------------------------------------------


def has_job_tracking_finalizer(pod: Obj) -> bool:
    return JOB_TRACKING_FINALIZER in (_metadata(pod).get("finalizers") or [])


def is_pod_failed(pod: Obj, job: Obj) -> bool:
    """``isPodFailed``: phase Failed; or, unless only failed Pods are replaced, deleted and
    not Succeeded (orphans that never reach a terminal phase)."""
    phase = _status(pod).get("phase")
    if phase == "Failed":
        return True
    if only_replace_failed_pods(job):
        return False
    return _metadata(pod).get("deletionTimestamp") is not None and phase != "Succeeded"


def _terminated_finish_times(
    statuses: Iterable[Obj], previous: float | None
) -> tuple[bool, float | None]:
    finish = previous
    for status in statuses:
        terminated = (status.get("state") or {}).get("terminated")
        moment = to_seconds((terminated or {}).get("finishedAt"))
        if terminated is None or moment is None:
            return False, None
        if finish is None or finish < moment:
            finish = moment
    return True, finish


def get_finished_time(pod: Obj) -> float | None:
    """``getFinishedTime``: latest container finishedAt (sidecars too), else Ready=False's
    lastTransitionTime, else deletionTimestamp − grace period, else creationTimestamp."""
    status = _status(pod)
    complete, finish = _terminated_finish_times(status.get("containerStatuses") or [], None)
    if complete:
        sidecars = {
            c.get("name")
            for c in (pod.get("spec") or {}).get("initContainers") or []
            if c.get("restartPolicy") == "Always"
        }
        complete, finish = _terminated_finish_times(
            (s for s in status.get("initContainerStatuses") or [] if s.get("name") in sidecars),
            finish,
        )
    if complete and finish is not None:
        return finish
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "False":
            moment = to_seconds(condition.get("lastTransitionTime"))
            if moment is not None:
                return moment
            break
    metadata = _metadata(pod)
    deleted = to_seconds(metadata.get("deletionTimestamp"))
    if deleted is not None:
        return deleted - float(metadata.get("deletionGracePeriodSeconds") or 0)
    return to_seconds(metadata.get("creationTimestamp"))


# --- Pod-creation back-off --------------------------------------------------------------


@dataclass(frozen=True)
class BackoffRecord:
    """``backoffRecord``: failures since the last success and when the last one finished."""

    failures_after_last_success: int = 0
    last_failure_time: float | None = None


def _finish_key(pod: Obj) -> float:
    moment = get_finished_time(pod)
    return moment if moment is not None else float("-inf")


def new_backoff_record(
    previous: BackoffRecord | None,
    new_succeeded_pods: Sequence[Obj],
    new_failed_pods: Sequence[Obj],
) -> BackoffRecord:
    """``newBackoffRecord``: update the record with the Pods that finished since the last sync.

    No new success: the count grows by the new failures, the last failure time is the latest
    one. Any new success: the count restarts with the failures that finished after it.
    """
    record = previous or BackoffRecord()
    succeeded = sorted(new_succeeded_pods, key=_finish_key)
    failed = sorted(new_failed_pods, key=_finish_key)
    if not succeeded:
        if not failed:
            return record
        return BackoffRecord(
            record.failures_after_last_success + len(failed), get_finished_time(failed[-1])
        )
    if not failed:
        return BackoffRecord()
    last_success = _finish_key(succeeded[-1])
    count = 0
    last_failure: float | None = None
    for pod in reversed(failed):
        failed_at = _finish_key(pod)
        if not failed_at > last_success:
            break
        if last_failure is None:
            last_failure = failed_at
        count += 1
    return BackoffRecord(count, last_failure)


def backoff_duration(
    failures: int,
    default: float = DEFAULT_JOB_POD_FAILURE_BACKOFF,
    maximum: float = MAX_JOB_POD_FAILURE_BACKOFF,
) -> float:
    """10 s doubled for each failure after the first, capped at the maximum (0 for none)."""
    if failures == 0:
        return 0.0
    duration = default
    for _ in range(1, failures):
        duration *= 2
        if duration >= maximum:
            return maximum
    return duration


def remaining_backoff(
    failures: int,
    last_failure_time: float | None,
    now: float,
    default: float = DEFAULT_JOB_POD_FAILURE_BACKOFF,
    maximum: float = MAX_JOB_POD_FAILURE_BACKOFF,
) -> float:
    """``getRemainingTimeForFailuresCount``: how long Pod creation still waits (0: create now)."""
    if failures == 0:
        return 0.0
    duration = backoff_duration(failures, default, maximum)
    elapsed = now - (last_failure_time if last_failure_time is not None else now)
    return 0.0 if duration < elapsed else duration - elapsed


def remaining_backoff_per_index(last_failed_pod: Obj | None, now: float) -> float:
    """``getRemainingTimePerIndex``: the index's failure count annotation + 1 failures."""
    if last_failed_pod is None:
        return 0.0
    failures = _annotation_count(last_failed_pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) + 1
    return remaining_backoff(failures, get_finished_time(last_failed_pod), now)


# --- podFailurePolicy -------------------------------------------------------------------


@dataclass(frozen=True)
class PolicyMatch:
    """What ``matchPodFailurePolicy`` returns: FailJob message, whether the failure counts,
    and the action of the matching rule (None when no rule matched)."""

    job_failure_message: str | None
    count_failed: bool
    action: str | None


def _matching_container(statuses: Iterable[Obj], requirement: Obj) -> Obj | None:
    for status in statuses:
        terminated = (status.get("state") or {}).get("terminated")
        if terminated is None:
            continue
        name = requirement.get("containerName")
        if name is not None and name != status.get("name"):
            continue
        exit_code = int(terminated.get("exitCode") or 0)
        if exit_code == 0:
            continue
        values = [int(v) for v in requirement.get("values") or []]
        operator = requirement.get("operator")
        if (operator == "In" and exit_code in values) or (
            operator == "NotIn" and exit_code not in values
        ):
            return status
    return None


def match_on_exit_codes(pod: Obj, requirement: Obj) -> Obj | None:
    """``matchOnExitCodes``: the first terminated non-zero container matching, regular
    containers before init containers."""
    status = _status(pod)
    found = _matching_container(status.get("containerStatuses") or [], requirement)
    return found or _matching_container(status.get("initContainerStatuses") or [], requirement)


def match_on_pod_conditions(pod: Obj, patterns: Sequence[Obj]) -> Obj | None:
    """``matchOnPodConditions``: a condition with the pattern's type and status (default True)."""
    for condition in _status(pod).get("conditions") or []:
        for pattern in patterns:
            if condition.get("type") == pattern.get("type") and condition.get(
                "status"
            ) == pattern.get("status", "True"):
                return condition
    return None


def match_pod_failure_policy(policy: Obj | None, pod: Obj) -> PolicyMatch:
    """``matchPodFailurePolicy``: the first rule that matches decides; unknown actions and
    operators are skipped.

    FailJob messages: ``Container <c> for pod <ns>/<pod> failed with exit code <n> matching
    FailJob rule at index <i>`` and ``Pod <ns>/<pod> has condition <Type> matching FailJob
    rule at index <i>``.
    """
    if policy is None:
        return PolicyMatch(None, True, None)
    metadata = _metadata(pod)
    namespace, name = metadata.get("namespace", ""), metadata.get("name", "")
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            container = match_on_exit_codes(pod, rule["onExitCodes"])
            if container is None:
                continue
            exit_code = container["state"]["terminated"].get("exitCode")
            message = f"Container {container.get('name', '')} for pod {namespace}/{name} failed with exit code {exit_code} matching {action} rule at index {index}"
        elif rule.get("onPodConditions") is not None:
            condition = match_on_pod_conditions(pod, rule["onPodConditions"])
            if condition is None:
                continue
            message = f"Pod {namespace}/{name} has condition {condition.get('type')} matching {action} rule at index {index}"
        else:
            continue
        if action == "Ignore":
            return PolicyMatch(None, False, "Ignore")
        if action == "FailIndex":
            return PolicyMatch(None, True, "FailIndex")
        if action == "Count":
            return PolicyMatch(None, True, "Count")
        if action == "FailJob":
            return PolicyMatch(message, True, "FailJob")
    return PolicyMatch(None, True, None)


def get_fail_job_message(job: Obj, pods: Iterable[Obj]) -> str | None:
    """``getFailJobMessage``: the FailJob message of the first failed Pod matching such a rule."""
    policy = _spec(job).get("podFailurePolicy")
    if policy is None:
        return None
    for pod in pods:
        if is_pod_failed(pod, job):
            message = match_pod_failure_policy(policy, pod).job_failure_message
            if message is not None:
                return message
    return None


# --- failure accounting -----------------------------------------------------------------


def past_backoff_limit_on_failure(job: Obj, pods: Iterable[Obj]) -> bool:
    """``pastBackoffLimitOnFailure`` (restartPolicy OnFailure): the restarts of Running and
    Pending Pods reach backoffLimit (any restart when the limit is 0)."""
    template_spec = ((_spec(job).get("template") or {}).get("spec")) or {}
    if template_spec.get("restartPolicy") != "OnFailure":
        return False
    total = 0
    for pod in pods:
        status = _status(pod)
        if status.get("phase") in ("Running", "Pending"):
            for container in [
                *(status.get("initContainerStatuses") or []),
                *(status.get("containerStatuses") or []),
            ]:
                total += int(container.get("restartCount") or 0)
    limit = backoff_limit(job)
    return total > 0 if limit == 0 else total >= limit


def past_active_deadline(job: Obj, now: float) -> bool:
    """``pastActiveDeadline``: now − startTime ≥ activeDeadlineSeconds (never while suspended)."""
    deadline = _spec(job).get("activeDeadlineSeconds")
    started = to_seconds(_status(job).get("startTime"))
    if deadline is None or started is None or job_suspended(job):
        return False
    return now - started >= float(deadline)


def active_deadline_requeue(job: Obj, now: float) -> float | None:
    """Seconds until the deadline check, when activeDeadlineSeconds is set and not yet past."""
    deadline = _spec(job).get("activeDeadlineSeconds")
    started = to_seconds(_status(job).get("startTime"))
    if deadline is None or started is None or job_suspended(job):
        return None
    return float(deadline) - (now - started)


def want_active(job: Obj, succeeded: int, active: int) -> int:
    """``manageJob``'s target: min(parallelism, completions − succeeded), or without
    completions parallelism until the first success (then whatever is running)."""
    wanted_completions = completions(job)
    if wanted_completions is None:
        return active if succeeded > 0 else parallelism(job)
    return max(0, min(wanted_completions - succeeded, parallelism(job)))


# --- Indexed Jobs -----------------------------------------------------------------------


def get_completion_index(pod: Obj) -> int | None:
    """``getCompletionIndex``: the completion-index annotation, None when absent or invalid."""
    value = (_metadata(pod).get("annotations") or {}).get(JOB_COMPLETION_INDEX_ANNOTATION)
    try:
        index = int(value) if value is not None else -1
    except ValueError:
        return None
    return index if index >= 0 else None


def _annotation_count(pod: Obj, key: str) -> int:
    value = (_metadata(pod).get("annotations") or {}).get(key)
    try:
        number = int(value) if value is not None else 0
    except ValueError:
        return 0
    return number if 0 <= number <= 2**31 - 1 else 0


def parse_indexes(text: str | None, limit: int) -> list[int]:
    """``parseIndexesFromString``: ``1,3-5,7`` as a sorted list, indexes ≥ limit dropped."""
    result: list[int] = []
    for part in (text or "").split(","):
        if not part:
            continue
        bounds = part.split("-")
        try:
            first = int(bounds[0])
            last = int(bounds[1]) if len(bounds) > 1 else first
        except ValueError:
            continue
        if first >= limit:
            break
        result.extend(range(first, min(last, limit - 1) + 1))
    return sorted(set(result))


def format_indexes(indexes: Iterable[int]) -> str:
    """``orderedIntervals.String``: ranges as ``a-b``, but two neighbours as ``a,b``."""
    ordered = sorted(set(indexes))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        first, last = ordered[i], ordered[j]
        if last == first:
            parts.append(str(first))
        elif last == first + 1:
            parts.append(f"{first},{last}")
        else:
            parts.append(f"{first}-{last}")
        i = j + 1
    return ",".join(parts)


def is_index_failed(job: Obj, pod: Obj) -> bool:
    """``isIndexFailed``: a FailIndex match, or a counted failure of a Pod whose index has
    already failed backoffLimitPerIndex times."""
    counted = False
    if is_pod_failed(pod, job):
        policy = _spec(job).get("podFailurePolicy")
        if policy is not None:
            match = match_pod_failure_policy(policy, pod)
            if match.action == "FailIndex":
                return True
            counted = match.count_failed
        else:
            counted = True
    limit = int(_spec(job).get("backoffLimitPerIndex") or 0)
    return counted and _annotation_count(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) >= limit


def new_index_failure_counts(job: Obj, pod_being_replaced: Obj | None) -> tuple[int, int]:
    """``getNewIndexFailureCounts``: (failure count, ignored failure count) for the next Pod."""
    if pod_being_replaced is None:
        return 0, 0
    failures = _annotation_count(pod_being_replaced, JOB_INDEX_FAILURE_COUNT_ANNOTATION)
    ignored = _annotation_count(pod_being_replaced, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION)
    policy = _spec(job).get("podFailurePolicy")
    if policy is not None and not match_pod_failure_policy(policy, pod_being_replaced).count_failed:
        return failures, ignored + 1
    return failures + 1, ignored


def first_pending_indexes(
    job: Obj, pods: Sequence[Obj], succeeded: Iterable[int], failed: Iterable[int], count: int
) -> list[int]:
    """``firstPendingIndexes``: the lowest ``count`` indexes below completions that are not
    succeeded, failed, active, or (when only failed Pods are replaced) terminating."""
    taken = set(succeeded) | set(failed)
    taken |= {i for p in filter_active_pods(pods) if (i := get_completion_index(p)) is not None}
    if only_replace_failed_pods(job):
        taken |= {
            i for p in pods if is_pod_terminating(p) and (i := get_completion_index(p)) is not None
        }
    result = []
    for index in range(completions(job) or 0):
        if len(result) >= count:
            break
        if index not in taken:
            result.append(index)
    return result


def pod_generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: ``<job>-<index>-``, the Job name cut to fit 58 characters."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = job_name[: MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def job_pod_template(
    job: Obj, index: int | None, index_failure_counts: tuple[int, int] = (0, 0)
) -> tuple[Obj, str]:
    """The template ``manageJob`` creates a Pod from, and its generateName.

    Every Pod gets the ``batch.kubernetes.io/job-tracking`` finalizer. An Indexed Job's Pod
    also gets the completion-index annotation and label, ``spec.hostname`` ``<job>-<index>``,
    the ``JOB_COMPLETION_INDEX`` env var (from the label) in every container, and with
    backoffLimitPerIndex the failure-count annotations.
    """
    template = copy.deepcopy(_spec(job).get("template") or {})
    metadata = template.setdefault("metadata", {})
    finalizers = metadata.setdefault("finalizers", [])
    if JOB_TRACKING_FINALIZER not in finalizers:
        finalizers.append(JOB_TRACKING_FINALIZER)
    name = _metadata(job).get("name", "")
    if index is None:
        return template, f"{name}-"
    spec = template.setdefault("spec", {})
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        env = container.setdefault("env", [])
        if not any(e.get("name") == COMPLETION_INDEX_ENV_NAME for e in env):
            env.append(
                {
                    "name": COMPLETION_INDEX_ENV_NAME,
                    "valueFrom": {
                        "fieldRef": {
                            "fieldPath": f"metadata.labels['{JOB_COMPLETION_INDEX_ANNOTATION}']"
                        }
                    },
                }
            )
    metadata.setdefault("annotations", {})[JOB_COMPLETION_INDEX_ANNOTATION] = str(index)
    metadata.setdefault("labels", {})[JOB_COMPLETION_INDEX_ANNOTATION] = str(index)
    spec["hostname"] = f"{name}-{index}"
    if has_backoff_limit_per_index(job):
        failures, ignored = index_failure_counts
        metadata["annotations"][JOB_INDEX_FAILURE_COUNT_ANNOTATION] = str(failures)
        if ignored > 0:
            metadata["annotations"][JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = str(ignored)
    return template, pod_generate_name_with_index(name, index)


# --- conditions -------------------------------------------------------------------------


def new_condition(condition_type: str, status: str, reason: str, message: str, now: float) -> Obj:
    """``newCondition``: lastProbeTime and lastTransitionTime both now."""
    stamp = timestamp(now)
    return {
        "type": condition_type,
        "status": status,
        "lastProbeTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def find_condition(job: Obj, condition_type: str) -> Obj | None:
    for condition in _status(job).get("conditions") or []:
        if condition.get("type") == condition_type:
            return condition
    return None


def is_job_finished(job: Obj) -> tuple[bool, str | None]:
    """``IsJobFinished``: (True, "Complete"|"Failed") once such a condition is True."""
    for condition in _status(job).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return True, condition["type"]
    return False, None


def ensure_job_condition_status(
    conditions: list[Obj], condition_type: str, status: str, reason: str, message: str, now: float
) -> tuple[list[Obj], bool]:
    """``ensureJobConditionStatus``: a changed condition is replaced by a new one (both times
    now); a missing one is appended unless its status would be False."""
    result = copy.deepcopy(conditions)
    for i, condition in enumerate(result):
        if condition.get("type") == condition_type:
            if (
                condition.get("status") != status
                or condition.get("reason") != reason
                or condition.get("message") != message
            ):
                result[i] = new_condition(condition_type, status, reason, message, now)
                return result, True
            return result, False
    if status == "False":
        return result, False
    return [*result, new_condition(condition_type, status, reason, message, now)], True


def job_finish_time(job: Obj) -> float | None:
    """``jobFinishTime`` (ttlafterfinished): lastTransitionTime of the Complete/Failed condition."""
    for condition in _status(job).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return to_seconds(condition.get("lastTransitionTime"))
    return None


def ttl_expire_at(job: Obj) -> float | None:
    """``ttlafterfinished``: when a finished Job is deleted (finish + ttlSecondsAfterFinished),
    None when the field is unset or the Job has not finished."""
    ttl = _spec(job).get("ttlSecondsAfterFinished")
    finished = job_finish_time(job)
    if ttl is None or finished is None:
        return None
    return finished + float(ttl)


# --- one sync ---------------------------------------------------------------------------


@dataclass
class JobSync:
    """What one ``syncJob`` decides. The caller applies it to its objects.

    ``create``: one entry per Pod to create now: the completion index, or None for a
    NonIndexed Job (build the Pod with ``job_pod_template``); ``delete``: Pod names to delete;
    ``remove_finalizers``: Pod names whose tracking finalizer goes (they are counted in the
    new status; a terminal or deleted Pod may then disappear); ``requeue_after``: seconds until
    the next sync is due (back-off, deadline); ``events``: (type, reason, message) on the Job.
    """

    status: Obj
    create: list[int | None] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    remove_finalizers: list[str] = field(default_factory=list)
    requeue_after: float | None = None
    events: list[tuple[str, str, str]] = field(default_factory=list)
    backoff: BackoffRecord = field(default_factory=BackoffRecord)


def _requeue(current: float | None, candidate: float | None) -> float | None:
    if candidate is None:
        return current
    return candidate if current is None else min(current, candidate)


def _pod_name(pod: Obj) -> str:
    return _metadata(pod).get("name", "")


def _failure(reason_message: tuple[str, str], now: float) -> Obj:
    return new_condition("FailureTarget", "True", reason_message[0], reason_message[1], now)


def _finished_condition(job: Obj, pods: Sequence[Obj], failed_count: int, now: float) -> Obj | None:
    """syncJob's checks in their order: SuccessCriteriaMet already set; FailureTarget already
    set; a FailJob rule; the backoff limit; the active deadline."""
    met = find_condition(job, "SuccessCriteriaMet")
    if met is not None and met.get("status") == "True":
        return met
    target = find_condition(job, "FailureTarget")
    if target is not None and target.get("status") == "True":
        return new_condition(
            "Failed", "True", target.get("reason", ""), target.get("message", ""), now
        )
    message = get_fail_job_message(job, pods)
    if message is not None:
        return new_condition("FailureTarget", "True", POD_FAILURE_POLICY_REASON, message, now)
    if failed_count > backoff_limit(job) or past_backoff_limit_on_failure(job, pods):
        return _failure(BACKOFF_LIMIT_EXCEEDED, now)
    if past_active_deadline(job, now):
        return _failure(DEADLINE_EXCEEDED, now)
    return None


def sync_job(job: Obj, pods: Sequence[Obj], backoff: BackoffRecord | None, now: float) -> JobSync:
    """One ``syncJob`` over the Job's Pods (those it owns, with or without finalizer).

    Pods carrying the tracking finalizer and finished (Succeeded, or failed per
    ``is_pod_failed``) are the new ones: they are counted into succeeded/failed and their
    finalizer is removed. Failures matching an Ignore rule are not counted. The status keeps
    active, ready, terminating, succeeded, failed, startTime, completedIndexes/failedIndexes,
    conditions and completionTime as the controller writes them. Counting and finalizer
    removal happen in the same sync (uncountedTerminatedPods stays empty), and Pod creations
    and deletions are assumed to succeed (no expectations).
    """
    status = copy.deepcopy(_status(job))
    spec_completions = completions(job)
    policy = _spec(job).get("podFailurePolicy")
    result = JobSync(status=status)
    finished, _ = is_job_finished(job)
    if finished:
        result.backoff = BackoffRecord()
        return result
    active_pods = filter_active_pods(pods)
    tracked = [p for p in pods if has_job_tracking_finalizer(p)]
    indexed = is_indexed_job(job)

    def valid(pod: Obj) -> bool:
        if not indexed:
            return True
        index = get_completion_index(pod)
        return index is not None and index < (spec_completions or 0)

    new_succeeded = [p for p in tracked if _status(p).get("phase") == "Succeeded" and valid(p)]
    new_failed = [p for p in tracked if is_pod_failed(p, job) and valid(p)]
    counted_failed = [p for p in new_failed if match_pod_failure_policy(policy, p).count_failed]
    succeeded = int(status.get("succeeded") or 0) + len(new_succeeded)
    failed = int(status.get("failed") or 0) + len(counted_failed)
    if status.get("startTime") is None and not job_suspended(job):
        status["startTime"] = timestamp(now)
    result.backoff = new_backoff_record(backoff, new_succeeded, new_failed)

    condition = _finished_condition({**job, "status": status}, pods, failed, now)
    if (
        condition is None
        and _spec(job).get("activeDeadlineSeconds") is not None
        and not job_suspended(job)
    ):
        result.requeue_after = _requeue(
            result.requeue_after, active_deadline_requeue({**job, "status": status}, now)
        )

    succeeded_indexes: list[int] = []
    failed_indexes: list[int] = []
    if indexed:
        succeeded_indexes = sorted(
            set(parse_indexes(status.get("completedIndexes"), spec_completions or 0))
            | {get_completion_index(p) for p in new_succeeded}
        )  # type: ignore[misc]
        succeeded = len(succeeded_indexes)
        if has_backoff_limit_per_index(job):
            failed_indexes = sorted(
                set(parse_indexes(status.get("failedIndexes"), spec_completions or 0))
                | {
                    i
                    for p in tracked
                    if (i := get_completion_index(p)) is not None
                    and i < (spec_completions or 0)
                    and is_index_failed(job, p)
                }
            )
            if condition is None:
                max_failed = _spec(job).get("maxFailedIndexes")
                if max_failed is not None and len(failed_indexes) > int(max_failed):
                    condition = _failure(MAX_FAILED_INDEXES_EXCEEDED, now)
                elif failed_indexes and len(failed_indexes) + len(succeeded_indexes) >= (
                    spec_completions or 0
                ):
                    condition = _failure(FAILED_INDEXES, now)

    terminating = sum(1 for p in pods if is_pod_terminating(p))
    active = len(active_pods)
    ready = sum(1 for p in active_pods if is_pod_ready(p))
    if condition is not None:
        for pod in active_pods:
            result.delete.append(_pod_name(pod))
        terminating += len(active_pods)
        active, ready = 0, 0
    else:
        active = _manage_job(
            job,
            pods,
            active_pods,
            succeeded,
            succeeded_indexes,
            failed_indexes,
            terminating,
            now,
            result,
        )
        done = (
            succeeded > 0 and active == 0
            if spec_completions is None
            else succeeded >= spec_completions and active == 0
        )
        if done:
            condition = new_condition(
                "SuccessCriteriaMet", "True", COMPLETIONS_REACHED[0], COMPLETIONS_REACHED[1], now
            )
        else:
            _suspend_conditions(job, status, now, result)

    # trackJobStatusAndRemoveFinalizers: count and release every finished tracked Pod; when
    # the Job failed, the Pods it is deleting count as failed too.
    failing = condition is not None and condition["type"] in ("FailureTarget", "Failed")
    counted_ids = {id(p) for p in new_succeeded} | {id(p) for p in new_failed}
    for pod in tracked:
        counted_now = id(pod) in counted_ids
        if counted_now or (failing and valid(pod)):
            result.remove_finalizers.append(_pod_name(pod))
            if (
                failing
                and not counted_now
                and _status(pod).get("phase") != "Succeeded"
                and match_pod_failure_policy(policy, pod).count_failed
            ):
                failed += 1
    status.update(
        active=active, ready=ready, terminating=terminating, succeeded=succeeded, failed=failed
    )
    status.setdefault("uncountedTerminatedPods", {})
    if indexed:
        status["completedIndexes"] = format_indexes(succeeded_indexes)
        if has_backoff_limit_per_index(job):
            status["failedIndexes"] = format_indexes(failed_indexes)
    _apply_terminal_condition(status, condition, terminating, now, result)
    return result


def _manage_job(
    job: Obj,
    pods: Sequence[Obj],
    active_pods: Sequence[Obj],
    succeeded: int,
    succeeded_indexes: Sequence[int],
    failed_indexes: Sequence[int],
    terminating: int,
    now: float,
    result: JobSync,
) -> int:
    """``manageJob``: delete surplus Pods or create missing ones (never both in one sync)."""
    active = len(active_pods)
    if job_suspended(job):
        result.delete.extend(_pod_name(p) for p in active_pods)
        return 0
    wanted = want_active(job, succeeded, active)
    surplus = max(0, active - wanted)
    if surplus:
        doomed = sort_active_pods(active_pods)[: min(surplus, MAX_POD_CREATE_DELETE_PER_SYNC)]
        result.delete.extend(_pod_name(p) for p in doomed)
        return active - len(doomed)
    already_terminating = terminating if only_replace_failed_pods(job) else 0
    diff = wanted - already_terminating - active
    if diff <= 0:
        return active
    if not has_backoff_limit_per_index(job):
        remaining = remaining_backoff(
            result.backoff.failures_after_last_success, result.backoff.last_failure_time, now
        )
        if remaining > 0:
            result.requeue_after = _requeue(result.requeue_after, remaining)
            return active
    diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
    if is_indexed_job(job):
        indexes = first_pending_indexes(job, pods, succeeded_indexes, failed_indexes, diff)
        if has_backoff_limit_per_index(job):
            indexes, remaining = _indexes_ready_now(job, pods, indexes, now)
            if remaining > 0:
                result.requeue_after = _requeue(result.requeue_after, remaining)
                return active
        result.create.extend(indexes)
        return active + len(indexes)
    result.create.extend([None] * diff)
    return active + diff


def last_failed_pod_per_index(job: Obj, pods: Sequence[Obj]) -> dict[int, Obj]:
    """``getPodsWithDelayedDeletionPerIndex``, simplified: the latest failed Pod of each index
    that has no active Pod (its failure count feeds the replacement's annotation)."""
    active_indexes = {get_completion_index(p) for p in filter_active_pods(pods)}
    latest: dict[int, Obj] = {}
    for pod in pods:
        index = get_completion_index(pod)
        if index is None or index in active_indexes or not is_pod_failed(pod, job):
            continue
        if index not in latest or _finish_key(pod) >= _finish_key(latest[index]):
            latest[index] = pod
    return latest


def _indexes_ready_now(
    job: Obj, pods: Sequence[Obj], indexes: Sequence[int], now: float
) -> tuple[list[int], float]:
    """``getPodCreationInfoForIndependentIndexes``: indexes whose back-off has passed, else
    the shortest remaining back-off."""
    last_failed = last_failed_pod_per_index(job, pods)
    ready_now: list[int] = []
    shortest: float | None = None
    for index in indexes:
        remaining = remaining_backoff_per_index(last_failed.get(index), now)
        if remaining == 0:
            ready_now.append(index)
        elif shortest is None or remaining < shortest:
            shortest = remaining
    if ready_now:
        return ready_now, 0.0
    return [], shortest or 0.0


def _suspend_conditions(job: Obj, status: Obj, now: float, result: JobSync) -> None:
    conditions = status.get("conditions") or []
    if job_suspended(job):
        conditions, changed = ensure_job_condition_status(
            conditions, "Suspended", "True", "JobSuspended", "Job suspended", now
        )
        if changed:
            result.events.append(("Normal", "Suspended", "Job suspended"))
    else:
        conditions, changed = ensure_job_condition_status(
            conditions, "Suspended", "False", "JobResumed", "Job resumed", now
        )
        if changed:
            result.events.append(("Normal", "Resumed", "Job resumed"))
            status["startTime"] = timestamp(now)
    if conditions:
        status["conditions"] = conditions


def _apply_terminal_condition(
    status: Obj, condition: Obj | None, terminating: int, now: float, result: JobSync
) -> None:
    """The interim condition first (FailureTarget / SuccessCriteriaMet), the final one
    (Failed / Complete, same reason and message) once no Pod is terminating."""
    if condition is None:
        return
    conditions = list(status.get("conditions") or [])
    final = condition
    if condition["type"] == "FailureTarget":
        conditions.append(condition)
        final = new_condition("Failed", "True", condition["reason"], condition["message"], now)
    elif condition["type"] == "SuccessCriteriaMet":
        if not any(c.get("type") == "SuccessCriteriaMet" for c in conditions):
            conditions.append(condition)
        final = new_condition(
            "Complete", "True", condition.get("reason", ""), condition.get("message", ""), now
        )
    status["conditions"] = conditions
    if terminating > 0:
        return
    status["conditions"], _ = ensure_job_condition_status(
        conditions, final["type"], "True", final["reason"], final["message"], now
    )
    if final["type"] == "Complete":
        status["completionTime"] = final["lastTransitionTime"]
        result.events.append(("Normal", "Completed", "Job completed"))
    else:
        result.events.append(("Warning", final["reason"], final["message"]))
    result.backoff = BackoffRecord()
