"""``python3 -c PROGRAM`` for the small programs of the documentation's Job pages.

The Job examples (controllers/job-backoff-limit-per-index-example.yaml,
job-backoff-limit-per-index-failindex.yaml, job-success-policy-example.yaml) run
programs such as::

    import os, sys
    index = int(os.environ.get("JOB_COMPLETION_INDEX"))
    if index == 0:
      sys.exit(1)

:func:`compile_program` reads the program with :mod:`ast` (parsing only, nothing of it is
executed by the host) and accepts a small subset: ``import os, sys``, assignments to names,
``if/elif/else``, ``print(...)``, ``sys.exit(...)``, and expressions of constants, names,
``os.environ.get`` / ``os.getenv`` / ``os.environ[...]``, ``int()`` / ``str()``,
arithmetic and comparisons. :func:`run` then evaluates it against the container's
environment: stdout (printed when the process ends: Python buffers a pipe), stderr and the
exit code, as CPython gives them. Anything else is None: the program is not modelled and
the container says so (a located warning), as for any other Python program.
"""

from __future__ import annotations

import ast
from functools import lru_cache

MAX_PROGRAM_CHARS = 4096
MAX_STEPS = 10_000
MAX_TEXT = 64 * 1024
RUN_MS = 60  # interpreter start-up and the run (an estimate)
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Mod: lambda a, b: a % b,
           ast.FloorDiv: lambda a, b: a // b}  # fmt: skip
_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}  # fmt: skip


class NotModelled(Exception):
    """The program uses something outside the subset (``lineno`` says where)."""

    def __init__(self, lineno: int) -> None:
        super().__init__(lineno)
        self.lineno = lineno


class _Exit(Exception):
    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.message = message


@lru_cache(maxsize=64)
def compile_program(text: str) -> ast.Module | int | None:
    """The program's tree when it is inside the subset; else the line of the first thing
    that is not (an int), or None when it does not parse at all."""
    if len(text) > MAX_PROGRAM_CHARS:
        return 1
    try:
        tree = ast.parse(text, "<string>")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        for statement in tree.body:
            _check(statement)
    except NotModelled as error:
        return error.lineno
    return tree


def _check(node: ast.AST) -> None:
    line = getattr(node, "lineno", 1)
    if isinstance(node, ast.Import):
        if any(alias.name not in ("os", "sys") or alias.asname for alias in node.names):
            raise NotModelled(line)
        return
    if isinstance(node, ast.Assign):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            raise NotModelled(line)
        _check_expr(node.value, line)
        return
    if isinstance(node, ast.If):
        _check_expr(node.test, line)
        for child in [*node.body, *node.orelse]:
            _check(child)
        return
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        _check_expr(node.value, line)
        return
    if isinstance(node, ast.Pass):
        return
    raise NotModelled(line)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return ""


CALLS = frozenset(("print", "int", "str", "sys.exit", "os.environ.get", "os.getenv"))


def _check_expr(node: ast.AST, line: int) -> None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, bool, type(None))):
        return
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.Call):
        if _dotted(node.func) not in CALLS or node.keywords:
            raise NotModelled(line)
        for arg in node.args:
            _check_expr(arg, line)
        return
    if isinstance(node, ast.Subscript) and _dotted(node.value) == "os.environ":
        _check_expr(node.slice, line)
        return
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        _check_expr(node.left, line)
        _check_expr(node.right, line)
        return
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        for child in [node.left, *node.comparators]:
            _check_expr(child, line)
        return
    if isinstance(node, ast.BoolOp):
        for child in node.values:
            _check_expr(child, line)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        _check_expr(node.operand, line)
        return
    raise NotModelled(line)


def run(tree: ast.Module, env: dict[str, str]) -> tuple[int, str, str] | None:
    """(exit code, stdout, stderr) of the program; None when a value falls outside what
    the model computes (an exception, a huge number): then it is not modelled."""
    state = {"vars": {}, "out": [], "steps": 0, "env": env}
    try:
        _block(tree.body, state)
    except _Exit as done:
        return done.code, "".join(state["out"]), done.message
    except (NotModelled, TypeError, ValueError, ZeroDivisionError, OverflowError, KeyError):
        return None
    return 0, "".join(state["out"]), ""


def _block(statements: list, state: dict) -> None:
    for node in statements:
        state["steps"] += 1
        if state["steps"] > MAX_STEPS:
            raise NotModelled(node.lineno)
        if isinstance(node, ast.Import | ast.Pass):
            continue
        if isinstance(node, ast.Assign):
            state["vars"][node.targets[0].id] = _eval(node.value, state)
        elif isinstance(node, ast.If):
            _block(node.body if _eval(node.test, state) else node.orelse, state)
        else:
            _eval(node.value, state)


def _text(value: object) -> str:
    return str(value)


def _eval(node: ast.AST, state: dict) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in state["vars"]:
            raise NotModelled(getattr(node, "lineno", 1))  # NameError: not modelled
        return state["vars"][node.id]
    if isinstance(node, ast.Subscript):
        return state["env"][_eval(node.slice, state)]
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        args = [_eval(arg, state) for arg in node.args]
        if name == "print":
            text = " ".join(_text(a) for a in args) + "\n"
            if sum(len(x) for x in state["out"]) + len(text) > MAX_TEXT:
                raise NotModelled(node.lineno)
            state["out"].append(text)
            return None
        if name == "int":
            if len(args) != 1 or isinstance(args[0], bool) or not isinstance(args[0], (int, str)):
                raise TypeError
            return int(args[0])
        if name == "str":
            return _text(args[0]) if args else ""
        if name in ("os.environ.get", "os.getenv"):
            if not 1 <= len(args) <= 2:
                raise TypeError
            return state["env"].get(args[0], args[1] if len(args) == 2 else None)
        # sys.exit: an int is the status, None is 0, anything else is printed on stderr
        # and the status is 1 (CPython's handling of SystemExit)
        value = args[0] if args else None
        if value is None:
            raise _Exit(0)
        if isinstance(value, int) and not isinstance(value, bool):
            raise _Exit(value & 0xFF)
        raise _Exit(1, _text(value) + "\n")
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, state), _eval(node.right, state)
        if (
            isinstance(left, int)
            and isinstance(right, int)
            and max(abs(left), abs(right)) > 1 << 64
        ):
            raise OverflowError
        if (isinstance(left, str) or isinstance(right, str)) and not (
            isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str)
        ):
            raise TypeError
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, state)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, state)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        value: object = None
        for child in node.values:
            value = _eval(child, state)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, state)
        return (not value) if isinstance(node.op, ast.Not) else -value  # type: ignore[operator]
    raise NotModelled(getattr(node, "lineno", 1))


def program_of(args: list[str] | tuple[str, ...]) -> str | None:
    """The ``-c`` program of python's arguments (``-u`` and ``-B`` may come first)."""
    args = list(args)
    while args and args[0] in ("-u", "-B", "-E", "-s", "-I"):
        args = args[1:]
    if len(args) >= 2 and args[0] == "-c":
        return args[1]
    return None


def modelled(args: list[str] | tuple[str, ...]) -> bool:
    text = program_of(args)
    return text is not None and isinstance(compile_program(text), ast.Module)
