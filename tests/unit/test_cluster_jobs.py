"""Jobs in the multi-Pod engine: the Job controller's rules (controllers/rules/job.py)
applied to real Pod lifecycles."""

from __future__ import annotations

from webapp.engine import Simulation
from webapp.kubectl import pod_columns
from webapp.kubectl.workloads import get_jobs

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: work
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
        command: ["sh", "-c", "sleep 5; exit 1"]
"""


def job_events(sim) -> list[tuple[float, str, str, str]]:
    return [
        (e["lastTimestamp"], e["type"], e["reason"], e["message"])
        for e in sim.events()
        if e["involvedObject"]["kind"] == "Job"
    ]


def conditions(sim) -> list[tuple[str, str]]:
    return [(c["type"], c["reason"]) for c in sim.objects("Job")[0]["status"].get("conditions", [])]


def test_never_makes_new_pods_with_the_back_off_until_the_backoff_limit() -> None:
    sim = Simulation.from_yaml(JOB)
    sim.advance(120)
    events = job_events(sim)
    creates = [e for e in events if e[2] == "SuccessfulCreate"]
    assert len(creates) == 3  # the first Pod and backoffLimit (2) replacements
    pods = sim.objects("Pod")
    assert [pod_columns(p, sim.wall_time())["STATUS"] for p in pods] == ["Error"] * 3
    assert all(p["metadata"]["name"].startswith("work-") for p in pods)
    assert all("finalizers" not in p["metadata"] for p in pods)  # counted and released
    # 10 s, then 20 s, between a failure and the next Pod
    finished = [
        p["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] for p in pods
    ]
    created = [e[0] for e in creates]
    gaps = [
        (int(created[i + 1][17:19]) + 60 * int(created[i + 1][14:16]))
        - (int(finished[i][17:19]) + 60 * int(finished[i][14:16]))
        for i in range(2)
    ]
    assert gaps == [10, 20]
    assert events[-1][1:] == ("Warning", "BackoffLimitExceeded",
                              "Job has reached the specified backoff limit")  # fmt: skip
    assert conditions(sim) == [
        ("FailureTarget", "BackoffLimitExceeded"), ("Failed", "BackoffLimitExceeded")
    ]  # fmt: skip
    assert get_jobs(sim.objects("Job"), sim.wall_time()).splitlines()[1].split()[:3] == [
        "work", "Failed", "0/1"
    ]  # fmt: skip


def test_on_failure_restarts_the_container_in_the_same_pod() -> None:
    sim = Simulation.from_yaml(JOB.replace("restartPolicy: Never", "restartPolicy: OnFailure"))
    sim.advance(200)
    assert len([e for e in job_events(sim) if e[2] == "SuccessfulCreate"]) == 1
    assert conditions(sim)[-1] == ("Failed", "BackoffLimitExceeded")


def test_completions_and_parallelism_succeed_with_complete() -> None:
    text = JOB.replace("  backoffLimit: 2\n", "  completions: 3\n  parallelism: 2\n").replace(
        "sleep 5; exit 1", "sleep 3"
    )
    sim = Simulation.from_yaml(text)
    sim.advance(1)
    assert len(sim.objects("Pod")) == 2  # parallelism
    sim.advance(70)
    pods = sim.objects("Pod")
    assert [pod_columns(p, sim.wall_time())["STATUS"] for p in pods] == ["Completed"] * 3
    assert conditions(sim) == [("SuccessCriteriaMet", "CompletionsReached"),
                               ("Complete", "CompletionsReached")]  # fmt: skip
    assert job_events(sim)[-1][1:] == ("Normal", "Completed", "Job completed")
    row = get_jobs(sim.objects("Job"), sim.wall_time()).splitlines()[1].split()
    assert row[:3] == ["work", "Complete", "3/3"]


def test_an_indexed_job_names_its_pods_by_index() -> None:
    text = JOB.replace(
        "  backoffLimit: 2\n", "  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n"
    ).replace("sleep 5; exit 1", "sleep 2")
    sim = Simulation.from_yaml(text)
    sim.advance(60)
    pods = sim.objects("Pod")
    indexes = sorted(
        p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] for p in pods
    )
    assert indexes == ["0", "1", "2"]
    for pod in pods:
        index = pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"]
        assert pod["metadata"]["name"].startswith(f"work-{index}-")
        assert pod["spec"]["hostname"] == f"work-{index}"
    assert sim.objects("Job")[0]["status"]["completedIndexes"] == "0-2"


def test_a_pod_failure_policy_fails_the_job_on_an_exit_code() -> None:
    text = JOB.replace(
        "  backoffLimit: 2\n",
        "  backoffLimit: 6\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n"
        "      onExitCodes:\n        containerName: work\n        operator: In\n        values: [42]\n",
    ).replace("exit 1", "exit 42")
    sim = Simulation.from_yaml(text)
    sim.advance(60)
    assert len([e for e in job_events(sim) if e[2] == "SuccessfulCreate"]) == 1
    last = sim.objects("Job")[0]["status"]["conditions"][-1]
    assert (last["type"], last["reason"]) == ("Failed", "PodFailurePolicy")
    assert "exit code 42" in last["message"]


def test_ttl_after_finished_deletes_the_job_and_its_pods() -> None:
    text = JOB.replace("  backoffLimit: 2\n", "  ttlSecondsAfterFinished: 30\n").replace(
        "sleep 5; exit 1", "true"
    )
    sim = Simulation.from_yaml(text)
    sim.advance(10)
    assert sim.objects("Job") and sim.objects("Pod")
    sim.advance(60)
    assert sim.objects("Job") == [] and sim.objects("Pod") == []


def test_a_job_template_must_not_restart_always() -> None:
    import pytest

    from webapp.manifest import ScenarioError

    with pytest.raises(ScenarioError) as caught:
        Simulation.from_yaml(JOB.replace("restartPolicy: Never", "restartPolicy: Always"))
    (error,) = caught.value.errors
    assert (error["path"], error["code"]) == ("spec.template.spec.restartPolicy", "enum")
