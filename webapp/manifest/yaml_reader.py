"""Read untrusted YAML text safely into documents that know where each value was written.

Two passes over the text. The first reads only the event stream and refuses hostile input
(size, depth, node count, document count, anchors and aliases, non-standard tags) before
any node tree exists. The second composes node trees with libyaml when available and builds
plain JSON-like data from them ourselves, so that every value's key and value marks are kept
by path and duplicate keys are caught.
"""

from __future__ import annotations

import bisect
import contextvars
import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

from webapp.manifest.errors import Finding, Path, ScenarioError, located_error

MAX_TEXT_BYTES = 256 * 1024
MAX_DEPTH = 64
MAX_NODES = 10_000
MAX_DOCUMENTS = 20
# No field of any object takes a number this long; longer ones are refused as written,
# before Python's int/str conversion limit (4300 digits) or float overflow can bite.
MAX_NUMBER_DIGITS = 100
_MAX_INT = 10**MAX_NUMBER_DIGITS

_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_YAML = "tag:yaml.org,2002:"
# Tags a learner may write explicitly (e.g. `!!str 80`): those of plain JSON data.
ALLOWED_TAGS = frozenset(
    _YAML + name for name in ("str", "int", "float", "bool", "null", "map", "seq")
)
# Scalars PyYAML would resolve to a Python value: everything else keeps its text.
_SCALAR_CONSTRUCTORS = {
    _YAML + name: yaml.constructor.SafeConstructor.yaml_constructors[_YAML + name]
    for name in ("int", "float", "bool", "null")
}
_SCALAR_BUILDER = yaml.constructor.SafeConstructor()


@dataclass(frozen=True)
class Mark:
    """A 1-based line and column."""

    line: int
    column: int

    @classmethod
    def of(cls, mark: Any) -> Mark:
        """Where a YAML mark is, in the lines the editor shows (see :class:`Lines`)."""
        lines = _LINES.get()
        index = getattr(mark, "index", None)
        if lines is None or index is None:
            return cls(mark.line + 1, mark.column + 1)
        return lines.mark(index)


