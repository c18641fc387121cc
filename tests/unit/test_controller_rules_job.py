"""The Job controller's rules, with the table tests ported from Kubernetes (pkg/controller/job)."""

from __future__ import annotations

import pytest

from webapp.engine.controllers.rules import job as j
from webapp.engine.controllers.rules.timestamps import timestamp

T = 1000.0  # defaultTestTime of the Go tests, as a virtual second


def finished_pod(phase, finished_at, **extra):
    terminated = {
        "finishedAt": timestamp(finished_at),
        "exitCode": 0 if phase == "Succeeded" else 1,
    }
    pod = {
        "metadata": {},
        "status": {"phase": phase, "containerStatuses": [{"state": {"terminated": terminated}}]},
    }
    pod["metadata"].update(extra)
    return pod


# backoff_utils_test.go TestNewBackoffRecord. The Go cases use millisecond offsets; API
# timestamps here have whole seconds, so the offsets are seconds (the order is what matters).
@pytest.mark.parametrize(
    ("previous", "succeeded", "failed", "expected"),
    [
        (None, [], [T], j.BackoffRecord(1, T)),  # one new failure
        (None, [], [T, T - 1], j.BackoffRecord(2, T)),  # two new failures
        (None, [T], [T - 2, T - 1], j.BackoffRecord(0, None)),  # two failures followed by success
        (None, [T - 2], [T, T - 4, T - 3, T - 1], j.BackoffRecord(2, T)),  # 2 fail, success, 2 fail
        (j.BackoffRecord(2, None), [], [T], j.BackoffRecord(3, T)),  # count 2 and one new failure
        (None, [T], [T], j.BackoffRecord(0, None)),  # success and failure at the same time
        (None, [], [], j.BackoffRecord(0, None)),  # no success/failure
        (None, [T], [], j.BackoffRecord(0, None)),  # one success
    ],
)
def test_new_backoff_record(previous, succeeded, failed, expected):
    record = j.new_backoff_record(
        previous,
        [finished_pod("Succeeded", t) for t in succeeded],
        [finished_pod("Failed", t) for t in failed],
    )
    assert record == expected


# backoff_utils_test.go TestGetRemainingBackoffTime (default 5 s, max 700 s).
@pytest.mark.parametrize(
    ("failures", "last_failure", "now", "expected"),
    [
        (0, None, T, 0),
        (1, T, T, 5),
        (1, T, T + 1, 4),
        (1, T, T + 5, 0),
        (1, T, T + 6, 0),
        (3, T, T, 20),
        (8, T, T, 640),
        (9, T, T, 700),
    ],
)
def test_remaining_backoff(failures, last_failure, now, expected):
    assert j.remaining_backoff(failures, last_failure, now, default=5, maximum=700) == expected


def test_default_pod_failure_backoff_is_10s_doubling_capped_at_10_minutes():
    # job_controller.go: DefaultJobPodFailureBackOff = 10s, MaxJobPodFailureBackOff = 10min.
    assert [j.backoff_duration(n) for n in range(1, 9)] == [10, 20, 40, 80, 160, 320, 600, 600]


# backoff_utils_test.go TestGetFinishedTime.
def test_get_finished_time():
    def containers(*states):
        return [{"state": s} for s in states]

    done = lambda t: {"terminated": {"finishedAt": timestamp(t)}}  # noqa: E731
    running = {"running": {}}
    assert (
        j.get_finished_time(
            {"status": {"containerStatuses": containers(done(T - 1), done(T), done(T - 2))}}
        )
        == T
    )
    assert (
        j.get_finished_time(
            {
                "metadata": {"deletionTimestamp": timestamp(T)},
                "status": {"containerStatuses": containers(done(T - 1), running)},
            }
        )
        == T
    )
    assert (
        j.get_finished_time(
            {
                "metadata": {"deletionTimestamp": timestamp(T), "deletionGracePeriodSeconds": 30},
                "status": {"containerStatuses": containers(running)},
            }
        )
        == T - 30
    )
    ready_false = {
        "type": "Ready",
        "status": "False",
        "reason": "PodFailed",
        "lastTransitionTime": timestamp(T),
    }
    assert (
        j.get_finished_time(
            {
                "status": {
                    "containerStatuses": containers({"terminated": {}}),
                    "conditions": [ready_false],
                }
            }
        )
        == T
    )
    ready_true = {"type": "Ready", "status": "True", "lastTransitionTime": timestamp(T - 30)}
    assert (
        j.get_finished_time(
            {
                "metadata": {"deletionTimestamp": timestamp(T)},
                "status": {
                    "containerStatuses": containers({"terminated": {}}),
                    "conditions": [ready_true],
                },
            }
        )
        == T
    )
    assert (
        j.get_finished_time(
            {
                "metadata": {"creationTimestamp": timestamp(T)},
                "status": {"containerStatuses": containers({"terminated": {}})},
            }
        )
        == T
    )
    sidecar = {
        "spec": {"initContainers": [{"name": "sidecar", "restartPolicy": "Always"}]},
        "status": {
            "containerStatuses": containers(done(T - 1)),
            "initContainerStatuses": [{"name": "sidecar", "state": done(T)}],
        },
    }
    assert j.get_finished_time(sidecar) == T


