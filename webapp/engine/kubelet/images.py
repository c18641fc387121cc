"""Image pulls: ``pkg/kubelet/images/image_manager.go`` EnsureImageExists and pullImage.

Per-node image cache, pull policies Always / IfNotPresent / Never, the pull backoff keyed
``<podUID>_<image>`` measured from the failed pull (IsInBackOffSinceUpdate), and the exact
event texts of KUBERNETES-SEMANTICS §4 and §10.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from webapp.engine.core.timefmt import go_duration
from webapp.engine.kubelet.registry_tags import tag_published
from webapp.engine.programs import image_facts

ERR_IMAGE_PULL = "ErrImagePull"
IMAGE_PULL_BACKOFF = "ImagePullBackOff"
ERR_IMAGE_NEVER_PULL = "ErrImageNeverPull"


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What the registry holds for one reference."""

    pull_ms: int  # a pull that downloads the layers
    check_ms: int  # a pull whose layers are all present already (policy Always)
    size_bytes: int
    exists: bool
    image_id: str


@dataclass(frozen=True, slots=True)
class PullResult:
    """EnsureImageExists' answer: an image ID, or a waiting reason and message."""

    image_id: str = ""
    reason: str = ""
    message: str = ""
    backoff_seconds: float | None = None  # ImagePullBackOff: the image back-off window

    @property
    def ok(self) -> bool:
        return not self.reason


def normalize_reference(image: str) -> str:
    """containerd's fully qualified reference: ``nginx`` → ``docker.io/library/nginx:latest``."""
    name, at, digest = image.partition("@")
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = "docker.io/library/" + name
    elif not ("." in first or ":" in first or first == "localhost"):
        name = "docker.io/" + name
    if not at and ":" not in name.rsplit("/", 1)[-1]:
        name += ":latest"
    return name + at + digest


def default_pull_policy(image: str) -> str:
    """API defaulting: Always for ``:latest`` or an untagged image, else IfNotPresent."""
    name = image.partition("@")[0]
    if "@" in image:
        return "IfNotPresent"
    tag = name.rsplit("/", 1)[-1].partition(":")[2]
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def not_found_error(image: str) -> str:
    """containerd's error for a reference the registry does not have."""
    ref = normalize_reference(image)
    return (
        f'rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": '
        f'failed to resolve reference "{ref}": {ref}: not found'
    )


def image_exists(image: str, listed: object = None) -> bool:
    """Does the registry hold ``image``? The scenario's ``images: {IMAGE: {exists}}`` first,
    then the published tags of a well-known image (``registry_tags.yaml``: ``nginx:1.161``
    is no tag of nginx, so the pull fails with containerd's ``not found``); any other
    image exists."""
    if listed is not None:
        return bool(listed)
    published = tag_published(image)
    return True if published is None else published


class ImageRegistry:
    """The scenario's ``images`` plus generated facts for unlisted images (seeded)."""

    def __init__(self, listed: dict[str, dict], rng: random.Random) -> None:
        self._listed = listed
        self._rng = rng
        self._known: dict[str, ImageInfo] = {}

    def info(self, image: str) -> ImageInfo:
        known = self._known.get(image)
        if known is None:
            known = self._known[image] = self._describe(image)
        return known

    def _describe(self, image: str) -> ImageInfo:
        rng = self._rng
        listed = self._listed.get(image) or {}
        facts = image_facts(image)  # the catalogue's size and pull time of well-known images
        pull_ms = listed.get("pullSeconds")
        if pull_ms is None:
            drawn = rng.randint(1_500, 4_500)
            pull_ms = drawn
            if facts.pull_seconds is not None:  # jittered by the same draw: ±150 ms
                pull_ms = round(facts.pull_seconds * 1000) + (drawn - 3_000) // 10
        else:
            pull_ms = round(float(pull_ms) * 1000)
        size_mib = listed.get("sizeMiB")
        if size_mib is None:
            size_bytes = rng.randint(20, 200) * 1_048_576 + rng.randint(0, 1_048_575)
            if facts.size_bytes is not None:
                size_bytes = facts.size_bytes
        else:
            size_bytes = int(size_mib) * 1_048_576
        digest = f"{rng.getrandbits(256):064x}"
        repo = normalize_reference(image).partition("@")[0].rpartition(":")[0]
        return ImageInfo(
            pull_ms=pull_ms,
            check_ms=min(pull_ms, rng.randint(300, 900)),
            size_bytes=size_bytes,
            exists=image_exists(image, listed.get("exists")),
            image_id=f"{repo}@sha256:{digest}",
        )


def pulled_message(image: str, pull_ms: int, total_ms: int, size_bytes: int) -> str:
    return (
        f'Successfully pulled image "{image}" in {go_duration(pull_ms)} '
        f"({go_duration(total_ms)} including waiting). Image size: {size_bytes} bytes."
    )


def already_present_message(image: str) -> str:
    return f'Container image "{image}" already present on machine'


def never_pull_message(image: str) -> str:
    return f'Container image "{image}" is not present with pull policy of Never'
