"""Invalid actions raise ActionError with a stable code and English text, change nothing,
and are not logged; once the Pod is gone every action is refused with ``pod_gone``."""

from __future__ import annotations

import copy

import pytest

from tests.unit.engine_support import pod_yaml, scenario, simulate, simulation_doc
from webapp.engine import ActionError, ScenarioError

IMAGES = "images:\n  nginx:1.27: {pullSeconds: 2}\n  busybox:1.36: {pullSeconds: 1}\n"
TWO = """\
- name: app
  image: nginx:1.27
  readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 5}
- name: side
  image: busybox:1.36
  command: [sleep, infinity]
"""
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: '1'}\n"

EVERY_ACTION = [
    {"action": "delete"},
    {"action": "delete", "force": True, "gracePeriodSeconds": 0},
    {"action": "set-probe", "container": "app", "probe": "readiness", "healthy": False},
    {"action": "crash", "container": "app"},
    {"action": "oom", "container": "side"},
    {"action": "node-down"},
    {"action": "node-down", "node": "node-1"},
    {"action": "node-up", "node": "node-1"},
    {"action": "apply", "yaml": CONFIG_MAP},
]


def running(seconds: float = 10):
    return simulate(scenario(pod_yaml(TWO), simulation_doc(IMAGES)), seconds)


def refused(sim, action: dict) -> ActionError:
    before = (len(sim.transitions), len(sim.events()), copy.deepcopy(sim.pod()), len(sim.actions))
    with pytest.raises(ActionError) as caught:
        sim.act(action)
    after = (len(sim.transitions), len(sim.events()), sim.pod(), len(sim.actions))
    assert after == before, "a refused action changed something"
    error = caught.value
    assert error.message and error.message != error.code and " " in error.message
    return error


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: a["action"])
@pytest.mark.parametrize("how", ["force", "graceful"])
def test_every_action_on_a_pod_that_is_gone_is_pod_gone(action, how):
    sim = running()
    if how == "force":
        sim.act({"action": "delete", "force": True, "gracePeriodSeconds": 0})
    else:
        sim.act({"action": "delete", "gracePeriodSeconds": 2})
        sim.advance(10)
    assert sim.pod() is None
    error = refused(sim, action)
    assert error.code == "pod_gone"
    assert error.message == 'The Pod "web" no longer exists.'


@pytest.mark.parametrize(
    ("action", "code"),
    [
        # the action word
        ("delete", "bad_action"),
        ({"verb": "delete"}, "bad_action"),
        ({"action": 3}, "bad_action"),
        ({"action": "explode"}, "unknown_action"),
        # delete parameters
        ({"action": "delete", "gracePeriodSeconds": -1}, "bad_grace"),
        ({"action": "delete", "gracePeriodSeconds": "5"}, "bad_grace"),
        ({"action": "delete", "gracePeriodSeconds": True}, "bad_grace"),
        ({"action": "delete", "gracePeriodSeconds": float("nan")}, "bad_grace"),
        ({"action": "delete", "gracePeriodSeconds": float("inf")}, "bad_grace"),
        ({"action": "delete", "force": "no"}, "bad_force"),
        ({"action": "delete", "force": 1}, "bad_force"),
        # containers
        ({"action": "crash"}, "container_required"),
        ({"action": "crash", "container": "nope"}, "unknown_container"),
        ({"action": "crash", "container": ["app"]}, "bad_container"),
        ({"action": "oom", "container": {"name": "app"}}, "bad_container"),
        ({"action": "crash", "container": "app", "exitCode": 256}, "bad_exit_code"),
        ({"action": "crash", "container": "app", "exitCode": "1"}, "bad_exit_code"),
        ({"action": "crash", "container": "app", "exitCode": False}, "bad_exit_code"),
        # probes
        ({"action": "set-probe", "container": "app", "probe": "liveness", "healthy": False},
         "no_such_probe"),
        ({"action": "set-probe", "container": "side", "probe": "readiness", "healthy": True},
         "no_such_probe"),
        ({"action": "set-probe", "container": "app", "probe": "alive", "healthy": True},
         "bad_probe"),
        ({"action": "set-probe", "container": "app", "probe": ["readiness"], "healthy": True},
         "bad_probe"),
        ({"action": "set-probe", "container": "app", "probe": "readiness", "healthy": "no"},
         "bad_healthy"),
        # nodes
        ({"action": "node-down", "node": "node-9"}, "unknown_node"),
        ({"action": "node-down", "node": ["node-1"]}, "bad_node"),
        ({"action": "node-down", "node": {}}, "bad_node"),
        ({"action": "node-down", "node": ""}, "bad_node"),
        ({"action": "node-up", "node": "node-1"}, "node_already_up"),
        # apply
        ({"action": "apply"}, "bad_yaml"),
        ({"action": "apply", "yaml": 7}, "bad_yaml"),
        ({"action": "apply", "yaml": "kind: [\n"}, "invalid_objects"),
    ],
)  # fmt: skip
def test_bad_actions_on_a_running_pod(action, code):
    assert refused(running(), action).code == code


