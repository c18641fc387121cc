"""From a container spec to what its process will do: the argv the runtime execs, the
shell script inside it, a plain description of the behaviour, and located warnings for
whatever the model does not interpret.

``derive(container, env)`` is pure and cheap; the engine calls it once per container.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.programs import bignum, commands, pycmd, servers
from webapp.engine.programs.base import HORIZON_MS, parse_duration, shell_flavour
from webapp.engine.programs.catalogue import ImageFacts, image_facts
from webapp.engine.programs.syntax import Node, ShellSyntaxError, Word, line_column

BLOCKING = frozenset(("sleep", "wait", "read", "tail", "nc", "timeout", "usleep"))
STOP_SIGNALS = frozenset(("SIGTERM", "SIGQUIT", "SIGINT", "SIGHUP", "SIGKILL", "SIGUSR1",
                          "SIGUSR2", "SIGWINCH", "SIGSTOP"))  # fmt: skip


@dataclass(frozen=True)
class Derived:
    """What the model derived for one container (see the module docstring)."""

    name: str
    argv: tuple[str, ...]
    facts: ImageFacts
    source: str  # where argv came from: "command", "args", "image"
    script: str | None  # the shell script (sh -c …), when there is one
    script_field: str | None  # where it is in the spec: "command[2]" / "args[1]"
    shell: str  # the image's /bin/sh: ash | dash | bash
    stop_signal: str  # lifecycle.stopSignal, else the image's STOPSIGNAL, else SIGTERM
    steps: tuple[dict, ...] = ()  # the description, as {code, params} items
    warnings: tuple[dict, ...] = ()  # {code, params, field, pos, line, column}
    pid1: str = ""  # what PID 1 ends up being: "sh", "nginx", …
    handles_stop: bool = False  # PID 1 reacts to the stop signal (else SIGKILL after grace)
    stop_exit: int | None = None  # the exit code when it does, if known statically
    script_error: dict | None = field(default=None)

    def __deepcopy__(self, memo: dict) -> Derived:
        return self


def expand_kubernetes(text: str, env: dict[str, str]) -> str:
    """Kubernetes' ``$(VAR)`` expansion of command and args (``$$`` escapes a ``$``)."""
    out = []
    i = 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
            continue
        if text.startswith("$(", i):
            end = text.find(")", i + 2)
            name = text[i + 2 : end] if end > 0 else ""
            if end > 0 and re.fullmatch(r"[-._a-zA-Z][-._a-zA-Z0-9]*", name) and name in env:
                out.append(env[name])
                i = end + 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def derive(container: dict, env: dict[str, str] | None = None) -> Derived:
    env = env or {}
    facts = image_facts(str(container.get("image") or ""))
    command = [str(x) for x in container.get("command") or []]
    args = [str(x) for x in container.get("args") or []]
    if command:
        argv, source = command + args, "command"
    elif args:
        argv, source = list(facts.entrypoint) + args, "args"
    else:
        argv, source = list(facts.entrypoint) + list(facts.cmd), "image"
    argv = [expand_kubernetes(word, env) for word in argv]
    unknown_image = not facts.known and not argv
    if not argv:
        repo = facts.ref.repository.rsplit("/", 1)[-1] or "app"
        argv = [repo]
    stop = ((container.get("lifecycle") or {}).get("stopSignal")) or facts.stop_signal
    script, script_field = _script_of(argv, command, args, source)
    warnings: list[dict] = []
    steps: list[dict] = []
    script_error = None
    root: Node | None = None
    if script is not None:
        bash = shell_flavour(posixpath.basename(argv[0]), facts.shell) == "bash"
        root, error = commands.parse_cached(script, bash)
        if error is not None:
            script_error = _error_entry(error, script, script_field)
            warnings.append(script_error)
    if unknown_image:
        warnings.append({"code": "unknown_image", "params": {"image": facts.ref.text},
                         "field": "image", "pos": None, "line": None, "column": None})  # fmt: skip
    if root is not None:
        _walk(root, facts, warnings, script or "", script_field, in_loop=False)
        steps = _describe_list(root, facts)
    else:
        steps = _describe_argv(argv, facts, unknown_image, script_error)
        if script is None:
            _check_argv(argv, facts, warnings, source)
    pid1, handles, code = _pid1(argv, root, facts, stop, script_error, unknown_image)
    return Derived(
        name=str(container.get("name", "")),
        argv=tuple(argv),
        facts=facts,
        source=source,
        script=script,
        script_field=script_field,
        shell=shell_flavour(posixpath.basename(argv[0]), facts.shell)
        if script is not None
        else facts.shell,
        stop_signal=stop,
        steps=tuple(steps),
        warnings=tuple(warnings),
        pid1=pid1,
        handles_stop=handles,
        stop_exit=code,
        script_error=script_error,
    )