def failed_pod(exit_codes=(), conditions=(), init_exit_codes=()):
    def statuses(codes, prefix):
        return [
            {
                "name": f"{prefix}{i}" if isinstance(c, int) else c[0],
                "state": {"terminated": {"exitCode": c if isinstance(c, int) else c[1]}},
            }
            for i, c in enumerate(codes)
        ]

    return {
        "metadata": {"namespace": "default", "name": "mypod"},
        "status": {
            "phase": "Failed",
            "containerStatuses": statuses(exit_codes, "c"),
            "initContainerStatuses": statuses(init_exit_codes, "i"),
            "conditions": [{"type": t, "status": s} for t, s in conditions],
        },
    }


def rule(action, operator=None, values=(), conditions=None, container=None):
    body = {"action": action}
    if operator is not None:
        body["onExitCodes"] = {"operator": operator, "values": list(values)}
        if container:
            body["onExitCodes"]["containerName"] = container
    if conditions is not None:
        body["onPodConditions"] = [{"type": t, "status": s} for t, s in conditions]
    return body


# pod_failure_policy_test.go TestMatchPodFailurePolicy.
@pytest.mark.parametrize(
    ("rules", "pod", "message", "count", "action"),
    [
        # unknown action for rule matching by exit codes - skip rule with unknown action
        ([rule("UnknownAction", "In", [1, 2]), rule("FailJob", "In", [2, 3])], failed_pod([("main-container", 2)]),
         "Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1", True, "FailJob"),
        # unknown action for rule matching by pod conditions
        ([rule("UnkonwnAction", conditions=[("DisruptionTarget", "True")]), rule("Ignore", conditions=[("DisruptionTarget", "True")])],
         failed_pod(conditions=[("DisruptionTarget", "True")]), None, False, "Ignore"),
        # unknown operator - rule is skipped for onExitCodes
        ([rule("Ignore", "UnknownOperator", [1, 2]), rule("FailJob", "In", [2, 3])], failed_pod([("main-container", 2)]),
         "Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1", True, "FailJob"),
        # ignore rule matched for exit codes
        ([rule("Ignore", "In", [1, 2, 3])], failed_pod([2]), None, False, "Ignore"),
        # ignore rule matched on negative exit codes - needed for Windows support
        ([rule("Ignore", "In", [-1073741676, -1073741510])], failed_pod([-1073741510]), None, False, "Ignore"),
        # FailJob rule matched for exit codes
        ([rule("FailJob", "In", [1, 2, 3])], failed_pod([("main-container", 2)]),
         "Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 0", True, "FailJob"),
        # successful containers are skipped by the rules
        ([rule("FailJob", "NotIn", [111])], failed_pod([("main-container", 111), ("suppport-container", 0)], init_exit_codes=[("init-container", 0)]),
         None, True, None),
        # FailIndex rule matched for exit codes
        ([rule("FailIndex", "In", [1, 2, 3])], failed_pod([2]), None, True, "FailIndex"),
        # pod failure policy with NotIn operator and value 0
        ([rule("FailJob", "NotIn", [0])], failed_pod([("main-container", 1), ("suppport-container", 0)]),
         "Container main-container for pod default/mypod failed with exit code 1 matching FailJob rule at index 0", True, "FailJob"),
        # second jobfail rule matched for exit codes
        ([rule("Count", "In", [1, 2, 3]), rule("FailJob", "In", [4, 5, 6])], failed_pod([("main-container", 6)]),
         "Container main-container for pod default/mypod failed with exit code 6 matching FailJob rule at index 1", True, "FailJob"),
        # FailIndex rule matched for pod conditions
        ([rule("FailIndex", conditions=[("DisruptionTarget", "True")])], failed_pod(conditions=[("DisruptionTarget", "True")]), None, True, "FailIndex"),
        # ignore rule matched for pod conditions
        ([rule("Ignore", conditions=[("DisruptionTarget", "True")])], failed_pod(conditions=[("DisruptionTarget", "True")]), None, False, "Ignore"),
        # ignore rule matches by the status=False
        ([rule("Ignore", conditions=[("DisruptionTarget", "False")])], failed_pod(conditions=[("DisruptionTarget", "False")]), None, False, "Ignore"),
        # ignore rule matches by the status=Unknown
        ([rule("Ignore", conditions=[("DisruptionTarget", "Unknown")])], failed_pod(conditions=[("DisruptionTarget", "Unknown")]), None, False, "Ignore"),
        # ignore rule does not match when status for pattern is False, but actual True
        ([rule("Ignore", conditions=[("DisruptionTarget", "False")])], failed_pod(conditions=[("DisruptionTarget", "True")]), None, True, None),
    ],
)  # fmt: skip
def test_match_pod_failure_policy(rules, pod, message, count, action):
    assert j.match_pod_failure_policy({"rules": rules}, pod) == j.PolicyMatch(
        message, count, action
    )


