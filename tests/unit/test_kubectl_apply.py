"""`apply` is `kubectl apply` on the running run (issue 17 item 3, engine/kubectl_apply.py):
the three-way merge with the last-applied annotation, the lines kubectl prints, the API
server's refusals (ValidatePodUpdate's rules, ported from TestValidatePodUpdate in
kubernetes/kubernetes pkg/apis/core/validation/validation_test.go, its case names kept),
the kubelet's restart of a container whose image changed, a Deployment's rollout to
revision 2, Job patches, atomic batches and replay."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.unit.engine_support import APP, events, pod_yaml, scenario, simulate, simulation_doc
from webapp.engine import ActionError, Simulation
from webapp.engine.kubectl_apply import (
    LAST_APPLIED,
    POD_UPDATE_FORBIDDEN,
    modified_configuration,
    update_object,
    validate_pod_update,
)
from webapp.kubectl.workloads import get_replicasets
from webapp.manifest import parse_scenario

DOCS = Path(__file__).parent / "data" / "docs"
# kubernetes/website content/en/examples/controllers/nginx-deployment.yaml
NGINX = (DOCS / "nginx-deployment.yaml").read_text(encoding="utf-8")
NGINX_NEW = NGINX.replace("nginx:1.14.2", "nginx:1.16.1")
IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n  nginx:1.28: {pullSeconds: 3}\n"
CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {level: info}\n"
FORBIDDEN_LINE = (
    'The Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than '
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)
MISSING = (
    "Warning: resource {resource}/{name} is missing the "
    "kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl "
    "apply. kubectl apply should only be used on resources created declaratively by either "
    "kubectl create --save-config or kubectl apply. The missing annotation will be patched "
    "automatically."
)


def apply(sim, text: str) -> list[str]:
    sim.act({"action": "apply", "yaml": text})
    return sim.apply_result


def pod_run() -> Simulation:
    return simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 10)


def trace(sim) -> str:
    return json.dumps(sim.trace(), sort_keys=True, default=str)


# -- what kubectl prints ------------------------------------------------------------------


def test_the_lines_read_as_kubectl_prints_them() -> None:
    sim = pod_run()
    pod = pod_yaml(APP)
    assert apply(sim, pod) == [MISSING.format(resource="pods", name="web"), "pod/web configured"]
    assert apply(sim, pod) == ["pod/web unchanged"]
    assert apply(sim, CONFIG) == ["configmap/cfg created"]
    assert apply(sim, CONFIG + "---\n" + pod) == ["configmap/cfg unchanged", "pod/web unchanged"]
    assert apply(sim, CONFIG.replace("info", "debug")) == ["configmap/cfg configured"]


def test_the_last_applied_configuration_is_what_kubectl_writes() -> None:
    """GetModifiedConfiguration: sorted compact JSON, ``annotations: {}`` when there were
    none, a newline at the end, HTML characters escaped as Go's encoder does."""
    desired = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
               "data": {"cmd": "a && b > c"}}  # fmt: skip
    modified = modified_configuration(desired)
    assert modified["metadata"]["annotations"][LAST_APPLIED] == (
        '{"apiVersion":"v1","data":{"cmd":"a \\u0026\\u0026 b \\u003e c"},"kind":"ConfigMap",'
        '"metadata":{"annotations":{},"name":"c"}}\n'
    )
    assert desired["metadata"] == {"name": "c"}  # the input is not changed


def test_an_unchanged_object_stays_unchanged() -> None:
    sim = pod_run()
    apply(sim, pod_yaml(APP))
    before = sim.pod()["metadata"]["resourceVersion"]
    versions = len(sim.pod_versions)
    assert apply(sim, pod_yaml(APP)) == ["pod/web unchanged"]
    assert sim.pod()["metadata"]["resourceVersion"] == before
    assert len(sim.pod_versions) == versions


