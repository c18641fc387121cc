"""Commands of the process model: word expansion, redirections, shell builtins and the
utilities scripts use (coreutils / busybox applets, DNS and HTTP clients).

Each command is ``f(m, th, argv) -> int | None``: an exit status, or None when the thread
now waits (``m`` is the :class:`~webapp.engine.programs.machine.Process`, ``th`` the
thread running it). Messages are the real tools' texts, in the flavour of the image:
busybox applets or GNU coreutils, busybox ``ash``, ``dash`` or ``bash`` for the shell.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Any

from webapp.engine.programs import arith, mysql, netclients, sed, servers
from webapp.engine.programs.base import (
    HORIZON_MS,
    MAX_THREADS,
    SIGNAME,
    SIGNUM,
    Machine,
    Thread,
    errno_text,
    flavour,
    parse_duration,
    shell_error,
    shell_flavour,
    syntax_message,
    tool_error,
)
from webapp.engine.programs.fs import EISDIR, ENOENT, SPECIAL
from webapp.engine.programs.syntax import Node, ShellSyntaxError, Word, parse_script

SHELLS = frozenset(("sh", "bash", "ash", "dash"))
MAX_SUBST_ROUNDS = 10_000


@lru_cache(maxsize=256)
def parse_cached(text: str, bash: bool = False) -> tuple[Node | None, ShellSyntaxError | None]:
    """Parse once per distinct script text (probes run the same command every period);
    ``bash``: with bash's arrays (syntax.parse_script)."""
    try:
        return parse_script(text, bash), None
    except ShellSyntaxError as error:
        return None, error


def tails(node: Node) -> frozenset:
    """The simple commands a busybox/bash ``-c`` shell execs instead of forking: the last
    one, through ``&&``/``||``, ``if`` branches and ``{ }`` (ash evalstring EV_EXIT)."""
    kind = node.kind
    if kind == "simple":
        return frozenset((node,))
    if kind == "list":
        if not node.a or node.a[-1][1]:
            return frozenset()
        return tails(node.a[-1][0])
    if kind == "andor":
        return tails(node.b[-1][1])
    if kind == "if":
        found: frozenset = frozenset()
        for _cond, body in node.a:
            found |= tails(body)
        return found | (tails(node.b) if node.b is not None else frozenset())
    if kind == "group":
        return tails(node.a)
    return frozenset()


# -- messages ----------------------------------------------------------------------------


# -- expansion ---------------------------------------------------------------------------


def lookup(m: Machine, th: Thread, name: str) -> str | None:
    if name == "?":
        return str(th.status)
    if name == "$":
        return "1" if not th.session else str(th.pid)
    if name == "!":
        return "" if th.last_bg is None else str(th.last_bg)
    if name == "#":
        return str(len(th.positional))
    if name == "0":
        return th.arg0
    if name.isdigit():
        index = int(name)
        return th.positional[index - 1] if index <= len(th.positional) else None
    if name in ("@", "*"):
        return " ".join(th.positional)
    if name == "PWD":
        return th.vars.get("PWD", th.cwd)
    if name == "-":
        return "".join(sorted(th.options))
    value = th.vars.get(name)
    if value is None and ARRAY + name in th.vars:
        return dict(th.vars[ARRAY + name]).get(0)  # bash: $a is ${a[0]}
    return value


# -- bash arrays: th.vars[ARRAY + name] is a tuple of (index, value), by index ----------

ARRAY = "\x00array:"
MAX_ARRAY_INDEX = 1 << 20  # a larger subscript is refused (bounded memory)
MAX_ARRAY_ITEMS = 256  # elements kept per array (a longer one is cut, with a note)


def array_items(th: Thread, name: str) -> tuple[tuple[int, str], ...]:
    """The elements of array ``name``; a scalar is an array of one element (bash)."""
    items = th.vars.get(ARRAY + name)
    if items is not None:
        return items
    value = th.vars.get(name)
    return () if value is None else ((0, value),)


def set_array(th: Thread, name: str, items: dict[int, str], m: Machine | None = None) -> None:
    th.vars.pop(name, None)
    if len(items) > MAX_ARRAY_ITEMS and m is not None:
        m.note("array_too_large", None, limit=MAX_ARRAY_ITEMS)
    th.vars[ARRAY + name] = tuple(sorted(items.items()))[:MAX_ARRAY_ITEMS]


def array_index(m: Machine, th: Thread, name: str, subscript: Word | str) -> int | None:
    """An indexed array's subscript: an arithmetic expression (negative counts from the
    end, as bash 4.3+); None (and bash's message) when it is not a valid index."""
    text = subscript if isinstance(subscript, str) else _parts_text(m, th, subscript.parts)
    try:
        index = arith.evaluate(text, th.vars) if text.strip() else 0
    except arith.ArithError as error:
        shell_error(m, th, f"{text}: {error}")
        return None
    if index < 0:
        items = array_items(th, name)
        index += (items[-1][0] + 1) if items else 0
        if index < 0:
            shell_error(m, th, f"{name}: bad array subscript")
            return None
    if index > MAX_ARRAY_INDEX:
        m.note("array_too_large", None, limit=MAX_ARRAY_INDEX)
        return None
    return index


def assign(m: Machine, th: Thread, name: str, value: str | list[str]) -> None:
    """``name=value`` (a list: ``name=(…)``), ``name[i]=value``, ``name+=…`` (bash)."""
    append = name.endswith("+")
    if append:
        name = name[:-1]
    if "[" in name:
        base, _, rest = name.partition("[")
        subscript = rest[:-1]
        index = array_index(m, th, base, subscript)
        if index is None:
            return
        items = dict(array_items(th, base))
        items[index] = (items.get(index, "") if append else "") + str(value)
        set_array(th, base, items, m)
        return
    if isinstance(value, list):
        items = dict(array_items(th, name)) if append else {}
        start = (max(items) + 1) if items else 0
        for offset, item in enumerate(value):
            items[start + offset] = item
        set_array(th, name, items, m)
        return
    if ARRAY + name in th.vars:
        items = dict(th.vars[ARRAY + name])
        items[0] = (items.get(0, "") if append else "") + value
        set_array(th, name, items, m)
        return
    th.vars[name] = (th.vars.get(name, "") if append else "") + value


def _parts_text(m: Machine, th: Thread, parts: tuple) -> str:
    return "".join(expand_word(m, th, Word(parts, "", 0), split=False))


_FIELD_SEPARATORS = re.compile(r"[ \t\n]+")
_ECHO_FLAGS = re.compile(r"-[neE]+")


def _literal_fields(parts: tuple, split: bool) -> list[str] | None:
    """The fields of a word made only of literal parts, or None when it has an expansion or
    an unquoted pattern character (then :func:`expand_word` does it in full): the text of
    its parts joined, if it is not empty or something in it was quoted."""
    text = ""
    has_quoted = False
    for part in parts:
        if part[0] != "L":
            return None
        if part[2]:
            has_quoted = True
        elif split and ("*" in part[1] or "?" in part[1] or "[" in part[1]):
            return None
        text += part[1]
    return [text] if text or has_quoted else []


def expand_word(m: Machine, th: Thread, word: Word, split: bool = True) -> list[str]:
    """A word's fields after parameter, command and arithmetic expansion, field splitting
    (unquoted expansions only) and pathname expansion."""
    literal = _literal_fields(word.parts, split)
    if literal is not None:
        return literal
    fields: list[list] = [[[], False]]  # [chunks [(text, quoted)], has_quoted]

    def add(text: str, quoted: bool) -> None:
        if quoted:
            fields[-1][0].append((text, True))
            fields[-1][1] = True
            return
        if not split:
            fields[-1][0].append((text, True))
            return
        pieces = _FIELD_SEPARATORS.split(text)
        if len(pieces) == 1:
            fields[-1][0].append((text, False))
            return
        if pieces[0]:
            fields[-1][0].append((pieces[0], False))
        for piece in pieces[1:]:
            fields.append([[], False])
            if piece:
                fields[-1][0].append((piece, False))

    for part in word.parts:
        kind = part[0]
        if kind == "L":
            fields[-1][0].append((part[1], part[2]))
            if part[2]:
                fields[-1][1] = True
        elif kind == "V":
            name, quoted, op, arg = part[1], part[2], part[3], part[4]
            if name == "@" and quoted and split and not op:
                for i, value in enumerate(th.positional):
                    if i:
                        fields.append([[], True])
                    fields[-1][0].append((value, True))
                    fields[-1][1] = True
                continue
            value = _operate(m, th, name, lookup(m, th, name), op, arg)
            add(value or "", quoted)
        elif kind == "X":
            name, quoted, op, arg, subscript = part[1], part[2], part[3], part[4], part[5]
            if subscript in ("@", "*"):
                values = [item for _, item in array_items(th, name)]
                if op == "#":
                    add(str(len(values)), quoted)
                elif subscript == "@" and quoted and split and not op:
                    for i, item in enumerate(values):
                        if i:
                            fields.append([[], True])
                        fields[-1][0].append((item, True))
                        fields[-1][1] = True
                else:
                    joined = " ".join(values) if values else None
                    add(_operate(m, th, name, joined, op, arg) or "", quoted)
                continue
            index = array_index(m, th, name, subscript)
            value = None if index is None else dict(array_items(th, name)).get(index)
            if op == "#":
                add(str(len(value or "")), quoted)
                continue
            if (
                op in (":=", "=")
                and index is not None
                and (value is None or (value == "" and op == ":="))
            ):
                value = _parts_text(m, th, arg.parts)
                assign(m, th, f"{name}[{index}]", value)
            else:
                value = _operate(m, th, name, value, op, arg)
            add(value or "", quoted)
        elif kind == "C":
            output, status = command_substitution(m, th, part[1])
            th.vars["\x00subst"] = str(status)
            add(output.rstrip("\n"), part[2])
        elif kind == "A":
            expression = _parts_text(m, th, part[1].parts)
            try:
                value = str(arith.evaluate(expression, th.vars))
            except arith.ArithError as error:
                shell_error(m, th, f"arithmetic syntax error: {error}",
                            dash=f"arithmetic expression: {error}: \"{expression}\"")  # fmt: skip
                value = "0"
            add(value, part[2])
    result: list[str] = []
    for chunks, has_quoted in fields:
        if not chunks and not has_quoted:
            continue
        text = "".join(chunk for chunk, _ in chunks)
        if not text and not has_quoted:
            continue
        if split and any(not q and any(c in chunk for c in "*?[") for chunk, q in chunks):
            matches = glob(m, th, chunks)
            if matches:
                result.extend(matches)
                continue
        result.append(text)
    return result