class Lines:
    """Line starts of a text as the editor counts lines: ``\n``, ``\r\n`` and ``\r`` end
    a line. YAML also ends lines at U+0085, U+2028 and U+2029, so its own line numbers would
    point below the text the learner sees."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def mark(self, index: int) -> Mark:
        line = bisect.bisect_right(self.starts, index)
        return Mark(line, index - self.starts[line - 1] + 1)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINES: contextvars.ContextVar[Lines | None] = contextvars.ContextVar("yaml_lines", default=None)


@dataclass(frozen=True)
class Place:
    """Where the value at one path was written: its key (None for list items and the root)."""

    key: Mark | None
    value: Mark


@dataclass(frozen=True)
class Document:
    """One YAML document: its data and the place of every path in it."""

    index: int
    data: Any
    places: dict[Path, Place]
    start: Mark

    def locate(self, finding: Finding) -> dict[str, Any]:
        """The located error dict for a finding in this document."""
        mark = self.mark_of(finding.path, finding.point)
        return located_error(
            self.index, finding.path, mark.line, mark.column, finding.code, finding.params
        )

    def mark_of(self, path: Path, point: str = "value") -> Mark:
        place = self.places.get(path)
        if place is not None:
            return place.key if point == "key" and place.key else place.value
        for length in range(len(path) - 1, -1, -1):
            parent = self.places.get(path[:length])
            if parent is not None:
                return parent.key or parent.value
        return self.start


def _refuse(doc: int, mark: Any, code: str, **params: Any) -> dict[str, Any]:
    at = Mark.of(mark)
    return located_error(doc, (), at.line, at.column, code, params)


def _syntax_error(doc: int, error: yaml.YAMLError) -> dict[str, Any]:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    at = Mark.of(mark) if mark is not None else Mark(1, 1)
    return located_error(doc, (), at.line, at.column, "yaml_syntax", {"problem": problem})


def check_events(text: str, max_documents: int = MAX_DOCUMENTS) -> list[Mark]:
    """Refuse hostile YAML from its event stream alone (raise ScenarioError on any problem).

    Returns where each document starts.
    """
    errors: list[dict[str, Any]] = []
    starts: list[Mark] = []
    doc, depth, nodes = -1, 0, 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.DocumentStartEvent):
                doc += 1
                starts.append(Mark.of(event.start_mark))
                if doc >= max_documents:
                    errors.append(
                        _refuse(doc, event.start_mark, "too_many_documents", limit=max_documents)
                    )
                    break
            elif isinstance(event, yaml.AliasEvent):
                errors.append(_refuse(doc, event.start_mark, "yaml_alias", name=event.anchor))
            if isinstance(event, yaml.NodeEvent):
                nodes += 1
                if nodes > MAX_NODES:
                    errors.append(_refuse(doc, event.start_mark, "too_many_nodes", limit=MAX_NODES))
                    break
                if event.anchor is not None and not isinstance(event, yaml.AliasEvent):
                    errors.append(_refuse(doc, event.start_mark, "yaml_anchor", name=event.anchor))
                tag = getattr(event, "tag", None)
                if tag is not None and tag not in ALLOWED_TAGS:
                    errors.append(_refuse(doc, event.start_mark, "yaml_tag", tag=_short_tag(tag)))
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    errors.append(_refuse(doc, event.start_mark, "too_deep", limit=MAX_DEPTH))
                    break
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as error:
        errors.append(_syntax_error(max(doc, 0), error))
    if errors:
        raise ScenarioError(errors)
    return starts


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML) :] if tag.startswith(_YAML) else tag


def compose_documents(text: str) -> list[yaml.Node | None]:
    """Node trees of every document (None for an empty document); run check_events first."""
    loader = _Loader(text)
    try:
        trees: list[yaml.Node | None] = []
        while loader.check_node():
            trees.append(loader.get_node())
        return trees
    except yaml.YAMLError as error:
        raise ScenarioError([_syntax_error(0, error)]) from None
    finally:
        loader.dispose()


class _Builder:
    """Builds plain data from a node tree, recording places and duplicate or complex keys."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.places: dict[Path, Place] = {}
        self.errors: list[dict[str, Any]] = []

    def build(self, node: yaml.Node, path: Path, key: Mark | None) -> Any:
        self.places[path] = Place(key, Mark.of(node.start_mark))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i), None) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)  # aliases were refused before composing
        value, problem = _scalar(node)
        if problem is not None:
            code, params = problem
            self._error(path, Mark.of(node.start_mark), code, **params)
        return value

    def _mapping(self, node: yaml.MappingNode, path: Path) -> dict[str, Any]:
        data: dict[str, Any] = {}
        first_lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            key_mark = Mark.of(key_node.start_mark)
            if not isinstance(key_node, yaml.ScalarNode):
                self._error(path, key_mark, "complex_key")
                continue
            name = str(key_node.value)
            if _has_surrogate(name):
                self._error(path, key_mark, "lone_surrogate", **_surrogate_params(name))
                continue
            if name in first_lines:
                self._error(
                    (*path, name), key_mark, "duplicate_key", key=name, first_line=first_lines[name]
                )
            else:
                first_lines[name] = key_mark.line
            data[name] = self.build(value_node, (*path, name), key_mark)
        return data

    def _error(self, path: Path, mark: Mark, code: str, **params: Any) -> None:
        self.errors.append(located_error(self.index, path, mark.line, mark.column, code, params))


Problem = tuple[str, dict[str, Any]]
# Codes of values the reader refused (and read as null).
VALUE_PROBLEMS = frozenset({"lone_surrogate", "not_finite", "number_too_long", "tag_mismatch"})
_DIGITS = re.compile(r"[-+]?[0-9_]+")