def test_a_changed_config_map_is_stored() -> None:
    sim = pod_run()
    apply(sim, CONFIG)
    apply(sim, CONFIG.replace("info", "debug"))
    stored = sim.config_maps["cfg"]
    assert stored["data"] == {"level": "debug"}
    last = json.loads(stored["metadata"]["annotations"][LAST_APPLIED])
    assert last["data"] == {"level": "debug"}


def test_a_field_dropped_from_the_file_is_deleted_from_the_object() -> None:
    """The three-way merge deletes what the last applied configuration had and the file
    no longer has (a key kubectl never wrote stays)."""
    sim = pod_run()
    apply(sim, CONFIG.replace("{level: info}", "{level: info, extra: x}"))
    sim.config_maps["cfg"]["metadata"].setdefault("labels", {})["owner"] = "someone-else"
    assert apply(sim, CONFIG) == ["configmap/cfg configured"]
    stored = sim.config_maps["cfg"]
    assert stored["data"] == {"level": "info"}
    assert stored["metadata"]["labels"] == {"owner": "someone-else"}


# -- Pods: the kubelet and the API server's rules -----------------------------------------


def test_a_pods_image_change_restarts_that_container_as_the_kubelet_does() -> None:
    """Killing "definition changed", then the new image's Pulling and Pulled, then the
    second Created and Started (the event recorder counts a repeat on the same Event)."""
    sim = pod_run()
    assert apply(sim, pod_yaml(APP.replace("1.27", "1.28")))[-1] == "pod/web configured"
    sim.advance(60)
    by = {(e["reason"], e["message"].split(" in ")[0]): e for e in sim.events()}
    killing = by[("Killing", "Container app definition changed, will be restarted")]
    pulling = by[("Pulling", 'Pulling image "nginx:1.28"')]
    pulled = by[("Pulled", 'Successfully pulled image "nginx:1.28"')]
    created, started = by[("Created", "Container created")], by[("Started", "Container started")]
    assert killing["firstTimestamp"] == pulling["firstTimestamp"] == "2026-01-01T00:00:10Z"
    assert pulled["firstTimestamp"] == "2026-01-01T00:00:13Z"
    assert (created["count"], created["lastTimestamp"]) == (2, "2026-01-01T00:00:13Z")
    assert (started["count"], started["lastTimestamp"]) == (2, "2026-01-01T00:00:13Z")
    status = sim.pod()["status"]["containerStatuses"][0]
    assert (status["image"], status["restartCount"]) == ("nginx:1.28", 1)


def test_an_immutable_pod_field_is_refused_with_the_api_servers_message() -> None:
    sim = pod_run()
    before = trace(sim)
    with pytest.raises(ActionError) as refused:
        apply(sim, pod_yaml(APP + "  ports:\n  - containerPort: 8080\n"))
    assert refused.value.code == "pod_update_forbidden"
    assert refused.value.params["kubectl"] == FORBIDDEN_LINE
    assert refused.value.message == FORBIDDEN_LINE.removeprefix("The ")
    status = refused.value.params["status"]
    assert (status["code"], status["reason"]) == (422, "Invalid")
    assert status["details"]["causes"] == [
        {"reason": "FieldValueForbidden", "field": "spec",
         "message": f"Forbidden: {POD_UPDATE_FORBIDDEN}"}
    ]  # fmt: skip
    assert trace(sim) == before and sim.actions == []


def test_a_batch_with_one_refused_object_changes_nothing() -> None:
    sim = pod_run()
    before = trace(sim)
    config_maps = copy.deepcopy(sim.config_maps)
    bad = (
        CONFIG
        + "---\n"
        + pod_yaml(APP.replace("nginx:1.27", "nginx:1.28") + "  ports:\n  - containerPort: 1\n")
    )
    with pytest.raises(ActionError):
        apply(sim, bad)
    assert trace(sim) == before
    assert sim.config_maps == config_maps and sim.actions == []