def _operate(m: Machine, th: Thread, name: str, value: str | None, op: str,
             arg: Word | None) -> str | None:  # fmt: skip
    """``${name#}`` / ``${name:-word}`` and the like, given the parameter's value."""
    if op == "#":
        return str(len(value or ""))
    if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
        empty = value is None or (op.startswith(":") and value == "")
        if op in (":-", "-"):
            return _parts_text(m, th, arg.parts) if empty else value
        if op in (":=", "="):
            if empty:
                value = _parts_text(m, th, arg.parts)
                th.vars[name] = value
        elif op in (":+", "+"):
            return "" if empty else _parts_text(m, th, arg.parts)
    return value


def glob(m: Machine, th: Thread, chunks: list) -> list[str]:
    pattern = ""
    for text, quoted in chunks:
        if quoted:
            pattern += re.escape(text)
        else:
            for ch in text:
                pattern += {"*": "[^/]*", "?": "[^/]"}.get(ch, re.escape(ch) if ch != "[" else "[")
    raw = "".join(t for t, _ in chunks)
    absolute = raw.startswith("/")
    try:
        regex = re.compile(pattern + r"\Z")
    except re.error:
        return []
    found = []
    for path in m.fs.all_paths():
        candidate = path
        if not absolute:
            prefix = th.cwd.rstrip("/") + "/"
            if not path.startswith(prefix):
                continue
            candidate = path[len(prefix) :]
        if regex.match(candidate) and not posixpath.basename(candidate).startswith("."):
            found.append(candidate)
    return sorted(found)


def _read_only_file(node: Node) -> Word | None:
    """The file word of ``$(<file)``: one command that is only an input redirection."""
    if node.kind != "list" or len(node.a) != 1 or node.a[0][1]:
        return None
    command = node.a[0][0]
    if command.kind != "simple" or command.a or command.b or len(command.c) != 1:
        return None
    fd, op, target = command.c[0]
    return target if (fd, op) == (0, "<") else None


def command_substitution(m: Machine, th: Thread, node: Node) -> tuple[str, int]:
    """``$(…)``: run the commands now and collect their output. Sleeps inside take no
    time (they are counted as done at once); a command that never ends is cut off.
    bash's ``$(<file)`` is the file's contents (without running ``cat``)."""
    read = _read_only_file(node) if flavour(m, th) == "bash" else None
    if read is not None:
        path = m.fs.normalize("".join(expand_word(m, th, read, split=False)), th.cwd)
        text = m.fs.read(path)
        if text is None:
            shell_error(m, th, f"{read.raw}: No such file or directory")
            return "", 1
        return text, 0
    sub = Thread(pid=m.fork_pid(), kind="shell", name=th.name, session=True)
    sub.vars = dict(th.vars)
    sub.exported = set(th.exported)
    sub.positional = list(th.positional)
    sub.arg0 = th.arg0
    sub.options = set(th.options)
    sub.cwd = th.cwd
    sub.line = th.line
    sub.caps = {"out": []}
    sub.io = [{0: th.io[-1].get(0), 1: ("cap", "out"), 2: th.io[-1].get(2)}]
    sub.frames = [["end"]]
    m.push(sub, node)
    for _ in range(MAX_SUBST_ROUNDS):
        if sub.done or m.exit_code is not None:
            break
        if sub.block is None:
            m.run_thread(sub)
            continue
        if sub.block[0] in ("sleep", "busy", "exiting") and sub.wake is not None:
            m.wake(sub)
            continue
        m.note("substitution_blocks", node.pos)
        m.stop_child_program(sub)
        break
    output = "".join(sub.caps.get("out", []))
    status = sub.exit_code if sub.exit_code is not None else sub.status
    return output, status


def field(m: Machine, th: Thread, word: Word) -> str:
    return " ".join(expand_word(m, th, word))


# -- redirections ------------------------------------------------------------------------


def apply_redirects(m: Machine, th: Thread, redirects: tuple) -> bool:
    """Open the redirections onto a new io level of ``th``; False (and the shell's error
    on stderr) when one cannot be opened."""
    io = dict(th.io[-1]) if th.io else {}
    th.io.append(io)
    for fd, op, word in redirects:
        target = field(m, th, word)
        if op in (">&", "<&"):
            if target == "-":
                io[fd] = ("null",)
            elif target.isdigit():
                io[fd] = io.get(int(target))
            else:
                opened = _open_output(m, th, target, append=False)
                if opened is None:
                    return False
                io[1] = io[2] = opened
            continue
        if op in ("&>", "&>>"):
            opened = _open_output(m, th, target, append=op == "&>>")
            if opened is None:
                return False
            io[1] = io[2] = opened
            continue
        if op in ("<", "<>"):
            path = m.fs.normalize(target, th.cwd)
            if path == "/dev/null":
                io[fd] = ""
                continue
            content = m.fs.read(path)
            if content is None:
                shell_error(m, th, f"can't open {target}: no such file",
                            dash=f"cannot open {target}: No such file",
                            bash=f"{target}: No such file or directory")  # fmt: skip
                return False
            io[fd] = content
            continue
        opened = _open_output(m, th, target, append=op == ">>")
        if opened is None:
            return False
        io[fd] = opened
    return True


def _open_output(m: Machine, th: Thread, target: str, append: bool) -> tuple | None:
    path = m.fs.normalize(target, th.cwd)
    current = th.io[-2] if len(th.io) > 1 else th.io[-1]
    if path == "/dev/null" or path in ("/dev/zero", "/dev/random", "/dev/urandom"):
        return ("null",)
    if path in ("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"):
        return current.get(1)
    if path in ("/dev/stderr", "/proc/self/fd/2", "/dev/fd/2"):
        return current.get(2)
    if path == "/proc/1/fd/1":
        return ("log", "stdout")
    if path == "/proc/1/fd/2":
        return ("log", "stderr")
    if path in SPECIAL:
        return ("null",)
    error = m.fs.write(path, "", append=True) if append else m.fs.write(path, "", append=False)
    if error:
        if error == ENOENT:
            shell_error(m, th, f"can't create {target}: nonexistent directory",
                        dash=f"cannot create {target}: Directory nonexistent",
                        bash=f"{target}: No such file or directory")  # fmt: skip
        else:
            text = errno_text(error)
            shell_error(m, th, f"can't create {target}: {text}",
                        dash=f"cannot create {target}: {text}", bash=f"{target}: {text}")  # fmt: skip
        return None
    return ("file", path)


# -- running commands --------------------------------------------------------------------


def run_simple(m: Machine, th: Thread, node: Node) -> None:
    """One simple command: expand, redirect, run (or wait)."""
    th.vars.pop("\x00subst", None)
    assigns: list[tuple[str, Any]] = []
    for name, word in node.a:
        if isinstance(word, tuple):  # bash's name=( … ): each word's fields, in order
            values: list[str] = []
            for item in word[1]:
                values.extend(expand_word(m, th, item))
            assigns.append((name, values))
        else:
            assigns.append((name, "".join(expand_word(m, th, word, split=False))))
    argv: list[str] = []
    for word in node.b:
        argv.extend(expand_word(m, th, word))
    if m.exit_code is not None or th.done:
        return
    subst_status = int(th.vars.pop("\x00subst", "0") or 0)
    if not argv:
        for name, value in assigns:
            if isinstance(value, list) or name[-1] in "]+":
                assign(m, th, name, value)
            else:
                th.vars[name] = value
        if node.c:
            depth = len(th.io)
            ok = apply_redirects(m, th, node.c)
            del th.io[depth:]
            if not ok:
                th.status = 2 if flavour(m, th) == "dash" else 1
                return
        th.status = subst_status
        return
    if "x" in th.options:
        m.write(th, 2, "+ " + " ".join(argv) + "\n")
    if node.c:
        depth = len(th.io)
        if not apply_redirects(m, th, node.c):
            del th.io[depth:]
            th.status = 2 if flavour(m, th) == "dash" else 1
            return
        th.frames.append(["redir", depth])
    saved: dict[str, str | None] = {}
    for name, value in assigns:
        if isinstance(value, list) or name[-1] in "]+":
            continue  # bash refuses an array as a command's environment: not modelled
        saved[name] = th.vars.get(name)
        th.vars[name] = value
        th.exported.add(name)
    status = run_argv(m, th, argv, exec_mode=False, node=node)
    if th.block is None:
        for name, value in saved.items():
            if value is None:
                th.vars.pop(name, None)
            else:
                th.vars[name] = value
    if status is not None:
        th.status = status


