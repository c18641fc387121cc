"""concepts/workloads/controllers/deployment.md, "Rolling Back a Deployment", pasted
unchanged: the typo ``nginx:1.161`` (no such tag of nginx) stalls the rollout.

- the new Pod fails to pull as containerd and the kubelet word it (``ErrImagePull``, then
  ``ImagePullBackOff``), the old ReplicaSet keeps its 3 Pods (maxUnavailable 25% of 3
  rounds down to 0), ``kubectl rollout status`` waits at "1 out of 3 new replicas";
- after progressDeadlineSeconds (600 by default) Progressing is False,
  ``ProgressDeadlineExceeded``;
- ``kubectl describe deployment`` lists as OldReplicaSets only the one with Pods;
- ``kubectl rollout undo`` goes back to nginx:1.16.1 and the stuck Pod goes.
"""

from __future__ import annotations

from pathlib import Path

from webapp.engine import Simulation
from webapp.engine.controllers.rules import deployment as deployment_rules
from webapp.kubectl import pod_columns
from webapp.kubectl.workloads import (
    describe_deployment,
    get_replicasets,
    rollout_status_transcript,
)

# kubernetes/website content/en/examples/controllers/nginx-deployment.yaml
NGINX_DEPLOYMENT = (Path(__file__).parent / "data" / "docs" / "nginx-deployment.yaml").read_text(
    encoding="utf-8"
)
NAME = "nginx-deployment"


def set_image(sim: Simulation, image: str) -> None:
    sim.act({"action": "set-image", "name": NAME, "container": "nginx", "image": image})


def typo_run() -> Simulation:
    sim = Simulation.from_yaml(NGINX_DEPLOYMENT)
    sim.advance(20)
    set_image(sim, "nginx:1.16.1")  # "Updating a Deployment"
    sim.advance(40)
    set_image(sim, "nginx:1.161")  # "Suppose that you made a typo"
    return sim


def replica_sets_by_image(sim: Simulation) -> dict[str, dict]:
    return {
        rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs
        for rs in sim.objects("ReplicaSet")
    }


def test_deployment_md_image_typo_stalls_rollout() -> None:
    sim = typo_run()
    sim.advance(60)
    by_image = replica_sets_by_image(sim)
    counts = {
        image: (rs["spec"]["replicas"], rs["status"].get("replicas", 0),
                rs["status"].get("readyReplicas", 0))
        for image, rs in by_image.items()
    }  # fmt: skip
    # kubectl get rs: DESIRED CURRENT READY as the page shows them
    assert counts == {
        "nginx:1.14.2": (0, 0, 0),
        "nginx:1.16.1": (3, 3, 3),
        "nginx:1.161": (1, 1, 0),
    }
    rows = {line.split()[0]: line.split()[1:4] for line in
            get_replicasets(sim.objects("ReplicaSet"), sim.wall_time()).splitlines()[1:]}  # fmt: skip
    assert sorted(rows.values()) == [["0", "0", "0"], ["1", "1", "0"], ["3", "3", "3"]]
    statuses = [pod_columns(p, sim.wall_time())["STATUS"] for p in sim.objects("Pod")]
    assert statuses.count("Running") == 3 and len(statuses) == 4
    assert {"ImagePullBackOff", "ErrImagePull"} & set(statuses)
    versions = [obj for t, obj in sim.deployment_versions[NAME] if t >= 60]
    text, done = rollout_status_transcript("Deployment", versions)
    assert not done
    assert text.splitlines()[-1] == (
        'Waiting for deployment "nginx-deployment" rollout to finish: '
        "1 out of 3 new replicas have been updated..."
    )