def test_count_rule_skips_a_container_still_running():
    # "count rule matched for exit codes": container foo has no terminated state.
    pod = failed_pod([("bar", 2)])
    pod["status"]["containerStatuses"].insert(0, {"name": "foo"})
    assert j.match_pod_failure_policy(
        {"rules": [rule("Count", "In", [1, 2, 3])]}, pod
    ) == j.PolicyMatch(None, True, "Count")


def test_no_policy_counts_every_failure():
    assert j.match_pod_failure_policy(None, failed_pod([2])) == j.PolicyMatch(None, True, None)


def test_pod_condition_rule_fail_job_message():
    pod = failed_pod(conditions=[("DisruptionTarget", "True")])
    match = j.match_pod_failure_policy(
        {"rules": [rule("FailJob", conditions=[("DisruptionTarget", "True")])]}, pod
    )
    assert (
        match.job_failure_message
        == "Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0"
    )


def test_container_name_restricts_on_exit_codes():
    pod = failed_pod([("main", 42), ("sidecar", 1)])
    assert (
        j.match_pod_failure_policy(
            {"rules": [rule("FailJob", "In", [1], container="main")]}, pod
        ).action
        is None
    )
    assert (
        j.match_pod_failure_policy(
            {"rules": [rule("FailJob", "In", [42], container="main")]}, pod
        ).action
        == "FailJob"
    )


# indexed_job_utils.go orderedIntervals.String and parseIndexesFromString.
@pytest.mark.parametrize(
    ("indexes", "text"),
    [
        ([], ""),
        ([0], "0"),
        ([1, 2], "1,2"),
        ([0, 1, 2, 4, 5, 6, 8], "0-2,4-6,8"),
        ([3, 7, 8, 9], "3,7-9"),
    ],
)
def test_format_and_parse_indexes(indexes, text):
    assert j.format_indexes(indexes) == text
    assert j.parse_indexes(text, 100) == indexes


def test_parse_indexes_drops_those_beyond_completions():
    assert j.parse_indexes("1,3-5,7", 5) == [1, 3, 4]


def test_pod_generate_name_with_index():
    assert j.pod_generate_name_with_index("indexed-job", 2) == "indexed-job-2-"
    assert len(j.pod_generate_name_with_index("x" * 70, 12)) == 58


def job(**spec):
    body = {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]}
        }
    }
    body.update(spec)
    return {
        "metadata": {"name": "pi", "namespace": "default", "uid": "job-uid"},
        "spec": body,
        "status": {},
    }


def pod(
    name, phase="Running", ready=False, index=None, finished_at=None, exit_code=None, deleted=None
):
    metadata = {"name": name, "namespace": "default", "finalizers": [j.JOB_TRACKING_FINALIZER]}
    if index is not None:
        metadata["annotations"] = {j.JOB_COMPLETION_INDEX_ANNOTATION: str(index)}
    if deleted is not None:
        metadata["deletionTimestamp"] = timestamp(deleted)
    status = {
        "phase": phase,
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
    }
    if finished_at is not None:
        status["containerStatuses"] = [
            {
                "name": "pi",
                "state": {
                    "terminated": {"exitCode": exit_code or 0, "finishedAt": timestamp(finished_at)}
                },
            }
        ]
        status["conditions"] = [
            {"type": "Ready", "status": "False", "lastTransitionTime": timestamp(finished_at)}
        ]
    return {"metadata": metadata, "status": status}


def test_a_new_job_creates_parallelism_pods_and_sets_start_time():
    sync = j.sync_job(job(completions=5, parallelism=2), [], None, now=0)
    assert sync.create == [None, None]
    assert sync.status["startTime"] == timestamp(0)
    assert (sync.status["active"], sync.status["succeeded"], sync.status["failed"]) == (2, 0, 0)


