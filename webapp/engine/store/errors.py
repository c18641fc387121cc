"""The API server's errors, as ``k8s.io/apimachinery/pkg/api/errors`` words them.

Each error carries what a ``metav1.Status`` carries (``code``, ``reason``, ``message``,
``details``); :meth:`ApiError.status` is that Status object as the API server writes it.
The constructors are named after their Go counterparts (``NewNotFound``, ``NewConflict``,
...), with the same wording, so that every layer above (the engine's actions, the HTTP API)
reports what a real cluster would.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A ``StatusError``: ``code`` (HTTP status), ``reason`` (``metav1.StatusReason``),
    ``message`` (the text kubectl prints after ``Error from server (Reason): ``) and
    ``details`` (``metav1.StatusDetails`` as a dict, possibly empty)."""

    def __init__(self, code: int, reason: str, message: str, details: dict | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details or {}

    def status(self) -> dict:
        """The ``metav1.Status`` object of this error (``kind: Status``)."""
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details:
            status["details"] = self.details
        status["code"] = self.code
        return status

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}, {self.reason!r}, {self.message!r})"


class NotFound(ApiError):
    pass


class AlreadyExists(ApiError):
    pass


class Conflict(ApiError):
    pass


class Expired(ApiError):
    """410 Gone with reason ``Expired``: a watch or list from a compacted resourceVersion."""


class Invalid(ApiError):
    pass


class BadRequest(ApiError):
    pass


class Timeout(ApiError):
    pass


class RequestEntityTooLarge(ApiError):
    pass


class InternalError(ApiError):
    pass


def qualified_resource(resource: str, group: str) -> str:
    """``schema.GroupResource.String()``: ``pods``, ``deployments.apps``."""
    return f"{resource}.{group}" if group else resource


def _details(name: str, group: str, kind: str, **more: Any) -> dict:
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    details["kind"] = kind
    details.update(more)
    return details


def new_not_found(resource: str, group: str, name: str) -> NotFound:
    """``NewNotFound``: ``pods "web" not found``."""
    return NotFound(404, "NotFound", f'{qualified_resource(resource, group)} "{name}" not found',
                    _details(name, group, resource))  # fmt: skip


def new_already_exists(resource: str, group: str, name: str) -> AlreadyExists:
    """``NewAlreadyExists``: ``pods "web" already exists``."""
    return AlreadyExists(409, "AlreadyExists",
                         f'{qualified_resource(resource, group)} "{name}" already exists',
                         _details(name, group, resource))  # fmt: skip


OBJECT_MODIFIED = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


def new_conflict(resource: str, group: str, name: str, err: str = OBJECT_MODIFIED) -> Conflict:
    """``NewConflict``: ``Operation cannot be fulfilled on pods "web": <err>``."""
    return Conflict(409, "Conflict",
                    f'Operation cannot be fulfilled on {qualified_resource(resource, group)} '
                    f'"{name}": {err}', _details(name, group, resource))  # fmt: skip


def field_error_text(error: dict) -> str:
    """``field.Error.Error()``: ``spec.containers[0].image: Required value``."""
    return f"{error['field']}: {error['body']}"


def new_invalid(kind: str, group: str, name: str, errors: list[dict]) -> Invalid:
    """``NewInvalid``: ``Pod "web" is invalid: <the aggregated field errors>``; each error
    is ``{"type": "FieldValueRequired", "field": "...", "body": "Required value: ..."}``
    (``body`` is ``ErrorBody()``), one ``cause`` each."""
    causes = [{"reason": e["type"], "message": e["body"], "field": e["field"]} for e in errors]
    qualified = f"{kind}.{group}" if group else kind
    text = aggregate([field_error_text(e) for e in errors])
    return Invalid(422, "Invalid", f'{qualified} "{name}" is invalid: {text}',
                   _details(name, group, kind, causes=causes))  # fmt: skip


def new_bad_request(message: str) -> BadRequest:
    """``NewBadRequest``: the message as given, no details."""
    return BadRequest(400, "BadRequest", message)


def new_resource_expired(message: str) -> Expired:
    """``NewResourceExpired``: 410 with reason ``Expired``."""
    return Expired(410, "Expired", message)


def new_too_large_resource_version(requested: int, current: int, retry_seconds: int = 1) -> Timeout:
    """``storage.NewTooLargeResourceVersionError``: what the watch cache answers (after
    waiting up to 3 s for it to catch up) for a resourceVersion it has not reached."""
    return Timeout(504, "Timeout",
                   f"Timeout: Too large resource version: {requested}, current: {current}",
                   {"causes": [{"reason": "ResourceVersionTooLarge",
                                "message": "Too large resource version"}],
                    "retryAfterSeconds": retry_seconds})  # fmt: skip


def new_request_entity_too_large(limit: int) -> RequestEntityTooLarge:
    """``NewRequestEntityTooLargeError``: ``Request entity too large: limit is 3145728``."""
    return RequestEntityTooLarge(413, "RequestEntityTooLarge",
                                 f"Request entity too large: limit is {limit}")  # fmt: skip


def new_internal_error(message: str) -> InternalError:
    """``NewInternalError``: ``Internal error occurred: <message>``."""
    return InternalError(500, "InternalError", f"Internal error occurred: {message}",
                         {"causes": [{"message": message}]})  # fmt: skip


def aggregate(messages: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message as it is, several as
    ``[a, b]`` (duplicates dropped, as ``ToAggregate`` does)."""
    unique: list[str] = []
    for message in messages:
        if message not in unique:
            unique.append(message)
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (what ``field.Invalid`` prints for a string value)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def invalid_value(field: str, value: Any, detail: str = "") -> dict:
    """``field.Invalid``: ``Invalid value: "x": <detail>``."""
    if isinstance(value, str):
        shown = go_quote(value)
    elif isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, list):
        shown = "[]string{" + ", ".join(go_quote(str(v)) for v in value) + "}"
    else:
        shown = str(value)
    body = f"Invalid value: {shown}"
    if detail:
        body += f": {detail}"
    return {"type": "FieldValueInvalid", "field": field, "body": body}


def required_value(field: str, detail: str = "") -> dict:
    """``field.Required``: ``Required value: <detail>``."""
    body = "Required value" + (f": {detail}" if detail else "")
    return {"type": "FieldValueRequired", "field": field, "body": body}