def test_deployment_md_typo_pull_fails_as_containerd_words_it() -> None:
    sim = typo_run()
    sim.advance(60)
    stuck = next(
        p for p in sim.objects("Pod") if p["spec"]["containers"][0]["image"] == "nginx:1.161"
    )
    name = stuck["metadata"]["name"]
    ref = "docker.io/library/nginx:1.161"
    failed = [e["message"] for e in sim.events()
              if e["involvedObject"]["name"] == name and e["reason"] == "Failed"]  # fmt: skip
    assert failed[0] == (
        'Failed to pull image "nginx:1.161": rpc error: code = NotFound desc = failed to pull '
        f'and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found'
    )
    assert "Error: ErrImagePull" in failed and "Error: ImagePullBackOff" in failed
    backoffs = [e for e in sim.events()
                if e["involvedObject"]["name"] == name and e["reason"] == "BackOff"]  # fmt: skip
    assert backoffs and backoffs[0]["message"] == 'Back-off pulling image "nginx:1.161"'
    waiting = stuck["status"]["containerStatuses"][0]["state"]["waiting"]
    assert waiting["reason"] in ("ErrImagePull", "ImagePullBackOff")


def test_deployment_md_typo_reaches_the_progress_deadline() -> None:
    sim = typo_run()
    sim.advance(590)
    progressing = lambda: next(  # noqa: E731
        c for c in sim.objects("Deployment")[0]["status"]["conditions"]
        if c["type"] == "Progressing"
    )  # fmt: skip
    assert (progressing()["status"], progressing()["reason"]) == ("True", "ReplicaSetUpdated")
    sim.advance(20)  # 600 s after the last progress
    assert (progressing()["status"], progressing()["reason"]) == (
        "False", "ProgressDeadlineExceeded"
    )  # fmt: skip
    assert progressing()["message"].startswith('ReplicaSet "nginx-deployment-')
    assert progressing()["message"].endswith('" has timed out progressing.')
    versions = [obj for t, obj in sim.deployment_versions[NAME] if t >= 60]
    text, _done = rollout_status_transcript("Deployment", versions)
    assert text.splitlines()[-1] == (
        'error: deployment "nginx-deployment" exceeded its progress deadline'
    )


def test_deployment_md_describe_lists_only_old_replica_sets_with_pods() -> None:
    sim = typo_run()
    sim.advance(60)
    deployment = sim.objects("Deployment")[0]
    owned = sim.objects("ReplicaSet")
    new = deployment_rules.find_new_replica_set(deployment, owned)
    old = deployment_rules.find_old_replica_sets(deployment, owned)
    text = describe_deployment(deployment, old, [new], [], sim.wall_time())
    stable = replica_sets_by_image(sim)["nginx:1.16.1"]["metadata"]["name"]
    assert f"OldReplicaSets:  {stable} (3/3 replicas created)\n" in text
    assert f"NewReplicaSet:   {new['metadata']['name']} (1/1 replicas created)\n" in text


def test_deployment_md_rollout_undo_goes_back_to_1_16_1() -> None:
    sim = typo_run()
    sim.advance(60)
    sim.act({"action": "rollout-undo", "name": NAME})
    sim.advance(30)
    deployment = sim.objects("Deployment")[0]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.16.1"
    pods = sim.objects("Pod")
    assert len(pods) == 3
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"nginx:1.16.1"}
    # kubectl rolls back client-side (the Deployment's template patched back): no
    # DeploymentRollback event, which only the removed extensions/v1beta1 rollback wrote
    assert not any(e["reason"] == "DeploymentRollback" for e in sim.events())
    owned = sim.objects("ReplicaSet")
    new = deployment_rules.find_new_replica_set(deployment, owned)
    old = deployment_rules.find_old_replica_sets(deployment, owned)
    text = describe_deployment(deployment, old, [new], [], sim.wall_time())
    assert "OldReplicaSets:  <none>\n" in text  # both old ones are scaled to 0
    assert f"NewReplicaSet:   {new['metadata']['name']} (3/3 replicas created)\n" in text


def test_a_published_tag_still_pulls() -> None:
    sim = Simulation.from_yaml(NGINX_DEPLOYMENT)
    sim.advance(20)
    assert all(pod_columns(p, sim.wall_time())["STATUS"] == "Running" for p in sim.objects("Pod"))
