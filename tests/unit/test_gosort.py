"""Go's sort.Sort (webapp/kubectl/gosort.py): it sorts, whatever the input; equal elements
keep their order up to 12 (insertion sort) and not beyond, as in Go. Which order beyond is
checked against the real kubectl: tests/kubeapi/test_terminal.py, `kubectl events`."""

from __future__ import annotations

import random

import pytest

from webapp.kubectl.gosort import go_sort


@pytest.mark.parametrize("n", [0, 1, 2, 12, 13, 49, 50, 51, 200, 1000])
@pytest.mark.parametrize("kind", ["random", "sorted", "reversed", "few keys", "one key"])
def test_it_sorts(n: int, kind: str) -> None:
    rng = random.Random(n)
    keys = {
        "random": [rng.random() for _ in range(n)],
        "sorted": list(range(n)),
        "reversed": list(range(n, 0, -1)),
        "few keys": [rng.randrange(3) for _ in range(n)],
        "one key": [7] * n,
    }[kind]
    items = list(enumerate(keys))
    go_sort(items, lambda a, b: a[1] < b[1])
    assert [k for _, k in items] == sorted(keys)
    assert sorted(i for i, _ in items) == list(range(n))  # a permutation


def test_up_to_twelve_equal_elements_keep_their_order() -> None:
    items = [(i, 0) for i in range(12)]
    go_sort(items, lambda a, b: a[1] < b[1])
    assert [i for i, _ in items] == list(range(12))


def test_beyond_twelve_it_is_not_stable() -> None:
    items = [(i, i % 2) for i in range(40)]
    go_sort(items, lambda a, b: a[1] < b[1])
    evens = [i for i, k in items if k == 0]
    assert evens != sorted(evens)