def _script_of(
    argv: list[str], command: list[str], args: list[str], source: str
) -> tuple[str | None, str | None]:
    """The ``-c`` script of a shell argv and the spec field it came from."""
    if not argv or posixpath.basename(argv[0]) not in commands.SHELLS:
        return None, None
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        if "c" in argv[i][1:]:
            if i + 1 < len(argv):
                index = i + 1
                if source == "command":
                    where = (
                        f"command[{index}]"
                        if index < len(command)
                        else f"args[{index - len(command)}]"
                    )
                elif source == "args":
                    offset = len(argv) - len(args)
                    where = f"args[{index - offset}]" if index >= offset else "image"
                else:
                    where = "image"
                return argv[index], where
            return None, None
        i += 1
    return None, None


def _error_entry(error: ShellSyntaxError, script: str, where: str | None) -> dict:
    line, column = line_column(script, error.pos)
    code = {"syntax": "script_syntax_error", "unsupported": "not_modelled_syntax",
            "limit": "script_limit"}[error.kind]  # fmt: skip
    return {"code": code, "params": {"reason": error.code, **{k: str(v) for k, v in error.params.items()}},
            "field": where, "pos": error.pos, "line": line, "column": column}  # fmt: skip


def _warning(code: str, node_pos: int, script: str, where: str | None, **params: Any) -> dict:
    line, column = line_column(script, node_pos)
    return {"code": code, "params": params, "field": where, "pos": node_pos, "line": line,
            "column": column}  # fmt: skip


INTERPRETERS = ("python", "node", "java", "perl")  # run a program of their own: not modelled


def _command_class(name: str, argv_words: tuple, facts: ImageFacts) -> str:
    """builtin | utility | program | partial | missing | unknown (of a static command)."""
    base = posixpath.basename(name)
    if name in commands.BUILTINS:
        return "builtin"
    if facts.has_binary(name) is False:
        return "missing"
    if base in commands.SHELLS or base in commands.WRAPPERS:
        return "utility"
    key = "nginx" if base == "nginx" else servers.program_key(facts, [name, *argv_words])
    if key in INTERPRETERS and argv_words:
        return "unknown"  # `python app.py`, `java -jar app.jar`: what the program does is not known
    if key is not None:
        return "program"
    if base in commands.UTILITIES:
        return "utility"
    if base == "sed" and commands.sed_modelled(list(argv_words)):
        return "utility"  # its substitute command runs (programs/sed.py)
    if base in commands.PARTIAL:
        return "partial"
    return "unknown"


def _static_words(node: Node) -> list[str | None]:
    return [word.static_text() for word in node.b]


def _blocks(node: Node, facts: ImageFacts) -> bool:
    """Does running ``node`` wait for time or an event somewhere (so a loop around it is
    not a busy loop)?"""
    kind = node.kind
    if kind == "simple":
        words = _static_words(node)
        if not words or words[0] is None:
            return True  # a command from a variable: assume it may wait
        base = posixpath.basename(words[0])
        klass = _command_class(words[0], tuple(w or "" for w in words[1:]), facts)
        return base in BLOCKING or klass in ("program", "unknown") or base in commands.SHELLS
    if kind == "list":
        return any(_blocks(item, facts) for item, _bg in node.a)
    if kind == "andor":
        return _blocks(node.a, facts) or any(_blocks(n, facts) for _op, n in node.b)
    if kind == "pipeline":
        return any(_blocks(n, facts) for n in node.a)
    if kind == "if":
        return any(_blocks(c, facts) or _blocks(b, facts) for c, b in node.a) or (
            node.b is not None and _blocks(node.b, facts)
        )
    if kind == "while":
        return _blocks(node.a, facts) or _blocks(node.b, facts)
    if kind == "for":
        return _blocks(node.c, facts)
    if kind in ("group", "subshell", "redirected"):
        return _blocks(node.a, facts)
    return False


