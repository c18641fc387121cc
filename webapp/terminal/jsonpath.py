"""`kubectl get -o jsonpath=TEMPLATE`: client-go's JSONPath (k8s.io/client-go/util/jsonpath),
the parts a course uses, printed as kubectl prints them.

    render("{.items[*].metadata.name}", pod_list)      -> "web-1 web-2"
    render('{range .items[*]}{.metadata.name}{"\\n"}{end}', pod_list)

Text outside `{...}` is printed as it is; inside: `.field` and `['field']`, `[n]`, `[-n]`,
`[a:b]`, `[*]`, `..field` (every depth), filters `[?(@.path == "x")]` (==, !=, <, <=, >, >=,
or `@.path` alone: it exists), `{"literal"}`, `{range EXPR}...{end}` and `{.}`. A value is
printed as client-go prints it: a string as it is, a number or a bool as Go formats it, a map
or a list as JSON; the results of one expression are joined by a space. A missing key prints
nothing (kubectl's --allow-missing-template-keys, true by default).

An expression this module does not read raises JsonPathError with client-go's wording where
it has one (an unclosed action, an unterminated string). One template visits at most
MAX_STEPS values in all (nested `range`s included): past it, an error, whatever the object.
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

# Values one template may visit in all, over every expression and every `range` iteration
# (nested `range ..*` would otherwise be quadratic): past it, an error, nothing printed.
MAX_STEPS = 200_000


class JsonPathError(Exception):
    pass


def _tokens(template: str) -> list[tuple[str, str]]:
    """("text", s) and ("action", s) parts of `template`."""
    parts: list[tuple[str, str]] = []
    i = 0
    while i < len(template):
        start = template.find("{", i)
        if start < 0:
            parts.append(("text", template[i:]))
            break
        if start > i:
            parts.append(("text", template[i:start]))
        depth, j, quote = 0, start, None
        while j < len(template):
            c = template[j]
            if quote:
                if c == "\\":
                    j += 1
                elif c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(template):
            raise JsonPathError("unclosed action")
        parts.append(("action", template[start + 1 : j].strip()))
        i = j + 1
    return parts


def _go_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


_STEP = re.compile(
    r"""\.\.(?P<deep>[\w-]+|\*)"""
    r"""|\.(?P<field>[\w-]+|\*)"""
    r"""|\[(?P<bracket>(?:[^\]'"]|'[^']*'|"[^"]*")*)\]"""
)
_FILTER = re.compile(
    r"""^\?\(\s*@(?P<path>[^=!<>]*?)\s*(?:(?P<op>==|!=|<=|>=|<|>)\s*(?P<value>.+?))?\s*\)$"""
)


def _steps(expression: str) -> list[tuple[str, Any]]:
    if expression in (".", "@", "$"):
        return []
    text = expression[1:] if expression[:1] in "$@" else expression
    steps: list[tuple[str, Any]] = []
    i = 0
    while i < len(text):
        match = _STEP.match(text, i)
        if match is None:
            raise JsonPathError(f"unrecognized character in action: {text[i]!r}")
        if match["deep"] is not None:
            steps.append(("deep", match["deep"]))
        elif match["field"] is not None:
            steps.append(("field", match["field"]))
        else:
            steps.append(_bracket(match["bracket"].strip()))
        i = match.end()
    return steps


def _bracket(inner: str) -> tuple[str, Any]:
    if inner == "*":
        return ("field", "*")
    if inner[:1] in "'\"" and inner[-1:] == inner[:1]:
        return ("field", inner[1:-1])
    if inner.startswith("?"):
        found = _FILTER.match(inner)
        if found is None:
            raise JsonPathError(f"invalid filter: {inner}")
        return ("filter", (_steps(found["path"] or "."), found["op"], found["value"]))
    if ":" in inner:
        bits = inner.split(":")
        try:
            numbers = [int(b) if b.strip() else None for b in bits]
        except ValueError as error:
            raise JsonPathError(f"invalid array index {inner}") from error
        return ("slice", numbers)
    try:
        return ("index", int(inner))
    except ValueError as error:
        raise JsonPathError(f"invalid array index {inner}") from error


def _literal(text: str) -> Any:
    text = text.strip()
    if text[:1] in "'\"" and text[-1:] == text[:1]:
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        return text


def _compare(left: Any, op: str, right: Any) -> bool:
    try:
        if op == "==":
            return bool(left == right)
        if op == "!=":
            return bool(left != right)
        if isinstance(left, bool) or isinstance(right, bool):
            return False
        if op == "<":
            return bool(left < right)
        if op == "<=":
            return bool(left <= right)
        if op == ">":
            return bool(left > right)
        return bool(left >= right)
    except TypeError:
        return False


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_STEPS

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise JsonPathError(f"the template visits more than {MAX_STEPS} values")


def _walk(
    values: list[Any], steps: list[tuple[str, Any]], budget: _Budget | None = None
) -> list[Any]:
    budget = budget or _Budget()
    for kind, arg in steps:
        out: list[Any] = []
        for value in values:
            if kind == "field":
                if arg == "*":
                    if isinstance(value, dict):
                        out.extend(value[k] for k in sorted(value))
                    elif isinstance(value, list):
                        out.extend(value)
                elif isinstance(value, dict) and arg in value:
                    out.append(value[arg])
            elif kind == "deep":
                stack = deque([value])
                while stack:
                    node = stack.popleft()
                    budget.spend(1)
                    if isinstance(node, dict):
                        if arg == "*":
                            out.extend(node[k] for k in sorted(node))
                        elif arg in node:
                            out.append(node[arg])
                        stack.extend(node[k] for k in sorted(node))
                    elif isinstance(node, list):
                        stack.extend(node)
            elif kind == "index" and isinstance(value, list):
                index = arg + len(value) if arg < 0 else arg
                if 0 <= index < len(value):
                    out.append(value[index])
                else:
                    raise JsonPathError(
                        f"array index out of bounds: index {arg}, length {len(value)}"
                    )
            elif kind == "slice" and isinstance(value, list):
                if len(arg) > 3 or arg[2:] == [0]:
                    raise JsonPathError("invalid array slice")
                out.extend(value[slice(*arg)])
            elif kind == "filter" and isinstance(value, list):
                path, op, literal = arg
                for item in value:
                    found = _walk([item], path, budget)
                    if op is None:
                        if found:
                            out.append(item)
                    elif found and _compare(found[0], op, _literal(literal)):
                        out.append(item)
        budget.spend(len(out) + 1)
        values = out
    return values


def render(template: str, data: Any) -> str:
    """The text kubectl prints for `-o jsonpath=template` over `data` (no newline added)."""
    parts = _tokens(template)
    out: list[str] = []
    budget = _Budget()

    def run(parts: list[tuple[str, str]], here: Any) -> None:
        i = 0
        while i < len(parts):
            kind, text = parts[i]
            if kind == "text":
                out.append(text)
            elif text.startswith("range "):
                depth, j = 1, i + 1
                while j < len(parts):
                    if parts[j][0] == "action" and parts[j][1].startswith("range "):
                        depth += 1
                    elif parts[j] == ("action", "end"):
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                if j >= len(parts):
                    raise JsonPathError("not in range, nothing to end")
                for item in _walk([here], _steps(text[len("range ") :].strip()), budget):
                    budget.spend(1)
                    run(parts[i + 1 : j], item)
                i = j
            elif text == "end":
                raise JsonPathError("not in range, nothing to end")
            elif text[:1] in "'\"":
                out.append(json.loads(text) if text[:1] == '"' else text[1:-1])
            else:
                found = _walk([here], _steps(text), budget)
                out.append(" ".join(_go_text(v) for v in found))
            i += 1

    run(parts, data)
    return "".join(out)
