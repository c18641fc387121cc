"""What every module of the Kubernetes API shares: JSON answers, the API server's Status
errors, request parameters and the API's bounds (docs/limits.md, "Kubernetes API").

The other kubeapi modules import this one; it imports none of them.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, request

from webapp.engine.store import errors as api_errors
from webapp.engine.store.errors import ApiError

# The API server's own bound on a request body (`maxRequestBodyBytes`, 3 MiB:
# staging/src/k8s.io/apiserver/pkg/server/config.go `MaxRequestBodyBytes`).
MAX_BODY_BYTES = 3 * 1024 * 1024
# A label or field selector longer than this is refused before it is parsed (ours).
MAX_SELECTOR_BYTES = 16 * 1024
# Open watches (and follows of a log) at once, per session and per client address (ours).
MAX_WATCHES_PER_SESSION = 40
MAX_WATCHES_PER_CLIENT = 100
# Requests per second per client address, with this burst (ours; past it 429 Retry-After 1).
REQUESTS_PER_SECOND = 50.0
REQUEST_BURST = 200.0
# A watch without timeoutSeconds ends after this many wall seconds; kubectl's reflector asks
# for 300-600 (client-go tools/cache/reflector.go minWatchTimeout); ours caps any ask.
MAX_WATCH_SECONDS = 1800
# How often an open watch or log follow looks at the session again (wall seconds).
POLL_SECONDS = 0.2
# Events kept per session for watches from an older resourceVersion (past: 410 Expired).
WATCH_HISTORY = 2000

JSON = "application/json"
TABLE_MEDIA = "application/json;as=Table;v=v1;g=meta.k8s.io"
DISCOVERY_MEDIA = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def json_response(
    body: Any, status: int = 200, content_type: str = JSON, headers: dict[str, str] | None = None
) -> Response:
    """A JSON body as the API server writes it (one document and a newline)."""
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n"
    response = Response(text, status=status, content_type=content_type)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    response.headers["Cache-Control"] = "no-cache, private"
    return response


def status_response(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    """An ApiError as the `metav1.Status` the API server answers with."""
    more = dict(headers or {})
    retry = (error.details or {}).get("retryAfterSeconds")
    if isinstance(retry, int) and retry > 0:
        more.setdefault("Retry-After", str(retry))
    return json_response(error.status(), error.code, headers=more)


def success_status(details: dict[str, Any] | None = None, code: int = 200) -> dict[str, Any]:
    status: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
    }
    if details:
        status["details"] = details
    return status


# -- the API server's wording for what is not an object's own error -------------------------


def unauthorized() -> ApiError:
    """401 from the authentication filter (apiserver/pkg/endpoints/filters/authentication.go
    `Unauthorized`): `{"message":"Unauthorized","reason":"Unauthorized","code":401}`."""
    return ApiError(401, "Unauthorized", "Unauthorized")


def not_found_path() -> ApiError:
    """A path no handler serves: the go-restful 404 as the API server answers it
    (`the server could not find the requested resource`, NewGenericServerResponse)."""
    return ApiError(404, "NotFound", "the server could not find the requested resource",
                    {})  # fmt: skip


def method_not_supported(resource: str, group: str, verb: str) -> ApiError:
    """`NewMethodNotSupported`: `<verb> is not supported on resources of kind "<res>"`."""
    qualified = api_errors.qualified_resource(resource, group)
    details: dict[str, Any] = {"kind": resource}
    if group:
        details["group"] = group
    return ApiError(405, "MethodNotAllowed",
                    f'{verb} is not supported on resources of kind "{qualified}"', details)  # fmt: skip


def too_many_requests(message: str, retry_after: int = 1) -> ApiError:
    """`NewTooManyRequests`: 429 with `retryAfterSeconds` (a Retry-After header)."""
    return ApiError(429, "TooManyRequests", message, {"retryAfterSeconds": retry_after})


def bad_request(message: str) -> ApiError:
    return api_errors.new_bad_request(message)


def unsupported_media(content_type: str) -> ApiError:
    """apiserver/pkg/endpoints/handlers/rest.go: `the body of the request was in an unknown
    format - accepted media types include: ...` (415 UnsupportedMediaType)."""
    return ApiError(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types "
                    "include: application/json, application/yaml, "
                    "application/vnd.kubernetes.protobuf", {})  # fmt: skip


# -- request parameters ---------------------------------------------------------------------


def query_bool(name: str, default: bool = False) -> bool:
    """A boolean query parameter as the API server converts it: every value but `0` and
    `false` is true (apimachinery/pkg/runtime/conversion.go Convert_Slice_string_To_bool)."""
    if name not in request.args:
        return default
    value = request.args.get(name, "")
    return value.lower() not in ("0", "false")


def query_int(name: str, default: int | None = None) -> int | None:
    """An integer query parameter; BadRequest for text that is not one."""
    value = request.args.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise bad_request(
            f"strconv.ParseInt: parsing {api_errors.go_quote(value)}: invalid syntax"
        ) from None


def read_body() -> bytes:
    """The request body, at most MAX_BODY_BYTES (413 RequestEntityTooLarge past it, as the
    API server's limitedReadBody answers)."""
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise api_errors.new_request_entity_too_large(MAX_BODY_BYTES)
    data = request.stream.read(MAX_BODY_BYTES + 1)
    if len(data) > MAX_BODY_BYTES:
        raise api_errors.new_request_entity_too_large(MAX_BODY_BYTES)
    return data


def decode_json_body(data: bytes, what: str = "") -> Any:
    """A JSON (or YAML) request body; BadRequest with the decoder's words otherwise."""
    if data.startswith(PROTOBUF_MAGIC):
        return protobuf_object(data)
    if not data.strip():
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        pass
    try:
        import yaml

        return yaml.safe_load(data.decode("utf-8"))
    except Exception as error:
        raise bad_request(
            f"error decoding {what or 'body'}: {str(error).splitlines()[0]}"
        ) from None


# -- protobuf request bodies of typed clients -------------------------------------------------
# client-go's typed clients may send `application/vnd.kubernetes.protobuf`: the 4 bytes
# `k8s\0`, then a runtime.Unknown (typeMeta=1, raw=2, contentEncoding=3, contentType=4)
# whose `raw` is the object (apimachinery/pkg/runtime/serializer/protobuf/protobuf.go). The
# few messages the API reads from such bodies are decoded by field number (generated.proto
# of k8s.io/api): what is not listed is skipped.

PROTOBUF_MAGIC = b"k8s\x00"


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def proto_fields(data: bytes) -> dict[int, list[Any]]:
    """Field number -> values (ints for varints, bytes for length-delimited)."""
    out: dict[int, list[Any]] = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ValueError("truncated field")
            value, at = data[at : at + size], at + size
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _text(fields: dict[int, list[Any]], number: int) -> str:
    values = fields.get(number) or [b""]
    value = values[-1]
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def protobuf_object(data: bytes) -> dict[str, Any] | None:
    """The object of a protobuf body, for the kinds the API reads one of (DeleteOptions,
    SelfSubjectAccessReview, Eviction); None for any other or for bytes that do not parse."""
    try:
        unknown = proto_fields(data[len(PROTOBUF_MAGIC) :])
        type_meta = proto_fields((unknown.get(1) or [b""])[-1])
        kind = _text(type_meta, 2)
        raw = proto_fields((unknown.get(2) or [b""])[-1])
        if kind == "DeleteOptions":
            return _delete_options(raw)
        if kind == "SelfSubjectAccessReview":
            spec = proto_fields((raw.get(2) or [b""])[-1])
            out: dict[str, Any] = {"kind": kind, "spec": {}}
            if 1 in spec:
                attrs = proto_fields(spec[1][-1])
                names = ("namespace", "verb", "group", "version", "resource", "subresource",
                         "name")  # fmt: skip
                out["spec"]["resourceAttributes"] = {
                    n: _text(attrs, i + 1) for i, n in enumerate(names) if i + 1 in attrs
                }
            if 2 in spec:
                attrs = proto_fields(spec[2][-1])
                out["spec"]["nonResourceAttributes"] = {"path": _text(attrs, 1),
                                                        "verb": _text(attrs, 2)}  # fmt: skip
            return out
        if kind == "Eviction":
            metadata = proto_fields((raw.get(1) or [b""])[-1])
            out = {"kind": kind, "metadata": {"name": _text(metadata, 1),
                                              "namespace": _text(metadata, 3)}}  # fmt: skip
            if 2 in raw:
                out["deleteOptions"] = _delete_options(proto_fields(raw[2][-1]))
            return out
    except ValueError:
        return None
    return None


def _delete_options(raw: dict[int, list[Any]]) -> dict[str, Any]:
    """DeleteOptions: gracePeriodSeconds=1, preconditions=2, propagationPolicy=4, dryRun=5."""
    out: dict[str, Any] = {}
    if 1 in raw:
        value = raw[1][-1]
        out["gracePeriodSeconds"] = value - (1 << 64) if value >= 1 << 63 else value
    if 2 in raw:
        pre = proto_fields(raw[2][-1])
        out["preconditions"] = {k: _text(pre, i) for i, k in ((1, "uid"), (2, "resourceVersion"))
                                if i in pre}  # fmt: skip
    if 4 in raw:
        out["propagationPolicy"] = _text(raw, 4)
    if 5 in raw:
        out["dryRun"] = [v.decode() for v in raw[5]]
    return out