def _walk(node: Node, facts: ImageFacts, warnings: list[dict], script: str, where: str | None,
          in_loop: bool) -> None:  # fmt: skip
    kind = node.kind
    if kind == "simple":
        words = _static_words(node)
        for word in node.b:
            _walk_word(word, facts, warnings, script, where)
        if not words:
            return
        name = words[0]
        if name is None:
            return
        klass = _command_class(name, tuple(w or "" for w in words[1:]), facts)
        base = posixpath.basename(name)
        if klass == "missing":
            warnings.append(_warning("command_not_in_image", node.pos, script, where, command=name,
                                     image=facts.ref.text))  # fmt: skip
        elif klass == "partial":
            warnings.append(_warning("partially_modelled", node.pos, script, where, command=base))
        elif klass == "unknown":
            warnings.append(_warning("not_modelled", node.pos, script, where, command=base))
        if base == "sleep":
            for value in words[1:]:
                seconds = parse_duration(value or "")
                if seconds is not None and seconds * 1000 > _horizon_ms():
                    warnings.append(
                        _warning("sleep_beyond_horizon", node.pos, script, where, seconds=value)
                    )
        return
    if kind == "list":
        for item, background in node.a:
            if background and in_loop:
                warnings.append(_warning("background_in_loop", item.pos, script, where))
            _walk(item, facts, warnings, script, where, in_loop)
        return
    if kind == "while":
        if not _blocks(node, facts):
            warnings.append(_warning("busy_loop", node.pos, script, where))
        _walk(node.a, facts, warnings, script, where, True)
        _walk(node.b, facts, warnings, script, where, True)
        return
    if kind == "for":
        _walk(node.c, facts, warnings, script, where, True)
        return
    if kind == "andor":
        _walk(node.a, facts, warnings, script, where, in_loop)
        for _op, nxt in node.b:
            _walk(nxt, facts, warnings, script, where, in_loop)
        return
    if kind == "pipeline":
        for nxt in node.a:
            _walk(nxt, facts, warnings, script, where, in_loop)
        return
    if kind == "if":
        for cond, body in node.a:
            _walk(cond, facts, warnings, script, where, in_loop)
            _walk(body, facts, warnings, script, where, in_loop)
        if node.b is not None:
            _walk(node.b, facts, warnings, script, where, in_loop)
        return
    if kind in ("group", "subshell", "redirected"):
        _walk(node.a, facts, warnings, script, where, in_loop)


def _walk_word(
    word: Word, facts: ImageFacts, warnings: list[dict], script: str, where: str | None
) -> None:
    for part in word.parts:
        if part[0] == "C":
            _walk(part[1], facts, warnings, script, where, False)


def _horizon_ms() -> int:
    return HORIZON_MS


def _check_argv(argv: list[str], facts: ImageFacts, warnings: list[dict], source: str) -> None:
    name = argv[0]
    klass = _command_class(name, tuple(argv[1:]), facts)
    where = (
        "command[0]"
        if source == "command"
        else ("args[0]" if source == "args" and not facts.entrypoint else "image")
    )
    entry = {"field": where, "pos": None, "line": None, "column": None}
    program = pycmd.program_of(argv[1:]) if servers.program_key(facts, argv) == "python" else None
    if program is not None and source == "command":
        # `python3 -c PROGRAM` outside the modelled subset: point at the line it leaves it
        index = argv.index(program, 1)
        line = pycmd.compile_program(program)
        located = isinstance(line, int)
        entry = {"field": f"command[{index}]", "pos": None,
                 "line": line if located else None, "column": 1 if located else None}  # fmt: skip
    if klass == "missing":
        warnings.append(
            {
                "code": "command_not_in_image",
                "params": {"command": name, "image": facts.ref.text},
                **entry,
            }
        )
    elif klass == "unknown" and facts.known and posixpath.basename(name) not in commands.WRAPPERS:
        warnings.append(
            {"code": "not_modelled", "params": {"command": posixpath.basename(name)}, **entry}
        )
    elif klass == "partial":
        warnings.append(
            {"code": "partially_modelled", "params": {"command": posixpath.basename(name)}, **entry}
        )


# -- description -----------------------------------------------------------------------


def _text(word: Word) -> str:
    static = word.static_text()
    return static if static is not None else word.raw


