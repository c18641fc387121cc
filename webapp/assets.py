"""Serving the page's assets: hashed, immutable, compressed; the HTML `no-cache` with an ETag.

GET /assets/<hashed name>   an asset of webapp.asset_files (404 for any other name)

Templates get `asset_url(name)` ("css/bundle.css" -> "/assets/css/bundle.<hash>.css") and
`import_map()` (the JSON of <script type="importmap">); a page that calls `import_map()`
gets the map's hash added to its Content-Security-Policy `script-src`, so the map runs
while every other inline script stays forbidden.

Every HTML page and JSON answer to a GET is `Cache-Control: no-cache` (unless the route
said otherwise) with a weak ETag (a repeat visit is a 304 of a few hundred bytes); HTML
and JSON over 1 KB are compressed (brotli, else gzip) when the client accepts it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, g, request

from webapp import security
from webapp.asset_files import (
    ENCODINGS,
    IMMUTABLE,
    AssetTable,
    accepted_encodings,
    compress_dynamic,
)
from webapp.paths import resource_dir

bp = Blueprint("assets", __name__)

COMPRESS_MIN_BYTES = 1024
DYNAMIC_TYPES = frozenset({"text/html", "application/json"})


def table_of(app: Flask) -> AssetTable:
    table: AssetTable = app.extensions["playground.assets"]
    return table


@bp.get("/assets/<path:hashed>")
def asset(hashed: str) -> Response:
    found = table_of(current_app).find(hashed)
    if found is None:
        return Response("Not Found\n", 404, mimetype="text/plain")
    headers = {
        "Cache-Control": IMMUTABLE,
        "Vary": "Accept-Encoding",
        "ETag": f'"{found.etag}"',
    }
    if request.if_none_match.contains(found.etag):
        return Response(status=304, headers=headers)
    encoding, body = found.choose(request.headers.get("Accept-Encoding"))
    if encoding != "identity":
        headers["Content-Encoding"] = encoding
    response = Response(body, 200, headers=headers, content_type=found.content_type)
    response.direct_passthrough = True
    # Scripts and style sheets need no document policy headers (webapp/security.py); an
    # SVG can be opened as a document, so it keeps them.
    response.subresource = not found.hashed.endswith(".svg")  # type: ignore[attr-defined]
    return response


def _asset_url(name: str) -> str:
    return table_of(current_app).url(name)


def _import_map() -> str:
    g.playground_import_map = True
    return table_of(current_app).import_map()


def _page_caching(response: Response) -> Response:
    """HTML pages and JSON answers to GET: no-cache + weak ETag (304 when unchanged),
    compressed when accepted; the import map's hash in the CSP of a page that has one."""
    if getattr(g, "playground_import_map", False):
        source = table_of(current_app).import_map_csp_source()
        response.headers["Content-Security-Policy"] = security.CONTENT_SECURITY_POLICY.replace(
            "script-src 'self'", f"script-src 'self' {source}"
        )
    if (
        response.mimetype not in DYNAMIC_TYPES
        or response.direct_passthrough
        or response.is_streamed
        or "Content-Encoding" in response.headers
    ):
        return response
    response.vary.add("Accept-Encoding")
    body = response.get_data()
    if request.method in ("GET", "HEAD") and response.status_code == 200:
        response.headers.setdefault("Cache-Control", "no-cache")
        response.set_etag(hashlib.sha256(body).hexdigest()[:20], weak=True)
        response.make_conditional(request)
        if response.status_code == 304:
            return response
    if len(body) >= COMPRESS_MIN_BYTES:
        accepted = accepted_encodings(request.headers.get("Accept-Encoding"))
        for encoding in ENCODINGS:
            if encoding in accepted:
                packed = compress_dynamic(body, encoding)
                if packed is not None:
                    response.set_data(packed)
                    response.headers["Content-Encoding"] = encoding
                    break
    return response


def init_app(app: Flask) -> AssetTable:
    """Call after security.init_app: this after_request runs before its (setdefault)."""
    table = AssetTable.load(resource_dir("static"), _built_dir())
    app.extensions["playground.assets"] = table
    app.register_blueprint(bp)
    app.add_template_global(_asset_url, "asset_url")
    app.add_template_global(_import_map, "import_map")
    app.after_request(_page_caching)
    return table


def _built_dir() -> Path | None:
    """webapp/assets_built in a wheel (made by hatch_build.py); None in a source checkout."""
    inside = Path(__file__).resolve().parent / "assets_built"
    return inside if inside.is_dir() else None
