"""A parser for the shell that container commands are written in (``sh -c`` / ``bash -c``).

It reads the POSIX subset that the Kubernetes documentation and real manifests use: lists
(``;`` ``&`` newlines), ``&&`` / ``||``, pipelines and ``!``, ``if/elif/else/fi``,
``while/until … do … done``, ``for NAME [in WORDS]``, ``{ …; }`` and ``( … )``, simple
commands with assignments and redirections (``>`` ``>>`` ``<`` ``2>&1`` ``&>``), and words with
single and double quotes, backslashes, ``$VAR`` / ``${VAR}`` / ``${VAR:-word}`` /
``${#VAR}``, ``$(…)``, backquotes and ``$((…))``.

Three kinds of trouble are told apart, because they end differently:
- :class:`ShellSyntaxError` with ``kind="syntax"``: the real shell rejects the script too
  (an unterminated quote, a missing ``fi``): the container prints the shell's error and
  exits 2, exactly as it would on a cluster.
- ``kind="unsupported"``: valid shell that this model does not interpret (``case``,
  functions, here-documents): the container is treated as a long-running process.
- ``kind="limit"``: the script is larger or deeper than the model accepts (64 KiB,
  nesting depth 32): also treated as a long-running process.
Every error carries the character offset it was found at, so callers can locate it.

The tree is made of :class:`Node` objects, which are immutable by convention and copy as
themselves, so a process state that refers to them deep-copies cheaply.
"""

from __future__ import annotations

import re
from typing import Any

MAX_SCRIPT_BYTES = 64 * 1024
MAX_DEPTH = 32

KEYWORDS = frozenset(
    ("if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in", "case",
     "esac", "{", "}", "!", "function", "select")
)  # fmt: skip
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
OPERATORS = ("&&", "||", ";;", "&>>", "&>", ">>", ">&", "<&", ">|", "<<", "<>", ";", "&", "|", "(", ")", "<", ">")  # fmt: skip
META = frozenset(" \t\n;&|()<>")
OP_START = frozenset(";&|()<>")


class ShellSyntaxError(Exception):
    """A script the model cannot run as written; ``kind`` says why (see module doc)."""

    def __init__(self, kind: str, code: str, pos: int, **params: Any) -> None:
        super().__init__(f"{code} at {pos}")
        self.kind = kind
        self.code = code
        self.pos = pos
        self.params = params


class Node:
    """One node of the syntax tree: ``kind`` and its fields; ``pos`` is a source offset."""

    __slots__ = ("a", "b", "c", "d", "kind", "pos")

    def __init__(self, kind: str, a: Any = None, b: Any = None, c: Any = None, d: Any = None,
                 pos: int = 0) -> None:  # fmt: skip
        self.kind = kind
        self.a, self.b, self.c, self.d = a, b, c, d
        self.pos = pos

    def __deepcopy__(self, memo: dict) -> Node:
        return self  # immutable by convention: shared between copies

    def __copy__(self) -> Node:
        return self

    def __repr__(self) -> str:
        return f"Node({self.kind}, {self.a!r}, {self.b!r}, {self.c!r}, {self.d!r})"


# Word parts (tuples, immutable):
#   ("L", text, quoted)                    literal text
#   ("V", name, quoted, op, word|None)     $name / ${name op word}; op in "", ":-", "-",
#                                          ":=", "=", ":+", "+", "#"
#   ("C", Node, quoted)                    $(…) or `…`
#   ("A", word, quoted)                    $((…)): the expression, itself a word


class Word:
    """A shell word: its parts and its source text."""

    __slots__ = ("parts", "pos", "raw")

    def __init__(self, parts: tuple, raw: str, pos: int) -> None:
        self.parts = parts
        self.raw = raw
        self.pos = pos

    def __deepcopy__(self, memo: dict) -> Word:
        return self

    def __copy__(self) -> Word:
        return self

    @property
    def literal(self) -> str | None:
        """The text when the word is one unquoted literal (keywords, assignments)."""
        if len(self.parts) == 1 and self.parts[0][0] == "L" and not self.parts[0][2]:
            return self.parts[0][1]
        return None

    def static_text(self) -> str | None:
        """The text when the word has no expansion at all (quotes removed)."""
        if all(part[0] == "L" for part in self.parts):
            return "".join(part[1] for part in self.parts)
        return None

    def __repr__(self) -> str:
        return f"Word({self.raw!r})"


