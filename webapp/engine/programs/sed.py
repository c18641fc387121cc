"""``sed`` for its substitute command: ``sed [-E|-r] [-e] 's/RE/REPL/[g]'[;…] [FILE…]``
(the replication tutorial's ``sed -E 's/;$//g'``). Regular expressions are POSIX basic
(extended with ``-E``/``-r``), translated as ``[[ =~ ]]``'s are (``cond.ere_to_python``);
the replacement's ``&``, ``\\1``…``\\9`` and ``\\n`` are sed's. Any other script (addresses,
``d``, ``p``, ``-n``, ``-i``, ``y``, other flags) is not modelled: None, and the caller
keeps its "succeeds with no output" rule."""

from __future__ import annotations

import contextlib

from webapp.engine.programs import regex

MAX_SCRIPT = 4096


def bre_to_ere(pattern: str) -> str:
    """POSIX basic to extended: ``\\( \\) \\{ \\} \\+ \\? \\|`` are the operators, the bare
    characters literals (GNU's extensions ``\\+ \\? \\|`` included)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}+?|" else "\\" + nxt)
            i += 2
            continue
        if ch == "[":  # a bracket expression is copied as it is
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("]", "^") else i + 1)
            end = end if end >= 0 else len(pattern) - 1
            out.append(pattern[i : end + 1])
            i = end + 1
            continue
        out.append("\\" + ch if ch in "(){}+?|" else ch)
        i += 1
    return "".join(out)


def parse(script: str, extended: bool) -> list[tuple[regex.Regex, str, bool]] | None:
    """The substitutions of ``script``, or None when it is more than ``s///`` commands."""
    if len(script) > MAX_SCRIPT:
        return None
    commands = []
    rest = script.strip()
    while rest:
        if len(rest) < 4 or rest[0] != "s" or rest[1] in "\\\n":
            return None
        delim = rest[1]
        parts, current, i = [], [], 2
        while i < len(rest) and len(parts) < 2:
            ch = rest[i]
            if ch == "\\" and i + 1 < len(rest):
                current.append(rest[i + 1] if rest[i + 1] == delim else rest[i : i + 2])
                i += 2
                continue
            if ch == delim:
                parts.append("".join(current))
                current = []
            else:
                current.append(ch)
            i += 1
        if len(parts) < 2:
            return None
        flags_end = i
        while flags_end < len(rest) and rest[flags_end] not in ";\n":
            flags_end += 1
        flags = rest[i:flags_end].strip()
        if flags not in ("", "g"):
            return None
        source = parts[0] if extended else bre_to_ere(parts[0])
        try:
            compiled = regex.Regex(source)
        except (regex.RegexError, RecursionError):
            return None
        commands.append((compiled, parts[1], flags == "g"))
        rest = rest[flags_end + 1 :].strip()
    return commands or None


def _replacement(template: str, groups: list[str]) -> str:
    out, i = [], 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt.isdigit():
                out.append(groups[int(nxt)] if int(nxt) < len(groups) else "")
            else:
                out.append("\n" if nxt == "n" else nxt)
            i += 2
            continue
        out.append(groups[0] if ch == "&" else ch)
        i += 1
    return "".join(out)


def apply(commands: list[tuple[regex.Regex, str, bool]], text: str) -> str:
    """Run the substitutions on each line of ``text`` (a line too long for the bounded
    matcher is left as it is)."""
    lines = text.split("\n")
    ends = text.endswith("\n")
    if ends:
        lines = lines[:-1]
    out = []
    for line in lines:
        for compiled, template, every in commands:
            with contextlib.suppress(regex.RegexError):  # too long for the bounded matcher
                line = regex.substitute(compiled, lambda g, t=template: _replacement(t, g), line,
                                        every)  # fmt: skip
        out.append(line)
    return "\n".join(out) + ("\n" if ends else "") if out else ""
