"""POSIX extended regular expressions for ``[[ =~ ]]`` and ``sed s///``, matched by a
Pike VM (Thompson's construction with submatch tracking): the work is at most the
program's length times the subject's, never the exponential backtracking of a pattern
such as ``(a*)*b``, and is bounded (``MAX_WORK``) before it starts.

Grammar: alternation ``|``, groups ``( )`` (numbered from 1), ``* + ?`` and intervals
``{m}`` ``{m,}`` ``{m,n}`` (a quantifier after a quantifier applies to the quantified
atom, as glibc reads ``(.*?)``: optional, not lazy), ``.``, ``^`` ``$`` (the subject's
start and end), bracket expressions with ranges and classes (``[[:space:]]``), ``\\c``
for a literal character. Between matches that start at the same place the first by
priority wins (greedy quantifiers, the left alternative), not POSIX's longest; there
are no back-references.
"""

from __future__ import annotations

MAX_PATTERN = 1024  # characters of a pattern
MAX_PROGRAM = 4096  # instructions once intervals are expanded
MAX_WORK = 4_000_000  # program length x (subject length + 1)

CLASSES = {
    "alpha": str.isalpha, "digit": str.isdigit, "alnum": str.isalnum, "upper": str.isupper,
    "lower": str.islower, "space": lambda c: c in " \t\n\r\f\v", "blank": lambda c: c in " \t",
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
    "punct": lambda c: c.isascii() and c.isprintable() and not c.isalnum() and c != " ",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127, "print": lambda c: c.isprintable(),
    "graph": lambda c: c.isprintable() and c != " ",
}  # fmt: skip


class RegexError(Exception):
    """The pattern does not compile (bash: ``[[ =~ ]]`` returns 2)."""


