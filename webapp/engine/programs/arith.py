"""Shell arithmetic (``$((…))``, ``expr``): integers, variables, C operators, assignment."""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|\+\+|--|[-+*/%()<>!~&|^=?:]))"
)
MAX_TOKENS = 1000


class ArithError(Exception):
    pass


def evaluate(text: str, variables: dict) -> int:
    tokens = _tokens(text)
    parser = _Parser(tokens, variables)
    value = parser.assignment()
    if parser.i != len(tokens):
        raise ArithError(f'syntax error: operand expected (error token is "{tokens[parser.i]}")')
    return value


def _tokens(text: str) -> list[str]:
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ArithError(
                f'syntax error: invalid arithmetic operator (error token is "{text[pos:]}")'
            )
        tokens.append(match.group(match.lastindex or 0).strip())
        pos = match.end()
        if len(tokens) > MAX_TOKENS:
            raise ArithError("expression too long")
    return [t for t in tokens if t]


_BINARY = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", "<=", ">", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
]


class _Parser:
    def __init__(self, tokens: list[str], variables: dict) -> None:
        self.tokens = tokens
        self.i = 0
        self.vars = variables
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ArithError("syntax error: operand expected")
        self.i += 1
        return token

    def assignment(self) -> int:
        token = self.peek()
        if (
            token is not None and re.fullmatch(r"[A-Za-z_]\w*", token)
            and self.i + 1 < len(self.tokens)
            and self.tokens[self.i + 1] in ("=", "+=", "-=", "*=", "/=", "%=")
        ):  # fmt: skip
            name = self.take()
            op = self.take()
            value = self.assignment()
            if op != "=":
                value = _apply(op[0], self._var(name), value)
            self.vars[name] = str(value)
            return value
        return self.ternary()

    def ternary(self) -> int:
        condition = self.binary(0)
        if self.peek() == "?":
            self.take()
            yes = self.assignment()
            if self.take() != ":":
                raise ArithError("syntax error: `:' expected for conditional expression")
            no = self.assignment()
            return yes if condition else no
        return condition

    def binary(self, level: int) -> int:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = self.take()
            right = self.binary(level + 1)
            left = _apply(op, left, right)
        return left

    def unary(self) -> int:
        token = self.peek()
        self.depth += 1
        if self.depth > 200:
            raise ArithError("expression nested too deeply")
        try:
            if token in ("-", "+", "!", "~"):
                self.take()
                value = self.unary()
                return {"-": -value, "+": value, "!": int(not value), "~": ~value}[token]
            if token in ("++", "--"):
                self.take()
                name = self.take()
                value = self._var(name) + (1 if token == "++" else -1)
                self.vars[name] = str(value)
                return value
            return self.power()
        finally:
            self.depth -= 1

    def power(self) -> int:
        base = self.primary()
        if self.peek() == "**":
            self.take()
            exponent = self.unary()
            if exponent < 0 or exponent > 1000:
                raise ArithError("exponent out of range")
            return _wrap(base**exponent)
        return base

    def primary(self) -> int:
        token = self.take()
        if token == "(":
            value = self.assignment()
            if self.take() != ")":
                raise ArithError("syntax error: missing `)'")
            return value
        if token.isdigit():
            return _wrap(int(token))
        if re.fullmatch(r"[A-Za-z_]\w*", token):
            value = self._var(token)
            if self.peek() in ("++", "--"):
                op = self.take()
                self.vars[token] = str(value + (1 if op == "++" else -1))
            return value
        raise ArithError(f'syntax error: operand expected (error token is "{token}")')

    def _var(self, name: str) -> int:
        raw = str(self.vars.get(name, "") or "0").strip()
        try:
            return int(raw)
        except ValueError:
            if re.fullmatch(r"[A-Za-z_]\w*", raw) and raw != name:
                return self._var(raw)
            raise ArithError(f"{raw}: syntax error") from None


def _wrap(value: int) -> int:
    """Shells compute in intmax_t: 64-bit two's complement."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _apply(op: str, a: int, b: int) -> int:
    return _wrap(_raw(op, a, b))


def _raw(op: str, a: int, b: int) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise ArithError("division by zero")
        quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return quotient if op == "/" else a - b * quotient
    if op in ("<<", ">>"):
        if b < 0:
            raise ArithError("negative shift count")
        return a << min(b, 64) if op == "<<" else a >> min(b, 64)
    table = {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "<": lambda: a < b,
        "<=": lambda: a <= b,
        ">": lambda: a > b,
        ">=": lambda: a >= b,
        "==": lambda: a == b,
        "!=": lambda: a != b,
        "&&": lambda: bool(a) and bool(b),
        "||": lambda: bool(a) or bool(b),
        "&": lambda: a & b,
        "|": lambda: a | b,
        "^": lambda: a ^ b,
    }
    return int(table[op]())