def run_argv(m: Machine, th: Thread, argv: list[str], *, exec_mode: bool, node: Node | None,
             origin: str = "") -> int | None:  # fmt: skip
    """Run ``argv`` in ``th``: a builtin, a utility, a shell, a program. ``exec_mode``: the
    command replaces the thread's process (the runtime's exec, ``exec``, a tail command)."""
    if not argv:
        return 0
    name = argv[0]
    base = posixpath.basename(name)
    if th.kind == "shell" and "/" not in name and name in BUILTINS:
        return BUILTINS[name](m, th, argv)
    if base == "busybox" and len(argv) > 1:
        return run_argv(m, th, argv[1:], exec_mode=exec_mode, node=node, origin=origin)
    script = script_file(m, th, name)
    if script is not None:
        if script == "":
            return not_found(m, th, name, origin)
        return run_script(m, th, argv, script)
    present = m.facts.has_binary(name)
    if present is False or (present is None and m.facts.shell == "none" and m.facts.known
                            and (base in UTILITIES or base in SHELLS)):  # fmt: skip
        return not_found(m, th, name, origin)
    if (
        not exec_mode and th.kind == "shell" and th.pid == 1 and node is not None
        and node in th.tails and not m.traps and flavour(m, th) in ("ash", "bash")
    ):  # fmt: skip
        exec_mode = True
        become_program(th, base)
    if base in SHELLS:
        return start_shell(m, th, argv, exec_mode)
    wrapper = WRAPPERS.get(base)
    if wrapper is not None:
        return wrapper(m, th, argv, exec_mode)
    if servers.handles(m.facts, argv):
        if (
            servers.program_key(m.facts, argv) in ("python", "node", "java", "perl")
            and len(argv) > 1
        ):
            m.note("not_modelled", node.pos if node is not None else None, command=base)
        return servers.start_program(m, th, argv, exec_mode)
    utility = UTILITIES.get(base)
    if utility is not None:
        return utility(m, th, argv)
    if base == "sed":
        status = u_sed(m, th, argv)
        if status is not None:
            return status
    if base in PARTIAL:
        m.note("partially_modelled", node.pos if node is not None else None, command=base)
        return 0
    m.note("not_modelled", node.pos if node is not None else None, command=base)
    return servers.start_program(m, th, argv, exec_mode, unknown=True)


SHEBANG_SHELLS = {"#!/bin/sh": "sh", "#!/bin/bash": "bash", "#!/usr/bin/env bash": "bash",
                  "#!/usr/bin/env sh": "sh", "#!/bin/ash": "ash", "#!/bin/dash": "dash"}  # fmt: skip


def script_file(m: Machine, th: Thread, name: str) -> tuple[str, str, str] | str | None:
    """(path, shell, text) when ``name`` is a shell script file: a path to one, or a
    script the image has on its PATH (catalogue ``scripts``); "" when it is such a script
    whose file is gone (not found); None for anything else."""
    if "/" in name:
        path = m.fs.normalize(name, th.cwd)
    else:
        path = next((p for n, p in m.facts.scripts if n == name), None)
        if path is None:
            return None
    text = m.fs.read(path)
    if text is None:
        return "" if "/" not in name else None
    shell = SHEBANG_SHELLS.get(text.split("\n", 1)[0].strip())
    return None if shell is None else (path, shell, text)


def run_script(m: Machine, th: Thread, argv: list[str], script: tuple[str, str, str]) -> int | None:
    """Run a script file with the shell of its ``#!`` line, in this thread as a subshell
    would (its variables and ``exit`` stay its own): ``$0`` is the path, ``$1…`` the
    arguments."""
    path, shell_name, text = script
    nested = sum(1 for frame in th.frames if frame[0] == "subshell" and "positional" in frame[1])
    if nested >= MAX_THREADS:  # each script is a process of its own: the fork limit
        m.note("too_many_processes", None, limit=MAX_THREADS)
        shell_error(m, th, "can't fork: Resource temporarily unavailable", dash="Cannot fork",
                    bash="fork: retry: Resource temporarily unavailable")  # fmt: skip
        return 2
    shell = shell_flavour(shell_name, m.facts.shell)
    root, error = parse_cached(text, shell == "bash")
    if error is not None:
        if error.kind == "syntax":
            m.write(th, 2, syntax_message(error, shell, text, path) + "\n")
            return 2
        m.note("not_modelled_script", error.pos, construct=error.params.get("construct", error.code),
               reason=error.code)  # fmt: skip
        return servers.start_program(m, th, argv, False, unknown=True)
    saved = {"vars": dict(th.vars), "cwd": th.cwd, "options": set(th.options),
             "positional": list(th.positional), "arg0": th.arg0, "shell": th.shell}  # fmt: skip
    th.kind = "shell"
    th.frames.append(["subshell", saved])
    th.arg0, th.positional, th.shell, th.options = path, list(argv[1:]), shell, set()
    th.vars["\x00script"] = text
    m.push(th, root)
    return None


def become_program(th: Thread, base: str) -> None:
    """The shell execs its command: PID 1 is that program from now on."""
    th.kind = "program"
    th.name = base
    th.frames = [frame for frame in th.frames if frame[0] in ("end", "redir")]
    if not th.frames or th.frames[0][0] != "end":
        th.frames.insert(0, ["end"])


def not_found(m: Machine, th: Thread, name: str, origin: str) -> int:
    """A command the image does not have: the runtime cannot start it (PID 1 or an exec
    session), or the shell says "not found" (127)."""
    if origin == "runtime":
        if "/" in name:
            detail = f'exec: "{name}": stat {name}: no such file or directory'
        else:
            detail = f'exec: "{name}": executable file not found in $PATH'
        m.start_error = (
            "failed to create containerd task: failed to create shim task: OCI runtime "
            f"create failed: runc create failed: unable to start container process: {detail}: unknown"
        )
        return 128
    if origin == "session":
        detail = (f'exec: "{name}": stat {name}: no such file or directory' if "/" in name
                  else f'exec: "{name}": executable file not found in $PATH')  # fmt: skip
        th.start_error = f"OCI runtime exec failed: exec failed: unable to start container process: {detail}: unknown"
        return 126
    shell_error(m, th, f"{name}: not found", dash=f"{name}: not found",
                bash=f"{name}: command not found")  # fmt: skip
    return 127


def start_shell(m: Machine, th: Thread, argv: list[str], exec_mode: bool) -> int | None:
    """``sh [-ex] -c SCRIPT [NAME [ARGS…]]``, ``sh FILE``, or an interactive ``sh``."""
    options: set[str] = set()
    script: str | None = None
    command_mode = False
    args = argv[1:]
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
        flags = args[i][1:]
        i += 1
        for flag in flags:
            if flag == "c":
                command_mode = True
            elif flag == "o" and i < len(args):
                i += 1
            elif flag in "exuv":
                options.add(flag)
    if i < len(args) and args[i] == "--":
        i += 1
    rest = args[i:]
    shell = shell_flavour(posixpath.basename(argv[0]), m.facts.shell)
    if command_mode:
        if not rest:
            shell_error(m, th, "-c requires an argument", dash="-c requires an argument",
                        bash="-c: option requires an argument")  # fmt: skip
            return 2
        script, rest = rest[0], rest[1:]
        arg0 = rest[0] if rest else argv[0]
        positional = rest[1:]
    elif rest:
        path = m.fs.normalize(rest[0], th.cwd)
        script = m.fs.read(path)
        arg0, positional = rest[0], rest[1:]
        if script is None:
            prefix = argv[0]
            if shell == "dash":
                m.write(th, 2, f"{prefix}: 0: cannot open {rest[0]}: No such file\n")
                return 2
            if shell == "bash":
                m.write(th, 2, f"{prefix}: {rest[0]}: No such file or directory\n")
                return 127
            m.write(th, 2, f"{prefix}: can't open '{rest[0]}': No such file or directory\n")
            return 2
    else:
        # No script: the shell reads commands from stdin. A container has no stdin unless
        # `stdin: true`, so it reads end-of-file and exits 0 at once.
        stdin = th.io[-1].get(0) if th.io else None
        if stdin == "<open>":
            th.block = ("forever",)
            return None
        if stdin:
            script, arg0, positional = stdin, argv[0], []
        else:
            return 0
    root, error = parse_cached(script, shell == "bash")
    if error is not None:
        if error.kind == "syntax":
            m.write(th, 2, syntax_message(error, shell, script, argv[0]) + "\n")
            return 2
        m.note("not_modelled_script", error.pos, construct=error.params.get("construct", error.code),
               reason=error.code)  # fmt: skip
        return servers.start_program(m, th, argv, exec_mode, unknown=True)
    if not exec_mode:
        child = m.spawn(th, "shell", posixpath.basename(argv[0]))
        _setup_shell(child, root, script, arg0, positional, options, shell)
        th.block = ("wait", (child.pid,))
        return None
    _setup_shell(th, root, script, arg0, positional, options, shell)
    return None


def _setup_shell(th: Thread, root: Node, script: str, arg0: str, positional: list[str],
                 options: set[str], shell: str) -> None:  # fmt: skip
    th.kind = "shell"
    th.shell = shell
    th.arg0 = arg0
    th.positional = list(positional)
    th.options = set(options)
    th.vars["\x00script"] = script
    th.tails = tails(root) if th.pid == 1 else frozenset()
    keep = [frame for frame in th.frames if frame[0] in ("end", "redir")]
    th.frames = keep or [["end"]]
    th.frames.append(["list", root, 0, False])


# -- builtins ---------------------------------------------------------------------------


def b_true(m: Machine, th: Thread, argv: list[str]) -> int:
    return 0


def b_false(m: Machine, th: Thread, argv: list[str]) -> int:
    return 1


def b_exit(m: Machine, th: Thread, argv: list[str]) -> int | None:
    code = th.status
    if len(argv) > 1:
        try:
            code = int(argv[1]) & 0xFF
        except ValueError:
            shell_error(m, th, f"exit: Illegal number: {argv[1]}",
                        dash=f"exit: Illegal number: {argv[1]}",
                        bash=f"exit: {argv[1]}: numeric argument required")  # fmt: skip
            code = 2
    m.exit_shell(th, code)
    return None