def test_want_active_arithmetic():
    # manageJob: min(parallelism, completions - succeeded); without completions parallelism
    # until a success, then leave the running Pods alone.
    assert j.want_active(job(completions=5, parallelism=2), succeeded=4, active=0) == 1
    assert j.want_active(job(parallelism=3), succeeded=0, active=1) == 3
    assert j.want_active(job(parallelism=3), succeeded=1, active=2) == 2
    assert j.completions(job()) == 1
    assert j.completions(job(parallelism=2)) is None


def test_failed_pod_waits_for_the_backoff_then_is_replaced():
    spec = job(backoffLimit=6)
    spec["status"] = {"startTime": timestamp(0)}
    failed = pod("pi-a", "Failed", finished_at=10, exit_code=1)
    sync = j.sync_job(spec, [failed], None, now=12)
    assert sync.create == []
    assert sync.requeue_after == 8
    assert sync.remove_finalizers == ["pi-a"]
    assert sync.status["failed"] == 1
    counted = {**failed, "metadata": {**failed["metadata"], "finalizers": []}}
    sync = j.sync_job({**spec, "status": sync.status}, [counted], sync.backoff, now=20)
    assert sync.create == [None]


def test_seventh_failure_fails_the_job_with_backoff_limit_exceeded():
    spec = job(backoffLimit=6)
    spec["status"] = {"startTime": timestamp(0), "failed": 6}
    sync = j.sync_job(
        spec,
        [pod("pi-g", "Failed", finished_at=500, exit_code=1)],
        j.BackoffRecord(6, 400),
        now=501,
    )
    types = [c["type"] for c in sync.status["conditions"]]
    assert types == ["FailureTarget", "Failed"]
    failed = sync.status["conditions"][1]
    assert (failed["reason"], failed["message"]) == (
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
    )
    assert sync.events == [
        ("Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    ]
    assert "completionTime" not in sync.status


def test_deadline_exceeded_deletes_running_pods_and_fails_after_they_terminate():
    spec = job(activeDeadlineSeconds=100)
    spec["status"] = {"startTime": timestamp(0), "active": 1}
    running = pod("pi-a", "Running", ready=True)
    early = j.sync_job(spec, [running], None, now=50)
    assert early.requeue_after == 50
    sync = j.sync_job(spec, [running], None, now=100)
    assert sync.delete == ["pi-a"]
    assert [c["type"] for c in sync.status["conditions"]] == ["FailureTarget"]
    assert (
        sync.status["conditions"][0]["message"] == "Job was active longer than specified deadline"
    )
    assert (sync.status["terminating"], sync.status["failed"]) == (1, 1)
    gone = j.sync_job({**spec, "status": sync.status}, [], None, now=130)
    assert [c["type"] for c in gone.status["conditions"]] == ["FailureTarget", "Failed"]
    assert gone.status["conditions"][1]["reason"] == "DeadlineExceeded"


def test_success_adds_success_criteria_met_then_complete_with_completion_time():
    spec = job()
    spec["status"] = {"startTime": timestamp(0), "active": 1}
    sync = j.sync_job(spec, [pod("pi-a", "Succeeded", finished_at=9)], None, now=10)
    conditions = sync.status["conditions"]
    assert [c["type"] for c in conditions] == ["SuccessCriteriaMet", "Complete"]
    assert {(c["reason"], c["message"]) for c in conditions} == {
        ("CompletionsReached", "Reached expected number of succeeded pods")
    }
    assert sync.status["completionTime"] == timestamp(10)
    assert (sync.status["succeeded"], sync.status["active"]) == (1, 0)
    assert sync.events == [("Normal", "Completed", "Job completed")]
    assert j.ttl_expire_at({"spec": {"ttlSecondsAfterFinished": 100}, "status": sync.status}) == 110


def test_fail_job_rule_fails_the_job_with_pod_failure_policy_reason():
    policy = {
        "rules": [
            {
                "action": "FailJob",
                "onExitCodes": {"containerName": "pi", "operator": "In", "values": [42]},
            }
        ]
    }
    spec = job(podFailurePolicy=policy, completions=2, parallelism=2)
    spec["status"] = {"startTime": timestamp(0)}
    pods = [pod("pi-a", "Failed", finished_at=5, exit_code=42), pod("pi-b", "Running", ready=True)]
    sync = j.sync_job(spec, pods, None, now=6)
    target = sync.status["conditions"][0]
    assert (target["type"], target["reason"]) == ("FailureTarget", "PodFailurePolicy")
    assert (
        target["message"]
        == "Container pi for pod default/pi-a failed with exit code 42 matching FailJob rule at index 0"
    )
    assert sync.delete == ["pi-b"]


def test_ignored_disruption_does_not_count():
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    spec = job(podFailurePolicy=policy, backoffLimit=0)
    spec["status"] = {"startTime": timestamp(0)}
    evicted = pod("pi-a", "Failed", finished_at=5, exit_code=137)
    evicted["status"]["conditions"].append(
        {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"}
    )
    sync = j.sync_job(spec, [evicted], None, now=6)
    assert sync.status["failed"] == 0
    assert "conditions" not in sync.status or all(
        c["type"] == "Suspended" for c in sync.status["conditions"]
    )


def test_on_failure_restarts_reach_the_backoff_limit():
    spec = job(backoffLimit=2)
    spec["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    restarting = pod("pi-a", "Running")
    restarting["status"]["containerStatuses"] = [{"name": "pi", "restartCount": 2}]
    assert j.past_backoff_limit_on_failure(spec, [restarting])
    restarting["status"]["containerStatuses"][0]["restartCount"] = 1
    assert not j.past_backoff_limit_on_failure(spec, [restarting])


def test_indexed_job_creates_lowest_pending_indexes_with_hostname_and_env():
    spec = job(completions=5, parallelism=3, completionMode="Indexed")
    spec["status"] = {"startTime": timestamp(0), "completedIndexes": "0"}
    sync = j.sync_job(spec, [pod("pi-2-x", index=2)], None, now=1)
    assert sync.create == [1, 3]
    template, generate_name = j.job_pod_template(spec, 3)
    assert generate_name == "pi-3-"
    assert template["spec"]["hostname"] == "pi-3"
    assert template["metadata"]["annotations"][j.JOB_COMPLETION_INDEX_ANNOTATION] == "3"
    assert template["metadata"]["labels"][j.JOB_COMPLETION_INDEX_ANNOTATION] == "3"
    assert template["metadata"]["finalizers"] == [j.JOB_TRACKING_FINALIZER]
    env = template["spec"]["containers"][0]["env"][0]
    assert env["name"] == "JOB_COMPLETION_INDEX"
    assert (
        env["valueFrom"]["fieldRef"]["fieldPath"]
        == "metadata.labels['batch.kubernetes.io/job-completion-index']"
    )


def test_backoff_limit_per_index_marks_the_index_failed():
    spec = job(completions=2, parallelism=2, completionMode="Indexed", backoffLimitPerIndex=1)
    spec["status"] = {"startTime": timestamp(0)}
    first = pod("pi-0-a", "Failed", index=0, finished_at=5, exit_code=1)
    first["metadata"]["annotations"][j.JOB_INDEX_FAILURE_COUNT_ANNOTATION] = "0"
    assert not j.is_index_failed(spec, first)
    assert j.new_index_failure_counts(spec, first) == (1, 0)
    second = pod("pi-0-b", "Failed", index=0, finished_at=30, exit_code=1)
    second["metadata"]["annotations"][j.JOB_INDEX_FAILURE_COUNT_ANNOTATION] = "1"
    assert j.is_index_failed(spec, second)
    assert j.backoff_limit(spec) == 2**31 - 1
    succeeded = pod("pi-1-a", "Succeeded", index=1, finished_at=10)
    sync = j.sync_job(spec, [second, succeeded], None, now=31)
    assert sync.status["failedIndexes"] == "0"
    assert sync.status["completedIndexes"] == "1"
    assert [c["type"] for c in sync.status["conditions"]] == ["FailureTarget", "Failed"]
    assert sync.status["conditions"][1]["reason"] == "FailedIndexes"
    assert sync.status["conditions"][1]["message"] == "Job has failed indexes"


def test_suspend_and_resume_conditions():
    spec = job(suspend=True)
    spec["status"] = {}
    sync = j.sync_job(spec, [pod("pi-a")], None, now=3)
    assert sync.delete == ["pi-a"]
    assert "startTime" not in sync.status
    suspended = sync.status["conditions"][0]
    assert (suspended["type"], suspended["status"], suspended["reason"], suspended["message"]) == (
        "Suspended",
        "True",
        "JobSuspended",
        "Job suspended",
    )
    assert sync.events == [("Normal", "Suspended", "Job suspended")]
    resumed = j.sync_job({**job(suspend=False), "status": sync.status}, [], None, now=9)
    condition = resumed.status["conditions"][0]
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "False",
        "JobResumed",
        "Job resumed",
    )
    assert resumed.status["startTime"] == timestamp(9)
