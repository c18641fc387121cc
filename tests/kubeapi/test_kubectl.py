"""The real kubectl 1.37 against a session's API: each command line with what a cluster
prints for it.

Where the output is exact on a cluster (headers, one-line results, error wording) the
pattern is the whole line; cells that move with the clock (AGE, generated names, IPs) are
matched by their form. Sources of the wording: shared/KUBE-API-NOTES.md (observed against
kubectl 1.37.1) and kubectl's own source, cited per group below.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from tests.kubeapi.conftest import HELD, Kube, make_session

POD = r"web-[0-9a-f]{8,10}-[a-z0-9]{5}"
AGE = r"\d+[smhd]\S*"

# (command line, stdout pattern, exit code, stderr pattern). Patterns are re.search with
# MULTILINE; `{pod}` is the first Pod of the web Deployment, `{pods}` its Pods' count.
READS: list[tuple[str, str, int, str]] = [
    # kubectl version (KUBE-API-NOTES §11)
    (
        "version",
        r"\AClient Version: v1\.37\.1\nKustomize Version: v5\.8\.1\nServer Version: v1\.37\.1\n\Z",
        0,
        "",
    ),
    ("version -o json", r'"gitVersion": "v1\.37\.1"', 0, ""),
    ("version -o yaml", r"serverVersion:\n(  .*\n)*  minor: \"37\"", 0, ""),
    # discovery (§1): api-versions is sorted, api-resources by group then name
    (
        "api-versions",
        r"\Aapps/v1\nauthorization\.k8s\.io/v1\nbatch/v1\ndiscovery\.k8s\.io/v1\npolicy/v1\nstorage\.k8s\.io/v1\nv1\n\Z",
        0,
        "",
    ),
    ("api-resources", r"\ANAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND\n", 0, ""),
    ("api-resources", r"^pods +po +v1 +true +Pod$", 0, ""),
    ("api-resources", r"^deployments +deploy +apps/v1 +true +Deployment$", 0, ""),
    ("api-resources", r"^poddisruptionbudgets +pdb +policy/v1 +true +PodDisruptionBudget$", 0, ""),
    (
        "api-resources --namespaced=false -o name",
        r"\Anamespaces\nnodes\npersistentvolumes\nselfsubjectaccessreviews\.authorization\.k8s\.io\nstorageclasses\.storage\.k8s\.io\n\Z",
        0,
        "",
    ),
    (
        "api-resources --api-group=apps -o name",
        r"\Adaemonsets\.apps\ndeployments\.apps\nreplicasets\.apps\nstatefulsets\.apps\n\Z",
        0,
        "",
    ),
    (
        "api-resources -o wide",
        r"^pods +po +v1 +true +Pod +create,delete,deletecollection,get,list,patch,update,watch +all$",
        0,
        "",
    ),
    (
        "api-resources --verbs=create -o name --api-group=authorization.k8s.io",
        r"\Aselfsubjectaccessreviews\.authorization\.k8s\.io\n\Z",
        0,
        "",
    ),
    # get: server-side Tables (pkg/printers/internalversion/printers.go)
    (
        "get pods",
        rf"\ANAME +READY +STATUS +RESTARTS +AGE\n({POD} +1/1 +Running +0 +{AGE}\n){{3}}\Z",
        0,
        "",
    ),
    (
        "get po -o wide",
        r"\ANAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES\n",
        0,
        "",
    ),
    (
        "get po -o wide",
        rf"^{POD} +1/1 +Running +0 +{AGE} +10\.244\.\d+\.\d+ +node-\d +<none> +<none>$",
        0,
        "",
    ),
    ("get pods -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    ("get pods --no-headers", rf"\A({POD} +1/1 +Running +0 +{AGE}\n){{3}}\Z", 0, ""),
    ("get pods -l app=web -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    ("get pods -l app!=web", r"\A\Z", 0, r"\ANo resources found in default namespace\.\n\Z"),
    ("get pods -l 'app in (web,api)' -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    ("get pods --selector=tier=fe", r"\A\Z", 0, r"No resources found in default namespace\."),
    ("get pods --field-selector status.phase=Running -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    (
        "get pods --field-selector status.phase=Pending",
        r"\A\Z",
        0,
        r"No resources found in default namespace\.",
    ),
    (
        "get pods --field-selector spec.nodeName=node-9",
        r"\A\Z",
        0,
        r"No resources found in default namespace\.",
    ),
    ("get pods --field-selector metadata.name={pod} -o name", r"\Apod/{pod}\n\Z", 0, ""),
    (
        "get pods --field-selector foo=bar",
        r"\A\Z",
        1,
        r'Error from server \(BadRequest\): Unable to find \{"" "v1" "pods"\} that match label selector "", field selector "foo=bar": field label not supported: foo|field label not supported: foo',
    ),
    ("get pods -l 'a b'", r"\A\Z", 1, r"Error from server \(BadRequest\): "),
    (
        "get pods -A",
        rf"\ANAMESPACE +NAME +READY +STATUS +RESTARTS +AGE\n(default +{POD} +1/1 +Running +0 +{AGE}\n){{3}}\Z",
        0,
        "",
    ),
    ("get pods --all-namespaces -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    ("get pods -n kube-system", r"\A\Z", 0, r"\ANo resources found in kube-system namespace\.\n\Z"),
    (
        "get pods --show-labels",
        rf"^{POD} +1/1 +Running +0 +{AGE} +app=web,pod-template-hash=[0-9a-f]+$",
        0,
        "",
    ),
    ("get pods -L app", r"\ANAME +READY +STATUS +RESTARTS +AGE +APP\n", 0, ""),
    ("get pods -o jsonpath={{.items[*].status.phase}}", r"\ARunning Running Running\Z", 0, ""),
    ("get pods -o jsonpath={{.items[0].kind}}", r"\APod\Z", 0, ""),
    (
        "get pods -o custom-columns=NAME:.metadata.name,APP:.metadata.labels.app",
        rf"\ANAME +APP\n({POD} +web\n){{3}}\Z",
        0,
        "",
    ),
    ("get pods -o json", r'\A\{\n    "apiVersion": "v1",\n    "items": \[', 0, ""),
    ("get pods -o json", r'"kind": "List"', 0, ""),
    ("get pods -o yaml", r"\AapiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n", 0, ""),
    (
        "get pod {pod} -o yaml",
        r"\AapiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: \"2026-01-01T00:00:\d\dZ\"\n",
        0,
        "",
    ),
    ("get pods --sort-by=.metadata.name -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    ("get pods --chunk-size=1 -o name", rf"\A(pod/{POD}\n){{3}}\Z", 0, ""),
    ("get deploy", rf"\ANAME +READY +UP-TO-DATE +AVAILABLE +AGE\nweb +3/3 +3 +3 +{AGE}\n\Z", 0, ""),
    (
        "get deployments.apps -o wide",
        rf"\ANAME +READY +UP-TO-DATE +AVAILABLE +AGE +CONTAINERS +IMAGES +SELECTOR\nweb +3/3 +3 +3 +{AGE} +nginx +nginx:1\.27 +app=web\n\Z",
        0,
        "",
    ),
    ("get deploy web -o jsonpath={{.spec.replicas}}", r"\A3\Z", 0, ""),
    ("get deploy web -o jsonpath={{.status.readyReplicas}}", r"\A3\Z", 0, ""),
    ("get deploy web -o name", r"\Adeployment\.apps/web\n\Z", 0, ""),
    ("get rs", rf"\ANAME +DESIRED +CURRENT +READY +AGE\nweb-[0-9a-f]+ +3 +3 +3 +{AGE}\n\Z", 0, ""),
    (
        "get replicaset -o wide",
        r"^web-[0-9a-f]+ +3 +3 +3 +\S+ +nginx +nginx:1\.27 +app=web,pod-template-hash=[0-9a-f]+$",
        0,
        "",
    ),
    (
        "get svc",
        rf"\ANAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE\nweb +ClusterIP +\d+\.\d+\.\d+\.\d+ +<none> +80/TCP +{AGE}\n\Z",
        0,
        "",
    ),
    ("get services -o wide", r"^web +ClusterIP +\S+ +<none> +80/TCP +\S+ +app=web$", 0, ""),
    (
        "get endpointslices",
        r"\ANAME +ADDRESSTYPE +PORTS +ENDPOINTS +AGE\nweb-\S+ +IPv4 +80 +10\.244\.",
        0,
        "",
    ),
    (
        "get pdb",
        rf"\ANAME +MIN AVAILABLE +MAX UNAVAILABLE +ALLOWED DISRUPTIONS +AGE\nweb-pdb +2 +N/A +1 +{AGE}\n\Z",
        0,
        "",
    ),
    (
        "get nodes",
        rf"\ANAME +STATUS +ROLES +AGE +VERSION\n(node-\d +Ready +<none> +{AGE} +v1\.\d+\.\d+\n){{3}}\Z",
        0,
        "",
    ),
    (
        "get no -o wide",
        r"\ANAME +STATUS +ROLES +AGE +VERSION +INTERNAL-IP +EXTERNAL-IP +OS-IMAGE +KERNEL-VERSION +CONTAINER-RUNTIME\n",
        0,
        "",
    ),
    ("get node node-1 -o jsonpath={{.status.addresses[0].type}}", r"\AInternalIP\Z", 0, ""),
    (
        "get ns",
        rf"\ANAME +STATUS +AGE\ndefault +Active +{AGE}\nkube-node-lease +Active +{AGE}\nkube-public +Active +{AGE}\nkube-system +Active +{AGE}\n\Z",
        0,
        "",
    ),
    ("get namespace default -o name", r"\Anamespace/default\n\Z", 0, ""),
    (
        "get sc",
        rf"\ANAME +PROVISIONER +RECLAIMPOLICY +VOLUMEBINDINGMODE +ALLOWVOLUMEEXPANSION +AGE\nstandard \(default\) +rancher\.io/local-path +Delete +WaitForFirstConsumer +false +{AGE}\n\Z",
        0,
        "",
    ),
    ("get pvc", r"\A\Z", 0, r"\ANo resources found in default namespace\.\n\Z"),
    ("get pv", r"\A\Z", 0, r"\ANo resources found\n\Z"),
    ("get jobs", r"\A\Z", 0, r"\ANo resources found in default namespace\.\n\Z"),
    ("get sts", r"\A\Z", 0, r"\ANo resources found in default namespace\.\n\Z"),
    ("get events", r"\ALAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n", 0, ""),
    (
        "get events",
        r"^\S+ +Normal +ScalingReplicaSet +deployment/web +Scaled up replica set web-[0-9a-f]+ to 3$",
        0,
        "",
    ),
    (
        "get ev --field-selector involvedObject.kind=Deployment -o name",
        r"\A(event/web\.[0-9a-f]+\n)+\Z",
        0,
        "",
    ),
    (
        "get events -o wide",
        r"\ALAST SEEN +TYPE +REASON +OBJECT +SUBOBJECT +SOURCE +MESSAGE +FIRST SEEN +COUNT +NAME\n",
        0,
        "",
    ),
    ("events", r"\ALAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n", 0, ""),
    ("events --for deployment/web", r"Scaled up replica set web-[0-9a-f]+ to 3", 0, ""),
    (
        "get all",
        r"^NAME +READY +STATUS +RESTARTS +AGE\n(pod/" + POD + r" .*\n){3}\nNAME +TYPE +CLUSTER-IP",
        0,
        "",
    ),
    ("get all", r"^deployment\.apps/web +3/3 +3 +3 ", 0, ""),
    ("get pods,deploy -o name", rf"\A(pod/{POD}\n){{3}}deployment\.apps/web\n\Z", 0, ""),
    # errors as the API server words them (apimachinery/pkg/api/errors, KUBE-API-NOTES §4)
    ("get po nope", r"\A\Z", 1, r'\AError from server \(NotFound\): pods "nope" not found\n\Z'),
    (
        "get deploy nope",
        r"\A\Z",
        1,
        r'\AError from server \(NotFound\): deployments\.apps "nope" not found\n\Z',
    ),
    (
        "get node node-9",
        r"\A\Z",
        1,
        r'\AError from server \(NotFound\): nodes "node-9" not found\n\Z',
    ),
    ("get foo", r"\A\Z", 1, r'\Aerror: the server doesn\'t have a resource type "foo"\n\Z'),
    ("get cronjobs", r"\A\Z", 1, r'the server doesn\'t have a resource type "cronjobs"'),
    # describe is rendered by kubectl itself from GETs and an events list
    (
        "describe deploy web",
        r"\AName: +web\nNamespace: +default\nCreationTimestamp: +Thu, 01 Jan 2026 00:00:00 \+0000\n",
        0,
        "",
    ),
    (
        "describe deploy web",
        r"^Replicas: +3 desired \| 3 updated \| 3 total \| 3 available \| 0 unavailable$",
        0,
        "",
    ),
    ("describe deploy web", r"^StrategyType: +RollingUpdate$", 0, ""),
    (
        "describe deploy web",
        r"^  Normal +ScalingReplicaSet +\S+ +deployment-controller +Scaled up replica set web-[0-9a-f]+ to 3$",
        0,
        "",
    ),
    ("describe pod {pod}", r"\AName: +{pod}\nNamespace: +default\n", 0, ""),
    ("describe pod {pod}", r"^Controlled By: +ReplicaSet/web-[0-9a-f]+$", 0, ""),
    (
        "describe pod {pod}",
        r"^  Normal +Scheduled +\S+ +default-scheduler +Successfully assigned default/{pod} to node-\d$",
        0,
        "",
    ),
    ("describe rs", r"^Replicas: +3 current / 3 desired$", 0, ""),
    ("describe svc web", r"^Selector: +app=web$", 0, ""),
    ("describe pdb web-pdb", r"^Min available: +2$", 0, ""),
    ("describe node node-1", r"\AName: +node-1\nRoles: +<none>\n", 0, ""),
    (
        "describe ns default",
        r"\AName: +default\nLabels: +kubernetes\.io/metadata\.name=default\n",
        0,
        "",
    ),
    (
        "describe po nope",
        r"\A\Z",
        1,
        r'\AError from server \(NotFound\): pods "nope" not found\n\Z',
    ),
    # logs (KUBE-API-NOTES §6)
    ("logs {pod}", r"Configuration complete; ready for start up", 0, ""),
    ("logs {pod} --tail=1", r"\A[^\n]+\n\Z", 0, ""),
    ("logs {pod} --tail=1 --timestamps", r"\A2026-01-01T\d\d:\d\d:\d\d(\.\d+)?Z \S", 0, ""),
    ("logs {pod} -c nginx --limit-bytes=10", r"\A.{10}\Z", 0, ""),
    (
        "logs {pod} -p",
        r"\A\Z",
        1,
        r'\AError from server \(BadRequest\): previous terminated container "nginx" in pod "{pod}" not found\n\Z',
    ),
    (
        "logs {pod} -c nope",
        r"\A\Z",
        1,
        r"\Aerror: container nope is not valid for pod {pod} out of: nginx\n\Z",
    ),
    (
        "logs deploy/web --tail=1",
        r"\A[^\n]+\n\Z",
        0,
        r"\A(Found 3 pods, using pod/" + POD + r"\n)?\Z",
    ),
    # kubectl words this one itself (logs.go: the GET of the Pod failed)
    (
        "logs nope",
        r"\A\Z",
        1,
        r'\Aerror: error from server \(NotFound\): pods "nope" not found in namespace "default"\n\Z',
    ),
    # auth can-i (SelfSubjectAccessReview), top without metrics-server (§10)
    ("auth can-i list pods", r"\Ayes\n\Z", 0, ""),
    ("auth can-i create deployments.apps", r"\Ayes\n\Z", 0, ""),
    ("auth can-i get pods --subresource=log", r"\Ayes\n\Z", 0, ""),
    ("auth can-i create pods --subresource=eviction", r"\Ayes\n\Z", 0, ""),
    ("auth can-i create pods --subresource=exec", r"\Ano\n\Z", 1, ""),
    ("top pods", r"\A\Z", 1, r"\Aerror: Metrics API not available\n\Z"),
    ("top nodes", r"\A\Z", 1, r"\Aerror: Metrics API not available\n\Z"),
    # rollout and wait (polymorphichelpers/rollout_status.go, cmd/wait)
    ("rollout status deploy/web", r'\Adeployment "web" successfully rolled out\n\Z', 0, ""),
    (
        "rollout status deploy/web --watch=false",
        r'\Adeployment "web" successfully rolled out\n\Z',
        0,
        "",
    ),
    (
        "rollout history deploy/web",
        r"\Adeployment\.apps/web \nREVISION +CHANGE-CAUSE\n1 +<none>\n\n\Z",
        0,
        "",
    ),
    (
        "wait --for=condition=Available deploy/web --timeout=30s",
        r"\Adeployment\.apps/web condition met\n\Z",
        0,
        "",
    ),
    ("wait --for=condition=Ready pod/{pod} --timeout=30s", r"\Apod/{pod} condition met\n\Z", 0, ""),
    (
        "wait --for=jsonpath={{.status.phase}}=Running pod/{pod} --timeout=30s",
        r"\Apod/{pod} condition met\n\Z",
        0,
        "",
    ),
]


def _fill(text: str, values: dict[str, str]) -> str:
    return text.replace("{pod}", values["pod"]).replace("{{", "{").replace("}}", "}")


def _split(line: str) -> list[str]:
    import shlex

    return shlex.split(line)


@pytest.fixture(scope="module")
def values(cluster: Kube) -> dict[str, str]:
    names = cluster.run("get", "pods", "-o", "name").stdout.split()
    return {"pod": sorted(names)[0].split("/", 1)[1]}


@pytest.mark.parametrize(("line", "out", "code", "err"), READS, ids=[r[0] for r in READS])
def test_read(cluster: Kube, values: dict[str, str], line: str, out: str, code: int,
              err: str) -> None:  # fmt: skip
    result = cluster.run(*_split(_fill(line, values)))
    out_pattern = out.replace("{pod}", re.escape(values["pod"]))
    err_pattern = err.replace("{pod}", re.escape(values["pod"]))
    assert result.returncode == code, (result.stdout, result.stderr)
    assert re.search(out_pattern, result.stdout, re.M), result.stdout
    if err:
        assert re.search(err_pattern, result.stderr, re.M), result.stderr
    elif code == 0:
        assert result.stderr == "", result.stderr


def _wait_rollout(kube: Kube) -> None:
    done = kube.run("rollout", "status", "deploy/web", "--timeout=90s", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith('deployment "web" successfully rolled out\n')


@pytest.fixture(scope="module")
def writable(live_server, tmp_path_factory) -> Kube:
    from tests.kubeapi.conftest import CLUSTER

    kube = make_session(live_server, tmp_path_factory.mktemp("writes"), yaml=CLUSTER, speed=20)
    _wait_rollout(kube)
    return kube


def _pods(kube: Kube) -> list[str]:
    return sorted(n.split("/", 1)[1] for n in kube.run("get", "pods", "-o", "name").stdout.split())


def test_scale(writable: Kube) -> None:
    result = writable.run("scale", "deploy", "web", "--replicas=4")
    assert (result.returncode, result.stdout) == (0, "deployment.apps/web scaled\n")
    _wait_rollout(writable)
    assert (
        writable.run("get", "deploy", "web", "-o", "jsonpath={.status.readyReplicas}").stdout == "4"
    )
    stale = writable.run("scale", "deploy/web", "--replicas=5", "--current-replicas=3")
    assert stale.returncode == 1
    assert stale.stderr == "error: Expected replicas to be 3, was 4\n"
    scaled = writable.run("scale", "--replicas=3", "deployment/web", "--current-replicas=4")
    assert scaled.stdout == "deployment.apps/web scaled\n"
    _wait_rollout(writable)
    rs = writable.run("get", "rs", "-o", "name").stdout.split()[0]
    result = writable.run("scale", rs, "--replicas=3")
    assert result.stdout == f"{rs.replace('replicaset.apps', 'replicaset.apps')} scaled\n"


def test_cordon_uncordon(writable: Kube) -> None:
    assert writable.run("cordon", "node-1").stdout == "node/node-1 cordoned\n"
    assert writable.run("cordon", "node-1").stdout == "node/node-1 already cordoned\n"
    nodes = writable.run("get", "node", "node-1", "--no-headers").stdout
    assert re.match(r"node-1 +Ready,SchedulingDisabled +<none> ", nodes), nodes
    assert writable.run("uncordon", "node-1").stdout == "node/node-1 uncordoned\n"
    assert writable.run("uncordon", "node-1").stdout == "node/node-1 already uncordoned\n"
    assert (
        writable.run("get", "node", "node-1", "-o", "jsonpath={.spec.unschedulable}").stdout == ""
    )


def test_rollout_restart_set_image_undo(writable: Kube) -> None:
    assert (
        writable.run("rollout", "restart", "deploy/web").stdout == "deployment.apps/web restarted\n"
    )
    _wait_rollout(writable)
    image = writable.run("set", "image", "deploy/web", "nginx=nginx:1.28")
    assert image.stdout == "deployment.apps/web image updated\n", image.stderr
    _wait_rollout(writable)
    wide = writable.run("get", "deploy", "web", "-o", "wide", "--no-headers").stdout
    assert re.match(r"web +3/3 +3 +3 +\S+ +nginx +nginx:1\.28 +app=web\n", wide), wide
    history = writable.run("rollout", "history", "deploy/web").stdout
    assert (
        history
        == "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n3         <none>\n\n"
    )
    undo = writable.run("rollout", "undo", "deploy/web")
    assert undo.stdout == "deployment.apps/web rolled back\n", undo.stderr
    _wait_rollout(writable)
    image_now = writable.run("get", "deploy", "web", "-o",
                             "jsonpath={.spec.template.spec.containers[0].image}").stdout  # fmt: skip
    assert image_now == "nginx:1.27"
    assert writable.run("rollout", "pause", "deploy/web").stdout == "deployment.apps/web paused\n"
    assert writable.run("get", "deploy", "web", "-o", "jsonpath={.spec.paused}").stdout == "true"
    assert writable.run("rollout", "resume", "deploy/web").stdout == "deployment.apps/web resumed\n"
    _wait_rollout(writable)


def test_patch(writable: Kube) -> None:
    merge = writable.run("patch", "deploy", "web", "--type=merge", "-p", '{"spec":{"replicas":2}}')
    assert merge.stdout == "deployment.apps/web patched\n", merge.stderr
    _wait_rollout(writable)
    json_patch = writable.run("patch", "deploy", "web", "--type=json", "-p",
                              '[{"op":"replace","path":"/spec/replicas","value":3}]')  # fmt: skip
    assert json_patch.stdout == "deployment.apps/web patched\n", json_patch.stderr
    _wait_rollout(writable)
    same = writable.run("patch", "deploy", "web", "-p", '{"spec":{"replicas":3}}')
    assert same.stdout == "deployment.apps/web patched (no change)\n", same.stderr
    bad = writable.run(
        "patch", "deploy", "web", "--type=json", "-p", '[{"op":"remove","path":"/nope"}]'
    )
    assert bad.returncode == 1
    assert bad.stderr.startswith("Error from server"), bad.stderr
    node = writable.run("patch", "node", "node-3", "-p", '{"spec":{"unschedulable":true}}')
    assert node.stdout == "node/node-3 patched\n"
    assert writable.run("uncordon", "node-3").stdout == "node/node-3 uncordoned\n"


def test_delete(writable: Kube) -> None:
    pod = _pods(writable)[0]
    dry = writable.run("delete", "pod", pod, "--dry-run=server")
    assert dry.stdout == f'pod "{pod}" deleted from default namespace (server dry run)\n', (
        dry.stderr
    )
    assert pod in _pods(writable)
    done = writable.run("delete", "pod", pod, "--timeout=60s", timeout=90)
    assert done.stdout == f'pod "{pod}" deleted from default namespace\n', done.stderr
    assert (
        writable.run("get", "pod", pod).stderr
        == f'Error from server (NotFound): pods "{pod}" not found\n'
    )
    _wait_rollout(writable)
    second = _pods(writable)[0]
    forced = writable.run("delete", "pod", second, "--grace-period=0", "--force")
    assert forced.stdout == f'pod "{second}" force deleted from default namespace\n'
    assert forced.stderr.startswith("Warning: Immediate deletion does not wait for confirmation")
    missing = writable.run("delete", "pod", "nope")
    assert (missing.returncode, missing.stderr) == (
        1,
        'Error from server (NotFound): pods "nope" not found\n',
    )
    nowait = writable.run("delete", "pods", "-l", "app=web", "--wait=false")
    assert nowait.returncode == 0
    assert len(nowait.stdout.splitlines()) == 3
    _wait_rollout(writable)


def test_drain(writable: Kube) -> None:
    """kubectl drain: cordon, list the node's Pods, evict each (KUBE-API-NOTES §5)."""
    on_node = writable.run(
        "get", "pods", "--field-selector", "spec.nodeName=node-2", "-o", "name"
    ).stdout.split()
    result = writable.run("drain", "node-2", "--ignore-daemonsets", "--timeout=90s", timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "node/node-2 cordoned"
    assert lines[-1] == "node/node-2 drained"
    for name in on_node:
        pod = name.split("/", 1)[1]
        assert f"evicting pod default/{pod}" in lines
        assert f"pod/{pod} evicted" in lines
    assert (
        writable.run("get", "pods", "--field-selector", "spec.nodeName=node-2", "-o", "name").stdout
        == ""
    )
    assert writable.run("uncordon", "node-2").stdout == "node/node-2 uncordoned\n"
    _wait_rollout(writable)


def test_drain_held_back_by_budget(live_server, tmp_path) -> None:
    """A budget with no disruption allowed: each eviction is 429 and drain retries
    (`error when evicting pods/"<pod>" -n "default" (will retry after 5s): Cannot evict pod
    as it would violate the pod's disruption budget.`)."""
    kube = make_session(live_server, tmp_path, yaml=HELD, speed=5)
    _wait_rollout(kube)
    kube.wait_for(lambda: kube.run("get", "pdb", "web-pdb", "-o",
                                   "jsonpath={.status.currentHealthy}").stdout == "3")  # fmt: skip
    drain = kube.popen("drain", "node-1", "--ignore-daemonsets")
    try:
        line = ""
        deadline = time.monotonic() + 60
        assert drain.stderr is not None
        while time.monotonic() < deadline:
            line = _line(drain.stderr)
            if "error when evicting" in line:
                break
        assert re.fullmatch(
            r'error when evicting pods/"' + POD + r'" -n "default" \(will retry after 5s\): '
            r"Cannot evict pod as it would violate the pod's disruption budget\.\n",
            line,
        ), line
    finally:
        drain.terminate()
        drain.wait(10)
    status, body = kube.api("/api/v1/namespaces/default/pods/" + _pods(kube)[0] + "/eviction",
                            "POST", {"apiVersion": "policy/v1", "kind": "Eviction",
                                     "metadata": {"name": _pods(kube)[0]}})  # fmt: skip
    if status == 201:  # that Pod was not on node-1's budget path: the budget still allowed none
        pytest.fail(f"eviction allowed: {body}")
    assert status == 429
    assert body["reason"] == "TooManyRequests"
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"] == [{
        "reason": "DisruptionBudget",
        "message": "The disruption budget web-pdb needs 3 healthy pods and has 3 currently",
    }]  # fmt: skip