def b_export(m: Machine, th: Thread, argv: list[str]) -> int:
    for arg in argv[1:]:
        if arg.startswith("-"):
            continue
        name, eq, value = arg.partition("=")
        if eq:
            th.vars[name] = value
        th.exported.add(name)
    return 0


def b_unset(m: Machine, th: Thread, argv: list[str]) -> int:
    for name in argv[1:]:
        if not name.startswith("-"):
            th.vars.pop(name, None)
            th.vars.pop(ARRAY + name, None)
            th.exported.discard(name)
    return 0


def b_set(m: Machine, th: Thread, argv: list[str]) -> int:
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            th.positional = args[i + 1 :]
            return 0
        if arg in ("-o", "+o"):
            i += 2
            continue
        if arg[:1] in "-+" and len(arg) > 1:
            for flag in arg[1:]:
                if arg[0] == "-":
                    th.options.add(flag)
                else:
                    th.options.discard(flag)
            i += 1
            continue
        th.positional = args[i:]
        return 0
    return 0


def b_shift(m: Machine, th: Thread, argv: list[str]) -> int:
    count = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    if count > len(th.positional):
        return 1
    th.positional = th.positional[count:]
    return 0


def b_cd(m: Machine, th: Thread, argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else th.vars.get("HOME", "/root")
    path = m.fs.normalize(target, th.cwd)
    if not m.fs.is_dir(path):
        shell_error(m, th, f"cd: can't cd to {target}: No such file or directory",
                    dash=f"cd: can't cd to {target}",
                    bash=f"cd: {target}: No such file or directory")  # fmt: skip
        return 2 if flavour(m, th) != "bash" else 1
    th.cwd = path
    th.vars["PWD"] = path
    return 0


def b_pwd(m: Machine, th: Thread, argv: list[str]) -> int:
    m.write(th, 1, th.cwd + "\n")
    return 0


def b_trap(m: Machine, th: Thread, argv: list[str]) -> int:
    args = argv[1:]
    if not args:
        return 0
    if len(args) == 1:
        action, signals = "-", args
    else:
        action, signals = args[0], args[1:]
    for sig in signals:
        name = sig.upper()
        if name.startswith("SIG"):
            name = name[3:]
        name = {"0": "EXIT", "1": "HUP", "2": "INT", "3": "QUIT", "9": "KILL", "15": "TERM",
                "10": "USR1", "12": "USR2", "17": "CHLD", "28": "WINCH"}.get(name, name)  # fmt: skip
        if name in ("KILL", "STOP"):
            continue  # cannot be caught
        if th.pid != 1:
            continue  # traps of a subshell or session never see the runtime's signals
        if action == "-":
            m.traps.pop(name, None)
        elif action == "":
            m.traps[name] = ""
        else:
            root, error = parse_cached(action, flavour(m, th) == "bash")
            if error is not None:
                m.note("not_modelled_trap", None, text=action)
                continue
            m.traps[name] = root
    return 0


def b_wait(m: Machine, th: Thread, argv: list[str]) -> int | None:
    if len(argv) > 1:
        pids = []
        for arg in argv[1:]:
            if arg.lstrip("%").isdigit():
                pids.append(int(arg.lstrip("%")))
        pids = [p for p in pids if p in m.threads]
    else:
        pids = [p for p in th.jobs if p in m.threads]
    waiting = tuple(p for p in pids if not m.threads[p].done)
    if not waiting:
        if len(pids) == 1:
            return m.threads[pids[0]].exit_code or 0
        return 0 if pids or len(argv) == 1 else 127
    th.block = ("wait", waiting)
    return None


def b_exec(m: Machine, th: Thread, argv: list[str]) -> int | None:
    if len(argv) == 1:
        # `exec >file`: the redirections of this command stay for the rest of the shell
        for index in range(len(th.frames) - 1, -1, -1):
            if th.frames[index][0] == "redir":
                del th.frames[index]
                break
        return 0
    become_program(th, posixpath.basename(argv[1]))
    return run_argv(m, th, argv[1:], exec_mode=True, node=None, origin="builtin")


def _run_text(m: Machine, th: Thread, text: str) -> int | None:
    """Parse `text` as shell and run it in this thread (eval, `.`/source)."""
    root, error = parse_cached(text, flavour(m, th) == "bash")
    if error is not None:
        shell_error(m, th, "syntax error")
        return 2
    m.push(th, root)
    return None


def b_eval(m: Machine, th: Thread, argv: list[str]) -> int | None:
    return _run_text(m, th, " ".join(argv[1:]))


def b_source(m: Machine, th: Thread, argv: list[str]) -> int | None:
    if len(argv) < 2:
        return 0
    path = m.fs.normalize(argv[1], th.cwd)
    text = m.fs.read(path)
    if text is None:
        shell_error(m, th, f".: {argv[1]}: not found", dash=f".: cannot open {argv[1]}: No such file",
                    bash=f"{argv[1]}: No such file or directory")  # fmt: skip
        return 1 if flavour(m, th) == "bash" else 2
    return _run_text(m, th, text)


def b_read(m: Machine, th: Thread, argv: list[str]) -> int | None:
    names = [a for a in argv[1:] if not a.startswith("-")] or ["REPLY"]
    stdin = th.io[-1].get(0) if th.io else None
    if stdin == "<open>":
        th.block = ("read",)
        return None
    if not stdin:
        return 1
    line, _, rest = stdin.partition("\n")
    th.io[-1][0] = rest
    values = line.split(None, len(names) - 1)
    for i, name in enumerate(names):
        th.vars[name] = values[i] if i < len(values) else ""
    return 0


def b_type(m: Machine, th: Thread, argv: list[str]) -> int:
    status = 0
    for name in argv[1:]:
        if name.startswith("-"):
            continue
        if name in BUILTINS:
            m.write(th, 1, f"{name} is a shell builtin\n")
        elif m.facts.has_binary(name) is False:
            status = 1
        else:
            m.write(th, 1, f"{name} is /usr/bin/{name}\n")
    return status


def b_command(m: Machine, th: Thread, argv: list[str]) -> int | None:
    args = argv[1:]
    if args and args[0] == "-v":
        status = 0
        for name in args[1:]:
            if name in BUILTINS:
                m.write(th, 1, name + "\n")
            elif m.facts.has_binary(name) is False:
                status = 1
            else:
                m.write(th, 1, f"/usr/bin/{name}\n" if "/" not in name else name + "\n")
        return status
    return run_argv(m, th, args, exec_mode=False, node=None)


def b_noop(m: Machine, th: Thread, argv: list[str]) -> int:
    return 0


def b_local(m: Machine, th: Thread, argv: list[str]) -> int:
    for arg in argv[1:]:
        name, eq, value = arg.partition("=")
        th.vars[name] = value if eq else th.vars.get(name, "")
    return 0


def b_echo(m: Machine, th: Thread, argv: list[str]) -> int:
    args = argv[1:]
    newline = True
    dash = th.kind == "shell" and flavour(m, th) == "dash"
    escapes = dash
    if dash:
        if args and args[0] == "-n":
            newline = False
            args = args[1:]
    else:
        while args and _ECHO_FLAGS.fullmatch(args[0]):
            for flag in args[0][1:]:
                if flag == "n":
                    newline = False
                elif flag == "e":
                    escapes = True
                elif flag == "E":
                    escapes = False
            args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = _backslash(text)
        if stop:
            newline = False
    m.write(th, 1, text + ("\n" if newline else ""))
    return 0


def _backslash(text: str) -> tuple[str, bool]:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            mapping = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", "a": "\a", "b": "\b",
                       "f": "\f", "v": "\v", "e": "\x1b"}  # fmt: skip
            if nxt in mapping:
                out.append(mapping[nxt])
                i += 2
                continue
            if nxt == "c":
                return "".join(out), True
            if nxt == "0":
                j = i + 2
                digits = ""
                while j < len(text) and len(digits) < 3 and text[j] in "01234567":
                    digits += text[j]
                    j += 1
                out.append(chr(int(digits or "0", 8)))
                i = j
                continue
        out.append(ch)
        i += 1
    return "".join(out), False


def b_printf(m: Machine, th: Thread, argv: list[str]) -> int:
    if len(argv) < 2:
        m.write(th, 2, "printf: usage: printf format [arguments]\n" if flavour(m, th) == "bash"
                else "Usage: printf FORMAT [ARG]...\n")  # fmt: skip
        return 1 if flavour(m, th) != "dash" else 2
    fmt, args = argv[1], argv[2:]
    out: list[str] = []
    status = 0
    while True:
        consumed = 0
        i = 0
        while i < len(fmt):
            ch = fmt[i]
            if ch == "\\":
                text, _ = _backslash(fmt[i : i + 2])
                out.append(text)
                i += 2
                continue
            if ch == "%" and i + 1 < len(fmt):
                spec = re.match(r"%([-+ 0#]*)(\d*)(?:\.(\d+))?([sdibxXocfeEgG%])", fmt[i:])
                if not spec:
                    out.append(ch)
                    i += 1
                    continue
                conv = spec.group(4)
                if conv == "%":
                    out.append("%")
                else:
                    arg = args[consumed] if consumed < len(args) else ""
                    consumed += 1
                    flags, width, precision = spec.group(1), spec.group(2), spec.group(3)
                    try:
                        if conv in "di":
                            value = f"%{flags}{width}d" % int(arg or "0")
                        elif conv in "xXoc":
                            value = f"%{flags}{width}{conv}" % (
                                int(arg or "0") if conv != "c" else (arg or "\0")[0]
                            )
                        elif conv in "feEgG":
                            prec = f".{precision}" if precision is not None else ""
                            value = f"%{flags}{width}{prec}{conv}" % float(arg or "0")
                        elif conv == "b":
                            value = _backslash(arg)[0]
                        else:
                            prec = f".{precision}" if precision is not None else ""
                            value = f"%{flags}{width}{prec}s" % arg
                    except ValueError:
                        tool_error(m, th, f"printf: invalid number '{arg}'",
                                   f"printf: '{arg}': expected a numeric value")  # fmt: skip
                        value = "0"
                        status = 1
                    out.append(value)
                i += spec.end()
                continue
            out.append(ch)
            i += 1
        if consumed == 0 or consumed >= len(args):
            break
        args = args[consumed:]
    m.write(th, 1, "".join(out))
    return status


