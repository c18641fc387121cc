"""The image catalogue (``catalogue.yaml``): what a well-known image runs and what its
programs do. Loaded once at import; everything here is data lookups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

_DATA: dict[str, Any] = yaml.safe_load(
    (Path(__file__).with_name("catalogue.yaml")).read_text(encoding="utf-8")
)
IMAGES: dict[str, dict] = _DATA["images"]
PROGRAMS: dict[str, dict] = _DATA["programs"]
PAGES: dict[str, str] = _DATA["pages"]
BUSYBOX_APPLETS = frozenset(_DATA["busyboxApplets"])
if not all(isinstance(name, str) for name in BUSYBOX_APPLETS):  # YAML reads a bare true as a bool
    raise ValueError("catalogue.yaml: quote every applet name that YAML reads as a boolean")

_BY_NAME = {name: key for key, entry in IMAGES.items() for name in entry["names"]}

DEFAULT_PULL_SECONDS = 3.0
UNKNOWN_SIZE = None  # an unknown image's size is drawn by the engine


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image reference split the way containerd reads it."""

    text: str
    repository: str  # fully qualified, without tag or digest: docker.io/library/nginx
    tag: str  # "" when only a digest (or nothing) was given: then "latest" applies
    digest: str


def parse_reference(image: str) -> ImageRef:
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = ""
    if ":" in last:
        name, _, tag = name.rpartition(":")
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = "docker.io/library/" + name
    elif not ("." in first or ":" in first or first == "localhost"):
        name = "docker.io/" + name
    return ImageRef(image, name, tag, digest)


@dataclass(frozen=True, slots=True)
class ImageFacts:
    """What the catalogue knows about one image reference (None fields: unknown image)."""

    key: str | None  # the catalogue entry, or None for an unknown image
    ref: ImageRef
    size_bytes: int | None
    pull_seconds: float | None
    entrypoint: tuple[str, ...]
    cmd: tuple[str, ...]
    stop_signal: str  # the image config's STOPSIGNAL, or SIGTERM
    shell: str  # ash | dash | bash | none
    tools: str  # busybox | gnu
    busybox_only: bool  # the image holds only busybox applets (+ extra_binaries)
    extra_binaries: frozenset[str]
    missing: frozenset[str]
    working_dir: str
    files: tuple[tuple[str, str], ...]
    version: str
    old_nslookup: bool
    # commands the image has as shell scripts on its PATH: (name, path of the file); the
    # file is in ``files``, so deleting it makes the command "not found"
    scripts: tuple[tuple[str, str], ...] = ()

    @property
    def known(self) -> bool:
        return self.key is not None

    def has_binary(self, name: str) -> bool | None:
        """True/False when the catalogue knows, None when it does not."""
        base = name.rsplit("/", 1)[-1]
        if self.busybox_only:
            return base in BUSYBOX_APPLETS or base in self.extra_binaries
        if base in self.missing:
            return False
        if self.shell == "none" and self.key is not None:
            # distroless-like images: only their own program
            return None
        return None


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


@lru_cache(maxsize=512)
def image_facts(image: str) -> ImageFacts:
    ref = parse_reference(image)
    key = _BY_NAME.get(ref.repository)
    if key is None:
        return ImageFacts(None, ref, None, None, (), (), "SIGTERM", "dash", "gnu", False,
                          frozenset(), frozenset(), "/", (), "", False)  # fmt: skip
    entry = IMAGES[key]
    tag = ref.tag or "latest"
    size = (entry.get("sizes") or {}).get(ref.repository, entry["size"])
    shell = entry.get("shell", "dash")
    for variant, variant_size in (entry.get("variants") or {}).items():
        if variant in tag:
            size = variant_size
            shell = (entry.get("variantShell") or {}).get(variant, shell)
    tools = entry.get("tools", "gnu")
    if shell == "ash" and tools == "gnu":
        tools = "busybox"
    version = entry.get("defaultVersion", "")
    if re.fullmatch(r"\d+\.\d+\.\d+", tag.split("-")[0]):
        version = tag.split("-")[0]
    elif re.fullmatch(r"\d+(\.\d+)?", tag.split("-")[0]) and version.startswith(tag.split("-")[0]):
        pass  # "1.27" keeps the catalogue's 1.27.x
    old_before = entry.get("oldNslookupBefore")
    old_nslookup = False
    if old_before:
        tag_version = _version_tuple(tag) if tag != "latest" else ()
        if ref.repository != "docker.io/library/busybox":
            old_nslookup = True  # registry.k8s.io/busybox is busybox 1.24
        elif tag_version:
            old_nslookup = tag_version < _version_tuple(old_before)
    files = tuple(
        (path, PAGES.get(content, content)) for path, content in (entry.get("files") or {}).items()
    )
    return ImageFacts(
        key=key,
        ref=ref,
        size_bytes=int(size),
        pull_seconds=float(entry.get("pull", DEFAULT_PULL_SECONDS)),
        entrypoint=tuple(entry.get("entrypoint") or ()),
        cmd=tuple(entry.get("cmd") or ()),
        stop_signal=entry.get("stopSignal", "SIGTERM"),
        shell=shell,
        tools=tools,
        busybox_only=entry.get("binaries") == "busybox",
        extra_binaries=frozenset(entry.get("extraBinaries") or ()),
        missing=frozenset(entry.get("missing") or ()),
        working_dir=entry.get("workingDir", "/"),
        files=files,
        version=version,
        old_nslookup=old_nslookup,
        scripts=tuple((entry.get("scripts") or {}).items()),
    )


def program(name: str) -> dict:
    return PROGRAMS.get(name) or {}