def _scalar(node: yaml.ScalarNode) -> tuple[Any, Problem | None]:
    """The JSON value of a scalar, or None and why it cannot be one.

    Every value is checked once, here: strings are valid Unicode (a lone UTF-16 surrogate,
    which a double-quoted ``"\\ud800"`` escape can produce, cannot be encoded as UTF-8);
    numbers are finite (JSON, in which Kubernetes objects travel, has no NaN or infinity)
    and at most MAX_NUMBER_DIGITS digits long.
    """
    construct = _SCALAR_CONSTRUCTORS.get(node.tag)
    if construct is None:
        text = node.value  # strings, and timestamps kept as written, as JSON would carry them
        if _has_surrogate(text):
            return None, ("lone_surrogate", _surrogate_params(text))
        return text, None
    written = _abbreviated(str(node.value))
    try:
        value = construct(_SCALAR_BUILDER, node)
    except (ValueError, KeyError, TypeError, OverflowError, IndexError):
        if node.tag == _YAML + "int" and _DIGITS.fullmatch(str(node.value)):
            # more than 4300 decimal digits: Python refuses to convert them
            return None, ("number_too_long", {"value": written, "limit": MAX_NUMBER_DIGITS})
        # an explicit tag on a value it does not fit: `!!int abc`, `!!bool maybe`
        return None, ("tag_mismatch", {"value": written, "tag": _short_tag(node.tag)})
    if isinstance(value, float) and not math.isfinite(value):
        return None, ("not_finite", {"value": written})
    if isinstance(value, int) and not isinstance(value, bool) and not -_MAX_INT < value < _MAX_INT:
        return None, ("number_too_long", {"value": written, "limit": MAX_NUMBER_DIGITS})
    return value, None


def _abbreviated(text: str, keep: int = 24) -> str:
    """A long number as written, shortened for a message: ``123456…(5000 characters)``."""
    return text if len(text) <= keep else f"{text[:keep]}…({len(text)} characters)"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _surrogate_params(text: str) -> dict[str, Any]:
    found = _SURROGATE.search(text)
    return {"code_point": f"U+{ord(found.group()):04X}" if found else ""}


def _surrogate_error(text: str, index: int) -> dict[str, Any]:
    """The located error for a lone surrogate at ``index`` of the raw text."""
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return located_error(0, (), line, column, "lone_surrogate",
                         {"code_point": f"U+{ord(text[index]):04X}"})  # fmt: skip


def build_document(
    index: int, tree: yaml.Node | None, start: Mark
) -> tuple[Document, list[dict[str, Any]]]:
    """The data of one node tree, with the located errors about its keys."""
    builder = _Builder(index)
    data = None if tree is None else builder.build(tree, (), None)
    return Document(index, data, builder.places, start), builder.errors


def read_documents(
    text: Any, max_documents: int = MAX_DOCUMENTS
) -> tuple[list[Document], list[dict[str, Any]]]:
    """Every document of a YAML stream and the located errors about its keys.

    Raises ScenarioError at once for input that is not safe to read further.
    """
    if not isinstance(text, str):
        raise ScenarioError([located_error(0, (), 1, 1, "not_text", {})])
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as error:  # a lone surrogate: not valid Unicode text
        raise ScenarioError([_surrogate_error(text, error.start)]) from None
    if size > MAX_TEXT_BYTES:
        raise ScenarioError(
            [
                located_error(
                    0,
                    (),
                    1,
                    1,
                    "too_large",
                    {"size": -(-size // 1024), "limit": MAX_TEXT_BYTES // 1024},
                )
            ]
        )
    token = _LINES.set(Lines(text))
    try:
        return _read(text, max_documents)
    finally:
        _LINES.reset(token)


def _read(text: str, max_documents: int) -> tuple[list[Document], list[dict[str, Any]]]:
    starts = check_events(text, max_documents)
    trees = compose_documents(text)
    if not trees:
        raise ScenarioError([located_error(0, (), 1, 1, "empty", {})])
    documents: list[Document] = []
    errors: list[dict[str, Any]] = []
    for index, tree in enumerate(trees):
        start = starts[index] if index < len(starts) else Mark(1, 1)
        is_empty = tree is None or (
            tree.tag == _YAML + "null" and isinstance(tree, yaml.ScalarNode)
        )
        document, key_errors = build_document(index, None if is_empty else tree, start)
        documents.append(document)
        errors.extend(key_errors)
    return documents, errors