@pytest.mark.parametrize(
    "action", [{"action": "crash", "container": "app"}, {"action": "oom", "container": "side"}]
)
def test_crash_and_oom_need_a_running_container(action):
    text = scenario(pod_yaml(TWO, spec_extra="restartPolicy: Never"), simulation_doc(IMAGES))
    sim = simulate(text)  # nothing has started yet
    assert refused(sim, action).code == "container_not_running"
    sim.advance(10)
    sim.act(action)
    assert refused(sim, action).code == "container_not_running"  # exited, not restarted


def test_node_actions_before_scheduling_need_a_node_name():
    # No node fits (an action at second 0 runs after the scheduler's work at 0, as in a
    # replay, so the Pod must stay unbound for the action to find no node).
    pod = pod_yaml(TWO, spec_extra="nodeSelector: {disk: none}")
    sim = simulate(scenario(pod, simulation_doc(IMAGES)))
    assert refused(sim, {"action": "node-down"}).code == "node_required"
    assert refused(sim, {"action": "node-up", "node": "node-9"}).code == "unknown_node"


def test_node_down_twice_is_refused():
    sim = running()
    sim.act({"action": "node-down"})
    assert refused(sim, {"action": "node-down"}).code == "node_already_down"


def test_scripted_actions_that_no_longer_apply_are_shown_as_skipped():
    script = "script:\n- {at: 5, action: delete, force: true, gracePeriodSeconds: 0}\n"
    script += (
        "- {at: 6, action: node-down, node: node-1}\n- {at: 7, action: crash, container: app}\n"
    )
    sim = simulate(scenario(pod_yaml(TWO), simulation_doc(IMAGES + script)), 20)
    assert sim.pod() is None
    assert not any(t["object"] == "Node/node-1" for t in sim.transitions)
    skipped = [(t["t"], t["object"], t["cause"]) for t in sim.transitions if t["field"] == "script"]
    assert skipped == [
        (6.0, "Pod/web", 'Scripted node-down at 6s did not apply: The Pod "web" no longer exists.'),
        (
            7.0,
            "Container/app",
            'Scripted crash at 7s did not apply: The Pod "web" no longer exists.',
        ),
    ]


@pytest.mark.parametrize(
    ("step", "path", "code"),
    [
        ("{at: 5, action: set-probe, container: app, probe: liveness, healthy: false}",
         "script[0].probe", "script_no_probe"),
        ("{at: 5, action: node-down, node: worker-9}", "script[0].node", "script_unknown_node"),
        ('{at: 5, action: apply, yaml: "apiVersion: v1\\nkind: Pod\\nmetadata: {name: other}\\n'
         'spec: {containers: [{name: a, image: nginx}]}"}', "script[0].yaml", "script_other_pod"),
    ],
)  # fmt: skip
def test_invalid_scripted_actions_are_located_load_time_errors(step, path, code):
    text = scenario(pod_yaml(TWO), simulation_doc(IMAGES + "script:\n- " + step + "\n"))
    with pytest.raises(ScenarioError) as caught:
        simulate(text)
    (error,) = caught.value.errors
    assert (error["path"], error["code"]) == (path, code)
    assert error["line"] > 1


def test_a_node_applied_earlier_in_the_script_is_known_later():
    node = "apiVersion: v1\\nkind: Node\\nmetadata: {name: extra}\\n"
    script = f'script:\n- {{at: 5, action: apply, yaml: "{node}"}}\n- {{at: 9, action: node-down, node: extra}}\n'
    sim = simulate(scenario(pod_yaml(TWO), simulation_doc(IMAGES + script)), 10)
    assert not sim.nodes_by_name["extra"].kubelet_up
