"""Field selectors as ``k8s.io/apimachinery/pkg/fields`` parses them, with the fields each
kind lets you select by (its ``AddFieldLabelConversionFunc`` and ``GetAttrs``).

``parse(text, kind)`` is ``fields.ParseSelector`` followed by the kind's field label
conversion, as the API server's list and watch handlers do: an unknown field is refused with
that kind's own words (``field label not supported: spec.foo`` for Pods,
``"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"`` for
kinds without a conversion of their own).
"""

from __future__ import annotations

from collections.abc import Callable

from webapp.engine.store.labels import SelectorError

NOT_EQUAL, DOUBLE_EQUAL, EQUAL = "!=", "==", "="
TERM_OPERATORS = (NOT_EQUAL, DOUBLE_EQUAL, EQUAL)


def split_terms(selector: str) -> list[str]:
    """``splitTerms``: comma-separated terms; a backslash-escaped comma is data."""
    if not selector:
        return []
    terms: list[str] = []
    start = 0
    in_slash = False
    for i, ch in enumerate(selector):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(selector[start:i])
            start = i + 1
    terms.append(selector[start:])
    return terms


def split_term(term: str) -> tuple[str, str, str] | None:
    """``splitTerm``: the first operator found splits the term (no escaping on the left)."""
    for i in range(len(term)):
        for op in TERM_OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


def escape_value(text: str) -> str:
    """``EscapeValue``."""
    return text.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(text: str) -> str:
    """``UnescapeValue``: ``\\\\``, ``\\,`` and ``\\=`` stand for themselves."""
    if not any(ch in text for ch in "\\,="):
        return text
    out = []
    in_slash = False
    for ch in text:
        if in_slash:
            if ch in "\\,=":
                out.append(ch)
            else:
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            in_slash = False
            continue
        if ch == "\\":
            in_slash = True
        elif ch in ",=":
            raise SelectorError(f"invalid field selector: unescaped character in value: {ch}")
        else:
            out.append(ch)
    if in_slash:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _meta(obj: dict, key: str) -> str:
    return str((obj.get("metadata") or {}).get(key) or "")


def _path(*keys: str) -> Callable[[dict], str]:
    def get(obj: dict) -> str:
        value: object = obj
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, bool):
            return "true" if value else "false"
        return "" if value is None else str(value)

    return get


def _pod_ip(obj: dict) -> str:
    status = obj.get("status") or {}
    ips = status.get("podIPs") or []
    if ips:
        return str(ips[0].get("ip", ""))
    return str(status.get("podIP") or "")


def _bool_path(*keys: str) -> Callable[[dict], str]:
    inner = _path(*keys)
    return lambda obj: inner(obj) or "false"


_METADATA = {
    "metadata.name": lambda o: _meta(o, "name"),
    "metadata.namespace": lambda o: _meta(o, "namespace"),
}

# kind -> (field -> its value in an object); kinds not listed take the default conversion
SELECTABLE: dict[str, dict[str, Callable[[dict], str]]] = {
    "Pod": {
        **_METADATA,
        "spec.nodeName": _path("spec", "nodeName"),
        "spec.restartPolicy": _path("spec", "restartPolicy"),
        "spec.schedulerName": _path("spec", "schedulerName"),
        "spec.serviceAccountName": _path("spec", "serviceAccountName"),
        "spec.hostNetwork": _bool_path("spec", "hostNetwork"),
        "status.phase": _path("status", "phase"),
        "status.podIP": _pod_ip,
        "status.nominatedNodeName": _path("status", "nominatedNodeName"),
    },
    "Node": {
        "metadata.name": lambda o: _meta(o, "name"),
        "spec.unschedulable": _bool_path("spec", "unschedulable"),
    },
    "Event": {
        **_METADATA,
        "involvedObject.kind": _path("involvedObject", "kind"),
        "involvedObject.namespace": _path("involvedObject", "namespace"),
        "involvedObject.name": _path("involvedObject", "name"),
        "involvedObject.uid": _path("involvedObject", "uid"),
        "involvedObject.apiVersion": _path("involvedObject", "apiVersion"),
        "involvedObject.resourceVersion": _path("involvedObject", "resourceVersion"),
        "involvedObject.fieldPath": _path("involvedObject", "fieldPath"),
        "reason": _path("reason"),
        "reportingComponent": _path("reportingComponent"),
        "source": _path("source", "component"),
        "type": _path("type"),
    },
    "Namespace": {
        "metadata.name": lambda o: _meta(o, "name"),
        "status.phase": _path("status", "phase"),
    },
    "Secret": {**_METADATA, "type": _path("type")},
    "ReplicaSet": {**_METADATA, "status.replicas": lambda o: str((o.get("status") or {}).get("replicas") or 0)},
    "Job": {**_METADATA, "status.successful": lambda o: str((o.get("status") or {}).get("succeeded") or 0)},
}  # fmt: skip


def selectable_fields(kind: str) -> dict[str, Callable[[dict], str]]:
    return SELECTABLE.get(kind, _METADATA)


def convert_field_label(kind: str, label: str) -> None:
    """The kind's field label conversion: SelectorError for a field it does not support."""
    if label in selectable_fields(kind):
        return
    if kind in SELECTABLE:
        raise SelectorError(f"field label not supported: {label}")
    raise SelectorError(
        f'"{label}" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )


class FieldSelector:
    """Terms ``(field, operator, value)``; all must hold."""

    __slots__ = ("kind", "terms")

    def __init__(self, kind: str, terms: list[tuple[str, str, str]]) -> None:
        self.kind = kind
        self.terms = tuple(terms)

    def matches(self, obj: dict) -> bool:
        fields = selectable_fields(self.kind)
        for field, op, value in self.terms:
            have = fields[field](obj)
            if (have == value) != (op != NOT_EQUAL):
                return False
        return True

    def matches_set(self, values: dict) -> bool:
        """``Selector.Matches(fields.Set)``: a field missing from ``values`` is ``""``."""
        for field, op, value in self.terms:
            if (values.get(field, "") == value) != (op != NOT_EQUAL):
                return False
        return True

    def empty(self) -> bool:
        return not self.terms

    def requires_exact_match(self, field: str) -> str | None:
        for name, op, value in self.terms:
            if name == field and op != NOT_EQUAL:
                return value
        return None

    def __str__(self) -> str:
        return ",".join(
            f"{f}{'!=' if op == NOT_EQUAL else '='}{escape_value(v)}" for f, op, v in self.terms
        )


def parse_terms(selector: str) -> list[tuple[str, str, str]]:
    """``fields.ParseSelector``: terms sorted as Go sorts the split parts."""
    terms = []
    for part in sorted(split_terms(selector)):
        if part == "":
            continue
        split = split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{selector}'; can't understand '{part}'")
        lhs, op, rhs = split
        terms.append((lhs, NOT_EQUAL if op == NOT_EQUAL else EQUAL, unescape_value(rhs)))
    return terms


def parse_selector(selector: str) -> FieldSelector:
    """``fields.ParseSelector`` without a kind's conversion (fields matched by name)."""
    return FieldSelector("", parse_terms(selector))


def parse(selector: str, kind: str) -> FieldSelector:
    """Parse, then check every field against the kind's conversion (SelectorError)."""
    terms = parse_terms(selector)
    for field, _, _ in terms:
        convert_field_label(kind, field)
    return FieldSelector(kind, terms)