_READERS: dict[Any, Any] = {}  # stream -> its lines (the stream kept: ids are reused)


def _line(stream, timeout: float = 60) -> str:
    """The next line of a running kubectl's output, waiting at most `timeout` for it (a
    reader thread per stream: a buffered stream's lines are not visible to select)."""
    import queue
    import threading

    lines = _READERS.get(stream)
    if lines is None:
        lines = _READERS[stream] = queue.Queue()

        def pump() -> None:
            for line in iter(stream.readline, ""):
                lines.put(line)
            lines.put("")

        threading.Thread(target=pump, daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"no output within {timeout}s") from None


def test_get_watch(writable: Kube) -> None:
    """`get pods -w`: the list, then a row per change, as the watch's Table events arrive."""
    watch = writable.popen("get", "pods", "-w")
    try:
        assert watch.stdout is not None
        header = _line(watch.stdout)
        assert re.match(r"NAME +READY +STATUS +RESTARTS +AGE\n", header), header
        initial = set()
        for _ in range(3):
            line = _line(watch.stdout)
            assert re.match(POD + r" +1/1 +Running", line), line
            initial.add(line.split()[0])
        assert writable.run("scale", "deploy/web", "--replicas=4").returncode == 0
        seen = []
        while True:
            line = _line(watch.stdout)
            assert line, "the watch ended"
            seen.append(line)
            if re.match(POD + r" +1/1 +Running", line) and line.split()[0] not in initial:
                break
            assert len(seen) <= 40, "".join(seen)
        # The new Pod's row; its earlier versions (Pending, ContainerCreating) show when a
        # poll of the watch fell on them (docs/kubectl.md: a watch sees each poll's state).
        assert re.match(POD + r" +1/1 +Running +0 +\d+s\n", seen[-1]), seen
    finally:
        watch.terminate()
        watch.wait(10)
    assert writable.run("scale", "deploy/web", "--replicas=3").returncode == 0
    _wait_rollout(writable)