def b_test(m: Machine, th: Thread, argv: list[str]) -> int:
    args = argv[1:]
    name = argv[0]
    if name in ("[", "[["):
        closing = "]" if name == "[" else "]]"
        if not args or args[-1] != closing:
            shell_error(m, th, f"{name}: missing {closing}" if name == "[[" else "missing ]",
                        dash="[: missing ]", bash=f"{name}: missing `{closing}'")  # fmt: skip
            return 2
        args = args[:-1]
    try:
        return 0 if _test(m, th, args) else 1
    except _TestError as error:
        shell_error(m, th, str(error), dash=f"{name}: {error}", bash=f"{name}: {error}")
        return 2


class _TestError(Exception):
    pass


FILE_TESTS = {
    "-e",
    "-f",
    "-d",
    "-s",
    "-r",
    "-w",
    "-x",
    "-L",
    "-h",
    "-p",
    "-S",
    "-b",
    "-c",
    "-g",
    "-u",
    "-k",
    "-O",
    "-G",
    "-N",
}


def _test(m: Machine, th: Thread, args: list[str]) -> bool:
    if not args:
        return False
    if args[0] == "!" and len(args) > 1:
        return not _test(m, th, args[1:])
    for joiner in ("-o", "-a"):
        if joiner in args[1:-1]:
            index = args.index(joiner, 1)
            left, right = _test(m, th, args[:index]), _test(m, th, args[index + 1 :])
            return (left or right) if joiner == "-o" else (left and right)
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        op, value = args
        if op == "-n":
            return value != ""
        if op == "-z":
            return value == ""
        if op in FILE_TESTS:
            path = m.fs.normalize(value, th.cwd)
            if op == "-f":
                return m.fs.is_file(path)
            if op == "-d":
                return m.fs.is_dir(path)
            if op == "-s":
                return bool(m.fs.read(path))
            if op in ("-L", "-h", "-p", "-S", "-b", "-c", "-g", "-u", "-k"):
                return path in SPECIAL and op in ("-c",)
            return m.fs.exists(path)
        raise _TestError(f"{op}: unary operator expected")
    if len(args) == 3:
        left, op, right = args
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
            a, b = _number(left), _number(right)
            return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b,
                    "-gt": a > b, "-ge": a >= b}[op]  # fmt: skip
        if op in ("<", ">"):
            return left < right if op == "<" else left > right
        raise _TestError(f"{op}: binary operator expected")
    raise _TestError("too many arguments")