class Regex:
    def __init__(self, pattern: str) -> None:
        if len(pattern) > MAX_PATTERN:
            raise RegexError("pattern too long")
        self.src = pattern
        self.pos = 0
        self.groups = 0
        tree = self._alt()
        if self.pos != len(pattern):
            raise RegexError("unmatched )")
        self.prog: list[tuple] = [("save", 0)]
        self._emit(tree)
        self.prog += [("save", 1), ("match",)]

    # -- parsing ---------------------------------------------------------------------------

    def _alt(self) -> tuple:
        branches = [self._cat()]
        while self.pos < len(self.src) and self.src[self.pos] == "|":
            self.pos += 1
            branches.append(self._cat())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def _cat(self) -> tuple:
        items = []
        src = self.src
        while self.pos < len(src) and src[self.pos] not in "|)":
            atom = self._atom()
            while self.pos < len(src):
                quant = self._quantifier()
                if quant is None:
                    break
                atom = ("repeat", atom, *quant)
            items.append(atom)
        return ("cat", items)

    def _quantifier(self) -> tuple[int, int | None] | None:
        ch = self.src[self.pos]
        if ch in "*+?":
            self.pos += 1
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
        if ch == "{":
            end = self.src.find("}", self.pos)
            body = self.src[self.pos + 1 : end] if end > 0 else ""
            low, comma, high = body.partition(",")
            if low.isdigit() and (not high or high.isdigit()):
                self.pos = end + 1
                lo = int(low)
                hi = None if comma and not high else int(high) if high else lo
                if (hi is not None and hi < lo) or lo > 255 or (hi or 0) > 255:
                    raise RegexError("bad interval")
                return lo, hi
        return None

    def _atom(self) -> tuple:
        src = self.src
        ch = src[self.pos]
        self.pos += 1
        if ch == "(":
            self.groups += 1
            index = self.groups
            inner = self._alt()
            if self.pos >= len(src) or src[self.pos] != ")":
                raise RegexError("unmatched (")
            self.pos += 1
            return ("group", index, inner)
        if ch in "*+?":
            raise RegexError("nothing to repeat")
        if ch == ".":
            return ("char", lambda c: c != "\0")
        if ch == "^":
            return ("bol",)
        if ch == "$":
            return ("eol",)
        if ch == "[":
            return ("char", self._bracket())
        if ch == "\\":
            if self.pos >= len(src):
                raise RegexError("trailing backslash")
            ch = src[self.pos]
            self.pos += 1
        return ("char", lambda c, x=ch: c == x)

    def _bracket(self):
        src = self.src
        negate = src.startswith("^", self.pos)
        if negate:
            self.pos += 1
        chars: set[str] = set()
        ranges: list[tuple[str, str]] = []
        classes = []
        first = True
        while True:
            if self.pos >= len(src):
                raise RegexError("unterminated [")
            ch = src[self.pos]
            if ch == "]" and not first:
                self.pos += 1
                break
            first = False
            if src.startswith("[:", self.pos):
                end = src.find(":]", self.pos + 2)
                name = src[self.pos + 2 : end] if end > 0 else ""
                if name not in CLASSES:
                    raise RegexError("bad class")
                classes.append(CLASSES[name])
                self.pos = end + 2
                continue
            self.pos += 1
            if self.pos + 1 < len(src) and src[self.pos] == "-" and src[self.pos + 1] != "]":
                ranges.append((ch, src[self.pos + 1]))
                self.pos += 2
            else:
                chars.add(ch)

        def test(c: str) -> bool:
            inside = (c in chars or any(a <= c <= b for a, b in ranges)
                      or any(f(c) for f in classes))  # fmt: skip
            return inside != negate

        return test

    # -- compiling -------------------------------------------------------------------------

    def _emit(self, node: tuple) -> None:
        prog = self.prog
        if len(prog) > MAX_PROGRAM:
            raise RegexError("pattern too large")
        kind = node[0]
        if kind == "char":
            prog.append(("char", node[1]))
        elif kind in ("bol", "eol"):
            prog.append((kind,))
        elif kind == "cat":
            for item in node[1]:
                self._emit(item)
        elif kind == "group":
            prog.append(("save", 2 * node[1]))
            self._emit(node[2])
            prog.append(("save", 2 * node[1] + 1))
        elif kind == "alt":
            jumps = []
            for i, branch in enumerate(node[1]):
                if i < len(node[1]) - 1:
                    split = len(prog)
                    prog.append(None)
                    self._emit(branch)
                    jumps.append(len(prog))
                    prog.append(None)
                    prog[split] = ("split", split + 1, len(prog))
                else:
                    self._emit(branch)
            for at in jumps:
                prog[at] = ("jmp", len(prog))
        elif kind == "repeat":
            _, inner, low, high = node
            for _ in range(low):
                self._emit(inner)
            if high is None:
                start = len(prog)
                prog.append(None)
                self._emit(inner)
                prog.append(("jmp", start))
                prog[start] = ("split", start + 1, len(prog))
            else:
                holes = []
                for _ in range(high - low):
                    holes.append(len(prog))
                    prog.append(None)
                    self._emit(inner)
                for at in holes:
                    prog[at] = ("split", at + 1, len(prog))

    # -- matching --------------------------------------------------------------------------

    def search(self, text: str, start: int = 0) -> list[int] | None:
        """Offsets [start0, end0, start1, end1, …] of the first match at or after
        ``start`` (-1 for a group that did not take part), or None."""
        if len(self.prog) * (len(text) + 1) > MAX_WORK:
            raise RegexError("subject too long")
        prog, n = self.prog, len(text)
        empty = (-1,) * (2 * self.groups + 2)
        matched = None
        clist: list = []
        seen: set = set()
        for i in range(start, n + 1):
            if matched is None:
                self._add(clist, seen, 0, empty, i, n)
            if not clist:
                if matched is not None:
                    break
                continue
            nlist: list = []
            nseen: set = set()
            for pc, caps in clist:
                op = prog[pc]
                if op[0] == "match":
                    matched = caps
                    break
                if i < n and op[1](text[i]):
                    self._add(nlist, nseen, pc + 1, caps, i + 1, n)
            clist, seen = nlist, nseen
        return None if matched is None else list(matched)

    def _add(self, out: list, seen: set, pc: int, caps: tuple, i: int, n: int) -> None:
        prog = self.prog
        stack = [(pc, caps)]
        while stack:
            pc, caps = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            op = prog[pc]
            kind = op[0]
            if kind == "jmp":
                stack.append((op[1], caps))
            elif kind == "split":
                stack.append((op[2], caps))
                stack.append((op[1], caps))
            elif kind == "save":
                stack.append((pc + 1, (*caps[: op[1]], i, *caps[op[1] + 1 :])))
            elif kind == "bol":
                if i == 0:
                    stack.append((pc + 1, caps))
            elif kind == "eol":
                if i == n:
                    stack.append((pc + 1, caps))
            else:
                out.append((pc, caps))


def groups_of(text: str, found: list[int]) -> list[str]:
    """The match and each group's text ("" for a group that did not take part)."""
    return [text[found[k] : found[k + 1]] if found[k] >= 0 else "" for k in range(0, len(found), 2)]


def escape(text: str) -> str:
    """``text`` as a pattern that matches it literally (a quoted part of ``=~``)."""
    return "".join("\\" + c if c in ".[]()*+?{}|^$\\" else c for c in text)


def substitute(regex: Regex, template, text: str, every: bool) -> str:
    """``text`` with the first (``every``: each) match replaced by ``template(groups)``;
    after an empty match the search moves on one character, as sed does."""
    out, pos = [], 0
    while pos <= len(text):
        found = regex.search(text, pos)
        if found is None:
            break
        begin, end = found[0], found[1]
        out.append(text[pos:begin])
        out.append(template(groups_of(text, found)))
        if end == begin:
            if begin < len(text):
                out.append(text[begin])
            pos = begin + 1
        else:
            pos = end
        if not every:
            break
    out.append(text[pos:])
    return "".join(out)