BASE_SPEC = {
    "containers": [{"name": "autoadded", "image": "image", "terminationMessagePolicy": "File",
                    "imagePullPolicy": "Always"}],
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
}  # fmt: skip


def spec(**fields) -> dict:
    """podtest.MakePod's spec with ``fields`` set (containers given as (name, image))."""
    made = copy.deepcopy(BASE_SPEC)
    for key, value in fields.items():
        if key in ("containers", "initContainers"):
            value = [c if isinstance(c, dict) else
                     {"name": c[0], "image": c[1], "terminationMessagePolicy": "File",
                      "imagePullPolicy": "IfNotPresent"} for c in value]  # fmt: skip
        made[key] = value
    return made


def tol(key: str, value: str, effect: str = "", seconds: int | None = None) -> dict:
    found = {"key": key, "value": value}
    if effect:
        found.update(operator="Equal", effect=effect)
    if seconds is not None:
        found["tolerationSeconds"] = seconds
    return found


def gates(*names: str) -> list[dict]:
    return [{"name": n} for n in names]


def resources(limits: dict | None = None, requests: dict | None = None) -> list:
    res = {}
    if limits:
        res["limits"] = limits
    if requests:
        res["requests"] = requests
    return [{"name": "container", "image": "image", "terminationMessagePolicy": "File",
             "imagePullPolicy": "IfNotPresent", "resources": res}]  # fmt: skip