def _describe_simple(node: Node, facts: ImageFacts) -> dict | None:
    if not node.b:
        if node.a:
            names = ", ".join(name.rstrip("+") for name, _ in node.a)
            return {"code": "sets", "params": {"names": names}}
        return None
    words = [_text(w) for w in node.b]
    base = posixpath.basename(words[0])
    args = [w for w in words[1:] if not w.startswith("-")]
    redirect = next((r for r in node.c if r[1] in (">", ">>")), None)
    target = _text(redirect[2]) if redirect is not None else None
    klass = _command_class(words[0], tuple(words[1:]), facts)
    if klass == "missing":
        return {"code": "not_found", "params": {"command": words[0]}}
    if base in ("echo", "printf"):
        if target and target not in ("/dev/stdout", "/dev/stderr", "/proc/1/fd/1", "/dev/null"):
            return {"code": "writes", "params": {"file": target}}
        return {"code": "prints", "params": {"text": " ".join(words[1:])[:60]}}
    if base == "touch":
        return {"code": "creates", "params": {"file": " ".join(args)}}
    if base == "rm":
        return {"code": "removes", "params": {"file": " ".join(args)}}
    if base == "mkdir":
        return {"code": "makes_dir", "params": {"dir": " ".join(args)}}
    if base == "sleep":
        value = " ".join(words[1:])
        if value.lower().startswith("inf"):
            return {"code": "sleeps_forever", "params": {}}
        return {"code": "sleeps", "params": {"seconds": value}}
    if base in ("exit", "return"):
        return {"code": "exits", "params": {"code": words[1] if len(words) > 1 else "$?"}}
    if base == "trap":
        return {"code": "traps", "params": {"signals": " ".join(words[2:]) if len(words) > 2 else "",
                                             "action": words[1] if len(words) > 1 else ""}}  # fmt: skip
    if base == "wait":
        return {"code": "waits", "params": {}}
    if base in ("nslookup", "getent"):
        return {"code": "looks_up", "params": {"name": args[-1] if args else ""}}
    if base in ("wget", "curl"):
        urls = [a for a in args if "/" in a or "." in a]
        return {"code": "fetches", "params": {"url": urls[-1] if urls else ""}}
    if base == "cat":
        return {"code": "reads", "params": {"file": " ".join(args)}}
    if base == "tail" and any(a in ("-f", "-F") for a in words[1:]):
        return {"code": "follows", "params": {"file": " ".join(args)}}
    if base == "exec":
        inner = Node("simple", (), node.b[1:], node.c, pos=node.pos)
        described = _describe_simple(inner, facts) if len(node.b) > 1 else None
        if described is not None:
            described = dict(described, params={**described["params"], "exec": True})
        return described
    if klass == "program" and servers.program_key(facts, words) in ("python-c", "zookeeper"):
        return {"code": "runs", "params": {"command": " ".join(words)[:60]}}
    if klass == "program" and servers.program_key(facts, words) == "perl-bpi":
        digits = bignum.perl_bpi_digits(words[1:])
        return {"code": "prints_pi", "params": {"digits": digits}}
    if klass == "program":
        ports = _program_ports(words, facts)
        return {"code": "serves", "params": {"program": base, "ports": ports}}
    if klass == "partial":
        return {"code": "partial", "params": {"command": base}}
    if klass == "unknown":
        return {"code": "unknown", "params": {"command": base}}
    return {"code": "runs", "params": {"command": " ".join(words)[:60]}}


def _program_ports(words: list[str], facts: ImageFacts) -> str:
    from webapp.engine.programs.catalogue import program as program_config

    base = posixpath.basename(words[0])
    key = "nginx" if base == "nginx" else servers.program_key(facts, words)
    if key is None:
        return ""
    ports = servers.program_ports(key, program_config(key), words[1:])
    return ", ".join(f":{port}" for port, _ in ports)


def _describe_list(node: Node, facts: ImageFacts) -> list[dict]:
    steps: list[dict] = []
    for item, background in node.a:
        described = _describe_node(item, facts)
        if described is None:
            continue
        if background:
            described = {"code": "background", "params": {"what": described}}
        steps.append(described)
        if len(steps) >= 12:
            steps.append({"code": "more", "params": {}})
            break
    return steps


def _describe_node(node: Node, facts: ImageFacts) -> dict | None:
    kind = node.kind
    if kind == "simple":
        return _describe_simple(node, facts)
    if kind == "redirected":
        return _describe_node(node.a, facts)
    if kind == "while":
        always = (
            node.a.kind == "list"
            and len(node.a.a) == 1
            and node.a.a[0][0].kind == "simple"
            and ([_text(w) for w in node.a.a[0][0].b] in (["true"], [":"]))
        )
        body = _describe_list(node.b, facts)
        if always and not node.c:
            return {"code": "loops_forever", "params": {"body": body}}
        condition = _source_of(node.a)
        return {"code": "loops_until" if node.c else "loops_while",
                "params": {"condition": condition, "body": body}}  # fmt: skip
    if kind == "for":
        return {
            "code": "loops_for",
            "params": {"var": node.a, "body": _describe_list(node.c, facts)},
        }
    if kind == "if":
        return {"code": "branches", "params": {"condition": _source_of(node.a[0][0])}}
    if kind == "andor":
        first = _describe_node(node.a, facts)
        rest = [(op, _describe_node(n, facts)) for op, n in node.b]
        return {"code": "chain", "params": {"first": first, "rest": rest}}
    if kind in ("group", "subshell"):
        steps = _describe_list(node.a, facts)
        return {"code": "group", "params": {"body": steps}}
    if kind == "pipeline":
        return {
            "code": "pipeline",
            "params": {"stages": [_describe_node(n, facts) for n in node.a]},
        }
    return None