def test_get_watch_output_events(writable: Kube) -> None:
    pod = _pods(writable)[0]
    watch = writable.popen("get", "pod", pod, "-w", "--output-watch-events")
    try:
        assert watch.stdout is not None
        assert re.match(r"EVENT +NAME +READY +STATUS +RESTARTS +AGE\n", _line(watch.stdout))
        assert re.match(r"ADDED +" + re.escape(pod) + r" +1/1 +Running", _line(watch.stdout))
        assert writable.run("delete", "pod", pod, "--wait=false").returncode == 0
        line = _line(watch.stdout)
        assert re.match(r"MODIFIED +" + re.escape(pod) + r" +1/1 +Terminating", line) or re.match(
            r"(MODIFIED|DELETED) +" + re.escape(pod), line
        ), line
    finally:
        watch.terminate()
        watch.wait(10)
    _wait_rollout(writable)


def test_logs_follow(live_server, tmp_path) -> None:
    """`logs -f` streams lines as the container writes them; `-p` reads the last
    terminated instance once it restarted."""
    from tests.kubeapi.conftest import CRASHING

    kube = make_session(live_server, tmp_path, yaml=CRASHING, speed=5)
    kube.wait_for(lambda: kube.run("get", "pod", "web", "-o",
                                   "jsonpath={.status.containerStatuses[0].state.running}").stdout)  # fmt: skip
    follow = kube.popen("logs", "-f", "web")
    try:
        assert follow.stdout is not None
        assert _line(follow.stdout) == "connecting to database...\n"
        assert _line(follow.stdout) == "fatal: DB_HOST is not set\n"
    finally:
        follow.terminate()
        follow.wait(10)
    kube.wait_for(lambda: kube.run("get", "pod", "web", "-o",
                                   "jsonpath={.status.containerStatuses[0].restartCount}").stdout
                  not in ("", "0"))  # fmt: skip
    previous = kube.run("logs", "web", "--previous")
    assert previous.stdout == "connecting to database...\nfatal: DB_HOST is not set\n"
    assert kube.run("logs", "web", "-p", "--tail=1").stdout == "fatal: DB_HOST is not set\n"
    described = kube.run("describe", "pod", "web").stdout
    assert re.search(r"^    Last State: +Terminated\n      Reason: +Error\n      Exit Code: +1$",
                     described, re.M), described  # fmt: skip