# (test, new spec, old spec, the error the aggregate contains; "" none)
POD_UPDATE_CASES = [
    ("nothing", spec(), spec(), ""),
    ("less containers", spec(containers=[("foo", "foo:V2")]),
     spec(containers=[("foo", "foo:V1"), ("bar", "bar:V1")]), "may not add or remove containers"),
    ("more containers", spec(containers=[("foo", "foo:V2"), ("bar", "bar:V2")]),
     spec(containers=[("foo", "foo:V1")]), "may not add or remove containers"),
    ("more init containers", spec(initContainers=[("foo", "foo:V2")]),
     spec(initContainers=[("foo", "foo:V1"), ("bar", "bar:V1")]), "may not add or remove containers"),
    ("image change", spec(containers=[("container", "foo:V1")]),
     spec(containers=[("container", "foo:V2")]), ""),
    ("init container image change", spec(initContainers=[("container", "foo:V1")]),
     spec(initContainers=[("container", "foo:V2")]), ""),
    ("image change to empty", spec(containers=[("container", "")]),
     spec(containers=[("container", "foo:V2")]), "spec.containers[0].image"),
    ("init container image change to empty", spec(initContainers=[("container", "")]),
     spec(initContainers=[("container", "foo:V2")]), "spec.initContainers[0].image"),
    ("activeDeadlineSeconds no change, nil", spec(), spec(), ""),
    ("activeDeadlineSeconds no change, set", spec(activeDeadlineSeconds=30),
     spec(activeDeadlineSeconds=30), ""),
    ("activeDeadlineSeconds change to positive from nil", spec(activeDeadlineSeconds=30), spec(), ""),
    ("activeDeadlineSeconds change to smaller positive", spec(activeDeadlineSeconds=30),
     spec(activeDeadlineSeconds=31), ""),
    ("activeDeadlineSeconds change to larger positive", spec(activeDeadlineSeconds=31),
     spec(activeDeadlineSeconds=30), "spec.activeDeadlineSeconds"),
    ("activeDeadlineSeconds change to negative from nil", spec(activeDeadlineSeconds=-30), spec(),
     "spec.activeDeadlineSeconds"),
    ("activeDeadlineSeconds change to negative from positive", spec(activeDeadlineSeconds=-30),
     spec(activeDeadlineSeconds=30), "spec.activeDeadlineSeconds"),
    ("activeDeadlineSeconds change to zero from positive", spec(activeDeadlineSeconds=0),
     spec(activeDeadlineSeconds=30), "spec.activeDeadlineSeconds"),
    ("activeDeadlineSeconds change to zero from nil", spec(activeDeadlineSeconds=0), spec(),
     "spec.activeDeadlineSeconds"),
    ("activeDeadlineSeconds change to nil from positive", spec(), spec(activeDeadlineSeconds=30),
     "spec.activeDeadlineSeconds"),
    ("cpu limit change", spec(containers=resources({"cpu": "200m"})),
     spec(containers=resources({"cpu": "100m"})), "spec: Forbidden: pod updates may not change fields"),
    ("memory limit change", spec(containers=resources({"memory": "100Mi"})),
     spec(containers=resources({"memory": "200Mi"})), "spec: Forbidden: pod updates may not change fields"),
    ("cpu request change", spec(containers=resources(requests={"cpu": "100m"})),
     spec(containers=resources(requests={"cpu": "200m"})), "spec: Forbidden: pod updates may not change fields"),
    ("port change",
     spec(containers=[{**resources()[0], "ports": [{"hostPort": 8080, "containerPort": 80}]}]),
     spec(containers=[{**resources()[0], "ports": [{"hostPort": 8000, "containerPort": 80}]}]),
     "spec: Forbidden: pod updates may not change fields"),
    ("existing toleration value modified in pod spec updates",
     spec(nodeName="node1", tolerations=[tol("key1", "value2")]),
     spec(nodeName="node1", tolerations=[tol("key1", "value1")]), "spec.tolerations: Forbidden"),
    ("existing toleration value modified in pod spec updates with modified tolerationSeconds",
     spec(nodeName="node1", tolerations=[tol("key1", "value2", "NoExecute")]),
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 10)]),
     "spec.tolerations: Forbidden"),
    ("modified tolerationSeconds in existing toleration value in pod spec updates",
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 10)]),
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 20)]), ""),
    ("toleration modified in updates to an unscheduled pod",
     spec(tolerations=[tol("key1", "value2")]),
     spec(nodeName="", tolerations=[tol("key1", "value1")]), "spec.tolerations: Forbidden"),
    ("tolerations unmodified in updates to a scheduled pod",
     spec(nodeName="node1", tolerations=[tol("key1", "value1")]),
     spec(nodeName="node1", tolerations=[tol("key1", "value1")]), ""),
    ("added valid new toleration to existing tolerations in pod spec updates",
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 20),
                                         tol("key2", "value2", "NoExecute", 30)]),
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 10)]), ""),
    ("added invalid new toleration to existing tolerations in pod spec updates",
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 20),
                                         tol("key2", "value2", "NoSchedule", 30)]),
     spec(nodeName="node1", tolerations=[tol("key1", "value1", "NoExecute", 10)]),
     "spec.tolerations[1].effect"),
    ("removed nodeName from pod spec", spec(nodeName="foo"), spec(),
     "spec: Forbidden: pod updates may not change fields"),
    ("changed priority class name", spec(nodeName="node1", priorityClassName="bar-priority"),
     spec(nodeName="node1", priorityClassName="foo-priority"), "spec: Forbidden: pod updates"),
    ("removed priority class name", spec(nodeName="node1", priorityClassName=""),
     spec(nodeName="node1", priorityClassName="foo-priority"), "spec: Forbidden: pod updates"),
    ("update termination grace period seconds", spec(terminationGracePeriodSeconds=1),
     spec(terminationGracePeriodSeconds=-1), ""),
    ("update termination grace period seconds not 1", spec(terminationGracePeriodSeconds=0),
     spec(terminationGracePeriodSeconds=-1), "spec: Forbidden: pod updates"),
    ("update pod spec schedulingGates: add new scheduling gate", spec(schedulingGates=gates("foo")),
     spec(), "Forbidden: only deletion is allowed, but found new scheduling gate 'foo'"),
    ("update pod spec schedulingGates: mutating an existing scheduling gate",
     spec(schedulingGates=gates("bar")), spec(schedulingGates=gates("foo")),
     "Forbidden: only deletion is allowed, but found new scheduling gate 'bar'"),
    ("update pod spec schedulingGates: mutating an existing scheduling gate along with deletion",
     spec(schedulingGates=gates("baz")), spec(schedulingGates=gates("foo", "bar")),
     "Forbidden: only deletion is allowed, but found new scheduling gate 'baz'"),
    ("update pod spec schedulingGates: legal deletion", spec(), spec(schedulingGates=gates("foo")), ""),
    ("adding node selector is allowed for gated pods",
     spec(nodeSelector={"foo": "bar"}, schedulingGates=gates("baz")),
     spec(schedulingGates=gates("baz")), ""),
    ("adding node selector is not allowed for non-gated pods",
     spec(nodeSelector={"foo": "bar", "foo2": "bar2"}), spec(nodeSelector={"foo": "bar"}),
     "Forbidden: pod updates may not change fields other than `spec.containers[*].image"),
    ("removing node selector is not allowed for gated pods", spec(schedulingGates=gates("baz")),
     spec(nodeSelector={"foo": "bar"}, schedulingGates=gates("baz")),
     "spec.nodeSelector: Invalid value:"),
    ("removing node selector is not allowed for non-gated pods", spec(),
     spec(nodeSelector={"foo": "bar"}),
     "Forbidden: pod updates may not change fields other than `spec.containers[*].image"),
    ("old pod spec has scheduling gate, new pod spec does not, and node selector is added",
     spec(nodeSelector={"foo": "bar", "foo2": "bar2"}),
     spec(nodeSelector={"foo": "bar"}, schedulingGates=gates("baz")), ""),
    ("modifying value of existing node selector is not allowed",
     spec(nodeSelector={"foo": "new value"}, schedulingGates=gates("baz")),
     spec(nodeSelector={"foo": "bar"}, schedulingGates=gates("baz")),
     "spec.nodeSelector: Invalid value:"),
]  # fmt: skip


