"""Label selectors as ``k8s.io/apimachinery/pkg/labels`` parses and matches them.

``parse(text)`` is ``labels.Parse``: the same lexer (``Lexer``), the same recursive descent
(``Parser``), the same requirement rules (``new_requirement`` is ``NewRequirement``) and the
same error texts, so an invalid ``?labelSelector=`` is refused with the API server's words.
``Selector.matches(labels)`` is ``internalSelector.Matches``; ``str(selector)`` is its
``String()`` (requirements sorted by key, values sorted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webapp.engine.store.errors import aggregate, field_error_text, invalid_value

# selection.Operator values
IN, NOT_IN = "in", "notin"
EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "=", "==", "!="
GREATER_THAN, LESS_THAN = "gt", "lt"
EXISTS, DOES_NOT_EXIST = "exists", "!"
BINARY_OPERATORS = [IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN]
UNARY_OPERATORS = [EXISTS, DOES_NOT_EXIST]

# Token
(ERROR, END_OF_STRING, CLOSED_PAR, COMMA, DOES_NOT_EXIST_TOKEN, DOUBLE_EQUALS_TOKEN,
 EQUALS_TOKEN, GREATER_THAN_TOKEN, IDENTIFIER, IN_TOKEN, LESS_THAN_TOKEN, NOT_EQUALS_TOKEN,
 NOT_IN_TOKEN, OPEN_PAR) = range(14)  # fmt: skip

STRING_TO_TOKEN = {
    ")": CLOSED_PAR, ",": COMMA, "!": DOES_NOT_EXIST_TOKEN, "==": DOUBLE_EQUALS_TOKEN,
    "=": EQUALS_TOKEN, ">": GREATER_THAN_TOKEN, "in": IN_TOKEN, "<": LESS_THAN_TOKEN,
    "!=": NOT_EQUALS_TOKEN, "notin": NOT_IN_TOKEN, "(": OPEN_PAR,
}  # fmt: skip

_WHITESPACE = " \t\r\n"
_SPECIAL = "=!(),><"

# k8s.io/apimachinery/pkg/api/validate/content
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                  "end with an alphanumeric character")  # fmt: skip
_LABEL_KEY_RE = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
                    "'-', '_' or '.', and must start and end with an alphanumeric character")  # fmt: skip
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character")  # fmt: skip


class SelectorError(ValueError):
    """A selector the API server would refuse; ``str()`` is its message."""


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``content.RegexError``."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    msg += " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += f"'{example}', "
    return msg + f"regex used for validation is '{fmt}')"


def _full_match(pattern: re.Pattern, value: str) -> bool:
    # Go's $ does not match before a trailing newline, Python's does: fullmatch instead
    return pattern.fullmatch(value) is not None


def is_dns1123_subdomain(value: str) -> list[str]:
    """``content.IsDNS1123Subdomain``."""
    errs = []
    if len(value.encode()) > 253:
        errs.append("must be no more than 253 bytes")
    if not _full_match(_DNS1123_SUBDOMAIN_RE, value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_label_key(value: str) -> list[str]:
    """``content.IsLabelKey`` (a qualified name: an optional DNS subdomain prefix and ``/``)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _full_match(_LABEL_KEY_RE, name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName",
                                               "my.name", "123-abc"))  # fmt: skip
    return errs


