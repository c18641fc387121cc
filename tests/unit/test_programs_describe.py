"""What the page says each container does, in English and 简体中文, and where it warns."""

from __future__ import annotations

from tests.unit.engine_support import simulate
from webapp.engine.programs import derive
from webapp.engine.programs.describe import STEPS, WARNINGS, describe
from webapp.sessions.derived import derived_payload

LIVENESS = {
    "name": "liveness",
    "image": "registry.k8s.io/busybox",
    "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
}


def test_liveness_example_in_both_languages() -> None:
    en = describe(derive(LIVENESS), "en")
    assert en["summary"] == (
        "creates /tmp/healthy; sleeps 30 s; removes /tmp/healthy; sleeps 600 s; "
        "then exits with the last command's status"
    )
    assert en["stop"].startswith("PID 1 is sleep with no handler for SIGTERM")
    zh = describe(derive(LIVENESS), "zh")
    assert zh["summary"].startswith("创建 /tmp/healthy；休眠 30 秒；删除 /tmp/healthy")
    assert "1 号进程是 sleep" in zh["stop"]


def test_nginx_and_a_trap() -> None:
    nginx = describe(derive({"name": "web", "image": "nginx:1.27"}), "en")
    assert nginx["summary"] == "runs nginx, serving :80"
    assert nginx["stop"] == "PID 1 is nginx: the stop signal SIGQUIT makes it exit with code 0."
    trap = describe(
        derive(
            {
                "name": "c",
                "image": "busybox",
                "command": ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"],
            }
        ),
        "en",
    )
    assert (
        trap["stop"]
        == "PID 1 is the shell, with a trap for SIGTERM: it runs once the current command returns."
    )


def test_warnings_are_located_in_both_languages() -> None:
    container = {
        "name": "c",
        "image": "debian:12",
        "command": ["sh", "-c", "echo hi\njava -jar app.jar"],
    }
    (en,) = describe(derive(container), "en")["warnings"]
    (zh,) = describe(derive(container), "zh")["warnings"]
    assert en["text"] == "not modelled: “java” is treated as a long-running process"
    assert en["where"] == "command[2], script line 2 column 1"
    assert zh["text"] == "未建模：“java”被视为长期运行的进程"
    assert zh["where"] == "command[2]，脚本第 2 行第 1 列"


def test_every_text_has_both_languages() -> None:
    for table in (STEPS, WARNINGS):
        for code, texts in table.items():
            assert set(texts) == {"en", "zh"}, code
            assert all(texts.values()), code


def test_payload_gives_the_yaml_line_of_the_field() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n"
        "  - name: app\n    image: debian:12\n    command:\n    - sh\n    - -c\n"
        "    - java -jar /app.jar\n"
    )
    sim = simulate(text)
    (app,) = derived_payload(sim, text)
    assert app["argv"] == ["sh", "-c", "java -jar /app.jar"]
    (warning,) = app["warnings"]
    assert warning["line"] == 11
    assert warning["text"]["zh"].startswith("未建模")
    assert app["summary"]["en"].startswith("runs java")
