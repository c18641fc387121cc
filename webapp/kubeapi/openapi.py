"""`/openapi/v2` and `/openapi/v3` for the served kinds, shipped as data in the package
(webapp/kubeapi/openapi_data/, made by tools/kube_openapi.py), so that `kubectl explain`
and apply's validation work offline.

v3 is one document per group-version, named as the published spec names its files
(api/openapi-spec/v3/api__v1_openapi.json: `__` stands for `/`), listed by `/openapi/v3`
with a content hash that kubectl requests as given (client-go openapi/client.go); the
hashed documents are immutable (`Cache-Control: public, immutable`), as the API server
serves them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Response, request

from webapp.kubeapi.common import json_response, not_found_path

DATA = Path(__file__).with_name("openapi_data")


@lru_cache(maxsize=1)
def _documents() -> dict[str, bytes]:
    """`api/v1` -> the document's JSON bytes, for every shipped v3 file."""
    out: dict[str, bytes] = {}
    for path in sorted(DATA.glob("v3__*.json.gz")):
        name = path.name[len("v3__") : -len(".json.gz")].replace("__", "/")
        out[name] = gzip.decompress(path.read_bytes())
    return out


@lru_cache(maxsize=1)
def _hashes() -> dict[str, str]:
    return {name: hashlib.sha512(body).hexdigest()[:128].upper()
            for name, body in _documents().items()}  # fmt: skip


@lru_cache(maxsize=1)
def _v2() -> bytes | None:
    path = DATA / "v2.json.gz"
    return gzip.decompress(path.read_bytes()) if path.exists() else None


def available() -> bool:
    return bool(_documents())


def serve(parts: list[str]) -> Response:
    if parts == ["v3"]:
        docs = _documents()
        if not docs:
            raise not_found_path()
        paths = {name: {"serverRelativeURL": f"{_prefix()}/openapi/v3/{name}?hash={h}"}
                 for name, h in _hashes().items()}  # fmt: skip
        return json_response({"paths": paths})
    if parts[:1] == ["v3"] and len(parts) > 1:
        name = "/".join(parts[1:])
        body = _documents().get(name)
        if body is None:
            raise not_found_path()
        response = Response(body, status=200, content_type="application/json")
        if request.args.get("hash") == _hashes()[name]:
            response.headers["Cache-Control"] = "public, immutable"
            response.headers["Expires"] = "Fri, 01 Jan 2100 00:00:00 GMT"
        else:
            response.headers["Cache-Control"] = "no-cache, private"
        response.headers["Etag"] = f'"{_hashes()[name]}"'
        return response
    if parts == ["v2"]:
        body = _v2()
        if body is None:
            raise not_found_path()
        return Response(body, status=200, content_type="application/json")
    raise not_found_path()


def _prefix() -> str:
    """The session's API root (`/kube/<token>`): a served-relative URL includes it."""
    path = request.path
    index = path.find("/openapi/")
    return path[:index] if index >= 0 else ""


def schema_names() -> list[str]:
    return sorted(_documents())


def document(name: str) -> Any:
    body = _documents().get(name)
    return None if body is None else json.loads(body)