class _Tok:
    __slots__ = ("io", "kind", "pos", "value")

    def __init__(self, kind: str, value: Any, pos: int, io: int | None = None) -> None:
        self.kind = kind  # "word" | "op" | "nl" | "eof"
        self.value = value
        self.pos = pos
        self.io = io  # an IO number before a redirection operator (2>)


def parse_script(text: str, bash: bool = False) -> Node:
    """The whole script as a ``list`` node; :class:`ShellSyntaxError` when it cannot be run.

    ``bash``: the script is for bash, which also has indexed arrays (``a=(x y)``,
    ``a[i]=v``, ``a+=(z)``, ``${a[i]}``, ``${a[@]}``, ``${#a[@]}``); busybox ash and dash
    reject ``a=(`` with a syntax error, as they do here."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SCRIPT_BYTES:
        raise ShellSyntaxError("limit", "script_too_large", 0, limit=MAX_SCRIPT_BYTES)
    parser = _Parser(text, 0, 0, bash)
    node = parser.parse_list(frozenset(), top=True)
    tok = parser.peek()
    if tok.kind != "eof":
        raise parser.unexpected(tok)
    return node


class _Parser:
    def __init__(self, src: str, pos: int, depth: int, bash: bool = False) -> None:
        if depth > MAX_DEPTH:
            raise ShellSyntaxError("limit", "too_deep", pos, limit=MAX_DEPTH)
        self.bash = bash
        self.src = src
        self.pos = pos
        self.depth = depth
        self._peeked: _Tok | None = None

    # -- tokens ---------------------------------------------------------------------------

    def peek(self) -> _Tok:
        if self._peeked is None:
            self._peeked = self._lex()
        return self._peeked

    def next(self) -> _Tok:
        tok = self.peek()
        self._peeked = None
        return tok

    def _lex(self) -> _Tok:
        src = self.src
        n = len(src)
        while self.pos < n:
            ch = src[self.pos]
            if ch in " \t":
                self.pos += 1
            elif ch == "\\" and src.startswith("\\\n", self.pos):
                self.pos += 2
            elif ch == "#":
                end = src.find("\n", self.pos)
                self.pos = n if end < 0 else end
            else:
                break
        if self.pos >= n:
            return _Tok("eof", None, n)
        start = self.pos
        ch = src[start]
        if ch == "\n":
            self.pos += 1
            return _Tok("nl", "\n", start)
        if ch in OP_START:
            for op in OPERATORS:
                if src.startswith(op, start):
                    self.pos += len(op)
                    return _Tok("op", op, start)
        word = self._word()
        digits = word.literal is not None and word.literal.isdigit()
        if digits and self.pos < n and src[self.pos] in "<>":
            op_tok = self._lex()
            op_tok.io = int(word.literal)
            op_tok.pos = start
            return op_tok
        return _Tok("word", word, start)

    def _word(self) -> Word:
        """Read one word from ``self.pos`` (outside any quotes)."""
        src = self.src
        n = len(src)
        start = self.pos
        parts: list[tuple] = []
        lit: list[str] = []

        def flush(quoted: bool = False) -> None:
            if lit:
                parts.append(("L", "".join(lit), quoted))
                lit.clear()

        while self.pos < n:
            ch = src[self.pos]
            if ch in META:
                break
            if ch == "'":
                flush()
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax", "unterminated_quote", self.pos)
                parts.append(("L", src[self.pos + 1 : end], True))
                self.pos = end + 1
            elif ch == '"':
                flush()
                self.pos += 1
                parts.extend(self._double_quoted())
            elif ch == "\\":
                if self.pos + 1 >= n:
                    self.pos += 1
                    lit.append("\\")
                    continue
                flush()
                if src[self.pos + 1] != "\n":
                    parts.append(("L", src[self.pos + 1], True))
                self.pos += 2
            elif ch == "$":
                flush()
                parts.append(self._dollar(quoted=False))
            elif ch == "`":
                flush()
                parts.append(self._backquote(quoted=False))
            else:
                lit.append(ch)
                self.pos += 1
        flush()
        if not parts:
            parts.append(("L", "", True))
        return Word(tuple(parts), src[start : self.pos], start)

    def _double_quoted(self) -> list[tuple]:
        src = self.src
        n = len(src)
        parts: list[tuple] = []
        lit: list[str] = []
        opened = self.pos - 1
        while True:
            if self.pos >= n:
                raise ShellSyntaxError("syntax", "unterminated_quote", opened)
            ch = src[self.pos]
            if ch == '"':
                self.pos += 1
                break
            if ch == "\\" and self.pos + 1 < n and src[self.pos + 1] in '$`"\\\n':
                if src[self.pos + 1] != "\n":
                    lit.append(src[self.pos + 1])
                self.pos += 2
            elif ch == "$":
                if lit:
                    parts.append(("L", "".join(lit), True))
                    lit.clear()
                parts.append(self._dollar(quoted=True))
            elif ch == "`":
                if lit:
                    parts.append(("L", "".join(lit), True))
                    lit.clear()
                parts.append(self._backquote(quoted=True))
            else:
                lit.append(ch)
                self.pos += 1
        if lit or not parts:
            parts.append(("L", "".join(lit), True))
        return parts

    def _dollar(self, quoted: bool) -> tuple:
        src = self.src
        start = self.pos
        self.pos += 1  # the $
        if src.startswith("((", self.pos):
            return self._arithmetic(start, quoted)
        if src.startswith("(", self.pos):
            sub = _Parser(src, self.pos + 1, self.depth + 1, self.bash)
            node = sub.parse_list(frozenset((")",)))
            tok = sub.next()
            if tok.kind != "op" or tok.value != ")":
                if tok.kind == "eof":
                    raise ShellSyntaxError("syntax", "unterminated_substitution", start)
                raise sub.unexpected(tok)
            self.pos = sub.pos
            return ("C", node, quoted)
        if src.startswith("{", self.pos):
            return self._braced(start, quoted)
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9?$!#@*-]").match(src, self.pos)
        if not m:
            return ("L", "$", quoted)
        self.pos = m.end()
        return ("V", m.group(0), quoted, "", None)

    def _braced(self, start: int, quoted: bool) -> tuple:
        src = self.src
        depth, i = 0, self.pos
        while i < len(src):
            if src[i] == "{":
                depth += 1
            elif src[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif src[i] == "\\":
                i += 1
            i += 1
        else:
            raise ShellSyntaxError("syntax", "unterminated_brace", start)
        body = src[self.pos + 1 : i]
        self.pos = i + 1
        if self.bash:
            element = self._element(body, start, quoted)
            if element is not None:
                return element
        if body.startswith("#") and len(body) > 1:
            name = body[1:]
            if NAME_RE.match(name) or name in ("@", "*"):
                return ("V", name, quoted, "#", None)
        m = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[?$!#@*-])(:?[-=+?])?").match(body)
        if not m:
            raise ShellSyntaxError("syntax", "bad_substitution", start, text=body)
        name, op = m.group(1), m.group(2) or ""
        rest = body[m.end() :]
        if not op and rest:
            # ${VAR%pattern}, ${VAR/…}, ${VAR:offset}: valid shell, not modelled here.
            raise ShellSyntaxError(
                "unsupported", "parameter_operator", start, text="${" + body + "}"
            )
        word = None
        if op:
            sub = _Parser(rest, 0, self.depth + 1, self.bash)
            word = _word_in_context(sub, rest)
        return ("V", name, quoted, op, word)

    def _element(self, body: str, start: int, quoted: bool) -> tuple | None:
        """bash's ``${a[i]}``, ``${a[@]}``, ``${#a[@]}``, ``${a[i]:-word}`` as an "X" part,
        or None when ``body`` names no array element."""
        m = _ELEMENT_RE.match(body)
        if not m:
            return None
        length, name, sub, op = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        rest = body[m.end() :]
        if (length and (op or rest)) or (not op and rest):
            raise ShellSyntaxError(
                "unsupported", "parameter_operator", start, text="${" + body + "}"
            )
        word = None
        if op:
            word = _word_in_context(_Parser(rest, 0, self.depth + 1, True), rest)
        subscript: Word | str = sub
        if sub not in ("@", "*"):
            subscript = _word_in_context(_Parser(sub, 0, self.depth + 1, True), sub)
        return ("X", name, quoted, "#" if length else op, word, subscript)

    def _arithmetic(self, start: int, quoted: bool) -> tuple:
        src = self.src
        i = self.pos + 2
        depth = 0
        while i < len(src):
            if src[i] == "(":
                depth += 1
            elif src[i] == ")":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        if not src.startswith("))", i):
            raise ShellSyntaxError("syntax", "unterminated_arithmetic", start)
        body = src[self.pos + 2 : i]
        self.pos = i + 2
        sub = _Parser(body, 0, self.depth + 1, self.bash)
        return ("A", _word_in_context(sub, body), quoted)

    def _backquote(self, quoted: bool) -> tuple:
        src = self.src
        start = self.pos
        i = start + 1
        chars: list[str] = []
        while i < len(src) and src[i] != "`":
            if src[i] == "\\" and i + 1 < len(src) and src[i + 1] in "`\\$":
                chars.append(src[i + 1])
                i += 2
                continue
            chars.append(src[i])
            i += 1
        if i >= len(src):
            raise ShellSyntaxError("syntax", "unterminated_substitution", start)
        self.pos = i + 1
        inner = "".join(chars)
        sub = _Parser(inner, 0, self.depth + 1, self.bash)
        node = sub.parse_list(frozenset())
        if sub.peek().kind != "eof":
            raise sub.unexpected(sub.peek())
        return ("C", _shift(node, start + 1), quoted)

    # -- grammar --------------------------------------------------------------------------

    def unexpected(self, tok: _Tok) -> ShellSyntaxError:
        if tok.kind == "eof":
            return ShellSyntaxError("syntax", "unexpected_eof", tok.pos)
        if tok.kind == "nl":
            return ShellSyntaxError("syntax", "unexpected_token", tok.pos, token="newline")
        value = tok.value.raw if tok.kind == "word" else tok.value
        return ShellSyntaxError("syntax", "unexpected_token", tok.pos, token=value)

    def _keyword(self, tok: _Tok) -> str | None:
        return tok.value.literal if tok.kind == "word" and tok.value.literal in KEYWORDS else None

    def _skip_newlines(self) -> None:
        while self.peek().kind == "nl":
            self.next()

    def _at_end(self, terminators: frozenset) -> bool:
        tok = self.peek()
        if tok.kind == "eof":
            return True
        if tok.kind == "op" and tok.value in terminators:
            return True
        return self._keyword(tok) in terminators

    def parse_list(self, terminators: frozenset, top: bool = False) -> Node:
        items: list[tuple[Node, bool]] = []
        start = self.peek().pos
        while True:
            while self.peek().kind == "nl":
                self.next()
            if self._at_end(terminators):
                break
            node = self.parse_and_or()
            tok = self.peek()
            background = False
            if tok.kind == "op" and tok.value in (";", "&"):
                background = tok.value == "&"
                self.next()
            elif tok.kind == "nl":
                self.next()
            elif not self._at_end(terminators):
                raise self.unexpected(tok)
            items.append((node, background))
        if not items and not top:
            tok = self.peek()
            if tok.kind == "eof":
                raise ShellSyntaxError("syntax", "unexpected_eof", tok.pos)
            raise self.unexpected(tok)
        return Node("list", tuple(items), pos=start)

    def parse_and_or(self) -> Node:
        first = self.parse_pipeline()
        rest: list[tuple[str, Node]] = []
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.value in ("&&", "||"):
                self.next()
                self._skip_newlines()
                rest.append((tok.value, self.parse_pipeline()))
            else:
                break
        return first if not rest else Node("andor", first, tuple(rest), pos=first.pos)

    def parse_pipeline(self) -> Node:
        tok = self.peek()
        negate = False
        if self._keyword(tok) == "!":
            self.next()
            negate = True
        commands = [self.parse_command()]
        while self.peek().kind == "op" and self.peek().value == "|":
            self.next()
            self._skip_newlines()
            commands.append(self.parse_command())
        if len(commands) == 1 and not negate:
            return commands[0]
        return Node("pipeline", tuple(commands), negate, pos=tok.pos)

    def parse_command(self) -> Node:
        tok = self.peek()
        keyword = self._keyword(tok)
        if keyword in ("if", "while", "until", "for", "{"):
            if self.depth + 1 > MAX_DEPTH:
                raise ShellSyntaxError("limit", "too_deep", tok.pos, limit=MAX_DEPTH)
            self.depth += 1
            try:
                node = {"if": self._if, "while": self._loop, "until": self._loop,
                        "for": self._for, "{": self._group}[keyword]()  # fmt: skip
            finally:
                self.depth -= 1
            return self._with_redirects(node)
        if tok.kind == "op" and tok.value == "(":
            if self.depth + 1 > MAX_DEPTH:
                raise ShellSyntaxError("limit", "too_deep", tok.pos, limit=MAX_DEPTH)
            self.next()
            self.depth += 1
            try:
                body = self.parse_list(frozenset((")",)))
            finally:
                self.depth -= 1
            self._expect_op(")")
            return self._with_redirects(Node("subshell", body, (), pos=tok.pos))
        if self.bash and tok.kind == "word" and tok.value.literal == "[[":
            return self._with_redirects(self._cond())
        if keyword in ("case", "select"):
            raise ShellSyntaxError("unsupported", "construct", tok.pos, construct=keyword)
        if keyword == "function":
            raise ShellSyntaxError("unsupported", "construct", tok.pos, construct="function")
        if keyword is not None:
            raise self.unexpected(tok)
        return self._simple()

    # -- bash's [[ … ]] ---------------------------------------------------------------------

    def _cond(self) -> Node:
        """``[[ EXPR ]]`` (bash): its words are not split or globbed; ``(`` ``)`` ``<``
        ``>`` ``&&`` ``||`` and ``!`` are the expression's own; the word after ``=~`` is a
        regular expression in which parentheses and ``|`` are part of the word. The node
        is ``cond`` with the expression tree (``CondParser``)."""
        start = self.next().pos
        src, n = self.src, len(self.src)
        tokens: list[tuple[str, Any]] = []
        while True:
            while self.pos < n and src[self.pos] in " \t\n":
                self.pos += 1
            if src.startswith("\\\n", self.pos):
                self.pos += 2
                continue
            if self.pos >= n:
                raise ShellSyntaxError("syntax", "unexpected_eof", self.pos)
            at = self.pos
            if src.startswith("]]", at) and (at + 2 >= n or src[at + 2] in META):
                self.pos += 2
                break
            if len(tokens) >= 256:
                raise ShellSyntaxError("limit", "too_deep", at, limit=256)
            two = src[at : at + 2]
            if two in ("&&", "||"):
                self.pos += 2
                tokens.append(("op", two))
            elif src[at] in "()<>" and not (tokens and tokens[-1] == ("word", "=~")):
                self.pos += 1
                tokens.append(("op", src[at]))
            elif src[at] in ";&|":
                raise ShellSyntaxError("syntax", "unexpected_token", at, token=src[at])
            elif tokens and tokens[-1] == ("word", "=~"):
                tokens.append(("regex", self._regex_word()))
            else:
                word = self._word()
                literal = word.literal
                tokens.append(
                    ("word", literal) if literal in CONDITION_OPERATORS else ("arg", word)
                )
        if not tokens:
            raise ShellSyntaxError("syntax", "unexpected_token", start, token="]]")
        expression = CondParser(tokens, start).parse()
        return Node("cond", expression, pos=start)

    def _regex_word(self) -> Word:
        """The right side of ``=~``: up to a blank outside parentheses and quotes."""
        src, n = self.src, len(self.src)
        start = self.pos
        parts: list[tuple] = []
        lit: list[str] = []
        depth = 0

        def flush() -> None:
            if lit:
                parts.append(("L", "".join(lit), False))
                lit.clear()

        while self.pos < n:
            ch = src[self.pos]
            if ch in " \t\n" and depth == 0:
                break
            if ch == ")" and depth == 0:
                break
            if ch == "'":
                flush()
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax", "unterminated_quote", self.pos)
                parts.append(("L", src[self.pos + 1 : end], True))
                self.pos = end + 1
            elif ch == '"':
                flush()
                self.pos += 1
                parts.extend(self._double_quoted())
            elif ch == "\\" and self.pos + 1 < n:
                flush()
                parts.append(("L", src[self.pos + 1], True))
                self.pos += 2
            elif ch == "$" and self.pos + 1 < n and src[self.pos + 1] not in " \t\n)|":
                flush()
                parts.append(self._dollar(quoted=False))
            elif ch == "`":
                flush()
                parts.append(self._backquote(quoted=False))
            else:
                depth += {"(": 1, ")": -1}.get(ch, 0)
                lit.append(ch)
                self.pos += 1
        flush()
        return Word(tuple(parts) or (("L", "", True),), src[start : self.pos], start)

    def _expect_keyword(self, word: str) -> _Tok:
        tok = self.peek()
        if self._keyword(tok) != word:
            if tok.kind == "eof":
                raise ShellSyntaxError("syntax", "expecting", tok.pos, token=word)
            raise self.unexpected(tok)
        return self.next()

    def _expect_op(self, op: str) -> None:
        tok = self.peek()
        if tok.kind != "op" or tok.value != op:
            if tok.kind == "eof":
                raise ShellSyntaxError("syntax", "expecting", tok.pos, token=op)
            raise self.unexpected(tok)
        self.next()

    def _if(self) -> Node:
        start = self.next().pos
        clauses = []
        cond = self.parse_list(frozenset(("then",)))
        self._expect_keyword("then")
        body = self.parse_list(frozenset(("elif", "else", "fi")))
        clauses.append((cond, body))
        otherwise = None
        while True:
            keyword = self._keyword(self.peek())
            if keyword == "elif":
                self.next()
                cond = self.parse_list(frozenset(("then",)))
                self._expect_keyword("then")
                body = self.parse_list(frozenset(("elif", "else", "fi")))
                clauses.append((cond, body))
            elif keyword == "else":
                self.next()
                otherwise = self.parse_list(frozenset(("fi",)))
            else:
                break
        self._expect_keyword("fi")
        return Node("if", tuple(clauses), otherwise, pos=start)

    def _loop(self) -> Node:
        tok = self.next()
        until = tok.value.literal == "until"
        cond = self.parse_list(frozenset(("do",)))
        self._expect_keyword("do")
        body = self.parse_list(frozenset(("done",)))
        self._expect_keyword("done")
        return Node("while", cond, body, until, pos=tok.pos)

    def _for(self) -> Node:
        start = self.next().pos
        tok = self.next()
        name = tok.value.literal if tok.kind == "word" else None
        if not name or not NAME_RE.match(name):
            raise self.unexpected(tok)
        words = None
        self._skip_newlines()
        if self._keyword(self.peek()) == "in":
            self.next()
            collected = []
            while self.peek().kind == "word" and self._keyword(self.peek()) != "do":
                collected.append(self.next().value)
            words = tuple(collected)
            tok = self.peek()
            if (tok.kind == "op" and tok.value == ";") or tok.kind == "nl":
                self.next()
        elif self.peek().kind == "op" and self.peek().value == ";":
            self.next()
        self._skip_newlines()
        self._expect_keyword("do")
        body = self.parse_list(frozenset(("done",)))
        self._expect_keyword("done")
        return Node("for", name, words, body, pos=start)

    def _group(self) -> Node:
        start = self.next().pos
        body = self.parse_list(frozenset(("}",)))
        self._expect_keyword("}")
        return Node("group", body, (), pos=start)

    def _with_redirects(self, node: Node) -> Node:
        redirects = []
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.value in (
                "<",
                ">",
                ">>",
                ">&",
                "<&",
                ">|",
                "&>",
                "&>>",
                "<<",
                "<>",
            ):
                redirects.append(self._redirect())
            else:
                break
        if not redirects:
            return node
        return Node("redirected", node, tuple(redirects), pos=node.pos)

    def _redirect(self) -> tuple:
        tok = self.next()
        op = tok.value
        if op == "<<":
            raise ShellSyntaxError("unsupported", "construct", tok.pos, construct="<<")
        target = self.peek()
        if target.kind != "word":
            raise self.unexpected(target)
        self.next()
        fd = tok.io
        if fd is None:
            fd = 0 if op in ("<", "<&", "<>") else 1
        return (fd, op, target.value)

    def _simple(self) -> Node:
        start = self.peek().pos
        assigns: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirects: list[tuple] = []
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.value in (
                "<",
                ">",
                ">>",
                ">&",
                "<&",
                ">|",
                "&>",
                "&>>",
                "<<",
                "<>",
            ):
                redirects.append(self._redirect())
                continue
            if tok.kind != "word":
                if tok.kind == "op" and tok.value == "(" and len(words) == 1 and not assigns:
                    raise ShellSyntaxError("unsupported", "construct", start, construct="function")
                break
            word = tok.value
            if not words:
                split = _assignment(word, self.bash)
                if split is not None:
                    self.next()
                    if self.bash and split[1].raw == "" and self._array_follows(word):
                        split = (split[0], self._array_words())
                    assigns.append(split)
                    continue
            self.next()
            words.append(word)
        if not words and not assigns and not redirects:
            raise self.unexpected(self.peek())
        return Node("simple", tuple(assigns), tuple(words), tuple(redirects), pos=start)

    def _array_follows(self, word: Word) -> bool:
        """``name=(`` with nothing between the ``=`` and the parenthesis."""
        tok = self.peek()
        return tok.kind == "op" and tok.value == "(" and tok.pos == word.pos + len(word.raw)

    def _array_words(self) -> tuple:
        """The words of ``name=( … )`` (newlines allowed), as ``("array", words)``."""
        self.next()  # (
        words = []
        while True:
            tok = self.peek()
            if tok.kind == "nl":
                self.next()
            elif tok.kind == "word":
                words.append(self.next().value)
            elif tok.kind == "op" and tok.value == ")":
                self.next()
                return ("array", tuple(words))
            else:
                raise self.unexpected(tok)


CONDITION_UNARY = frozenset(
    [
        "-a",
        "-b",
        "-c",
        "-d",
        "-e",
        "-f",
        "-g",
        "-h",
        "-k",
        "-p",
        "-r",
        "-s",
        "-t",
        "-u",
        "-w",
        "-x",
        "-G",
        "-L",
        "-N",
        "-O",
        "-S",
        "-z",
        "-n",
        "-v",
    ]
)
CONDITION_BINARY = frozenset(
    ["==", "=", "!=", "=~", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]
)
CONDITION_OPERATORS = CONDITION_UNARY | CONDITION_BINARY | {"!"}


class CondParser:
    """The expression of ``[[ … ]]`` as bash's ``cond_expr`` grammar reads it: ``||``
    below ``&&`` below ``!``; ``( … )``; unary and binary primaries; a lone word is
    ``-n word``. Trees: ("or"|"and", left, right), ("not", e), ("unary", op, word),
    ("binary", op, left, right) with a ``Word`` on each side (``=~``: the regex word)."""

    def __init__(self, tokens: list[tuple[str, Any]], pos: int) -> None:
        self.tokens = tokens
        self.i = 0
        self.pos = pos

    def error(self) -> ShellSyntaxError:
        token = self.tokens[self.i] if self.i < len(self.tokens) else None
        text = "]]" if token is None else token[1] if isinstance(token[1], str) else token[1].raw
        return ShellSyntaxError("syntax", "unexpected_token", self.pos, token=text)

    def take(self) -> tuple[str, Any] | None:
        token = self.tokens[self.i] if self.i < len(self.tokens) else None
        self.i += 1
        return token

    def peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def parse(self) -> tuple:
        tree = self.or_expr()
        if self.i != len(self.tokens):
            raise self.error()
        return tree

    def or_expr(self) -> tuple:
        left = self.and_expr()
        while self.peek() == ("op", "||"):
            self.i += 1
            left = ("or", left, self.and_expr())
        return left

    def and_expr(self) -> tuple:
        left = self.not_expr()
        while self.peek() == ("op", "&&"):
            self.i += 1
            left = ("and", left, self.not_expr())
        return left

    def not_expr(self) -> tuple:
        if self.peek() == ("word", "!"):
            self.i += 1
            return ("not", self.not_expr())
        return self.primary()

    def operand(self) -> Word:
        token = self.take()
        if token is None or token[0] == "op":
            self.i -= 1
            raise self.error()
        if token[0] == "word":  # an operator's spelling used as a plain word
            return Word((("L", token[1], False),), token[1], self.pos)
        return token[1]

    def primary(self) -> tuple:
        token = self.peek()
        if token == ("op", "("):
            self.i += 1
            tree = self.or_expr()
            if self.take() != ("op", ")"):
                self.i -= 1
                raise self.error()
            return tree
        if token is not None and token[0] == "word" and token[1] in CONDITION_UNARY:
            following = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
            if following is not None and following[0] in ("arg", "regex"):
                self.i += 1
                return ("unary", token[1], self.operand())
        left = self.operand()
        token = self.peek()
        if token is not None and ((token[0] == "word" and token[1] in CONDITION_BINARY)
                                  or token in (("op", "<"), ("op", ">"))):  # fmt: skip
            self.i += 1
            return ("binary", token[1], left, self.operand())
        return ("unary", "-n", left)


_ELEMENT_RE = re.compile(r"(#?)([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\](:?[-=+?])?")
_ELEMENT_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?\Z")


def _word_in_context(parser: _Parser, text: str) -> Word:
    """Parse ``text`` as the inside of double quotes: one word, quotes allowed."""
    parser.src = text + '"'
    parser.pos = 0
    parts = parser._double_quoted()
    return Word(tuple(parts), text, 0)


def _assignment(word: Word, bash: bool = False) -> tuple[str, Word] | None:
    """``NAME=value`` split into its name and value word; with ``bash`` also
    ``NAME[subscript]=value`` and ``NAME+=value`` (the name keeps ``[…]`` / ``+``)."""
    first = word.parts[0]
    if first[0] != "L" or first[2]:
        return None
    name, eq, value = first[1].partition("=")
    if not eq or not (NAME_RE.match(name) or (bash and _ELEMENT_NAME_RE.match(name))):
        return None
    rest = ((("L", value, False),) if value else ()) + word.parts[1:]
    if not rest:
        rest = (("L", "", True),)
    return name, Word(tuple(rest), word.raw[len(name) + 1 :], word.pos + len(name) + 1)


def _shift(node: Node, offset: int) -> Node:
    """Positions of a back-quoted script are relative to its own text; near enough."""
    node.pos += offset
    return node


def line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of ``pos`` in ``text``."""
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, column