def _number(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise _TestError(f"Illegal number: {text}") from None


def b_kill(m: Machine, th: Thread, argv: list[str]) -> int:
    sig = "SIGTERM"
    args = argv[1:]
    if args and args[0] == "-l":
        m.write(th, 1, "HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM\n")
        return 0
    if args and args[0] == "-s" and len(args) > 1:
        sig, args = _signal_name(args[1]), args[2:]
    elif args and args[0].startswith("-") and args[0] != "--":
        sig, args = _signal_name(args[0][1:]), args[1:]
    if sig is None:
        shell_error(m, th, f"kill: bad signal name '{argv[1]}'", dash=f"kill: invalid signal number or name: {argv[1][1:]}",
                    bash=f"kill: {argv[1][1:]}: invalid signal specification")  # fmt: skip
        return 1
    if args and args[0] == "--":
        args = args[1:]
    status = 0
    for arg in args:
        try:
            pid = int(arg)
        except ValueError:
            shell_error(m, th, f"kill: invalid number '{arg}'", dash=f"kill: Illegal number: {arg}",
                        bash=f"kill: {arg}: arguments must be process or job IDs")  # fmt: skip
            status = 1
            continue
        if sig == "0":
            if m.find_pid(pid) is None:
                shell_error(m, th, f"kill: can't kill pid {pid}: No such process",
                            dash="kill: No such process", bash=f"kill: ({pid}) - No such process")  # fmt: skip
                status = 1
            continue
        if not m.deliver(pid, sig, th.pid):
            shell_error(m, th, f"kill: can't kill pid {pid}: No such process",
                        dash="kill: No such process", bash=f"kill: ({pid}) - No such process")  # fmt: skip
            status = 1
    return status


def _signal_name(text: str) -> str | None:
    if text == "0":
        return "0"
    if text.isdigit():
        return SIGNAME.get(int(text))
    name = text.upper()
    if not name.startswith("SIG"):
        name = "SIG" + name
    return name if name in SIGNUM else None


BUILTINS: dict[str, Any] = {
    ":": b_true, "true": b_true, "false": b_false, "exit": b_exit, "return": b_exit,
    "export": b_export, "readonly": b_export, "unset": b_unset, "set": b_set,
    "shift": b_shift, "cd": b_cd, "pwd": b_pwd, "trap": b_trap, "wait": b_wait,
    "exec": b_exec, "eval": b_eval, ".": b_source, "source": b_source, "read": b_read,
    "type": b_type, "command": b_command, "ulimit": b_noop, "umask": b_noop,
    "local": b_local, "echo": b_echo, "printf": b_printf, "test": b_test, "[": b_test,
    "[[": b_test, "kill": b_kill, "hash": b_noop, "alias": b_noop,
}  # fmt: skip


# -- utilities ---------------------------------------------------------------------------


def u_sleep(m: Machine, th: Thread, argv: list[str]) -> int | None:
    args = argv[1:]
    if not args:
        tool_error(
            m,
            th,
            "Usage: sleep [N]...",
            "sleep: missing operand\nTry 'sleep --help' for more information.",
        )
        return 1
    total = 0.0
    forever = False
    for arg in args:
        if arg.lower().startswith("inf"):
            forever = True
            continue
        seconds = parse_duration(arg)
        if seconds is None:
            tool_error(m, th, f"sleep: invalid number '{arg}'",
                       f"sleep: invalid time interval '{arg}'\nTry 'sleep --help' for more information.")  # fmt: skip
            return 1
        total += seconds
    ms = round(total * 1000)
    child = None if th.kind == "program" else m.fork_pid()
    if forever or ms > HORIZON_MS:
        if ms > HORIZON_MS and not forever:
            m.note("sleep_beyond_horizon", None, seconds=total)
        th.block = ("sleep", child)
        th.wake = None
        return None
    th.block = ("sleep", child)
    th.wake = m.now + ms
    if ms == 0:
        th.block = None
        th.wake = None
        return 0
    return None


def _paths(args: list[str]) -> tuple[set[str], list[str]]:
    flags: set[str] = set()
    paths = []
    only_paths = False
    for arg in args:
        if arg == "--":
            only_paths = True
        elif arg.startswith("-") and len(arg) > 1 and not only_paths:
            flags.update(arg[1:])
        else:
            paths.append(arg)
    return flags, paths


def u_touch(m: Machine, th: Thread, argv: list[str]) -> int:
    _flags, paths = _paths(argv[1:])
    status = 0
    for arg in paths:
        path = m.fs.normalize(arg, th.cwd)
        if m.fs.is_dir(path) or path in SPECIAL:
            continue
        error = m.fs.write(path, "", append=True)
        if error:
            tool_error(m, th, f"touch: {arg}: {errno_text(error)}",
                       f"touch: cannot touch '{arg}': {errno_text(error)}")  # fmt: skip
            status = 1
    return status


def u_rm(m: Machine, th: Thread, argv: list[str]) -> int:
    flags, paths = _paths(argv[1:])
    force = "f" in flags
    recursive = "r" in flags or "R" in flags
    status = 0
    for arg in paths:
        path = m.fs.normalize(arg, th.cwd)
        if not m.fs.exists(path):
            if not force:
                tool_error(m, th, f"rm: can't remove '{arg}': No such file or directory",
                           f"rm: cannot remove '{arg}': No such file or directory")  # fmt: skip
                status = 1
            continue
        error = m.fs.remove(path, recursive=recursive)
        if error == EISDIR:
            tool_error(
                m, th, f"rm: '{arg}' is a directory", f"rm: cannot remove '{arg}': Is a directory"
            )
            status = 1
        elif error:
            tool_error(m, th, f"rm: can't remove '{arg}': {errno_text(error)}",
                       f"rm: cannot remove '{arg}': {errno_text(error)}")  # fmt: skip
            status = 1
    return status


def u_mkdir(m: Machine, th: Thread, argv: list[str]) -> int:
    flags, paths = _paths(argv[1:])
    status = 0
    for arg in paths:
        error = m.fs.mkdir(m.fs.normalize(arg, th.cwd), parents="p" in flags)
        if error:
            tool_error(m, th, f"mkdir: can't create directory '{arg}': {errno_text(error)}",
                       f"mkdir: cannot create directory '{arg}': {errno_text(error)}")  # fmt: skip
            status = 1
    return status


def u_rmdir(m: Machine, th: Thread, argv: list[str]) -> int:
    _flags, paths = _paths(argv[1:])
    for arg in paths:
        path = m.fs.normalize(arg, th.cwd)
        if m.fs.listdir(path):
            tool_error(m, th, f"rmdir: '{arg}': Directory not empty",
                       f"rmdir: failed to remove '{arg}': Directory not empty")  # fmt: skip
            return 1
        m.fs.remove(path, recursive=True)
    return 0


def read_input(m: Machine, th: Thread, arg: str) -> tuple[str | None, str]:
    """(content, error code) of a file operand, ``-`` meaning stdin."""
    if arg == "-":
        stdin = th.io[-1].get(0)
        return ("" if stdin in (None, "<open>") else stdin), ""
    path = m.fs.normalize(arg, th.cwd)
    if path in SPECIAL:
        return "", ""
    if m.fs.is_dir(path):
        return None, EISDIR
    content = m.fs.read(path)
    if content is None:
        return None, ENOENT
    return content, ""


def u_cat(m: Machine, th: Thread, argv: list[str]) -> int | None:
    _flags, paths = _paths(argv[1:])
    if not paths:
        stdin = th.io[-1].get(0)
        if stdin == "<open>":
            th.block = ("read",)
            return None
        m.write(th, 1, stdin or "")
        return 0
    status = 0
    for arg in paths:
        content, error = read_input(m, th, arg)
        if content is None:
            if error == EISDIR:
                tool_error(m, th, "cat: read error: Is a directory", f"cat: {arg}: Is a directory")
            else:
                tool_error(m, th, f"cat: can't open '{arg}': No such file or directory",
                           f"cat: {arg}: No such file or directory")  # fmt: skip
            status = 1
            continue
        m.write(th, 1, content)
    return status


def u_ls(m: Machine, th: Thread, argv: list[str]) -> int:
    flags, paths = _paths(argv[1:])
    status = 0
    for arg in paths or ["."]:
        path = m.fs.normalize(arg, th.cwd)
        if m.fs.is_dir(path):
            names = m.fs.listdir(path)
            if "a" in flags:
                names = [".", "..", *names]
            m.write(th, 1, "".join(n + "\n" for n in names))
        elif m.fs.exists(path):
            m.write(th, 1, arg + "\n")
        else:
            tool_error(m, th, f"ls: {arg}: No such file or directory",
                       f"ls: cannot access '{arg}': No such file or directory")  # fmt: skip
            status = 1 if m.facts.tools == "busybox" else 2
    return status


def u_cp(m: Machine, th: Thread, argv: list[str]) -> int:
    flags, paths = _paths(argv[1:])
    if len(paths) < 2:
        tool_error(
            m, th, "cp: missing destination file operand", "cp: missing destination file operand"
        )
        return 1
    *sources, target = paths
    target_path = m.fs.normalize(target, th.cwd)
    status = 0
    for source in sources:
        content, error = read_input(m, th, source)
        if content is None:
            if error == EISDIR and not ({"r", "R", "a"} & flags):
                tool_error(
                    m,
                    th,
                    f"cp: omitting directory '{source}'",
                    f"cp: -r not specified; omitting directory '{source}'",
                )
            else:
                tool_error(m, th, f"cp: can't stat '{source}': No such file or directory",
                           f"cp: cannot stat '{source}': No such file or directory")  # fmt: skip
            status = 1
            continue
        dest = target_path
        if m.fs.is_dir(dest):
            dest = posixpath.join(dest, posixpath.basename(source))
        error = m.fs.write(dest, content, append=False)
        if error:
            tool_error(m, th, f"cp: can't create '{target}': {errno_text(error)}",
                       f"cp: cannot create regular file '{target}': {errno_text(error)}")  # fmt: skip
            status = 1
        elif argv[0].endswith("mv"):
            m.fs.remove(m.fs.normalize(source, th.cwd))
    return status


def u_ln(m: Machine, th: Thread, argv: list[str]) -> int:
    _flags, paths = _paths(argv[1:])
    if len(paths) == 2:
        content, _ = read_input(m, th, paths[0])
        m.fs.write(m.fs.normalize(paths[1], th.cwd), content or "", append=False)
    return 0


def u_printenv(m: Machine, th: Thread, argv: list[str]) -> int:
    env = {k: v for k, v in th.vars.items() if k in th.exported and not k.startswith("\x00")}
    names = argv[1:]
    if not names:
        m.write(th, 1, "".join(f"{k}={v}\n" for k, v in env.items()))
        return 0
    status = 0
    for name in names:
        if name in env:
            m.write(th, 1, env[name] + "\n")
        else:
            status = 1
    return status


def u_env(m: Machine, th: Thread, argv: list[str]) -> int | None:
    args = argv[1:]
    assigns = []
    while args and "=" in args[0] and not args[0].startswith("-"):
        assigns.append(args.pop(0))
    if args and args[0] in ("-i", "-"):
        args = args[1:]
    if not args:
        for assign in assigns:
            name, _, value = assign.partition("=")
            th.vars[name] = value
            th.exported.add(name)
        return u_printenv(m, th, ["printenv"])
    for assign in assigns:
        name, _, value = assign.partition("=")
        th.vars[name] = value
        th.exported.add(name)
    return run_argv(m, th, args, exec_mode=th.kind == "program", node=None)


def u_date(m: Machine, th: Thread, argv: list[str]) -> int:
    now = m.wall()
    fmt = None
    for arg in argv[1:]:
        if arg.startswith("+"):
            fmt = arg[1:]
        elif arg in ("-Iseconds", "--iso-8601=seconds"):
            fmt = "%Y-%m-%dT%H:%M:%S+00:00"
        elif arg in ("-I", "--iso-8601"):
            fmt = "%Y-%m-%d"
        elif arg == "-R":
            fmt = "%a, %d %b %Y %H:%M:%S +0000"
        elif arg.startswith("--rfc-3339"):
            fmt = "%Y-%m-%d %H:%M:%S+00:00"
    if fmt is None:
        text = now.strftime("%a %b ") + f"{now.day:2d}" + now.strftime(" %H:%M:%S UTC %Y")
    else:
        text = strftime(now, fmt)
    m.write(th, 1, text + "\n")
    return 0


def strftime(moment: Any, fmt: str) -> str:
    out = []
    i = 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            code = fmt[i + 1]
            if code == "s":
                out.append(str(int(moment.timestamp())))
            elif code == "N":
                out.append(f"{moment.microsecond * 1000:09d}")
            elif code == "Z":
                out.append("UTC")
            elif code == "z":
                out.append("+0000")
            elif code == "e":
                out.append(f"{moment.day:2d}")
            elif code == "T":
                out.append(moment.strftime("%H:%M:%S"))
            elif code == "F":
                out.append(moment.strftime("%Y-%m-%d"))
            elif code in "YmdHMSabBAjpyIu%":
                out.append(moment.strftime("%" + code))
            else:
                out.append("%" + code)
            i += 2
            continue
        out.append(fmt[i])
        i += 1
    return "".join(out)


def u_hostname(m: Machine, th: Thread, argv: list[str]) -> int:
    """``hostname`` and ``-i`` / ``-s`` / ``-f`` / ``-d`` (the FQDN is the Pod's line in
    /etc/hosts: <hostname>.<subdomain>.<namespace>.svc.<domain> with a subdomain)."""
    args = argv[1:]
    fqdn = m.start.fqdn or m.start.hostname
    if "-i" in args:
        m.write(th, 1, m.start.pod_ip + "\n")
    elif "-f" in args or "--fqdn" in args:
        m.write(th, 1, fqdn + "\n")
    elif "-d" in args or "--domain" in args:
        m.write(th, 1, fqdn.partition(".")[2] + "\n")
    else:
        m.write(th, 1, m.start.hostname.split(".")[0] + "\n")
    return 0


def u_id(m: Machine, th: Thread, argv: list[str]) -> int:
    groups = (
        "0(root),1(bin),2(daemon),3(sys),4(adm),6(disk),10(wheel),11(floppy),20(dialout),26(tape),27(video)"
        if m.facts.tools == "busybox"
        else "0(root)"
    )
    m.write(th, 1, f"uid=0(root) gid=0(root) groups={groups}\n")
    return 0


def u_whoami(m: Machine, th: Thread, argv: list[str]) -> int:
    m.write(th, 1, "root\n")
    return 0


def u_uname(m: Machine, th: Thread, argv: list[str]) -> int:
    if "-a" in argv:
        m.write(th, 1, f"Linux {m.start.hostname} 6.8.0 #1 SMP x86_64 GNU/Linux\n")
    elif "-r" in argv:
        m.write(th, 1, "6.8.0\n")
    else:
        m.write(th, 1, "Linux\n")
    return 0


def _text_input(m: Machine, th: Thread, paths: list[str], tool: str) -> tuple[list[str], int]:
    texts = []
    status = 0
    if not paths:
        stdin = th.io[-1].get(0)
        return ["" if stdin in (None, "<open>") else stdin], 0
    for arg in paths:
        content, _error = read_input(m, th, arg)
        if content is None:
            tool_error(m, th, f"{tool}: {arg}: No such file or directory",
                       f"{tool}: {arg}: No such file or directory")  # fmt: skip
            status = 1 if tool != "grep" else 2
            continue
        texts.append(content)
    return texts, status


def _count_arg(args: list[str], default: int) -> tuple[int, list[str]]:
    count = default
    rest = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-n" and i + 1 < len(args):
            count = int(args[i + 1].lstrip("+-") or default)
            i += 2
            continue
        if re.fullmatch(r"-\d+", arg):
            count = int(arg[1:])
        elif arg.startswith("-n") and arg[2:].isdigit():
            count = int(arg[2:])
        elif arg.startswith("-") and arg != "-":
            pass
        else:
            rest.append(arg)
        i += 1
    return count, rest


def u_head(m: Machine, th: Thread, argv: list[str]) -> int:
    count, paths = _count_arg(argv[1:], 10)
    texts, status = _text_input(m, th, paths, "head")
    for text in texts:
        lines = text.splitlines(keepends=True)
        m.write(th, 1, "".join(lines[:count]))
    return status


def _tail_options(args: list[str]) -> dict | None:
    """``tail`` options (busybox getopt32 "fFc:n:qs:+v", GNU's long forms): None when
    they cannot be read."""
    opts = {"count": 10, "top": False, "bytes": False, "follow": False, "retry": False,
            "period": 1.0, "headers": None, "paths": []}  # fmt: skip

    def number(text: str) -> bool:
        if text.startswith("+"):
            opts["top"] = True
        digits = text.lstrip("+-")
        if not digits.isdigit():
            return False
        opts["count"] = int(digits)
        return True

    if args and re.fullmatch(r"[-+]\d+", args[0]):  # the legacy `tail -20` / `tail +2`
        number(args[0])
        args = args[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            opts["paths"].extend(args[i:])
            break
        if arg in ("--follow", "--follow=descriptor") or arg == "--follow=name":
            opts["follow"] = True
        elif arg == "--retry":
            opts["retry"] = True
        elif arg.startswith("--lines=") or arg.startswith("--bytes="):
            opts["bytes"] = arg.startswith("--bytes")
            if not number(arg.split("=", 1)[1]):
                return None
        elif arg.startswith("--"):
            continue
        elif arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                flag = arg[j]
                j += 1
                if flag in "fF":
                    opts["follow"] = True
                    opts["retry"] = opts["retry"] or flag == "F"
                elif flag in "qv":
                    opts["headers"] = flag == "v"
                elif flag in "ncs":
                    value = arg[j:]
                    if not value:
                        if i >= len(args):
                            return None
                        value = args[i]
                        i += 1
                    if flag == "s":
                        seconds = parse_duration(value)
                        if seconds is None:
                            return None
                        opts["period"] = max(seconds, 0.1)
                    else:
                        opts["bytes"] = flag == "c"
                        if not number(value):
                            return None
                    break
                else:
                    return None
        else:
            opts["paths"].append(arg)
    return opts


def tail_select(text: str, opts: dict) -> str:
    """What tail prints of ``text`` before following: the last N lines (or bytes), or
    everything from line (byte) N on with ``+N``."""
    count = opts["count"]
    if opts["bytes"]:
        if opts["top"]:
            return text[max(count - 1, 0) :]
        return text[-count:] if count else ""
    lines = text.splitlines(keepends=True)
    if opts["top"]:
        return "".join(lines[max(count - 1, 0) :])
    return "".join(lines[-count:]) if count else ""


def u_tail(m: Machine, th: Thread, argv: list[str]) -> int | None:
    """``tail [-n N|+N] [-c N] [-f|-F] [-s S] FILE...``. Following (``-f``/``-F``), tail
    polls its files every second (busybox sleeps ``-s`` seconds between reads) and prints
    what was appended; ``-F`` also waits for a file that is missing and reopens it."""
    opts = _tail_options(argv[1:])
    if opts is None:
        tool_error(m, th, "Usage: tail [OPTIONS] [FILE]...",
                   "tail: invalid option\nTry 'tail --help' for more information.")  # fmt: skip
        return 1
    paths = opts["paths"]
    busybox = m.facts.tools == "busybox"
    if not paths:
        stdin = th.io[-1].get(0)
        if stdin == "<open>":
            th.block = ("read",)
            return None
        m.write(th, 1, tail_select(stdin or "", opts))
        return 0
    status = 0
    followed: list[list] = []
    show = opts["headers"] if opts["headers"] is not None else len(paths) > 1
    first = True
    for arg in paths:
        content, error = read_input(m, th, arg)
        if content is None:
            if error == EISDIR:
                tool_error(m, th, "tail: read error: Is a directory",
                           f"tail: error reading '{arg}': Is a directory")  # fmt: skip
            else:
                tool_error(m, th, f"tail: can't open '{arg}': No such file or directory",
                           f"tail: cannot open '{arg}' for reading: No such file or directory")  # fmt: skip
            status = 1
            if opts["follow"] and opts["retry"] and error != EISDIR:
                followed.append([arg, m.fs.normalize(arg, th.cwd), None])
            continue
        if show:
            m.write(th, 1, ("" if first else "\n") + f"==> {arg} <==\n")
        first = False
        m.write(th, 1, tail_select(content, opts))
        if opts["follow"] and arg != "-":
            followed.append([arg, m.fs.normalize(arg, th.cwd), len(content)])
    if not opts["follow"]:
        return status
    if not followed:
        tool_error(m, th, "tail: no files", "tail: no files remaining")
        return 1
    setup = {"follow": followed, "period": round(opts["period"] * 1000), "headers": show,
             "last": None, "busybox": busybox}  # fmt: skip
    return servers.start_program(m, th, argv, th.kind == "program", name="tail", setup=setup)


def u_wc(m: Machine, th: Thread, argv: list[str]) -> int:
    flags, paths = _paths(argv[1:])
    texts, status = _text_input(m, th, paths, "wc")
    text = "".join(texts)
    lines, words, chars = text.count("\n"), len(text.split()), len(text)
    if flags & {"l", "w", "c", "m"} and len(flags & {"l", "w", "c", "m"}) == 1:
        value = lines if "l" in flags else words if "w" in flags else chars
        m.write(th, 1, f"{value}\n")
    else:
        m.write(th, 1, f"{lines:7d} {words:7d} {chars:7d}\n")
    return status


def u_grep(m: Machine, th: Thread, argv: list[str]) -> int:
    args = argv[1:]
    flags: set[str] = set()
    pattern = None
    paths = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-e" and i + 1 < len(args):
            pattern = args[i + 1]
            i += 2
            continue
        if arg.startswith("-") and len(arg) > 1 and pattern is None:
            flags.update(arg[1:])
        elif pattern is None:
            pattern = arg
        else:
            paths.append(arg)
        i += 1
    if pattern is None:
        tool_error(
            m,
            th,
            "Usage: grep [-HhnlLoqvsrRiwFE] PATTERN [FILE]...",
            "Usage: grep [OPTION]... PATTERNS [FILE]...",
        )
        return 2
    texts, status = _text_input(m, th, paths, "grep")
    try:
        regex = re.compile(re.escape(pattern) if "F" in flags else _basic_regex(pattern, "E" in flags),
                           re.IGNORECASE if "i" in flags else 0)  # fmt: skip
    except re.error:
        regex = re.compile(re.escape(pattern))
    matched = []
    for text in texts:
        for line in text.splitlines():
            if bool(regex.search(line)) != ("v" in flags):
                matched.append(line)
    if "q" not in flags:
        if "c" in flags:
            m.write(th, 1, f"{len(matched)}\n")
        else:
            m.write(th, 1, "".join(line + "\n" for line in matched))
    if status and not matched:
        return 2
    return 0 if matched else 1


def _basic_regex(pattern: str, extended: bool) -> str:
    if extended:
        return pattern
    return (
        pattern.replace(r"\|", "|")
        .replace(r"\(", "(")
        .replace(r"\)", ")")
        .replace("+", r"\+")
        .replace("?", r"\?")
    )


def u_tee(m: Machine, th: Thread, argv: list[str]) -> int:
    flags, paths = _paths(argv[1:])
    stdin = th.io[-1].get(0)
    text = "" if stdin in (None, "<open>") else stdin
    for arg in paths:
        m.fs.write(m.fs.normalize(arg, th.cwd), text, append="a" in flags)
    m.write(th, 1, text)
    return 0


def u_rev(m: Machine, th: Thread, argv: list[str]) -> int:
    """``rev [FILE]...``: each line's characters in reverse order (busybox rev.c,
    util-linux rev)."""
    _flags, paths = _paths(argv[1:])
    status = 0
    texts = []
    if not paths:
        stdin = th.io[-1].get(0)
        texts.append("" if stdin in (None, "<open>") else stdin)
    for arg in paths:
        content, _error = read_input(m, th, arg)
        if content is None:
            tool_error(m, th, f"rev: can't open '{arg}': No such file or directory",
                       f"rev: cannot open {arg}: No such file or directory")  # fmt: skip
            status = 1
            continue
        texts.append(content)
    for text in texts:
        lines = text.split("\n")
        out = "\n".join(line[::-1] for line in lines)
        m.write(th, 1, out)
    return status


def sed_modelled(args: list[str]) -> bool:
    """Do these (static) sed arguments run as ``u_sed`` runs them?"""
    extended = any(a in ("-E", "-r", "--regexp-extended") for a in args)
    rest = [a for a in args if a not in ("-E", "-r", "--regexp-extended", "-e")]
    if not rest or any(a.startswith("-") and a != "-" for a in rest):
        return False
    return sed.parse(rest[0], extended) is not None


def u_sed(m: Machine, th: Thread, argv: list[str]) -> int | None:
    """``sed [-E] 's/RE/REPL/[g]' [FILE…]`` (programs/sed.py); None for any other use."""
    args = argv[1:]
    extended = False
    script = None
    files = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif arg == "-e" and i + 1 < len(args) and script is None:
            script = args[i + 1]
            i += 1
        elif arg.startswith("-") and arg != "-":
            return None
        elif script is None:
            script = arg
        else:
            files.append(arg)
        i += 1
    commands = sed.parse(script, extended) if script is not None else None
    if commands is None:
        return None
    texts = []
    if not files:
        stdin = th.io[-1].get(0)
        texts.append("" if stdin in (None, "<open>") else stdin)
    status = 0
    for arg in files:
        content, _error = read_input(m, th, arg)
        if content is None:
            tool_error(m, th, f"sed: {arg}: No such file or directory",
                       f"sed: can't read {arg}: No such file or directory")  # fmt: skip
            status = 2
            continue
        texts.append(content)
    for text in texts:
        m.write(th, 1, sed.apply(commands, text))
    return status


def u_basename(m: Machine, th: Thread, argv: list[str]) -> int:
    if len(argv) > 1:
        name = posixpath.basename(argv[1].rstrip("/")) or "/"
        if len(argv) > 2 and name.endswith(argv[2]) and name != argv[2]:
            name = name[: -len(argv[2])]
        m.write(th, 1, name + "\n")
    return 0


def u_dirname(m: Machine, th: Thread, argv: list[str]) -> int:
    if len(argv) > 1:
        m.write(th, 1, (posixpath.dirname(argv[1].rstrip("/")) or ".") + "\n")
    return 0


def u_seq(m: Machine, th: Thread, argv: list[str]) -> int:
    try:
        numbers = [int(a) for a in argv[1:]]
    except ValueError:
        return 1
    if len(numbers) == 1:
        first, step, last = 1, 1, numbers[0]
    elif len(numbers) == 2:
        first, step, last = numbers[0], 1, numbers[1]
    elif len(numbers) == 3:
        first, step, last = numbers
    else:
        return 1
    if step == 0:
        return 1
    values = range(first, last + (1 if step > 0 else -1), step)
    if len(values) > 100_000:
        values = values[:100_000]
    m.write(th, 1, "".join(f"{v}\n" for v in values))
    return 0


def u_expr(m: Machine, th: Thread, argv: list[str]) -> int:
    try:
        value = arith.evaluate(" ".join(argv[1:]), {})
    except arith.ArithError:
        tool_error(m, th, "expr: syntax error", "expr: syntax error")
        return 2
    m.write(th, 1, f"{value}\n")
    return 0 if value else 1


def u_ps(m: Machine, th: Thread, argv: list[str]) -> int:
    lines = ["PID   USER     TIME  COMMAND"]
    for pid, _name, command in m.process_names():
        lines.append(f"{pid:5d} root      0:00 {command}")
    m.write(th, 1, "\n".join(lines) + "\n")
    return 0


def u_pidof(m: Machine, th: Thread, argv: list[str]) -> int:
    names = set(argv[1:])
    pids = [str(pid) for pid, name, _ in reversed(m.process_names()) if name in names]
    if pids:
        m.write(th, 1, " ".join(pids) + "\n")
        return 0
    return 1


def u_killall(m: Machine, th: Thread, argv: list[str]) -> int:
    sig = "SIGTERM"
    names = []
    for arg in argv[1:]:
        if arg.startswith("-"):
            found = _signal_name(arg[1:]) if arg != "-s" else None
            sig = found or sig
        else:
            names.append(arg)
    status = 0
    for target in names:
        pids = [pid for pid, name, _ in m.process_names() if name == target and pid != th.pid]
        if not pids:
            tool_error(
                m, th, f"killall: {target}: no process killed", f"{target}: no process found"
            )
            status = 1
            continue
        if sig == "0":
            continue
        for pid in pids:
            m.deliver(pid, sig, th.pid)
    return status


def u_timeout(m: Machine, th: Thread, argv: list[str]) -> int | None:
    args = argv[1:]
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in ("-s", "-k") else args[1:]
    if len(args) < 2:
        return 125
    seconds = parse_duration(args[0])
    if seconds is None:
        return 125
    status = run_argv(m, th, args[1:], exec_mode=False, node=None)
    if status is None:
        th.deadline = m.now + round(seconds * 1000)
        th.deadline_status = 124 if m.facts.tools != "busybox" else 143
    return status


def u_sync(m: Machine, th: Thread, argv: list[str]) -> int:
    return 0


def u_usleep(m: Machine, th: Thread, argv: list[str]) -> int | None:
    micro = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 0
    return u_sleep(m, th, ["sleep", f"{micro / 1_000_000:.6f}"])


def u_which(m: Machine, th: Thread, argv: list[str]) -> int:
    status = 0
    for name in argv[1:]:
        if m.facts.has_binary(name) is False:
            status = 1
        else:
            m.write(th, 1, f"/usr/bin/{name}\n" if m.facts.tools != "busybox" else f"/bin/{name}\n")
    return status


def u_nginx(m: Machine, th: Thread, argv: list[str]) -> int | None:
    """``nginx -s quit|stop|reload|reopen`` signals the master; anything else starts one."""
    if "-s" in argv:
        index = argv.index("-s")
        action = argv[index + 1] if index + 1 < len(argv) else ""
        sig = {"quit": "SIGQUIT", "stop": "SIGTERM", "reload": "SIGHUP", "reopen": "SIGUSR1"}.get(
            action
        )
        masters = [pid for pid, name, _ in m.process_names() if name == "nginx" and pid != th.pid]
        stamp = servers.render(m, "{nginx_time}")
        if not masters:
            m.write(th, 2, f"{stamp} [notice] {th.pid}#{th.pid}: signal process started\n")
            m.write(
                th,
                2,
                f'{stamp} [error] {th.pid}#{th.pid}: open() "/var/run/nginx.pid" failed (2: No such file or directory)\n',
            )
            m.write(
                th,
                2,
                'nginx: [error] open() "/var/run/nginx.pid" failed (2: No such file or directory)\n',
            )
            return 1
        m.write(th, 2, f"{stamp} [notice] {th.pid}#{th.pid}: signal process started\n")
        if sig is not None:
            m.deliver(masters[0], sig, th.pid)
        return 0
    if "-t" in argv or "-v" in argv or "-V" in argv:
        m.write(th, 2, f"nginx version: nginx/{m.facts.version or '1.27.4'}\n")
        if "-t" in argv:
            m.write(th, 2, "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n"
                           "nginx: configuration file /etc/nginx/nginx.conf test is successful\n")  # fmt: skip
        return 0
    return servers.start_program(m, th, argv, th.kind == "program", name="nginx")


def w_docker_entrypoint(m: Machine, th: Thread, argv: list[str], exec_mode: bool) -> int | None:
    """The official images' ``docker-entrypoint.sh``: a few lines, then ``exec "$@"``."""
    rest = argv[1:]
    key = m.facts.key or ""
    if key == "nginx":
        if (
            rest
            and rest[0] in ("nginx", "nginx-debug")
            and not th.vars.get("NGINX_ENTRYPOINT_QUIET_LOGS")
        ):
            for line in servers.NGINX_ENTRYPOINT_LINES:
                m.write(th, 1, line + "\n")
    elif key == "redis" and rest and (rest[0].startswith("-") or rest[0].endswith(".conf")):
        rest = ["redis-server", *rest]
    elif key == "postgres" and rest and rest[0].startswith("-"):
        rest = ["postgres", *rest]
    elif key == "mysql" and rest and rest[0].startswith("-"):
        rest = ["mysqld", *rest]
    elif key == "bash" and (not rest or rest[0].startswith("-")):
        rest = ["bash", *rest]  # docker-library/bash: `exec bash "$@"`
    elif (
        key == "node" and rest and (rest[0].startswith("-") or m.facts.has_binary(rest[0]) is False)
    ):
        rest = ["node", *rest]
    if not rest:
        return 0
    if exec_mode or th.kind == "program":
        return run_argv(m, th, rest, exec_mode=True, node=None)
    return run_argv(m, th, rest, exec_mode=False, node=None)


def w_httpd_foreground(m: Machine, th: Thread, argv: list[str], exec_mode: bool) -> int | None:
    return run_argv(
        m,
        th,
        ["httpd", "-DFOREGROUND", *argv[1:]],
        exec_mode=exec_mode or th.kind == "program",
        node=None,
    )


WRAPPERS = {"docker-entrypoint.sh": w_docker_entrypoint, "httpd-foreground": w_httpd_foreground}


def _net(name: str):
    def run(m: Machine, th: Thread, argv: list[str]) -> int | None:
        return getattr(netclients, name)(m, th, argv)

    return run


UTILITIES: dict[str, Any] = {
    "sleep": u_sleep, "touch": u_touch, "rm": u_rm, "mkdir": u_mkdir, "rmdir": u_rmdir,
    "cat": u_cat, "ls": u_ls, "cp": u_cp, "mv": u_cp, "ln": u_ln, "printenv": u_printenv,
    "env": u_env, "date": u_date, "hostname": u_hostname, "id": u_id, "whoami": u_whoami,
    "uname": u_uname, "head": u_head, "tail": u_tail, "wc": u_wc, "grep": u_grep,
    "egrep": u_grep, "fgrep": u_grep, "tee": u_tee, "basename": u_basename,
    "dirname": u_dirname, "rev": u_rev, "seq": u_seq, "expr": u_expr, "ps": u_ps, "pidof": u_pidof,
    "killall": u_killall, "pkill": u_killall, "timeout": u_timeout, "sync": u_sync,
    "usleep": u_usleep, "which": u_which, "nginx": u_nginx, "true": b_true,
    "false": b_false, "echo": b_echo, "printf": b_printf, "test": b_test, "[": b_test,
    "kill": b_kill, "nslookup": _net("nslookup"), "getent": _net("getent"),
    "wget": _net("wget"), "curl": _net("curl"), "nc": _net("nc"),
    "mysql": mysql.mysql_client, "mysqladmin": mysql.mysqladmin, "ncat": mysql.ncat_client,
    "xbstream": mysql.xbstream, "xtrabackup": mysql.xtrabackup,
}  # fmt: skip
# Utilities that finish at once whose output this model does not compute: they succeed
# with no output, and the derived behaviour says so.
PARTIAL = frozenset((
    "sed", "awk", "tr", "cut", "sort", "uniq", "chmod", "chown", "chgrp", "find", "xargs",
    "tar", "gzip", "gunzip", "base64", "md5sum", "sha256sum", "stat", "df", "du", "free",
    "mount", "umount", "apk", "apt-get", "apt", "pip", "npm", "openssl", "ip", "ifconfig",
    "netstat", "ss", "dd", "diff", "cmp", "install", "logger", "nproc", "uptime", "mktemp",
    "readlink", "realpath", "tac", "ping", "nohup", "setsid", "stty", "clear",
))  # fmt: skip
