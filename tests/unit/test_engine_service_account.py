"""ServiceAccount admission: the projected ``kube-api-access-<suffix>`` volume and its mounts.

Source: plugin/pkg/admission/serviceaccount/admission.go (mountServiceAccountToken,
TokenVolumeSource); kubectl describe.go (describeContainerVolumes,
printProjectedVolumeSource).
"""

from __future__ import annotations

import re

from tests.unit.engine_support import (
    APP,
    events,
    pod_yaml,
    scenario,
    simulate,
    simulation_doc,
    state_of,
)
from webapp.engine.apiserver.defaults import (
    NAME_SUFFIX_ALPHABET,
    admit_service_account,
    apply_pod_defaults,
)
from webapp.kubectl import describe_pod
from webapp.kubectl import pod_yaml as kubectl_pod_yaml

IMAGES = """\
images:
  nginx:1.27: {pullSeconds: 1}
  nginx:1.28: {pullSeconds: 1}
  busybox:1.36: {pullSeconds: 1}
"""
MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_VOLUME = {
    "defaultMode": 420,
    "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {
            "configMap": {
                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                "name": "kube-root-ca.crt",
            }
        },
        {
            "downwardAPI": {
                "items": [
                    {
                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                        "path": "namespace",
                    }
                ]
            }
        },
    ],
}
INIT = """\
- name: setup
  image: busybox:1.36
"""


def _token_volume(spec: dict) -> dict:
    (volume,) = [v for v in spec["volumes"] if v["name"].startswith("kube-api-access-")]
    return volume


def test_every_container_mounts_the_projected_token_volume():
    sim = simulate(scenario(pod_yaml(APP, init=INIT), simulation_doc(IMAGES)))
    spec = sim.pod()["spec"]
    volume = _token_volume(spec)
    assert re.fullmatch(f"kube-api-access-[{NAME_SUFFIX_ALPHABET}]{{5}}", volume["name"])
    assert volume["projected"] == TOKEN_VOLUME
    expected = {"mountPath": MOUNT_PATH, "name": volume["name"], "readOnly": True}
    for field in ("initContainers", "containers"):
        assert spec[field][0]["volumeMounts"] == [expected]


def test_the_suffix_is_seeded():
    text = scenario(pod_yaml(APP), simulation_doc(IMAGES))
    names = {
        seed: _token_volume(simulate(text, seed=seed).pod()["spec"])["name"] for seed in (0, 1)
    }
    assert names[0] == _token_volume(simulate(text, seed=0).pod()["spec"])["name"]
    assert names[0] != names[1]


def test_automount_false_adds_nothing():
    pod = pod_yaml(APP, spec_extra="automountServiceAccountToken: false")
    spec = simulate(scenario(pod, simulation_doc(IMAGES))).pod()["spec"]
    assert "volumes" not in spec
    assert "volumeMounts" not in spec["containers"][0]


def test_own_volumes_and_mounts_come_first_and_an_existing_mount_at_the_path_wins():
    import random

    pod = apply_pod_defaults(
        {
            "metadata": {"name": "web"},
            "spec": {
                "containers": [
                    {"name": "a", "image": "x", "volumeMounts": [{"name": "d", "mountPath": "/d"}]},
                    {
                        "name": "b",
                        "image": "x",
                        "volumeMounts": [{"name": "d", "mountPath": MOUNT_PATH}],
                    },
                ],
                "volumes": [{"name": "d", "emptyDir": {}}],
            },
        }
    )
    spec = admit_service_account(pod, random.Random(0))["spec"]
    name = spec["volumes"][1]["name"]
    assert [v["name"] for v in spec["volumes"]] == ["d", name]
    assert [m["name"] for m in spec["containers"][0]["volumeMounts"]] == ["d", name]
    assert spec["containers"][1]["volumeMounts"] == [{"name": "d", "mountPath": MOUNT_PATH}]


def test_root_ca_config_map_is_never_missing():
    pod = pod_yaml(
        APP + "  volumeMounts:\n  - {name: ca, mountPath: /ca}\n",
        spec_extra="volumes:\n- name: ca\n  configMap: {name: kube-root-ca.crt}",
    )
    sim = simulate(scenario(pod, simulation_doc(IMAGES)), 20)
    assert events(sim, "FailedMount") == []
    assert state_of(sim) == ("running", None)


def test_describe_shows_the_mount_and_the_projected_volume():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 20)
    name = _token_volume(sim.pod()["spec"])["name"]
    text = describe_pod(sim.pod(), sim.events(), sim.wall_time())
    assert f"      {MOUNT_PATH} from {name} (ro)\n" in text
    assert (
        f"  {name}:\n"
        "    Type:                    Projected (a volume that contains injected data from "
        "multiple sources)\n"
        "    TokenExpirationSeconds:  3607\n"
        "    ConfigMapName:           kube-root-ca.crt\n"
        "    Optional:                false\n"
        "    DownwardAPI:             true\n"
    ) in text
    assert f"  - name: {name}\n    projected:\n      defaultMode: 420\n" in kubectl_pod_yaml(
        sim.pod()
    )


def test_apply_keeps_the_admitted_volume_and_an_image_change_still_restarts():
    sim = simulate(scenario(pod_yaml(APP), simulation_doc(IMAGES)), 10)
    before = sim.pod()["spec"]
    sim.act({"action": "apply", "yaml": pod_yaml(APP.replace("1.27", "1.28"))})
    sim.advance(10)
    after = sim.pod()["spec"]
    assert after["volumes"] == before["volumes"]
    assert after["containers"][0]["volumeMounts"] == before["containers"][0]["volumeMounts"]
    assert events(sim, "Killing")[0]["message"] == (
        "Container app definition changed, will be restarted"
    )