@pytest.mark.parametrize(("test", "new", "old", "err"), POD_UPDATE_CASES,
                         ids=[c[0] for c in POD_UPDATE_CASES])  # fmt: skip
def test_validate_pod_update(test: str, new: dict, old: dict, err: str) -> None:
    """TestValidatePodUpdate's spec cases: errs.ToAggregate().Error() contains ``err``."""
    errors = validate_pod_update(new, old)
    text = ", ".join(f"{e['field']}: {e['body']}" for e in errors)
    if err:
        assert errors and err in text, (test, text)
    else:
        assert errors == [], (test, text)


# -- workloads ----------------------------------------------------------------------------


def test_a_deployment_whose_template_changed_rolls_out_revision_2() -> None:
    """The docs' nginx-deployment (deployment.md), applied, played 30 s, then applied with
    nginx:1.16.1: revision 2 rolls out while the clock goes on, the old ReplicaSet is scaled
    down by the rolling update's rules, and ``get rs`` shows both, as deployment.md does."""
    sim = Simulation.from_yaml(NGINX)
    assert apply(sim, NGINX)[-1] == "deployment.apps/nginx-deployment configured"
    sim.advance(30)
    (old_rs,) = sim.objects("ReplicaSet")
    old_pods = {p["metadata"]["name"] for p in sim.objects("Pod")}
    assert apply(sim, NGINX_NEW) == ["deployment.apps/nginx-deployment configured"]
    assert sim.now == 30.0
    deployment = sim.objects("Deployment")[0]
    assert deployment["metadata"]["generation"] == 2
    sim.advance(60)
    deployment = sim.objects("Deployment")[0]
    assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    by_name = {rs["metadata"]["name"]: rs for rs in sim.objects("ReplicaSet")}
    assert len(by_name) == 2
    new_rs = next(rs for name, rs in by_name.items() if name != old_rs["metadata"]["name"])
    assert new_rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert new_rs["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.16.1"
    printed = get_replicasets(sim.objects("ReplicaSet"), sim.wall_time()).splitlines()
    assert printed[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    counts = {line.split()[0]: line.split()[1:4] for line in printed[1:]}
    assert counts == {new_rs["metadata"]["name"]: ["3", "3", "3"],
                      old_rs["metadata"]["name"]: ["0", "0", "0"]}  # fmt: skip
    assert not old_pods & {p["metadata"]["name"] for p in sim.objects("Pod")}
    killed = {e["involvedObject"]["name"] for e in events(sim, "Killing")}
    assert killed == old_pods
    scaled = [e["message"] for e in events(sim, "ScalingReplicaSet")]
    assert f"Scaled up replica set {new_rs['metadata']['name']} to 1" in scaled
    assert f"Scaled down replica set {old_rs['metadata']['name']} to 0 from 1" in scaled


def test_an_unchanged_deployment_is_not_written() -> None:
    sim = Simulation.from_yaml(NGINX)
    apply(sim, NGINX)
    sim.advance(10)
    before = trace(sim)
    assert apply(sim, NGINX) == ["deployment.apps/nginx-deployment unchanged"]
    assert trace(sim) == before


def test_a_changed_selector_is_refused_and_nothing_changes() -> None:
    sim = Simulation.from_yaml(NGINX)
    sim.advance(10)
    before = trace(sim)
    with pytest.raises(ActionError) as refused:
        apply(sim, CONFIG + "---\n" + NGINX.replace("app: nginx", "app: web"))
    assert refused.value.params["kubectl"].startswith(
        'The Deployment "nginx-deployment" is invalid: spec.selector: Invalid value: '
        'v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}'
    )
    assert refused.value.message.startswith('Deployment.apps "nginx-deployment" is invalid: ')
    assert trace(sim) == before and "cfg" not in sim.config_maps


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: sleeper
spec:
  parallelism: 1
  completions: 4
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: sleep
        image: busybox:1.36
        command: ["sleep", "20"]
"""


def test_a_job_takes_suspend_and_parallelism_patches() -> None:
    sim = Simulation.from_yaml(NGINX)
    assert apply(sim, JOB) == ["job.batch/sleeper created"]
    sim.advance(5)
    assert [p for p in sim.objects("Pod") if p["metadata"]["name"].startswith("sleeper")] == []
    resumed = JOB.replace("suspend: true", "suspend: false").replace(
        "parallelism: 1", "parallelism: 2"
    )
    assert apply(sim, resumed) == ["job.batch/sleeper configured"]
    sim.advance(5)
    running = [p for p in sim.objects("Pod") if p["metadata"]["name"].startswith("sleeper-")]
    assert len(running) == 2
    (job,) = sim.objects("Job")
    assert (job["spec"]["parallelism"], job["spec"]["suspend"]) == (2, False)


def test_a_jobs_template_is_immutable() -> None:
    sim = Simulation.from_yaml(NGINX)
    apply(sim, JOB)
    with pytest.raises(ActionError) as refused:
        apply(sim, JOB.replace("busybox:1.36", "busybox:1.37"))
    assert refused.value.params["kubectl"].startswith(
        'The Job "sleeper" is invalid: spec.template: Invalid value: '
    )
    assert refused.value.params["kubectl"].endswith(": field is immutable")


def test_a_pod_scenario_refuses_a_deployment_and_says_how_to_run_one() -> None:
    sim = pod_run()
    with pytest.raises(ActionError) as refused:
        apply(sim, NGINX)
    assert refused.value.code == "apply_kind"
    assert "start over from this YAML" in refused.value.message


# -- the action log -----------------------------------------------------------------------


def test_a_replay_with_apply_actions_is_the_same_run() -> None:
    live = Simulation.from_yaml(NGINX)
    live.advance(12)
    apply(live, NGINX + "---\n" + CONFIG)
    live.advance(18)
    apply(live, NGINX_NEW)
    live.advance(40)
    again = Simulation.replay(parse_scenario(NGINX), live.actions, until=live.now)
    assert trace(again) == trace(live)
    assert again.apply_result == live.apply_result
    pod = Simulation.from_yaml(scenario(pod_yaml(APP), simulation_doc(IMAGES)))
    pod.advance(10)
    apply(pod, pod_yaml(APP.replace("1.27", "1.28")))
    pod.advance(20)
    replayed = Simulation.replay(pod.scenario, pod.actions, until=pod.now)
    assert trace(replayed) == trace(pod)


def test_an_apply_of_500_objects_is_a_located_error_within_the_bounds() -> None:
    """docs/limits.md: an apply holds at most 20 documents (yaml_reader.MAX_DOCUMENTS)."""
    sim = Simulation.from_yaml(NGINX)
    sim.advance(5)
    before = trace(sim)
    many = "---\n".join(CONFIG.replace("name: cfg", f"name: c{i}") for i in range(500))
    with pytest.raises(ActionError) as refused:
        apply(sim, many)
    (first, *_) = refused.value.params["errors"]
    assert first["code"] == "too_many_documents"
    assert first["line"] == 20 * (CONFIG.count("\n") + 1)  # the `---` of the 21st
    assert trace(sim) == before and sim.actions == []


def test_update_object_writes_one_object_as_a_put_does() -> None:
    sim = Simulation.from_yaml(NGINX)
    sim.advance(5)
    (deployment,) = sim.objects("Deployment")
    assert update_object(sim, deployment).verb == "unchanged"
    changed = copy.deepcopy(deployment)
    changed["spec"]["replicas"] = 5
    assert update_object(sim, changed).verb == "configured"
    sim.advance(10)
    assert len(sim.objects("Pod")) == 5
    assert sim.actions == []  # not an action of the log (see its docstring)


def test_a_pod_of_a_replica_set_takes_an_image_change_in_the_cluster_run() -> None:
    """The cluster run's Pods are updated as a Pod scenario's is: the kubelet restarts the
    container whose image changed (the ReplicaSet does not mind: its template is its own)."""
    sim = Simulation.from_yaml(NGINX)
    sim.advance(20)
    name = sim.objects("Pod")[0]["metadata"]["name"]
    desired = (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: nginx}}\n"
        "spec:\n  containers:\n  - name: nginx\n    image: nginx:1.16.1\n"
    )
    assert apply(sim, desired) == [
        MISSING.format(resource="pods", name=name),
        f"pod/{name} configured",
    ]
    sim.advance(30)
    status = sim.pod(name)["status"]["containerStatuses"][0]
    assert (status["image"], status["restartCount"]) == ("nginx:1.16.1", 1)
    killing = [e["message"] for e in events(sim, "Killing") if e["involvedObject"]["name"] == name]
    assert killing == ["Container nginx definition changed, will be restarted"]
    assert len(sim.objects("ReplicaSet")) == 1  # no rollout: the Deployment did not change


def test_a_services_ports_merge_by_port_and_its_endpoints_follow() -> None:
    sim = Simulation.from_yaml(NGINX)
    sim.advance(20)
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: nginx}\n"
        "  ports:\n  - {name: http, port: 80, targetPort: 80}\n"
    )
    assert apply(sim, service) == ["service/web created"]
    more = service + "  - {name: tls, port: 443, targetPort: 80}\n"
    assert apply(sim, more) == ["service/web configured"]
    assert [p["port"] for p in sim.services["web"]["spec"]["ports"]] == [80, 443]
    assert [p["name"] for p in sim.endpoint_slices()[0]["ports"]] == ["http", "tls"]
    assert apply(sim, service) == ["service/web configured"]  # the dropped port is deleted
    assert [p["port"] for p in sim.services["web"]["spec"]["ports"]] == [80]
