"""From a container spec to its argv, its description and located warnings."""

from __future__ import annotations

import pytest

from webapp.engine.programs import derive, expand_kubernetes

LIVENESS = {
    "name": "liveness",
    "image": "registry.k8s.io/busybox",
    "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
}


@pytest.mark.parametrize(
    ("container", "argv", "source"),
    [
        ({"image": "nginx:1.27"}, ("/docker-entrypoint.sh", "nginx", "-g", "daemon off;"), "image"),
        ({"image": "nginx:1.27", "command": ["nginx"]}, ("nginx",), "command"),  # CMD is dropped
        (
            {"image": "nginx:1.27", "args": ["nginx-debug"]},
            ("/docker-entrypoint.sh", "nginx-debug"),
            "args",
        ),
        (
            {"image": "busybox", "command": ["sh"], "args": ["-c", "x"]},
            ("sh", "-c", "x"),
            "command",
        ),
        (
            {"image": "registry.k8s.io/e2e-test-images/agnhost:2.40", "args": ["liveness"]},
            ("/agnhost", "liveness"),
            "args",
        ),
    ],
)
def test_argv_follows_the_command_and_args_rules(container: dict, argv: tuple, source: str) -> None:
    derived = derive({"name": "c", **container})
    assert (derived.argv, derived.source) == (argv, source)


def test_kubernetes_dollar_paren_expansion() -> None:
    env = {"GREETING": "Warm greetings to", "HONORIFIC": "The Most Honorable", "NAME": "Kubernetes"}
    assert expand_kubernetes("$(GREETING) $(HONORIFIC) $(NAME)", env) == (
        "Warm greetings to The Most Honorable Kubernetes"
    )
    assert expand_kubernetes("$$(NAME) $(MISSING) $NAME", env) == "$(NAME) $(MISSING) $NAME"


def test_script_and_where_it_is() -> None:
    derived = derive(LIVENESS)
    assert derived.script == "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"
    assert derived.script_field == "args[2]"
    assert (
        derive({"name": "c", "image": "busybox", "command": ["sh", "-c", "x"]}).script_field
        == "command[2]"
    )
    assert (
        derive(
            {"name": "c", "image": "busybox", "command": ["sh"], "args": ["-c", "x"]}
        ).script_field
        == "args[1]"
    )


def test_description_of_the_liveness_example() -> None:
    derived = derive(LIVENESS)
    assert [(s["code"], s["params"]) for s in derived.steps] == [
        ("creates", {"file": "/tmp/healthy"}),
        ("sleeps", {"seconds": "30"}),
        ("removes", {"file": "/tmp/healthy"}),
        ("sleeps", {"seconds": "600"}),
    ]
    assert derived.warnings == ()
    assert (derived.pid1, derived.handles_stop, derived.stop_signal) == ("sleep", False, "SIGTERM")


def test_description_of_servers_and_loops() -> None:
    nginx = derive({"name": "web", "image": "nginx:1.27"})
    assert nginx.steps == ({"code": "serves", "params": {"program": "nginx", "ports": ":80"}},)
    assert (nginx.pid1, nginx.handles_stop, nginx.stop_exit, nginx.stop_signal) == (
        "nginx",
        True,
        0,
        "SIGQUIT",
    )
    loop = derive(
        {
            "name": "c",
            "image": "busybox",
            "command": ["sh", "-c", "while true; do echo tick; sleep 5; done"],
        }
    )
    assert loop.steps[0]["code"] == "loops_forever"
    assert [s["code"] for s in loop.steps[0]["params"]["body"]] == ["prints", "sleeps"]
    trapped = derive(
        {
            "name": "c",
            "image": "busybox",
            "command": ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"],
        }
    )
    assert (trapped.pid1, trapped.handles_stop) == ("sh", True)


def test_stop_signal_precedence() -> None:
    assert derive({"name": "c", "image": "nginx"}).stop_signal == "SIGQUIT"
    assert (
        derive({"name": "c", "image": "nginx", "lifecycle": {"stopSignal": "SIGTERM"}}).stop_signal
        == "SIGTERM"
    )
    assert derive({"name": "c", "image": "busybox"}).stop_signal == "SIGTERM"
    assert derive({"name": "c", "image": "postgres:16"}).stop_signal == "SIGINT"


def warning_codes(container: dict) -> list[tuple]:
    return [(w["code"], w["field"], w["line"], w["column"]) for w in derive(container).warnings]


def test_warnings_are_located_in_the_script() -> None:
    container = {
        "name": "c",
        "image": "nginx:1.27",
        "command": ["sh", "-c", "echo start\nsed -i s/a/b/ f\nwget http://x\n  myapp --serve"],
    }
    assert warning_codes(container) == [
        ("partially_modelled", "command[2]", 2, 1),
        ("command_not_in_image", "command[2]", 3, 1),  # the nginx image has curl, not wget
        ("not_modelled", "command[2]", 4, 3),
    ]
    busybox = {"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", "myapp"]}
    assert warning_codes(busybox) == [("command_not_in_image", "command[2]", 1, 1)]


def test_warning_for_a_busy_loop_and_forks_in_loops() -> None:
    busy = {
        "name": "c",
        "image": "busybox",
        "command": ["sh", "-c", "echo x; while true; do :; done"],
    }
    assert warning_codes(busy) == [("busy_loop", "command[2]", 1, 9)]
    sleepy = {
        "name": "c",
        "image": "busybox",
        "command": ["sh", "-c", "while true; do sleep 1; done"],
    }
    assert warning_codes(sleepy) == []
    forks = {
        "name": "c",
        "image": "busybox",
        "command": ["sh", "-c", "while true; do sleep 1 & done"],
    }
    assert ("background_in_loop", "command[2]", 1, 16) in warning_codes(forks)


def test_warning_for_unsupported_syntax_and_limits() -> None:
    case = derive(
        {"name": "c", "image": "busybox", "args": ["sh", "-c", "echo\ncase $1 in a) ;; esac"]}
    )
    assert [
        (w["code"], w["params"]["construct"], w["line"], w["column"]) for w in case.warnings
    ] == [("not_modelled_syntax", "case", 2, 1)]
    quote = derive({"name": "c", "image": "busybox", "command": ["sh", "-c", "echo 'x"]})
    assert [(w["code"], w["params"]["reason"]) for w in quote.warnings] == [
        ("script_syntax_error", "unterminated_quote")
    ]
    big = derive({"name": "c", "image": "busybox", "command": ["sh", "-c", "echo x\n" * 10_000]})
    assert [(w["code"], w["params"]["reason"]) for w in big.warnings] == [
        ("script_limit", "script_too_large")
    ]


def test_warning_for_huge_sleeps_and_unknown_images() -> None:
    huge = derive({"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 99999999999"]})
    assert [w["code"] for w in huge.warnings] == ["sleep_beyond_horizon"]
    unknown = derive({"name": "c", "image": "registry.example.com/shop/frontend:2.4.0"})
    assert [(w["code"], w["field"]) for w in unknown.warnings] == [("unknown_image", "image")]
    assert unknown.argv == ("frontend",)


def test_exec_form_warnings() -> None:
    assert warning_codes({"name": "c", "image": "busybox", "command": ["curl", "x"]}) == [
        ("command_not_in_image", "command[0]", None, None)
    ]
    assert warning_codes({"name": "c", "image": "debian:12", "command": ["/app/server"]}) == [
        ("not_modelled", "command[0]", None, None)
    ]


def test_derived_facts_are_shared_by_copies() -> None:
    import copy

    derived = derive(LIVENESS)
    assert copy.deepcopy(derived) is derived