def test_single_pod_session(live_server, tmp_path) -> None:
    """The one-Pod engine through the same code path: get, describe, delete."""
    kube = make_session(live_server, tmp_path, scenario="plain-pod", speed=10)
    kube.wait_for(lambda: "Running" in kube.run("get", "pod", "web", "--no-headers").stdout)
    assert re.match(r"\ANAME +READY +STATUS +RESTARTS +AGE\nweb +1/1 +Running +0 +\d+s\n\Z",
                    kube.run("get", "pods").stdout)  # fmt: skip
    assert kube.run("get", "deploy").stderr == "No resources found in default namespace.\n"
    assert "Successfully assigned default/web to" in kube.run("describe", "pod", "web").stdout
    evicted = kube.run("drain", "node-1", "--force", "--timeout=60s", timeout=90)
    assert evicted.returncode == 0, evicted.stderr
    assert "pod/web evicted" in evicted.stdout
    assert kube.run("get", "pods").stderr == "No resources found in default namespace.\n"


def test_wrong_token(live_server, tmp_path) -> None:
    kube = make_session(live_server, tmp_path, scenario="plain-pod", paused=True)
    text = kube.kubeconfig.read_text().replace(kube.info["token"], "kp-wrong")
    kube.kubeconfig.write_text(text)
    result = kube.run("get", "pods")
    assert result.returncode == 1
    # With discovery not cached, kubectl words the 401 of its discovery request itself
    # (client-go: "the server has asked for the client to provide credentials"); with it
    # cached, from the Status: "(Unauthorized)" (KUBE-API-NOTES §4).
    assert re.search(r"^error: You must be logged in to the server \((Unauthorized|the server "
                     r"has asked for the client to provide credentials)\)\n\Z", result.stderr,
                     re.M), result.stderr  # fmt: skip
    status, _body = kube.api("/api/v1/namespaces/default/pods")
    assert status == 200
    wrong = kube.info["server"].replace(kube.info["token"], "kp-wrong")
    import urllib.request

    try:
        urllib.request.urlopen(wrong + "/api/v1/namespaces/default/pods", timeout=10)
        pytest.fail("no 401")
    except urllib.error.HTTPError as error:
        assert error.code == 401
        assert json.loads(error.read()) == {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                            "status": "Failure", "message": "Unauthorized",
                                            "reason": "Unauthorized", "code": 401}  # fmt: skip