def _source_of(node: Node) -> str:
    if node.kind == "list" and len(node.a) == 1:
        return _source_of(node.a[0][0])
    if node.kind == "simple":
        return " ".join(_text(w) for w in node.b)
    return "…"


def _describe_argv(
    argv: list[str], facts: ImageFacts, unknown_image: bool, script_error: dict | None
) -> list[dict]:
    if script_error is not None:
        if script_error["code"] == "script_syntax_error":
            return [{"code": "syntax_error", "params": {}}]
        return [{"code": "unknown", "params": {"command": argv[0]}}]
    if unknown_image:
        return [{"code": "unknown_image", "params": {"image": facts.ref.text}}]
    words = list(argv)
    while words and posixpath.basename(words[0]) in commands.WRAPPERS:
        rest = words[1:]
        if posixpath.basename(words[0]) == "httpd-foreground":
            rest = ["httpd", "-DFOREGROUND", *rest]
        words = rest
    if not words:
        return [{"code": "exits", "params": {"code": "0"}}]
    base = posixpath.basename(words[0])
    if base in commands.SHELLS:
        if len(words) == 1:
            return [{"code": "shell_no_input", "params": {"shell": base}}]
        return [{"code": "runs", "params": {"command": " ".join(words)[:60]}}]
    node = Node("simple", (), tuple(Word((("L", w, True),), w, 0) for w in words), (), pos=0)
    described = _describe_simple(node, facts)
    return [described] if described is not None else []


def _pid1(argv: list[str], root: Node | None, facts: ImageFacts, stop: str, script_error: dict | None,
          unknown_image: bool) -> tuple[str, bool, int | None]:  # fmt: skip
    """(what PID 1 is once running, whether it reacts to the stop signal, its exit code)."""
    from webapp.engine.programs.catalogue import program as program_config

    words = list(argv)
    while words and posixpath.basename(words[0]) in commands.WRAPPERS:
        words = (
            ["httpd", "-DFOREGROUND"] if posixpath.basename(words[0]) == "httpd-foreground" else []
        ) + words[1:]
    if not words:
        return "", False, None
    base = posixpath.basename(words[0])
    if root is not None:
        traps = _traps(root)
        if stop[3:] in traps:
            return base, True, None
        last = _last_simple(root)
        flavour = shell_flavour(base, facts.shell)
        if last is not None and flavour in ("ash", "bash") and not traps:
            last_words = [_text(w) for w in last.b]
            if last_words and last_words[0] not in commands.BUILTINS:
                return _program_stop(last_words, facts, stop)
        if last is not None and last.b and _text(last.b[0]) == "exec" and len(last.b) > 1:
            return _program_stop([_text(w) for w in last.b[1:]], facts, stop)
        return base, False, None
    if script_error is not None or unknown_image:
        config = program_config("unknown")
        handler = (config.get("signals") or {}).get(stop)
        return base, handler is not None, handler.get("exit") if handler else None
    return _program_stop(words, facts, stop)


def _program_stop(words: list[str], facts: ImageFacts, stop: str) -> tuple[str, bool, int | None]:
    from webapp.engine.programs.catalogue import program as program_config

    base = posixpath.basename(words[0])
    key = "nginx" if base == "nginx" else servers.program_key(facts, words)
    if key is None:
        if base in commands.UTILITIES or base in commands.BUILTINS or base in commands.PARTIAL:
            return base, False, None
        key = "unknown"
    config = program_config(key)
    handler = (config.get("signals") or {}).get(stop)
    if handler is not None and not handler.get("continue"):
        return base, True, int(handler.get("exit", 0))
    if config.get("go") and stop in servers.GO_SIGNALS:
        return base, True, 2
    return base, False, None


def _traps(root: Node) -> set[str]:
    found: set[str] = set()
    for item, _bg in root.a:
        if item.kind == "simple" and item.b and _text(item.b[0]) == "trap":
            words = [_text(w) for w in item.b]
            if len(words) > 2 and words[1] not in ("", "-"):
                found.update(w.upper().removeprefix("SIG") for w in words[2:])
    return found


def _last_simple(root: Node) -> Node | None:
    if not root.a or root.a[-1][1]:
        return None
    node = root.a[-1][0]
    while node.kind in ("andor",):
        node = node.b[-1][1]
    return node if node.kind == "simple" else None


def check_stop_signal(value: Any) -> bool:
    return isinstance(value, str) and value in STOP_SIGNALS
