"""The shell parser of the process model: what it reads, and how it refuses the rest."""

from __future__ import annotations

import copy

import pytest

from webapp.engine.programs import MAX_DEPTH, MAX_SCRIPT_BYTES, ShellSyntaxError, parse_script
from webapp.engine.programs.syntax import line_column


def kinds(node) -> list[str]:
    return [item.kind for item, _bg in node.a]


def test_lists_and_connectors() -> None:
    root = parse_script("a; b && c || d\ne & f")
    assert kinds(root) == ["simple", "andor", "simple", "simple"]
    assert [bg for _n, bg in root.a] == [False, False, True, False]
    andor = root.a[1][0]
    assert [op for op, _n in andor.b] == ["&&", "||"]


def test_compound_commands() -> None:
    root = parse_script(
        "if [ -f x ]; then a; elif b; then c; else d; fi\n"
        "while true; do sleep 1; done\nuntil nslookup db; do sleep 2; done\n"
        "for i in 1 2 3; do echo $i; done\n{ a; b; }\n( c )\n! false | cat"
    )
    assert kinds(root) == ["if", "while", "while", "for", "group", "subshell", "pipeline"]
    assert len(root.a[0][0].a) == 2 and root.a[0][0].b is not None
    assert root.a[2][0].c is True  # until
    assert root.a[3][0].a == "i"
    assert root.a[6][0].b is True  # negated


def test_words_quotes_and_expansions() -> None:
    root = parse_script("""echo 'a b' "c $X ${Y:-d} $(cat f)" `date` $((1+2)) \\$z""")
    words = root.a[0][0].b
    assert words[0].raw == "echo"
    kinds_of = [[p[0] for p in w.parts] for w in words[1:]]
    assert kinds_of[0] == ["L"]
    assert kinds_of[1] == ["L", "V", "L", "V", "L", "C"]
    assert kinds_of[2] == ["C"] and kinds_of[3] == ["A"]
    assert words[5].static_text() == "$z"


def test_assignments_and_redirections() -> None:
    node = parse_script("A=1 B=$A cmd x >out 2>&1 >>log <in").a[0][0]
    assert [name for name, _w in node.a] == ["A", "B"]
    assert [(fd, op) for fd, op, _w in node.c] == [(1, ">"), (2, ">&"), (1, ">>"), (0, "<")]


def test_comments_and_line_continuations() -> None:
    root = parse_script("echo a # not this\necho \\\n b")
    assert [w.raw for w in root.a[1][0].b] == ["echo", "b"]


@pytest.mark.parametrize(
    ("script", "code"),
    [
        ("echo 'open", "unterminated_quote"),
        ('echo "open', "unterminated_quote"),
        ("if true; then echo", "expecting"),
        ("while true; do :", "expecting"),
        ("fi", "unexpected_token"),
        ("echo $(date", "unterminated_substitution"),
        ("echo && ", "unexpected_eof"),
    ],
)
def test_syntax_errors_are_what_the_shell_rejects(script: str, code: str) -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse_script(script)
    assert caught.value.kind == "syntax"
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("script", "construct"),
    [
        ("case $x in a) echo;; esac", "case"),
        ("f() { echo; }; f", "function"),
        ("function f { echo; }", "function"),
        ("cat <<EOF\nhi\nEOF", "<<"),
        (":(){ :|:& };:", "function"),
    ],
)
def test_valid_shell_the_model_does_not_interpret(script: str, construct: str) -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse_script(script)
    assert caught.value.kind == "unsupported"
    assert caught.value.params["construct"] == construct


def test_parameter_operators_not_modelled_are_located() -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse_script("echo ok; echo ${PATH%%:*}")
    assert caught.value.kind == "unsupported"
    assert line_column("echo ok; echo ${PATH%%:*}", caught.value.pos) == (1, 15)


def test_size_limit() -> None:
    script = "echo x\n" * (MAX_SCRIPT_BYTES // 7 + 1)
    with pytest.raises(ShellSyntaxError) as caught:
        parse_script(script)
    assert (caught.value.kind, caught.value.code) == ("limit", "script_too_large")
    parse_script("echo x\n" * (MAX_SCRIPT_BYTES // 8))  # just under the limit parses


def test_nesting_limit() -> None:
    deep = "while true; do " * (MAX_DEPTH + 1) + ":" + "; done" * (MAX_DEPTH + 1)
    with pytest.raises(ShellSyntaxError) as caught:
        parse_script(deep)
    assert (caught.value.kind, caught.value.code) == ("limit", "too_deep")
    subst = "echo " + "$(" * (MAX_DEPTH + 2) + "x" + ")" * (MAX_DEPTH + 2)
    with pytest.raises(ShellSyntaxError):
        parse_script(subst)


def test_error_positions_give_line_and_column() -> None:
    script = "echo a\necho b\necho 'c"
    with pytest.raises(ShellSyntaxError) as caught:
        parse_script(script)
    assert line_column(script, caught.value.pos) == (3, 6)


def test_tree_is_shared_by_deep_copies() -> None:
    root = parse_script("sleep 1; echo $X")
    assert copy.deepcopy(root) is root
    assert copy.deepcopy({"frames": [["list", root, 0]]})["frames"][0][1] is root
