"""`kubectl get pod -o yaml`.

kubectl turns the object's JSON into YAML with sigs.k8s.io/yaml, which decodes it into
plain maps and encodes them with go-yaml v2. So, unlike the JSON, keys come out sorted
(go-yaml's order: by character, digits runs compared as numbers, non-letters before
letters); sequences in a mapping are not indented; a string that would read back as
another type (`"true"`, `"8080"`, a timestamp, `""`) is double-quoted; a string with a
newline is a literal block; long strings fold at 80 columns.
"""

from __future__ import annotations

import functools
from typing import Any

import yaml

_STR_TAG = "tag:yaml.org,2002:str"
_GO_YAML_EXTRA_BOOLS = {"y", "Y", "n", "N"}  # YAML 1.1 booleans PyYAML does not resolve


def _go_yaml_key_less(a: str, b: str) -> bool:
    """go-yaml v2 keyList.Less for two string keys."""
    for i in range(min(len(a), len(b))):
        if a[i] == b[i]:
            continue
        a_letter, b_letter = a[i].isalpha(), b[i].isalpha()
        if a_letter and b_letter:
            return a[i] < b[i]
        if a_letter or b_letter:
            return b_letter
        a_number, b_number = 0, 0
        if a[i] == "0" or b[i] == "0":
            j = i - 1
            while j >= 0 and a[j].isdigit():
                if a[j] != "0":
                    a_number, b_number = 1, 1
                    break
                j -= 1
        a_end, b_end = i, i
        while a_end < len(a) and a[a_end].isdigit():
            a_number = a_number * 10 + int(a[a_end])
            a_end += 1
        while b_end < len(b) and b[b_end].isdigit():
            b_number = b_number * 10 + int(b[b_end])
            b_end += 1
        if a_number != b_number:
            return a_number < b_number
        if a_end != b_end:
            return a_end < b_end
        return a[i] < b[i]
    return len(a) < len(b)


def _compare_keys(a: Any, b: Any) -> int:
    a_text, b_text = str(a), str(b)
    if _go_yaml_key_less(a_text, b_text):
        return -1
    return 1 if _go_yaml_key_less(b_text, a_text) else 0


_go_yaml_key = functools.cmp_to_key(_compare_keys)


class _KubectlDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """SafeDumper with go-yaml v2's choices for key order and string quoting."""


def _represent_mapping(dumper: _KubectlDumper, data: dict[Any, Any]) -> yaml.Node:
    items = list(data.items())
    if dumper.sort_keys:
        items.sort(key=lambda item: _go_yaml_key(item[0]))
    return dumper.represent_mapping("tag:yaml.org,2002:map", items)


def _represent_str(dumper: _KubectlDumper, data: str) -> yaml.Node:
    if "\n" in data:
        return dumper.represent_scalar(_STR_TAG, data, style="|")
    resolved = dumper.resolve(yaml.ScalarNode, data, (True, False))
    if resolved != _STR_TAG or data in _GO_YAML_EXTRA_BOOLS:
        return dumper.represent_scalar(_STR_TAG, data, style='"')
    return dumper.represent_scalar(_STR_TAG, data)


_KubectlDumper.add_representer(dict, _represent_mapping)
_KubectlDumper.add_representer(str, _represent_str)


def pod_yaml(pod: dict[str, Any], *, sort_keys: bool = True) -> str:
    """The Pod as `kubectl get pod -o yaml` prints it.

    sort_keys=False keeps the keys in the order of the given dict (the API's JSON field
    order), which kubectl itself never shows but a reader may find easier to follow.
    """
    return yaml.dump(
        pod,
        Dumper=_KubectlDumper,
        default_flow_style=False,
        allow_unicode=True,
        width=80,
        sort_keys=sort_keys,
    )
