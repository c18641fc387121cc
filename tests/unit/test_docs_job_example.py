"""The Jobs page's example (kubernetes/website content/en/examples/controllers/job.yaml),
pasted unchanged, behaves as content/en/docs/concepts/workloads/controllers/job.md shows:
the Job completes (COMPLETIONS 1/1), its one Pod is Completed, the describe events are the
job-controller's, and ``kubectl logs`` prints pi to 2000 digits exactly as perl does."""

from __future__ import annotations

import re
from pathlib import Path

from webapp.engine import Simulation
from webapp.engine.programs import derive
from webapp.engine.programs.bignum import bpi, perl_bpi_digits
from webapp.engine.programs.describe import describe
from webapp.kubectl import kubectl_logs, logs_text, pod_columns
from webapp.kubectl.workloads import describe_job, events_of_object, get_jobs

# content/en/examples/controllers/job.yaml, byte for byte
JOB_YAML = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
"""
# job.md, "View the standard output of one of the pods" (kubectl logs $pods)
DOCS_LOG = (Path(__file__).parent / "data" / "job-pi-log.txt").read_text().strip()


def run_job(seconds: float = 60) -> Simulation:
    sim = Simulation.from_yaml(JOB_YAML)
    sim.advance(seconds)
    return sim


def test_the_docs_job_completes_with_completions_1_of_1() -> None:
    sim = run_job()
    header, row = get_jobs(sim.objects("Job"), sim.wall_time()).splitlines()
    assert header.split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    name, status, completions, duration, _age = row.split()
    assert (name, status, completions) == ("pi", "Complete", "1/1")
    # "It takes around 10s to complete" (the page's own run took 65 s with its pull)
    assert 10 <= int(duration.removesuffix("s")) <= 65


def test_its_pod_is_completed_and_named_like_the_pages() -> None:
    sim = run_job()
    (pod,) = sim.objects("Pod")
    assert re.fullmatch(r"pi-[a-z0-9]{5}", pod["metadata"]["name"])  # the page: pi-5rwd7
    columns = pod_columns(pod, sim.wall_time())
    assert (columns["READY"], columns["STATUS"], columns["RESTARTS"]) == ("0/1", "Completed", "0")
    assert pod["metadata"]["labels"]["job-name"] == "pi"  # --selector=job-name=pi finds it


def test_kubectl_logs_prints_pi_to_2000_digits_as_the_page_shows() -> None:
    sim = run_job()
    (pod,) = sim.objects("Pod")
    name = pod["metadata"]["name"]
    sim.focus(name)
    text = logs_text(kubectl_logs(pod, name, sim.logs_by_container_id()))
    assert text == DOCS_LOG
    assert len(text) == 2001  # "3." and 1999 decimals: 2000 significant digits


def test_describe_job_shows_the_job_controllers_events_and_counts() -> None:
    sim = run_job()
    (job,) = sim.objects("Job")
    (pod,) = sim.objects("Pod")
    events = events_of_object(job, "Job", sim.events())
    text = describe_job(job, events, sim.wall_time())
    lines = [re.sub(r"\s+", " ", line.strip()) for line in text.splitlines()]
    for line in ("Name: pi", "Parallelism: 1", "Completions: 1", "Backoff Limit: 4",
                 "Pods Statuses: 0 Active (0 Ready) / 1 Succeeded / 0 Failed",
                 "Image: perl:5.34.0"):  # fmt: skip
        assert line in lines
    at = lines.index("Command:")
    assert lines[at + 1 : at + 5] == ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]
    rows = [line.split(None, 4) for line in text.split("Events:\n", 1)[1].splitlines()[2:]]
    assert [(r[0], r[1], r[3], r[4]) for r in rows] == [
        ("Normal", "SuccessfulCreate", "job-controller", f"Created pod: {pod['metadata']['name']}"),
        ("Normal", "Completed", "job-controller", "Job completed"),
    ]


def test_only_the_bpi_invocation_is_modelled() -> None:
    def derived(command):
        return derive({"name": "pi", "image": "perl:5.34.0", "command": command})

    docs = derived(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"])
    assert docs.warnings == ()
    assert describe(docs)["summary"].startswith("computes pi to 2000 digits")
    assert describe(docs, "zh")["summary"].startswith("计算 2000 位圆周率")
    for other in (["perl", "-e", "print 1"], ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)+1"],
                  ["perl", "-Mbignum=bpi", "-wle", "print bpi(99999)"]):  # fmt: skip
        (warning,) = derived(other).warnings
        assert (warning["code"], warning["field"]) == ("not_modelled", "command[0]")
        assert "not modelled" in describe(derived(other))["warnings"][0]["text"]
        assert "未建模" in describe(derived(other), "zh")["warnings"][0]["text"]


def test_bpi_rounds_to_n_significant_digits_as_math_bigfloat() -> None:
    assert [bpi(n) for n in (1, 2, 3, 5, 10)] == ["3", "3.1", "3.14", "3.1416", "3.141592654"]
    assert bpi(2000) == DOCS_LOG
    assert perl_bpi_digits(["-Mbignum=bpi", "-wle", "print bpi(2000)"]) == 2000
    assert perl_bpi_digits(["-Mbignum=bpi", "-wle", "print bpi(0)"]) is None
    assert perl_bpi_digits(["-wle", "print bpi(2000)"]) is None
