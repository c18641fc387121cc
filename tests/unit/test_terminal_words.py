"""The terminal's reading of a line: bash's word splitting (webapp/terminal/words.py) and
kubectl's flag parsing (webapp/terminal/flags.py; pflag's own errors, checked against
kubectl 1.37 with no server: tests/kubeapi/test_terminal.py runs them against the binary)."""

from __future__ import annotations

import pytest

from webapp.terminal.flags import Flag, UsageError, parse
from webapp.terminal.kubectl import unknown_command
from webapp.terminal.words import ShellError, split_words


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("kubectl get pods", ["kubectl", "get", "pods"]),
        ("  kubectl   get\tpods  ", ["kubectl", "get", "pods"]),
        ("kubectl get pods -l 'app in (web,api)'", ["kubectl", "get", "pods", "-l", "app in (web,api)"]),
        ('kubectl exec web -- sh -c "echo \\"hi\\" $"', ["kubectl", "exec", "web", "--", "sh", "-c", 'echo "hi" $']),
        ("kubectl get pod a\\ b", ["kubectl", "get", "pod", "a b"]),
        ("kubectl get pods # the web ones", ["kubectl", "get", "pods"]),
        ("kubectl get pods a#b", ["kubectl", "get", "pods", "a#b"]),
        ("''", [""]),
        ("", []),
    ],
)  # fmt: skip
def test_split_words(line: str, words: list[str]) -> None:
    assert split_words(line) == words


@pytest.mark.parametrize(("line", "code"), [("echo 'a", "unmatched_quote"), ('echo "a', "unmatched_quote"),
                                            ("a | b", "shell_operator"), ("a > f", "shell_operator"),
                                            ("a; b", "shell_operator"), ("a && b", "shell_operator"),
                                            ('a "$(b)"', "shell_operator"), ("a `b`", "shell_operator")])  # fmt: skip
def test_split_words_refuses_what_a_shell_would_run(line: str, code: str) -> None:
    with pytest.raises(ShellError) as caught:
        split_words(line)
    assert caught.value.code == code


FLAGS = (Flag("output", "o"), Flag("watch", "w", "bool"), Flag("tail", kind="int", default=-1))


@pytest.mark.parametrize(
    ("words", "args", "output", "watch"),
    [
        (["pods", "-o", "wide"], ["pods"], "wide", False),
        (["-owide", "pods"], ["pods"], "wide", False),
        (["pods", "-o=wide", "-w"], ["pods"], "wide", True),
        (["pods", "--output=yaml", "--watch=false"], ["pods"], "yaml", False),
        (["-wo", "name", "pods"], ["pods"], "name", True),
        (["pods", "--", "-o"], ["pods", "-o"], None, False),
    ],
)  # fmt: skip
def test_parse_interspersed_flags(
    words: list[str], args: list[str], output: str | None, watch: bool
) -> None:
    parsed = parse("get", words, FLAGS)
    assert (parsed.args, parsed["output"], parsed["watch"]) == (args, output, watch)


@pytest.mark.parametrize(
    ("words", "text"),
    [
        (["--foo"], "error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n"),
        (["-z"], "error: unknown shorthand flag: 'z' in -z\nSee 'kubectl get --help' for usage.\n"),
        (["-o"], "error: flag needs an argument: 'o' in -o\nSee 'kubectl get --help' for usage.\n"),
        (["--output"], "error: flag needs an argument: --output\nSee 'kubectl get --help' for usage.\n"),
        (["--watch=maybe"], 'error: invalid argument "maybe" for "--watch" flag: strconv.ParseBool: parsing "maybe": invalid syntax\nSee \'kubectl get --help\' for usage.\n'),
        (["--tail=x"], 'error: invalid argument "x" for "--tail" flag: strconv.ParseInt: parsing "x": invalid syntax\nSee \'kubectl get --help\' for usage.\n'),
    ],
)  # fmt: skip
def test_parse_errors_are_pflags(words: list[str], text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse("get", words, FLAGS)
    assert caught.value.text == text


def test_unknown_command_suggests_as_cobra_does() -> None:
    assert (
        unknown_command("gett")
        == 'error: unknown command "gett" for "kubectl"\n\nDid you mean this?\n\tset\n\tget\n'
    )
    assert (
        unknown_command("descibe")
        == 'error: unknown command "descibe" for "kubectl"\n\nDid you mean this?\n\tdescribe\n'
    )
    assert unknown_command("zzzzzzzz") == 'error: unknown command "zzzzzzzz" for "kubectl"\n'