def test_timeline_records_kubectl_actions(live_server, tmp_path) -> None:
    """Writes are the engine's actions: in the session's timeline as the page's are."""
    import socketio

    kube = make_session(live_server, tmp_path, yaml=HELD, speed=10)
    _wait_rollout(kube)
    assert kube.run("scale", "deploy/web", "--replicas=4").returncode == 0
    assert kube.run("cordon", "node-2").returncode == 0
    client = socketio.Client()
    snapshots = []
    client.on("snapshot", snapshots.append)
    client.connect(live_server.url, transports=["websocket"], wait_timeout=10)
    try:
        client.emit("join", {"session": kube.info["session"]})
        deadline = time.monotonic() + 20
        while not snapshots and time.monotonic() < deadline:
            client.sleep(0.05)
    finally:
        client.disconnect()
    assert snapshots, "no snapshot"
    actions = [{k: v for k, v in a.items() if k != "at"} for a in snapshots[0]["actions"]]
    assert actions == [
        {"action": "scale", "kind": "Deployment", "name": "web", "replicas": 4},
        {"action": "cordon", "node": "node-2"},
    ]


API_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: app
        image: nginx:1.27
"""


def test_apply_create_replace_label_edit(writable: Kube, tmp_path) -> None:
    """kubectl apply (client-side: created / unchanged / configured; --server-side),
    create, replace, label, annotate and edit (KUBE-API-NOTES §5), each a write of the
    whole object through the engine's `update` in the session's timeline."""
    path = tmp_path / "api.yaml"
    path.write_text(API_YAML)
    assert writable.run("apply", "-f", str(path)).stdout == "deployment.apps/api created\n"
    assert writable.run("apply", "-f", str(path)).stdout == "deployment.apps/api unchanged\n"
    path.write_text(API_YAML.replace("replicas: 1", "replicas: 2"))
    assert writable.run("apply", "-f", str(path)).stdout == "deployment.apps/api configured\n"
    writable.wait_for(lambda: writable.run("get", "deploy", "api", "-o",
                                           "jsonpath={.status.readyReplicas}").stdout == "2")  # fmt: skip
    ssa = writable.run("apply", "--server-side", "-f", str(path))
    assert ssa.stdout == "deployment.apps/api serverside-applied\n", ssa.stderr
    again = writable.run("create", "-f", str(path))
    assert again.returncode == 1
    assert again.stderr == (f'Error from server (AlreadyExists): error when creating "{path}": '
                            'deployments.apps "api" already exists\n')  # fmt: skip
    assert writable.run("replace", "-f", str(path)).stdout == "deployment.apps/api replaced\n"
    assert (
        writable.run("label", "deploy", "api", "tier=fe").stdout == "deployment.apps/api labeled\n"
    )
    refused = writable.run("label", "deploy", "api", "tier=be")
    assert refused.stderr == "error: 'tier' already has a value (fe), and --overwrite is false\n"
    assert (
        writable.run("get", "deploy", "api", "-o", "jsonpath={.metadata.labels.tier}").stdout
        == "fe"
    )
    assert (
        writable.run("label", "deploy", "api", "tier-").stdout == "deployment.apps/api unlabeled\n"
    )
    note = writable.run("annotate", "deploy", "api", "note=hello")
    assert note.stdout == "deployment.apps/api annotated\n"
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/image: nginx:1.27/image: nginx:1.28/' \"$1\"\n")
    editor.chmod(0o755)
    edited = writable.run("edit", "deploy/api", env={"KUBE_EDITOR": str(editor)})
    assert edited.stdout == "deployment.apps/api edited\n", edited.stderr
    image = writable.run(
        "get", "deploy", "api", "-o", "jsonpath={.spec.template.spec.containers[0].image}"
    )
    assert image.stdout == "nginx:1.28"
    editor.write_text("#!/bin/sh\ntrue\n")
    unchanged = writable.run("edit", "deploy/api", env={"KUBE_EDITOR": str(editor)})
    assert unchanged.stderr == "Edit cancelled, no changes made.\n"
    rollout = writable.run("rollout", "status", "deploy/api", "--timeout=90s", timeout=120)
    assert rollout.stdout.endswith('deployment "api" successfully rolled out\n'), rollout.stderr


def test_explain(cluster: Kube) -> None:
    """kubectl explain reads /openapi/v3 (KUBE-API-NOTES §9), shipped with the package."""
    result = cluster.run("explain", "pods.spec.restartPolicy")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "KIND:       Pod\nVERSION:    v1\n\nFIELD: restartPolicy <string>\n"
    )
    assert "Restart policy for all containers within the pod." in result.stdout
    deploy = cluster.run("explain", "deploy.spec.replicas")
    assert deploy.stdout.startswith(
        "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: replicas <integer>\n"
    )
    pod = cluster.run("explain", "pod")
    assert re.search(r"^FIELDS:\n  apiVersion\t<string>$", pod.stdout, re.M), pod.stdout
    nope = cluster.run("explain", "pods.spec.nope")
    assert nope.returncode == 1
    assert nope.stderr == 'error: field "nope" does not exist\n'


LIVENESS = """\
apiVersion: playground/v1
kind: Simulation
metadata:
  name: kubeapi-liveness
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'touch /tmp/healthy; echo started; sleep 3600']
    livenessProbe:
      exec:
        command: [cat, /tmp/healthy]
      periodSeconds: 5
      failureThreshold: 1
