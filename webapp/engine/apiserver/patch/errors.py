"""Patch errors, worded as k8s.io/apimachinery/pkg/util/mergepatch/errors.go words them,
and how the API server answers each (``interpretStrategicMergePatchError`` in
apiserver/pkg/endpoints/handlers/patch.go): a few are 400 BadRequest or 422, any other is
a plain error, which the API server turns into a 500 Status with no reason (kubectl prints
``Error from server: <message>``)."""

from __future__ import annotations

from typing import Any

ERR_BAD_JSON_DOC = "invalid JSON document"
ERR_NO_LIST_OF_LISTS = "lists of lists are not supported"
ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = (
    "invalid patch format of primitive list"  # mergepatch.ErrBadPatchFormatForPrimitiveList
)
ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = "invalid patch format of retainKeys"
ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = "invalid patch format of setElementOrder list"
ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS = "patch content doesn't match retainKeys list"
ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT = "strategic merge patch format is not supported"

_BAD_REQUEST = {
    ERR_BAD_JSON_DOC,
    ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST,
    ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
    ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST,
    ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT,
}
_UNPROCESSABLE = {ERR_NO_LIST_OF_LISTS, ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS}


class PatchError(ValueError):
    """A patch that cannot be applied or computed; ``str()`` is the upstream message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def status(self) -> dict[str, Any]:
        """The API server's Status for this error."""
        if self.message in _BAD_REQUEST:
            code, reason = 400, "BadRequest"
        elif self.message in _UNPROCESSABLE:
            code, reason = 422, "Invalid"
        else:
            code, reason = 500, ""
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "code": code,
        }
        if reason:
            status["reason"] = reason
        return status


def go_value(value: Any) -> str:
    """Go's ``fmt.Sprintf("%v", v)`` of a decoded JSON value (maps print sorted by key)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        inner = " ".join(f"{k}:{go_value(value[k])}" for k in sorted(value))
        return f"map[{inner}]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    """``%v`` of a float64: the shortest form, exponent past 1e21 (strconv 'g' rules)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        digits = exponent.lstrip("+-").rjust(2, "0")
        return f"{mantissa}e{sign}{digits}"
    return text


def err_no_merge_key(m: dict, key: str) -> PatchError:
    return PatchError(f"map: {go_value(m)} does not contain declared merge key: {key}")


def err_bad_arg_type(expected: Any, actual: Any) -> PatchError:
    return PatchError(f"expected a {_go_type(expected)}, but received a {_go_type(actual)}")


def err_bad_patch_type(directive: Any, patch: dict) -> PatchError:
    return PatchError(f"unknown patch type: {go_value(directive)} in map: {go_value(patch)}")


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "<nil>"
