"""Hashed, immutable, compressed assets and revalidated HTML (webapp/assets.py,
webapp/asset_files.py). Byte and header checks; tests/e2e/test_page_assets.py measures a
real browser's first and repeat visit."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import brotli
import pytest
from flask import Flask

from webapp import asset_files
from webapp.asset_files import AssetTable, accepted_encodings, build_assets, hashed_name
from webapp.paths import resource_dir

STATIC = resource_dir("static")


def _page(app: Flask) -> str:
    return app.test_client().get("/").get_data(as_text=True)


def _import_map(html: str) -> dict[str, str]:
    match = re.search(r'<script type="importmap">(.*?)</script>', html)
    assert match, "the page has an import map"
    imports: dict[str, str] = json.loads(match[1])["imports"]
    return imports


def test_asset_names_carry_the_hash_of_their_content(app: Flask) -> None:
    html = _page(app)
    main = re.search(r'<script type="module" src="/assets/(js/main\.([0-9a-f]{12})\.js)"', html)
    assert main
    source = asset_files.minify("js/main.js", (STATIC / "js" / "main.js").read_bytes())
    assert main[2] == hashlib.sha256(source).hexdigest()[:12]
    body = app.test_client().get("/assets/" + main[1], headers={"Accept-Encoding": ""})
    assert body.data == source
    assert hashed_name("js/main.js", b"x") != hashed_name("js/main.js", b"y")


def test_assets_are_immutable_and_negotiate_their_encoding(app: Flask) -> None:
    client = app.test_client()
    url = re.search(r'src="(/assets/js/main\.[0-9a-f]+\.js)"', _page(app))[1]  # type: ignore[index]
    source = asset_files.minify("js/main.js", (STATIC / "js" / "main.js").read_bytes())
    for accept, encoding in (
        ("gzip, deflate, br, zstd", "br"),
        ("gzip", "gzip"),
        ("br;q=0, gzip;q=0.5", "gzip"),
        ("*", "br"),
        ("", None),
        ("identity", None),
    ):
        response = client.get(url, headers={"Accept-Encoding": accept})
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response.headers["Vary"] == "Accept-Encoding"
        assert response.headers["Content-Type"].startswith("text/javascript")
        assert response.headers.get("Content-Encoding") == encoding, accept
        body = response.data
        decoded = {"br": brotli.decompress, "gzip": gzip.decompress, None: bytes}[encoding](body)
        assert decoded == source
        assert int(response.headers["Content-Length"]) == len(body)
        if encoding:
            assert len(body) < len(source) / 2
    etag = client.get(url).headers["ETag"]
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304


def test_unknown_or_unhashed_asset_names_are_not_found(app: Flask) -> None:
    client = app.test_client()
    for name in ("js/main.js", "js/main.000000000000.js", "../webapp/config.py", "nothing"):
        assert client.get("/assets/" + name).status_code == 404, name
    # The unhashed files stay where they were, revalidated on every use.
    assert client.get("/static/js/main.js").status_code == 200


def test_the_page_is_no_cache_with_an_etag_and_compressed(app: Flask) -> None:
    client = app.test_client()
    response = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response.headers["Vary"]
    html = gzip.decompress(response.data).decode()
    assert '<script type="importmap">' in html
    etag = response.headers["ETag"]
    again = client.get("/", headers={"If-None-Match": etag, "Accept-Encoding": "gzip"})
    assert again.status_code == 304
    assert again.data == b""
    # Another page (another language) is another ETag.
    other = client.get("/", headers={"Accept-Language": "zh-CN"})
    assert other.headers["ETag"] != etag


def test_json_answers_are_compressed_and_revalidated(app: Flask) -> None:
    client = app.test_client()
    response = client.get("/api/scenarios", headers={"Accept-Encoding": "br"})
    assert response.headers["Content-Encoding"] == "br"
    assert json.loads(brotli.decompress(response.data))
    etag = response.headers["ETag"]
    assert client.get("/api/scenarios", headers={"If-None-Match": etag}).status_code == 304


def test_the_import_map_sends_every_module_to_its_hashed_file(app: Flask) -> None:
    client = app.test_client()
    imports = _import_map(_page(app))
    modules = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*.js"))
    assert modules
    for name in modules:
        target = imports["/assets/" + name]
        assert imports["/static/" + name] == target
        assert re.fullmatch(rf"/assets/{name[:-3]}\.[0-9a-f]{{12}}\.js", target)
        assert client.get(target).status_code == 200
    # Every import in every module resolves through the map.
    for path in STATIC.glob("js/*.js"):
        for spec in re.findall(r'from "([^"]+)"', path.read_text()):
            url = spec if spec.startswith("/") else "/assets/js/" + spec.removeprefix("./")
            assert url in imports, (path.name, spec)


def test_only_the_import_map_may_run_inline(app: Flask) -> None:
    response = app.test_client().get("/")
    html = response.get_data(as_text=True)
    text = re.search(r'<script type="importmap">(.*?)</script>', html)[1]  # type: ignore[index]
    expected = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    csp = response.headers["Content-Security-Policy"]
    assert f"script-src 'self' 'sha256-{expected}';" in csp
    assert "unsafe-inline" not in csp
    # Pages without an import map keep the plain policy.
    api = app.test_client().get("/api/scenarios")
    assert "sha256-" not in api.headers["Content-Security-Policy"]


def test_the_style_sheets_are_one_bundle_in_cascade_order(app: Flask) -> None:
    html = _page(app)
    sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    assert len(sheets) == 1 and "/assets/css/bundle." in sheets[0]
    bundle = app.test_client().get(sheets[0], headers={"Accept-Encoding": ""}).data
    positions = [
        bundle.index(
            asset_files.minify(f"css/{part}.css", (STATIC / "css" / f"{part}.css").read_bytes())
        )
        for part in asset_files.CSS_BUNDLE_PARTS
    ]
    assert positions == sorted(positions)
    assert b"editor-shadow" not in bundle  # the editor's shadow root loads its own


def test_prebuilt_assets_are_served_as_built(tmp_path: Path) -> None:
    """The wheel's layout (hatch_build.py): identical names, files served as they are."""
    manifest = build_assets(STATIC, tmp_path)
    source = AssetTable.from_source(STATIC)
    built = AssetTable.from_built(tmp_path)
    assert built.prebuilt and not source.prebuilt
    assert manifest == {name: asset.hashed for name, asset in source.by_name.items()}
    assert built.import_map() == source.import_map()
    asset = built.by_name["vendor/codemirror.bundle.js"]
    on_disk = (tmp_path / (asset.hashed + ".br")).read_bytes()
    assert asset.choose("br, gzip") == ("br", on_disk)
    assert brotli.decompress(on_disk) == (STATIC / "vendor" / "codemirror.bundle.js").read_bytes()
    # A variant the build did not write is not invented at run time.
    (tmp_path / (asset.hashed + ".gz")).unlink()
    again = AssetTable.from_built(tmp_path).by_name["vendor/codemirror.bundle.js"]
    assert again.choose("gzip")[0] == "identity"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip, deflate, br", {"gzip", "deflate", "br"}),
        ("br;q=0", set()),
        ("*;q=0.1, gzip;q=0", {"*", "br"}),
        ("GZIP ; q=0.8", {"gzip"}),
        ("br;q=nonsense", set()),
        (None, set()),
    ],
)
def test_accept_encoding_is_read_with_its_weights(header: str | None, expected: set[str]) -> None:
    assert accepted_encodings(header) == expected