"""


def test_exec(live_server, tmp_path) -> None:
    """kubectl exec over the v5.channel.k8s.io WebSocket (KUBE-API-NOTES §7): the command
    runs in the container's process model; `rm /tmp/healthy` makes the liveness probe fail
    and the kubelet restart the container, as on a cluster."""
    kube = make_session(live_server, tmp_path, yaml=LIVENESS, speed=5)
    kube.wait_for(lambda: "Running" in kube.run("get", "pod", "web", "--no-headers").stdout)
    cat = kube.run("exec", "web", "--", "cat", "/tmp/healthy")
    assert (cat.returncode, cat.stdout, cat.stderr) == (0, "", "")
    shell = kube.run("exec", "web", "--", "sh", "-c", "echo hi; echo oops >&2; exit 3")
    assert (shell.returncode, shell.stdout) == (3, "hi\n")
    assert shell.stderr == "oops\ncommand terminated with exit code 3\n"
    listing = kube.run("exec", "web", "-c", "app", "--", "ls", "/tmp")
    assert listing.stdout == "healthy\n"
    wrong = kube.run("exec", "web", "-c", "nope", "--", "ls")
    assert (wrong.returncode, wrong.stderr) == (
        1,
        "error: container nope is not valid for pod web out of: app\n",
    )
    assert kube.run("exec", "web", "--", "rm", "/tmp/healthy").returncode == 0
    gone = kube.run("exec", "web", "--", "cat", "/tmp/healthy")
    assert gone.returncode == 1
    assert (
        gone.stderr
        == "cat: can't open '/tmp/healthy': No such file or directory\ncommand terminated with exit code 1\n"
    )
    kube.wait_for(lambda: kube.run("get", "pod", "web", "-o",
                                   "jsonpath={.status.containerStatuses[0].restartCount}").stdout
                  not in ("", "0"))  # fmt: skip
    events = kube.run("events", "--for", "pod/web").stdout
    assert re.search(r"Warning +Unhealthy +Pod/web +Liveness probe failed: cat: can't open "
                     r"'/tmp/healthy': No such file or directory", events), events  # fmt: skip
    long = kube.run("exec", "web", "--", "echo", "x" * (70 * 1024))
    assert long.returncode == 1
