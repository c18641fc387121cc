"""kubectl's workload texts: get columns, rollout status, describe.

Sources: pkg/printers/internalversion/printers.go (printDeployment, printReplicaSet, printJob,
printStatefulSet, printEndpointSlice, printPodDisruptionBudget), kubectl's
polymorphichelpers/rollout_status.go and describe/describe.go, and the outputs shown on the
kubernetes/website pages (deployment.md, job.md) where they still match current kubectl.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from webapp.kubectl import workloads as k

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def stamp(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def nginx_deployment(ready=3, updated=3, available=3, replicas=3, **status):
    return {
        "metadata": {
            "name": "nginx-deployment",
            "namespace": "default",
            "creationTimestamp": stamp(0),
            "generation": 1,
            "labels": {"app": "nginx"},
            "annotations": {"deployment.kubernetes.io/revision": "2"},
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "nginx"}},
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
            },
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {
                    "containers": [
                        {"name": "nginx", "image": "nginx:1.16.1", "ports": [{"containerPort": 80}]}
                    ]
                },
            },
        },
        "status": {
            "observedGeneration": 1,
            "replicas": replicas,
            "updatedReplicas": updated,
            "readyReplicas": ready,
            "availableReplicas": available,
            **status,
        },
    }


# deployment.md, "Creating a Deployment" steps 2 and 4: `kubectl get deployments`.
def test_get_deployments_as_the_docs_show():
    creating = nginx_deployment(ready=0, updated=0, available=0, replicas=0)
    assert k.get_deployments([creating], T0 + timedelta(seconds=1)) == (
        "NAME               READY   UP-TO-DATE   AVAILABLE   AGE\nnginx-deployment   0/3     0            0           1s\n"
    )
    assert k.get_deployments([nginx_deployment()], T0 + timedelta(seconds=18)) == (
        "NAME               READY   UP-TO-DATE   AVAILABLE   AGE\nnginx-deployment   3/3     3            3           18s\n"
    )


# deployment.md step 5: `kubectl get rs`.
def test_get_replicasets_as_the_docs_show():
    rs = {
        "metadata": {"name": "nginx-deployment-75675f5897", "creationTimestamp": stamp(0)},
        "spec": {"replicas": 3},
        "status": {"replicas": 3, "readyReplicas": 3},
    }
    assert k.get_replicasets([rs], T0 + timedelta(seconds=18)) == (
        "NAME                          DESIRED   CURRENT   READY   AGE\nnginx-deployment-75675f5897   3         3         3       18s\n"
    )


def test_get_deployments_wide_adds_containers_images_selector():
    cells = k.print_deployment(nginx_deployment(), T0, wide=True)
    assert (cells["CONTAINERS"], cells["IMAGES"], cells["SELECTOR"]) == (
        "nginx",
        "nginx:1.16.1",
        "app=nginx",
    )


# rollout_status.go DeploymentStatusViewer.Status, every branch in order.
@pytest.mark.parametrize(
    ("status", "expected", "done"),
    [
        ({"updatedReplicas": 1, "replicas": 3}, 'Waiting for deployment "nginx-deployment" rollout to finish: 1 out of 3 new replicas have been updated...\n', False),
        ({"updatedReplicas": 3, "replicas": 4}, 'Waiting for deployment "nginx-deployment" rollout to finish: 1 old replicas are pending termination...\n', False),
        ({"updatedReplicas": 3, "replicas": 3, "availableReplicas": 2}, 'Waiting for deployment "nginx-deployment" rollout to finish: 2 of 3 updated replicas are available...\n', False),
        ({"updatedReplicas": 3, "replicas": 3, "availableReplicas": 3}, 'deployment "nginx-deployment" successfully rolled out\n', True),
    ],
)  # fmt: skip
def test_deployment_rollout_status(status, expected, done):
    deployment = nginx_deployment()
    deployment["status"] = {"observedGeneration": 1, **status}
    assert k.deployment_rollout_status(deployment) == (expected, done)


def test_rollout_status_waits_for_the_spec_to_be_observed_and_reports_the_deadline():
    deployment = nginx_deployment()
    deployment["metadata"]["generation"] = 2
    assert k.deployment_rollout_status(deployment) == (
        "Waiting for deployment spec update to be observed...\n",
        False,
    )
    deployment["status"] = {
        "observedGeneration": 2,
        "conditions": [
            {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}
        ],
    }
    with pytest.raises(
        k.RolloutStatusError, match='deployment "nginx-deployment" exceeded its progress deadline'
    ):
        k.deployment_rollout_status(deployment)
    with pytest.raises(
        k.RolloutStatusError,
        match=r"desired revision \(3\) is different from the running revision \(2\)",
    ):
        k.deployment_rollout_status(nginx_deployment(), revision=3)


def test_rollout_status_transcript_prints_every_update_until_done():
    versions = [
        nginx_deployment(updated=1, replicas=4, available=2),
        nginx_deployment(updated=3, replicas=4, available=2),
        nginx_deployment(updated=3, replicas=3, available=3),
        nginx_deployment(),
    ]
    text, done = k.rollout_status_transcript("Deployment", versions)
    assert done
    assert text == (
        'Waiting for deployment "nginx-deployment" rollout to finish: 1 out of 3 new replicas have been updated...\n'
        'Waiting for deployment "nginx-deployment" rollout to finish: 1 old replicas are pending termination...\n'
        'deployment "nginx-deployment" successfully rolled out\n'
    )
    stuck = nginx_deployment(
        updated=1,
        conditions=[
            {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}
        ],
    )
    assert k.rollout_status_transcript("Deployment", [stuck]) == (
        'error: deployment "nginx-deployment" exceeded its progress deadline\n',
        False,
    )


def web_statefulset(strategy=None, **status):
    spec = {"replicas": 3, "selector": {"matchLabels": {"app": "nginx"}}, "serviceName": "nginx"}
    if strategy is not None:
        spec["updateStrategy"] = strategy
    return {
        "metadata": {"name": "web", "generation": 1},
        "spec": spec,
        "status": {"observedGeneration": 1, **status},
    }


# rollout_status.go StatefulSetStatusViewer.Status.
def test_statefulset_rollout_status_texts():
    partitioned = {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert k.statefulset_rollout_status(web_statefulset(partitioned, readyReplicas=1)) == (
        "Waiting for 2 pods to be ready...\n",
        False,
    )
    assert k.statefulset_rollout_status(
        web_statefulset(partitioned, readyReplicas=3, updatedReplicas=1)
    ) == (
        "Waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated...\n",
        False,
    )
    assert k.statefulset_rollout_status(
        web_statefulset(partitioned, readyReplicas=3, updatedReplicas=3)
    ) == (
        "partitioned roll out complete: 3 new pods have been updated...\n",
        True,
    )
    plain = {"type": "RollingUpdate"}
    assert k.statefulset_rollout_status(
        web_statefulset(
            plain,
            readyReplicas=3,
            updatedReplicas=1,
            updateRevision="web-2",
            currentRevision="web-1",
        )
    ) == (
        "waiting for statefulset rolling update to complete 1 pods at revision web-2...\n",
        False,
    )
    assert k.statefulset_rollout_status(
        web_statefulset(
            plain,
            readyReplicas=3,
            currentReplicas=3,
            updateRevision="web-2",
            currentRevision="web-2",
        )
    ) == (
        "statefulset rolling update complete 3 pods at revision web-2...\n",
        True,
    )
    with pytest.raises(
        k.RolloutStatusError,
        match=r"^rollout status is only available for RollingUpdate strategy type$",
    ):
        k.statefulset_rollout_status(web_statefulset({"type": "OnDelete"}))
    unobserved = web_statefulset(partitioned)
    unobserved["status"]["observedGeneration"] = 0
    assert k.statefulset_rollout_status(unobserved) == (
        "Waiting for statefulset spec update to be observed...\n",
        False,
    )


def test_get_statefulsets():
    sts = web_statefulset(readyReplicas=2)
    sts["metadata"]["creationTimestamp"] = stamp(0)
    assert (
        k.get_statefulsets([sts], T0 + timedelta(seconds=75))
        == "NAME   READY   AGE\nweb    2/3     75s\n"
    )


def pi_job(**status):
    return {
        "metadata": {"name": "pi", "namespace": "default", "creationTimestamp": stamp(0)},
        "spec": {
            "completions": 1,
            "parallelism": 1,
            "backoffLimit": 4,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "c994"}},
            "template": {"spec": {"containers": [{"name": "pi", "image": "perl:5.34.0"}]}},
        },
        "status": status,
    }


# printers.go printJob: STATUS, COMPLETIONS and DURATION cells.
def test_get_jobs_running_and_complete():
    running = pi_job(startTime=stamp(0), active=1)
    assert k.get_jobs([running], T0 + timedelta(seconds=8)) == (
        "NAME   STATUS    COMPLETIONS   DURATION   AGE\npi     Running   0/1           8s         8s\n"
    )
    conditions = [
        {"type": "SuccessCriteriaMet", "status": "True"},
        {"type": "Complete", "status": "True"},
    ]
    complete = pi_job(
        startTime=stamp(0), completionTime=stamp(65), succeeded=1, conditions=conditions
    )
    assert k.print_job(complete, T0 + timedelta(minutes=14)) == {
        "NAME": "pi",
        "STATUS": "Complete",
        "COMPLETIONS": "1/1",
        "DURATION": "65s",
        "AGE": "14m",
    }


@pytest.mark.parametrize(
    ("conditions", "deleting", "expected"),
    [
        ([{"type": "Failed", "status": "True"}], False, "Failed"),
        ([], True, "Terminating"),
        ([{"type": "Suspended", "status": "True"}], False, "Suspended"),
        ([{"type": "FailureTarget", "status": "True"}], False, "FailureTarget"),
        ([{"type": "Suspended", "status": "False"}], False, "Running"),
    ],
)
def test_job_status_cell(conditions, deleting, expected):
    job = pi_job(conditions=conditions)
    if deleting:
        job["metadata"]["deletionTimestamp"] = stamp(5)
    assert k.job_status_cell(job) == expected


def test_job_completions_without_completions():
    job = pi_job(succeeded=2)
    del job["spec"]["completions"]
    assert k.job_completions_cell(job) == "2/1"
    job["spec"]["parallelism"] = 3
    assert k.job_completions_cell(job) == "2/1 of 3"
    assert k.job_duration_cell(pi_job(), T0) == ""


# printers.go formatDiscoveryPorts/formatDiscoveryEndpoints and the `+ N more...` rule.
def test_get_endpointslices():
    def endpoint(ip, ready=True):
        return {"addresses": [ip], "conditions": {"ready": ready}}

    eps = {
        "metadata": {"name": "web-abc12", "creationTimestamp": stamp(0)},
        "addressType": "IPv4",
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
        "endpoints": [endpoint(f"10.244.1.{i}", ready=i != 4) for i in range(2, 7)],
    }
    assert k.get_endpointslices([eps], T0 + timedelta(seconds=40)) == (
        "NAME        ADDRESSTYPE   PORTS   ENDPOINTS                                      AGE\n"
        "web-abc12   IPv4          80      10.244.1.2,10.244.1.3,10.244.1.4 + 2 more...   40s\n"
    )
    empty = {
        "metadata": {"name": "web-x", "creationTimestamp": stamp(0)},
        "addressType": "IPv4",
        "ports": None,
        "endpoints": None,
    }
    assert k.print_endpointslice(empty, T0)["ENDPOINTS"] == "<unset>"
    assert k.print_endpointslice(empty, T0)["PORTS"] == "<unset>"
    assert (
        k.format_discovery_ports([{"name": "http"}, {}, {"port": 1}, {"port": 2}])
        == "http,*,1 + 1 more..."
    )


def test_get_pdb():
    pdb = {
        "metadata": {"name": "zk-pdb", "creationTimestamp": stamp(0)},
        "spec": {"minAvailable": 2},
        "status": {"disruptionsAllowed": 1},
    }
    assert k.get_pdbs([pdb], T0 + timedelta(seconds=7)) == (
        "NAME     MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\nzk-pdb   2               N/A               1                     7s\n"
    )


def test_get_many_prefixes_names_and_separates_kinds():
    pod = {
        "metadata": {"name": "pi-5rwd7", "creationTimestamp": stamp(0)},
        "spec": {"containers": [{"name": "pi"}]},
        "status": {
            "phase": "Succeeded",
            "containerStatuses": [
                {
                    "name": "pi",
                    "ready": False,
                    "restartCount": 0,
                    "state": {"terminated": {"reason": "Completed", "exitCode": 0}},
                }
            ],
        },
    }
    complete = pi_job(
        startTime=stamp(0),
        completionTime=stamp(5),
        succeeded=1,
        conditions=[{"type": "Complete", "status": "True"}],
    )
    text = k.get_many(
        [("Pod", [pod]), ("ReplicaSet", []), ("Job", [complete])], T0 + timedelta(seconds=9)
    )
    assert text == (
        "NAME           READY   STATUS      RESTARTS   AGE\n"
        "pod/pi-5rwd7   0/1     Completed   0          9s\n"
        "\n"
        "NAME           STATUS     COMPLETIONS   DURATION   AGE\n"
        "job.batch/pi   Complete   1/1           5s         9s\n"
    )


def test_resource_results():
    assert (
        k.resource_result("Deployment", "web", "rolled back") == "deployment.apps/web rolled back"
    )
    assert (
        k.resource_result("Deployment", "web", "already paused")
        == "deployment.apps/web already paused"
    )
    assert k.resource_result("StatefulSet", "web", "scaled") == "statefulset.apps/web scaled"


# deployment.md "Get details of your Deployment" (the parts current kubectl still prints so;
# the page predates the Host Port, Node-Selectors and Tolerations lines).
def test_describe_deployment():
    deployment = nginx_deployment(
        unavailableReplicas=0,
        conditions=[
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
        ],
    )
    new_rs = {
        "metadata": {"name": "nginx-deployment-1564180365"},
        "spec": {"replicas": 3},
        "status": {"replicas": 3},
    }
    event = {
        "type": "Normal",
        "reason": "ScalingReplicaSet",
        "message": "Scaled up replica set nginx-deployment-1564180365 to 3 from 2",
        "source": {"component": "deployment-controller"},
        "firstTimestamp": stamp(22),
        "lastTimestamp": stamp(22),
        "count": 1,
    }
    text = k.describe_deployment(deployment, [], [new_rs], [event], T0 + timedelta(seconds=46))
    assert text == (
        "Name:                   nginx-deployment\n"
        "Namespace:              default\n"
        "CreationTimestamp:      Thu, 01 Jan 2026 00:00:00 +0000\n"
        "Labels:                 app=nginx\n"
        "Annotations:            deployment.kubernetes.io/revision: 2\n"
        "Selector:               app=nginx\n"
        "Replicas:               3 desired | 3 updated | 3 total | 3 available | 0 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "MinReadySeconds:        0\n"
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge\n"
        "Pod Template:\n"
        "  Labels:  app=nginx\n"
        "  Containers:\n"
        "   nginx:\n"
        "    Image:         nginx:1.16.1\n"
        "    Port:          80/TCP\n"
        "    Host Port:     0/TCP\n"
        "    Environment:   <none>\n"
        "    Mounts:        <none>\n"
        "  Volumes:         <none>\n"
        "  Node-Selectors:  <none>\n"
        "  Tolerations:     <none>\n"
        "Conditions:\n"
        "  Type           Status  Reason\n"
        "  ----           ------  ------\n"
        "  Available      True    MinimumReplicasAvailable\n"
        "  Progressing    True    NewReplicaSetAvailable\n"
        "OldReplicaSets:  <none>\n"
        "NewReplicaSet:   nginx-deployment-1564180365 (3/3 replicas created)\n"
        "Events:\n"
        "  Type    Reason             Age   From                   Message\n"
        "  ----    ------             ----  ----                   -------\n"
        "  Normal  ScalingReplicaSet  24s   deployment-controller  Scaled up replica set nginx-deployment-1564180365 to 3 from 2\n"
    )


# job.md "Check on the status of the Job" (kubectl describe job pi): the header fields and
# the template layout; the Pods Statuses line is current kubectl's (the page shows an old one).
def test_describe_job():
    job = pi_job(
        startTime=stamp(0), completionTime=stamp(65), succeeded=1, ready=0, active=0, failed=0
    )
    job["metadata"]["labels"] = {
        "batch.kubernetes.io/controller-uid": "c994",
        "batch.kubernetes.io/job-name": "pi",
    }
    job["spec"]["template"] = {
        "metadata": {
            "labels": {
                "batch.kubernetes.io/controller-uid": "c994",
                "batch.kubernetes.io/job-name": "pi",
            }
        },
        "spec": {
            "containers": [
                {
                    "name": "pi",
                    "image": "perl:5.34.0",
                    "command": ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"],
                }
            ],
            "restartPolicy": "Never",
        },
    }
    text = k.describe_job(job, [], T0 + timedelta(minutes=14))
    assert text.startswith(
        "Name:           pi\n"
        "Namespace:      default\n"
        "Selector:       batch.kubernetes.io/controller-uid=c994\n"
        "Labels:         batch.kubernetes.io/controller-uid=c994\n"
        "                batch.kubernetes.io/job-name=pi\n"
        "Annotations:    <none>\n"
        "Parallelism:    1\n"
        "Completions:    1\n"
        "Backoff Limit:  4\n"
        "Start Time:     Thu, 01 Jan 2026 00:00:00 +0000\n"
        "Completed At:   Thu, 01 Jan 2026 00:01:05 +0000\n"
        "Duration:       65s\n"
        "Pods Statuses:  0 Active (0 Ready) / 1 Succeeded / 0 Failed\n"
        "Pod Template:\n"
        "  Labels:  batch.kubernetes.io/controller-uid=c994\n"
        "           batch.kubernetes.io/job-name=pi\n"
        "  Containers:\n"
        "   pi:\n"
        "    Image:      perl:5.34.0\n"
        "    Port:       <none>\n"
        "    Host Port:  <none>\n"
        "    Command:\n"
        "      perl\n"
        "      -Mbignum=bpi\n"
        "      -wle\n"
        "      print bpi(2000)\n"
        "    Environment:   <none>\n"
        "    Mounts:        <none>\n"
        "  Volumes:         <none>\n"
    )
    assert text.endswith("Events:            <none>\n")


def test_describe_job_indexed_caps_completed_indexes():
    job = pi_job(completedIndexes=",".join(str(i) for i in range(0, 60, 2)))
    job["spec"]["completionMode"] = "Indexed"
    line = next(
        line
        for line in k.describe_job(job, [], T0).splitlines()
        if line.startswith("Completed Indexes:")
    )
    assert line.split(None, 2)[
        2
    ] == "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,...".replace(",...", ",...")


def test_describe_replicaset_and_statefulset_counts_owned_pods():
    rs = {
        "metadata": {
            "name": "web-7d4b9c",
            "namespace": "default",
            "uid": "rs-uid",
            "ownerReferences": [{"kind": "Deployment", "name": "web", "controller": True}],
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
        "status": {"replicas": 2},
    }
    owned = {"kind": "ReplicaSet", "uid": "rs-uid", "controller": True}
    pods = [
        {"metadata": {"ownerReferences": [owned]}, "status": {"phase": "Running"}},
        {"metadata": {"ownerReferences": [owned]}, "status": {"phase": "Pending"}},
        {
            "metadata": {"ownerReferences": [{"uid": "other", "controller": True}]},
            "status": {"phase": "Running"},
        },
    ]
    text = k.describe_replicaset(rs, pods, [], T0)
    assert "Controlled By:  Deployment/web\n" in text
    assert "Replicas:       2 current / 2 desired\n" in text
    assert "Pods Status:    1 Running / 1 Waiting / 0 Succeeded / 0 Failed\n" in text
    sts = web_statefulset({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}, replicas=3)
    sts["metadata"].update(namespace="default", uid="sts-uid", creationTimestamp=stamp(0))
    sts["spec"]["template"] = {
        "metadata": {"labels": {"app": "nginx"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
    }
    text = k.describe_statefulset(sts, [], [], T0)
    assert "Replicas:               3 desired | 3 total\n" in text
    assert "Update Strategy:        RollingUpdate\n  Partition:            0\n" in text
    assert "Pod Management Policy:  OrderedReady\n" in text
    assert "Volume Claims:     <none>\n" in text


def test_selectors():
    selector = {
        "matchLabels": {"tier": "web", "app": "nginx"},
        "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}],
    }
    assert k.selector_string(selector) == "app=nginx,env in (dev,prod),tier=web"
    assert k.format_label_selector({}) == "<none>"


# polymorphichelpers/history.go DeploymentHistoryViewer.ViewHistory via `rollout history`.
def test_rollout_history():
    def rs(revision, cause=None):
        annotations = {"deployment.kubernetes.io/revision": str(revision)}
        if cause:
            annotations["kubernetes.io/change-cause"] = cause
        return {"metadata": {"annotations": annotations}}

    assert k.rollout_history(
        "nginx-deployment",
        [rs(3), rs(1), rs(2, "kubectl set image deployment/nginx-deployment nginx=nginx:1.161")],
    ) == (
        "deployment.apps/nginx-deployment \n"
        "REVISION  CHANGE-CAUSE\n"
        "1         <none>\n"
        "2         kubectl set image deployment/nginx-deployment nginx=nginx:1.161\n"
        "3         <none>\n"
        "\n"
    )
    assert k.rollout_history("web", []) == "deployment.apps/web \nNo rollout history found.\n"
