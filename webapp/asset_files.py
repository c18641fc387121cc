"""The page's static files under content-hashed names, with their gzip and brotli forms.

    table = AssetTable.load(resource_dir("static"), resource_dir("assets"))
    table.url("js/main.js")          -> "/assets/js/main.3f2a9c01d2e4.js"
    table.import_map()               -> JSON text for <script type="importmap">
    asset = table.find("js/main.3f2a9c01d2e4.js"); asset.body("br")

An asset's name carries the first 12 hex digits of the SHA-256 of its content, so it never
changes: it is served with `Cache-Control: public, max-age=31536000, immutable`, and a
new release gets new names (the HTML, `no-cache`, names them). The page's ES modules keep
importing `./dom.js` and `/static/vendor/...`: the import map sends each of those names to
its hashed file. The style sheets are served as one bundle (`css/bundle.css`).

A wheel carries everything prebuilt (`build_assets`, run by the hatch build hook
`hatch_build.py`): the hashed files, their `.br` (brotli quality 11) and `.gz` forms and
`manifest.json`. A source checkout has none of it: the table is made from `static/` at
startup, and the compressed forms on first use, once per process (the same gzip 9 and
brotli 11; brotli only when the `brotli` package is importable, else gzip or identity).

Standard library only (plus `brotli` when present): the build hook imports this file by
path, before the package's dependencies exist.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

try:  # pragma: no cover - depends on the environment
    import brotli as _brotli
except ImportError:  # pragma: no cover
    _brotli = None

HASH_DIGITS = 12
URL_PREFIX = "/assets/"
IMMUTABLE = "public, max-age=31536000, immutable"
MANIFEST = "manifest.json"

# The style sheets of index.html, in cascade order: served as one file. A new sheet goes
# here (tests/web/test_assets.py checks that every sheet is bundled or loaded on its own).
CSS_BUNDLE = "css/bundle.css"
CSS_BUNDLE_PARTS = (
    "base",
    "layout",
    "topbar",
    "editor",
    "lesson",
    "controls",
    "diagram",
    "timeline",
    "status",
    "views",
    "classroom",
)
# What is published, by suffix (licences and notes under static/vendor stay at /static/).
CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
COMPRESSIBLE = frozenset(CONTENT_TYPES)
ENCODINGS = ("br", "gzip")  # in order of preference
SUFFIX = {"br": ".br", "gzip": ".gz"}


def source_files(static_dir: Path) -> dict[str, bytes]:
    """Logical name ("js/main.js") -> content, for every published file, plus the bundle."""
    files: dict[str, bytes] = {}
    for path in sorted(static_dir.rglob("*")):
        if path.is_file() and path.suffix in CONTENT_TYPES:
            files[path.relative_to(static_dir).as_posix()] = path.read_bytes()
    parts = [f"css/{part}.css" for part in CSS_BUNDLE_PARTS]
    if all(part in files for part in parts):
        files[CSS_BUNDLE] = b"\n".join(
            b"/* " + part.encode() + b" */\n" + files[part] for part in parts
        )
    return files


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_DIGITS]


def hashed_name(name: str, data: bytes) -> str:
    """ "js/main.js" -> "js/main.<hash>.js"."""
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}.{digest(data)}.{suffix}" if dot else f"{name}.{digest(data)}"


def compress(data: bytes, encoding: str) -> bytes | None:
    """`data` in `encoding`, or None when that encoding is unavailable or does not help."""
    if encoding == "gzip":
        packed = gzip.compress(data, compresslevel=9, mtime=0)
    elif encoding == "br" and _brotli is not None:
        # Quality 11 takes about 0.8 s for the 368 KB CodeMirror bundle (9: 0.07 s, but
        # 9 % larger): once per build, or once per process and file in a checkout.
        packed = _brotli.compress(data, quality=11)
    else:
        return None
    return packed if len(packed) < len(data) else None


def compress_dynamic(data: bytes, encoding: str) -> bytes | None:
    """A response made per request: fast settings (brotli 5, gzip 6)."""
    if encoding == "gzip":
        return gzip.compress(data, compresslevel=6, mtime=0)
    if encoding == "br" and _brotli is not None:
        packed: bytes = _brotli.compress(data, quality=5)
        return packed
    return None


def build_assets(static_dir: Path, out_dir: Path) -> dict[str, str]:
    """Write the hashed files, their .br/.gz forms and manifest.json into `out_dir` (the
    wheel's webapp/assets_built). Returns the manifest: logical name -> hashed name."""
    manifest: dict[str, str] = {}
    for name, data in source_files(static_dir).items():
        hashed = hashed_name(name, data)
        manifest[name] = hashed
        target = out_dir / hashed
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if Path(name).suffix in COMPRESSIBLE:
            for encoding in ENCODINGS:
                packed = compress(data, encoding)
                if packed is not None:
                    target.with_name(target.name + SUFFIX[encoding]).write_bytes(packed)
    (out_dir / MANIFEST).write_text(json.dumps({"files": manifest}, indent=1, sort_keys=True))
    return manifest


# Compressed forms made at run time, by content hash: several apps in one process share them.
_packed: dict[tuple[str, str], bytes | None] = {}
_packed_lock = threading.Lock()


@dataclass
class Asset:
    name: str  # logical: "js/main.js"
    hashed: str  # "js/main.<hash>.js"
    content_type: str
    identity: bytes
    # encoding -> bytes; filled from the wheel's files, or lazily from `identity`
    encoded: dict[str, bytes | None] = field(default_factory=dict)
    prebuilt: bool = False

    @property
    def etag(self) -> str:
        return self.hashed.rsplit(".", 2)[-2] if "." in self.hashed else self.hashed

    def body(self, encoding: str) -> bytes | None:
        """The asset in `encoding` ("identity", "br", "gzip"), or None if not offered."""
        if encoding == "identity":
            return self.identity
        if encoding in self.encoded:
            return self.encoded[encoding]
        if self.prebuilt or Path(self.name).suffix not in COMPRESSIBLE:
            return None
        key = (self.etag, encoding)
        with _packed_lock:
            if key not in _packed:
                _packed[key] = compress(self.identity, encoding)
            packed = _packed[key]
        self.encoded[encoding] = packed
        return packed

    def choose(self, accept_encoding: str | None) -> tuple[str, bytes]:
        """The best encoding the client accepts that we have: (encoding, body)."""
        accepted = accepted_encodings(accept_encoding)
        for encoding in ENCODINGS:
            if encoding in accepted:
                packed = self.body(encoding)
                if packed is not None:
                    return encoding, packed
        return "identity", self.identity


def accepted_encodings(header: str | None) -> set[str]:
    """Codings with q > 0 in an Accept-Encoding header (`*` counts for br and gzip)."""
    accepted: set[str] = set()
    refused: set[str] = set()
    for item in (header or "").split(",")[:32]:
        coding, _, params = item.strip().partition(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        (accepted if quality > 0 else refused).add(coding)
    if "*" in accepted:
        accepted |= set(ENCODINGS) - refused
    return accepted


class AssetTable:
    def __init__(self, assets: dict[str, Asset], prebuilt: bool) -> None:
        self.by_name = assets
        self.by_hashed = {asset.hashed: asset for asset in assets.values()}
        self.prebuilt = prebuilt
        self._import_map = self._make_import_map()

    @classmethod
    def load(cls, static_dir: Path, built_dir: Path | None) -> AssetTable:
        """The wheel's prebuilt assets when `built_dir` has a manifest, else `static_dir`."""
        if built_dir is not None and (built_dir / MANIFEST).is_file():
            return cls.from_built(built_dir)
        return cls.from_source(static_dir)

    @classmethod
    def from_source(cls, static_dir: Path) -> AssetTable:
        assets = {
            name: Asset(name, hashed_name(name, data), content_type(name), data)
            for name, data in source_files(static_dir).items()
        }
        return cls(assets, prebuilt=False)

    @classmethod
    def from_built(cls, built_dir: Path) -> AssetTable:
        manifest = json.loads((built_dir / MANIFEST).read_text())["files"]
        assets: dict[str, Asset] = {}
        for name, hashed in manifest.items():
            path = built_dir / hashed
            encoded: dict[str, bytes | None] = {}
            for encoding in ENCODINGS:
                variant = path.with_name(path.name + SUFFIX[encoding])
                encoded[encoding] = variant.read_bytes() if variant.is_file() else None
            assets[name] = Asset(
                name, hashed, content_type(name), path.read_bytes(), encoded, prebuilt=True
            )
        return cls(assets, prebuilt=True)

    def url(self, name: str) -> str:
        """The hashed URL of logical `name`; KeyError for a file that is not published."""
        return URL_PREFIX + self.by_name[name].hashed

    def find(self, hashed: str) -> Asset | None:
        return self.by_hashed.get(hashed)

    def _make_import_map(self) -> str:
        """Every module name a page module may use (`./x.js` from a module under
        /assets/js/, or `/static/...`) -> its hashed URL."""
        imports: dict[str, str] = {}
        for name, asset in sorted(self.by_name.items()):
            if name.endswith((".js", ".mjs")):
                imports[URL_PREFIX + name] = URL_PREFIX + asset.hashed
                imports["/static/" + name] = URL_PREFIX + asset.hashed
        return json.dumps({"imports": imports}, separators=(",", ":"))

    def import_map(self) -> str:
        return self._import_map

    def import_map_csp_source(self) -> str:
        """The CSP source that lets exactly this import map (an inline script) run."""
        import base64

        digest_bytes = hashlib.sha256(self._import_map.encode()).digest()
        return "'sha256-" + base64.b64encode(digest_bytes).decode() + "'"


def content_type(name: str) -> str:
    return CONTENT_TYPES.get(Path(name).suffix, "application/octet-stream")