def is_label_value(value: str) -> list[str]:
    """``validation.IsValidLabelValue``."""
    errs = []
    if len(value.encode()) > 63:
        errs.append("must be no more than 63 bytes")
    if not _full_match(_LABEL_VALUE_RE, value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


_GO_INT = re.compile(r"[+-]?[0-9]+")


def go_parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: None where Go returns an error."""
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _field(path: str | None) -> str:
    return "<nil>" if path is None else path


def validate_label_key(key: str, path: str | None) -> dict | None:
    errs = is_label_key(key)
    return invalid_value(_field(path), key, "; ".join(errs)) if errs else None


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...]

    def matches(self, labels: dict) -> bool:
        """``Requirement.Matches``."""
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op in (GREATER_THAN, LESS_THAN):
            if self.key not in labels or len(self.values) != 1:
                return False
            have, want = go_parse_int64(str(labels[self.key])), go_parse_int64(self.values[0])
            if have is None or want is None:
                return False
            return have > want if op == GREATER_THAN else have < want
        return False

    def __str__(self) -> str:
        out = ("!" if self.operator == DOES_NOT_EXIST else "") + self.key
        op = self.operator
        if op in (EXISTS, DOES_NOT_EXIST):
            return out
        out += {EQUALS: "=", DOUBLE_EQUALS: "==", NOT_EQUALS: "!=", IN: " in ",
                NOT_IN: " notin ", GREATER_THAN: ">", LESS_THAN: "<"}[op]  # fmt: skip
        values = ",".join(sorted(self.values)) if len(self.values) != 1 else self.values[0]
        return out + (f"({values})" if op in (IN, NOT_IN) else values)


def new_requirement(key: str, op: str, values: list[str], path: str | None = None) -> Requirement:
    """``NewRequirement``: SelectorError with the aggregated field errors when invalid."""
    errs: list[dict] = []
    key_path = "key" if path is None else f"{path}.key"
    if (e := validate_label_key(key, key_path)) is not None:
        errs.append(e)
    value_path = "values" if path is None else f"{path}.values"
    if op in (IN, NOT_IN):
        if not values:
            errs.append(invalid_value(value_path, values,
                                      "for 'in', 'notin' operators, values set can't be empty"))  # fmt: skip
    elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(values) != 1:
            errs.append(invalid_value(value_path, values,
                                      "exact-match compatibility requires one single value"))  # fmt: skip
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            errs.append(invalid_value(value_path, values,
                                      "values set must be empty for exists and does not exist"))  # fmt: skip
    elif op in (GREATER_THAN, LESS_THAN):
        if len(values) != 1:
            errs.append(invalid_value(value_path, values,
                                      "for 'Gt', 'Lt' operators, exactly one value is required"))  # fmt: skip
        for i, value in enumerate(values):
            if go_parse_int64(value) is None:
                errs.append(invalid_value(f"{value_path}[{i}]", value,
                                          "for 'Gt', 'Lt' operators, the value must be an integer"))  # fmt: skip
    else:
        supported = ", ".join(f'"{o}"' for o in BINARY_OPERATORS + UNARY_OPERATORS)
        errs.append({"type": "FieldValueNotSupported", "field": "operator",
                     "body": f'Unsupported value: "{op}": supported values: {supported}'})  # fmt: skip
    for i, value in enumerate(values):
        if value_errs := is_label_value(value):
            errs.append(invalid_value(f"{value_path}[{i}][{key}]", value, "; ".join(value_errs)))
    if errs:
        raise SelectorError(aggregate([field_error_text(e) for e in errs]))
    return Requirement(key, op, tuple(values))


class Lexer:
    """``labels.Lexer``: longest special-symbol tokens, identifiers up to a special symbol or
    whitespace, ``in``/``notin`` keywords."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.pos = 0

    def read(self) -> str:
        if self.pos < len(self.s):
            ch = self.s[self.pos]
            self.pos += 1
            return ch
        return ""

    def unread(self) -> None:
        self.pos -= 1

    def scan_id_or_keyword(self) -> tuple[int, str]:
        buffer = []
        while True:
            ch = self.read()
            if ch == "":
                break
            if ch in _SPECIAL or ch in _WHITESPACE:
                self.unread()
                break
            buffer.append(ch)
        text = "".join(buffer)
        return STRING_TO_TOKEN.get(text, IDENTIFIER), text

    def scan_special_symbol(self) -> tuple[int, str]:
        last: tuple[int, str] | None = None
        buffer = ""
        while True:
            ch = self.read()
            if ch == "":
                break
            if ch in _SPECIAL:
                buffer += ch
                token = STRING_TO_TOKEN.get(buffer)
                if token is not None:
                    last = (token, buffer)
                elif last is not None:
                    self.unread()
                    break
            else:
                self.unread()
                break
        if last is None:
            return ERROR, f"error expected: keyword found '{buffer}'"
        return last

    def lex(self) -> tuple[int, str]:
        ch = self.read()
        while ch != "" and ch in _WHITESPACE:
            ch = self.read()
        if ch == "":
            return END_OF_STRING, ""
        self.unread()
        if ch in _SPECIAL:
            return self.scan_special_symbol()
        return self.scan_id_or_keyword()


KEY_AND_OPERATOR, VALUES = 0, 1


class Parser:
    """``labels.Parser``."""

    def __init__(self, text: str, path: str | None = None) -> None:
        self.lexer = Lexer(text)
        self.items: list[tuple[int, str]] = []
        self.position = 0
        self.path = path

    def scan(self) -> None:
        while True:
            token, literal = self.lexer.lex()
            self.items.append((token, literal))
            if token == END_OF_STRING:
                break

    def lookahead(self, context: int) -> tuple[int, str]:
        token, literal = self.items[self.position]
        if context == VALUES and token in (IN_TOKEN, NOT_IN_TOKEN):
            token = IDENTIFIER
        return token, literal

    def consume(self, context: int) -> tuple[int, str]:
        self.position += 1
        token, literal = self.items[self.position - 1]
        if context == VALUES and token in (IN_TOKEN, NOT_IN_TOKEN):
            token = IDENTIFIER
        return token, literal

    def parse(self) -> list[Requirement]:
        self.scan()
        requirements: list[Requirement] = []
        while True:
            token, literal = self.lookahead(VALUES)
            if token in (IDENTIFIER, DOES_NOT_EXIST_TOKEN):
                try:
                    requirement = self.parse_requirement()
                except SelectorError as error:
                    raise SelectorError(f"unable to parse requirement: {error}") from None
                requirements.append(requirement)
                t, lit = self.consume(VALUES)
                if t == END_OF_STRING:
                    return requirements
                if t == COMMA:
                    t2, lit2 = self.lookahead(VALUES)
                    if t2 not in (IDENTIFIER, DOES_NOT_EXIST_TOKEN):
                        raise SelectorError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            elif token == END_OF_STRING:
                return requirements
            else:
                raise SelectorError(
                    f"found '{literal}', expected: !, identifier, or 'end of string'"
                )

    def parse_requirement(self) -> Requirement:
        key, operator = self.parse_key_and_infer_operator()
        if operator in (EXISTS, DOES_NOT_EXIST):
            return new_requirement(key, operator, [], self.path)
        operator = self.parse_operator()
        exact = operator not in (IN, NOT_IN)
        values = self.parse_exact_value() if exact else self.parse_values()
        return new_requirement(key, operator, sorted(values), self.path)

    def parse_key_and_infer_operator(self) -> tuple[str, str]:
        operator = ""
        token, literal = self.consume(VALUES)
        if token == DOES_NOT_EXIST_TOKEN:
            operator = DOES_NOT_EXIST
            token, literal = self.consume(VALUES)
        if token != IDENTIFIER:
            raise SelectorError(f"found '{literal}', expected: identifier")
        if (error := validate_label_key(literal, self.path)) is not None:
            raise SelectorError(field_error_text(error))
        t, _ = self.lookahead(VALUES)
        if t in (END_OF_STRING, COMMA) and operator != DOES_NOT_EXIST:
            operator = EXISTS
        return literal, operator

    def parse_operator(self) -> str:
        token, literal = self.consume(KEY_AND_OPERATOR)
        operators = {IN_TOKEN: IN, EQUALS_TOKEN: EQUALS, DOUBLE_EQUALS_TOKEN: DOUBLE_EQUALS,
                     GREATER_THAN_TOKEN: GREATER_THAN, LESS_THAN_TOKEN: LESS_THAN,
                     NOT_IN_TOKEN: NOT_IN, NOT_EQUALS_TOKEN: NOT_EQUALS}  # fmt: skip
        if token not in operators:
            raise SelectorError(f"found '{literal}', expected: {', '.join(BINARY_OPERATORS)}")
        return operators[token]

    def parse_values(self) -> set[str]:
        token, literal = self.consume(VALUES)
        if token != OPEN_PAR:
            raise SelectorError(f"found '{literal}' expected: '('")
        token, literal = self.lookahead(VALUES)
        if token in (IDENTIFIER, COMMA):
            values = self.parse_identifiers_list()
            if self.consume(VALUES)[0] != CLOSED_PAR:
                raise SelectorError(f"found '{literal}', expected: ')'")
            return values
        if token == CLOSED_PAR:
            self.consume(VALUES)
            return {""}
        raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            token, literal = self.consume(VALUES)
            if token == IDENTIFIER:
                values.add(literal)
                t2, lit2 = self.lookahead(VALUES)
                if t2 == COMMA:
                    continue
                if t2 == CLOSED_PAR:
                    return values
                raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            if token == COMMA:
                if not values:
                    values.add("")
                t2, _ = self.lookahead(VALUES)
                if t2 == CLOSED_PAR:
                    values.add("")
                    return values
                if t2 == COMMA:
                    values.add("")
            else:
                raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        token, _ = self.lookahead(VALUES)
        if token in (END_OF_STRING, COMMA):
            return {""}
        token, literal = self.consume(VALUES)
        if token == IDENTIFIER:
            return {literal}
        raise SelectorError(f"found '{literal}', expected: identifier")


class Selector:
    """``internalSelector``: requirements sorted by key, all of which must hold."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: list[Requirement] | tuple[Requirement, ...] = ()) -> None:
        self.requirements = tuple(sorted(requirements, key=lambda r: r.key))

    def matches(self, labels: dict | None) -> bool:
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)

    def empty(self) -> bool:
        return not self.requirements

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


def parse(text: str) -> Selector:
    """``labels.Parse``: SelectorError with the API server's message when invalid."""
    return Selector(Parser(text).parse())


def selector_from_set(labels: dict) -> Selector:
    """``SelectorFromSet``: every label must equal its value (no validation)."""
    return Selector([Requirement(k, EQUALS, (v,)) for k, v in labels.items()])
