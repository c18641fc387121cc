"""bash's ``[[ … ]]`` (the ``cond`` node of syntax.py), evaluated as bash does.

Operands are expanded without field splitting or pathname expansion; ``==`` / ``!=``
match the right side as a pattern (its quoted parts literally); ``=~`` matches the left
side against a POSIX extended regular expression (its quoted parts literally) and sets
the array ``BASH_REMATCH`` (the match, then each group; emptied when nothing matches;
status 2 for a regex that does not compile); ``-eq`` and its kin evaluate both sides as
arithmetic expressions; ``<`` / ``>`` compare strings; file tests as ``test``'s. ``&&`` and
``||`` short-circuit, so an operand not reached is not expanded (its ``$(…)`` does not run).

Regular expressions are POSIX EREs matched by ``regex.py``'s Pike VM (bounded work;
``(.*?)`` is ``.*`` made optional, greedy, as glibc reads it). Not modelled: POSIX's
leftmost-longest rule between alternatives (the first by priority wins), back-references,
locales' collation elements.
"""

from __future__ import annotations

from webapp.engine.programs import arith, regex
from webapp.engine.programs.base import Machine, Thread, shell_error
from webapp.engine.programs.syntax import Node, Word


class CondError(Exception):
    """A failure inside ``[[ ]]`` that ends it with ``status`` (and bash's message)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def run_cond(m: Machine, th: Thread, node: Node) -> None:
    """Evaluate ``[[ … ]]``: status 0 true, 1 false; an arithmetic error prints bash's
    message (status 1), a regular expression that does not compile gives 2 silently."""
    trace: list[str] = []
    try:
        th.status = 0 if evaluate(m, th, node.a, trace) else 1
    except CondError as error:
        if str(error):
            shell_error(m, th, str(error))
        th.status = error.status
    if "x" in th.options:
        m.write(th, 2, "+ [[ " + " ".join(trace) + " ]]\n")


def _text(m: Machine, th: Thread, word: Word) -> str:
    from webapp.engine.programs.commands import expand_word

    return "".join(expand_word(m, th, word, split=False))


def _chunks(m: Machine, th: Thread, word: Word) -> list[tuple[str, bool]]:
    """Each part of ``word`` expanded, with whether it was quoted."""
    from webapp.engine.programs.commands import expand_word

    found = []
    for part in word.parts:
        text = "".join(expand_word(m, th, Word((part,), "", 0), split=False))
        found.append((text, bool(part[2])))
    return found


def _arith(th: Thread, text: str) -> int:
    try:
        return arith.evaluate(text, th.vars) if text.strip() else 0
    except arith.ArithError as error:
        raise CondError(f"{text}: {error}", 1) from None


def evaluate(m: Machine, th: Thread, tree: tuple, trace: list[str]) -> bool:
    from webapp.engine.programs.commands import FILE_TESTS, SPECIAL, set_array

    kind = tree[0]
    if kind in ("or", "and"):
        left = evaluate(m, th, tree[1], trace)
        trace.append("||" if kind == "or" else "&&")
        if left == (kind == "or"):
            return left
        return evaluate(m, th, tree[2], trace)
    if kind == "not":
        trace.append("!")
        return not evaluate(m, th, tree[1], trace)
    if kind == "unary":
        op, value = tree[1], _text(m, th, tree[2])
        trace.extend([op, value] if op != "-n" or tree[2].raw == "-n" else [value])
        if op == "-n":
            return value != ""
        if op == "-z":
            return value == ""
        if op == "-v":
            return value in th.vars or ("\x00array:" + value) in th.vars
        if op in ("-o", "-t"):
            return op == "-o" and value in th.options
        path = m.fs.normalize(value, th.cwd)
        if op == "-f":
            return m.fs.is_file(path)
        if op == "-d":
            return m.fs.is_dir(path)
        if op == "-s":
            return bool(m.fs.read(path))
        if op in ("-L", "-h", "-p", "-S", "-b", "-c", "-g", "-u", "-k"):
            return path in SPECIAL and op == "-c"
        assert op in FILE_TESTS
        return m.fs.exists(path)
    op, left_word, right_word = tree[1], tree[2], tree[3]
    left = _text(m, th, left_word)
    if op == "=~":
        chunks = _chunks(m, th, right_word)
        source = "".join(regex.escape(t) if quoted else t for t, quoted in chunks)
        trace.extend([left, op, "".join(t for t, _ in chunks)])
        try:
            found = regex.Regex(source)
            offsets = found.search(left)
        except (regex.RegexError, RecursionError):
            raise CondError("", 2) from None  # bash: status 2, no message
        if offsets is None:
            set_array(th, "BASH_REMATCH", {})
            return False
        set_array(th, "BASH_REMATCH", dict(enumerate(regex.groups_of(left, offsets))), m)
        return True
    if op in ("==", "=", "!="):
        chunks = _chunks(m, th, right_word)
        trace.extend([left, op, "".join(t for t, _ in chunks)])
        pattern = "".join(regex.escape(t) if quoted else _glob(t) for t, quoted in chunks)
        try:  # the bounded matcher: no backtracking on *a*a*a*b
            same = regex.Regex("^" + pattern + "$").search(left) is not None
        except (regex.RegexError, RecursionError):
            same = left == "".join(t for t, _ in chunks)
        return same if op != "!=" else not same
    right = _text(m, th, right_word)
    trace.extend([left, op, right])
    if op in ("<", ">"):
        return left < right if op == "<" else left > right
    if op in ("-nt", "-ot", "-ef"):
        return op == "-ef" and m.fs.normalize(left, th.cwd) == m.fs.normalize(right, th.cwd)
    a, b = _arith(th, left), _arith(th, right)
    return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b,
            "-gt": a > b, "-ge": a >= b}[op]  # fmt: skip


def _glob(text: str) -> str:
    """An unquoted pattern chunk of ``==`` as a regular expression (``*`` ``?`` ``[…]``)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = text.find("]", i + 2 if text[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append("\\[")
            else:
                body = text[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body + "]")
                i = end
        else:
            out.append(regex.escape(ch))
        i += 1
    return "".join(out)
