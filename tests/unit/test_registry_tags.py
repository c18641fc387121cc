"""The registries' published tags of the well-known images (kubelet/registry_tags.yaml):
a tag that is not published fails to pull with containerd's ``not found``; an image the
snapshot does not list keeps the older rule (it exists unless the scenario says not)."""

from __future__ import annotations

import random

import pytest

from webapp.engine.kubelet.images import ImageRegistry, image_exists
from webapp.engine.kubelet.registry_tags import published_repositories, tag_published


@pytest.mark.parametrize(
    ("image", "published"),
    [
        ("nginx:1.14.2", True),  # deployment.md
        ("nginx:1.16.1", True),
        ("nginx:1.161", False),  # deployment.md's typo
        ("nginx:1.16", True),
        ("nginx:1", True),
        ("nginx", True),  # latest
        ("nginx:latest", True),
        ("nginx:1.27-alpine", True),
        ("nginx:stable-alpine", True),
        ("nginx:mainline-perl", True),
        ("nginx:1.27.99", False),
        ("nginx:9.99", False),
        ("nginx:latest-alpine", False),
        ("docker.io/library/nginx:1.27", True),
        ("busybox:1.28", True),
        ("busybox:1.36", True),
        ("busybox:1.36.1-glibc", True),
        ("busybox:1.288", False),
        ("perl:5.34.0", True),  # the Job page
        ("perl:5.34.0-slim", True),
        ("perl:5.35.0", False),  # development releases are not tagged
        ("python:3", True),
        ("python:3.12-slim-bookworm", True),
        ("python:3.99", False),
        ("httpd:2.4", True),
        ("httpd:2.4.3", False),  # before the official image
        ("redis:7.2-alpine", True),
        ("redis", True),
        ("registry.k8s.io/nginx-slim:0.24", True),  # statefulset.md
        ("registry.k8s.io/nginx-slim:0.8", True),
        ("registry.k8s.io/nginx-slim:1.0", False),
        ("registry.k8s.io/pause:3.9", True),
        ("registry.k8s.io/busybox", True),
        ("registry.k8s.io/busybox:1.27.2", True),  # configure-pod-configmap.md
        ("registry.k8s.io/busybox:1.27.3", False),
        ("registry.k8s.io/e2e-test-images/agnhost:2.40", True),
        ("registry.k8s.io/e2e-test-images/agnhost:2.400", False),
        # not listed: the older rule
        ("debian:12", None),
        ("registry.example.com/shop/frontend:2.4.0", None),
        ("nginx@sha256:" + "0" * 64, None),  # by digest: not checked
    ],
)
def test_tag_published(image: str, published: bool | None) -> None:
    assert tag_published(image) is published


def test_the_scenario_s_images_entry_wins_over_the_snapshot() -> None:
    assert image_exists("nginx:1.161") is False
    assert image_exists("nginx:1.161", True) is True  # a scenario may say it exists
    assert image_exists("nginx:1.27", False) is False
    assert image_exists("debian:12") is True  # unknown images exist


def test_the_registry_draws_the_same_facts_whatever_the_tag_list_says() -> None:
    """The tag check reads no randomness: runs that pull published tags are unchanged."""
    one = ImageRegistry({}, random.Random(7)).info("nginx:1.161")
    two = ImageRegistry({"nginx:1.161": {"exists": True}}, random.Random(7)).info("nginx:1.161")
    assert not one.exists and two.exists
    assert (one.pull_ms, one.check_ms, one.size_bytes, one.image_id) == (
        two.pull_ms, two.check_ms, two.size_bytes, two.image_id
    )  # fmt: skip


def test_the_snapshot_lists_the_images_the_docs_use() -> None:
    assert {
        "docker.io/library/nginx", "docker.io/library/busybox", "docker.io/library/perl",
        "docker.io/library/python", "docker.io/library/httpd", "docker.io/library/redis",
        "registry.k8s.io/nginx-slim", "registry.k8s.io/pause", "registry.k8s.io/busybox",
    } <= set(published_repositories())  # fmt: skip
