"""Hatch build hook: the wheel carries the page's assets prebuilt (webapp/asset_files.py).

Hashed files, their brotli (quality 11) and gzip (level 9) forms and manifest.json are
written to build/assets and included as `webapp/assets_built`; the server then serves them as
they are, compressing nothing. Editable installs and source checkouts skip this: the
server makes the same table from static/ at startup.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class AssetsBuildHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        spec = importlib.util.spec_from_file_location(
            "_playground_asset_files", root / "webapp" / "asset_files.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        if module._brotli is None:
            raise RuntimeError("building the wheel needs the brotli package (build-system)")
        out = root / "build" / "assets"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        module.build_assets(root / "static", out)
        build_data["force_include"][str(out)] = "webapp/assets_built"