def test_every_style_sheet_is_in_the_bundle_or_loaded_on_its_own() -> None:
    """A new sheet must be added to CSS_BUNDLE_PARTS (in its cascade place), or the page
    would silently lose it."""
    standalone = {"editor-shadow"}  # the editor's shadow root links it (static/js/editor.js)
    sheets = {path.stem for path in (STATIC / "css").glob("*.css")}
    assert sheets == set(asset_files.CSS_BUNDLE_PARTS) | standalone


def test_without_brotli_a_checkout_serves_gzip_or_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A source checkout where the brotli package is missing still serves every asset."""
    monkeypatch.setattr(asset_files, "_brotli", None)
    monkeypatch.setattr(asset_files, "_packed", {})
    table = AssetTable.from_source(STATIC)
    asset = table.by_name["js/state.js"]
    assert asset.choose("br") == ("identity", asset.identity)
    encoding, body = asset.choose("br, gzip")
    assert encoding == "gzip"
    state = asset_files.minify("js/state.js", (STATIC / "js" / "state.js").read_bytes())
    assert gzip.decompress(body) == state


def test_our_modules_and_sheets_are_served_minified() -> None:
    files = asset_files.source_files(STATIC)
    for name in ("js/main.js", "js/state.js", "js/classroom.js", "css/layout.css"):
        source = (STATIC / name).read_bytes()
        assert len(files[name]) < 0.85 * len(source), name
        assert b"\n  " not in files[name], name  # no indentation left
    vendor = "vendor/codemirror.bundle.js"
    assert files[vendor] == (STATIC / vendor).read_bytes()  # prebuilt bundles as they are


def test_the_page_javascript_tests_pass_on_the_minified_modules(tmp_path: Path) -> None:
    """The minifier must not change what a module does: Node parses every minified module
    and the page's unit tests (tests/js) run against them."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed for the page's unit tests.")
    root = Path(__file__).resolve().parents[2]
    for name, data in asset_files.source_files(STATIC).items():
        if name.startswith(("js/", "vendor/")):
            target = tmp_path / "static" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    shutil.copytree(root / "tests" / "js", tmp_path / "tests" / "js")
    # steps.test.mjs checks its fixtures against the built-in scenarios' names.
    shutil.copytree(root / "scenarios", tmp_path / "scenarios")
    (tmp_path / "package.json").write_text('{"type": "module"}')
    for module in sorted((tmp_path / "static" / "js").glob("*.js")):
        checked = subprocess.run([node, "--check", str(module)], capture_output=True, text=True)
        assert checked.returncode == 0, module.name + checked.stderr
    assert (tmp_path / "static" / "js" / "main.js").read_bytes() != (
        STATIC / "js" / "main.js"
    ).read_bytes()
    result = subprocess.run(
        [node, "--test", "tests/js/"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
