"""Strategic merge patch, ported from k8s.io/apimachinery/pkg/util/strategicpatch
(patch_test.go: TestCustomStrategicMergePatch, TestStrategicMergePatch's
createStrategicMergePatchTestCaseData and strategicMergePatchRawTestCases), with the test
struct ``MergeItem`` as patch metadata. Descriptions are the Go cases' own; each case
checks the two-way patch, the three-way patch and their results, as the Go test does (lists
with merge semantics compared sorted, as ``sortMergeListsByName`` does there)."""

from __future__ import annotations

import copy

import pytest
import yaml

from webapp.engine.apiserver.patch import (
    PatchError,
    create_three_way_merge_patch,
    create_two_way_merge_patch,
    strategic_merge_patch,
)
from webapp.engine.apiserver.patch.errors import go_value
from webapp.engine.apiserver.patch.meta import Field, Meta


def _merge_item() -> Meta:
    return MERGE_ITEM


def _retain_item() -> Meta:
    return RETAIN_KEYS_MERGE_ITEM


MERGE_ITEM = Meta(
    {
        "mergingList": Field(("merge",), "name", _merge_item),
        "nonMergingList": Field((), "", _merge_item),
        "mergingIntList": Field(("merge",)),
        "mergeItemPtr": Field(("merge",), "name", _merge_item),
        "replacingItem": Field(("replace",)),
        "retainKeysMap": Field(("retainKeys",), "", _retain_item),
        "retainKeysMergingList": Field(("merge", "retainKeys"), "name", _merge_item),
    }
)
RETAIN_KEYS_MERGE_ITEM = Meta(
    {
        "mergingIntList": Field(("merge",)),
        "mergingList": Field(("merge",), "name", _merge_item),
        "nonMergingList": Field((), "", _merge_item),
    }
)


def _sorted(value, meta: Meta):
    """``sortMergeListsByNameMap``: merge lists sorted by key, scalars of merge lists and
    the $retainKeys / $deleteFromPrimitiveList directives sorted."""
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key == "$retainKeys" or key.startswith("$deleteFromPrimitiveList"):
            item = sorted(item, key=go_value)
        elif key.startswith("$setElementOrder") or key == "$patch":
            pass
        else:
            field = meta.lookup(key)
            if isinstance(item, dict):
                item = _sorted(item, field.meta())
            elif isinstance(item, list) and field.strategy == "merge":
                if item and isinstance(item[0], dict):
                    item = sorted((_sorted(i, field.meta()) for i in item),
                                  key=lambda i: go_value(i.get(field.merge_key)))  # fmt: skip
                else:
                    item = sorted(set(item), key=go_value)
        out[key] = item
    return out


CUSTOM_CASES = yaml.safe_load("""
- description: unique scalars when merging lists
  original: {mergingIntList: [1, 2]}
  twoWay: {mergingIntList: [2, 3]}
  modified: {mergingIntList: [1, 2, 3]}
- description: delete map from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {$patch: delete}}
  modified: {simpleMap: {}}
- description: delete all items from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{$patch: replace}]}
  modified: {mergingList: []}
- description: merge empty merging lists
  original: {mergingList: []}
  twoWay: {mergingList: []}
  modified: {mergingList: []}
- description: delete all keys from map
  original: {name: 1, value: 1}
  twoWay: {$patch: replace}
  modified: {}
- description: add key and delete all keys from map
  original: {name: 1, value: 1}
  twoWay: {other: a, $patch: replace}
  modified: {other: a}
- description: delete all duplicate entries in a merging list
  original: {mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 1, $patch: delete},
                         {name: 3, $patch: delete}, {name: 3, $patch: delete}]}
  modified: {mergingList: [{name: 2, value: a}]}
- description: retainKeys map can add a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo}}
  twoWay: {retainKeysMap: {value: bar}}
  modified: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map can change a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {value: b}}
  modified: {retainKeysMap: {name: foo, value: b}}
- description: retainKeys map can delete a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {value: null}}
  modified: {retainKeysMap: {name: foo}}
- description: retainKeys map merge an empty map
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {}}
  modified: {retainKeysMap: {name: foo, value: a}}
- description: retainKeys list can add a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  twoWay: {retainKeysMergingList: [{name: foo, value: a}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list can delete a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay: {retainKeysMergingList: [{name: foo, value: null}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo}]}
""")

ORDERED_CUSTOM_CASES = yaml.safe_load("""
- description: preserve the order from the patch in a merging list
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  twoWay: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]}
  modified: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]}
- description: preserve the order from the patch in a merging list 2
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  twoWay: {mergingList: [{name: 3, value: c}, {name: 1, value: a}]}
  modified: {mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]}
- description: preserve the order from the patch in a merging int list
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {mergingIntList: [3, 1, 2]}
  modified: {mergingIntList: [3, 1, 2]}
- description: preserve the order from the patch in a merging int list 2
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {mergingIntList: [3, 1]}
  modified: {mergingIntList: [2, 3, 1]}
- description: $setElementOrder contains item that is not present in the list to be merged
  original: {mergingList: [{name: 1}, {name: 3}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  modified: {mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}
- description: $setElementOrder contains item that is not present in the int list to be merged
  original: {mergingIntList: [1, 3]}
  twoWay: {$setElementOrder/mergingIntList: [3, 2, 1]}
  modified: {mergingIntList: [3, 1]}
""")

ERROR_CASES = yaml.safe_load("""
- description: should check if order in $setElementOrder and patch list match
  original: {mergingList: [{name: 1}, {name: 3}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  error: doesn't match
- description: $setElementOrder contains item that is not present in the int list to be merged (mismatched order)
  original: {mergingIntList: [1, 3, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 3]
    mergingIntList: [3, 1]
  error: doesn't match
- description: missing merge key should error out
  original: {mergingList: [{name: 1, value: a}]}
  twoWay: {mergingList: [{value: b}]}
  error: does not contain declared merge key
""")


@pytest.mark.parametrize("case", CUSTOM_CASES, ids=lambda c: c["description"])
def test_custom_strategic_merge_patch(case):
    result = strategic_merge_patch(case["original"], case["twoWay"], MERGE_ITEM)
    assert _sorted(result, MERGE_ITEM) == _sorted(case["modified"], MERGE_ITEM)


@pytest.mark.parametrize("case", ORDERED_CUSTOM_CASES, ids=lambda c: c["description"])
def test_custom_strategic_merge_patch_keeps_the_order(case):
    """These cases compare in order: the order of a merged list is what they test."""
    result = strategic_merge_patch(case["original"], case["twoWay"], MERGE_ITEM)
    assert result == case["modified"]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c["description"])
def test_custom_strategic_merge_patch_errors(case):
    with pytest.raises(PatchError, match=case["error"]):
        strategic_merge_patch(case["original"], case["twoWay"], MERGE_ITEM)


CREATE_CASES = yaml.safe_load("""
- description: nil original
  twoWay: {name: 1, value: 1}
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
  result: {name: 1, value: 1, other: a}
- description: nil patch
  original: {name: 1}
  twoWay: {}
  modified: {name: 1}
  current: {name: 1}
  threeWay: {}
  result: {name: 1}
- description: add field to map
  original: {name: 1}
  twoWay: {value: 1}
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field to map with conflict
  original: {name: 1}
  twoWay: {value: 1}
  modified: {name: 1, value: 1}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field and delete field from map
  original: {name: 1}
  twoWay: {name: null, value: 1}
  modified: {value: 1}
  current: {name: 1, other: a}
  threeWay: {name: null, value: 1}
  result: {value: 1, other: a}
- description: delete field from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {key2: null}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: 1, key2: 1, other: a}}
  threeWay: {simpleMap: {key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: delete field from nested map with conflict
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {key2: null}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: a, key2: 1, other: a}}
  threeWay: {simpleMap: {key1: 1, key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: delete all fields from map
  original: {name: 1, value: 1}
  twoWay: {name: null, value: null}
  modified: {}
  current: {name: 1, value: 1, other: a}
  threeWay: {name: null, value: null}
  result: {other: a}
- description: add field and delete all fields from map with conflict
  original: {name: 1, value: 1}
  twoWay: {name: null, value: null, other: a}
  modified: {other: a}
  current: {name: 1, value: 1, other: b}
  threeWay: {name: null, value: null, other: a}
  result: {other: a}
- description: replace list of scalars
  original: {nonMergingIntList: [1, 2]}
  twoWay: {nonMergingIntList: [2, 3]}
  modified: {nonMergingIntList: [2, 3]}
  current: {nonMergingIntList: [1, 2]}
  threeWay: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: replace list of scalars with conflict
  original: {nonMergingIntList: [1, 2]}
  twoWay: {nonMergingIntList: [2, 3]}
  modified: {nonMergingIntList: [2, 3]}
  current: {nonMergingIntList: [1, 4]}
  threeWay: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: delete all maps from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: [{name: 1}, {name: 2}]}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: delete all maps from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: delete all maps from empty merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: []}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: merge empty merging lists
  original: {mergingList: []}
  twoWay: {}
  modified: {mergingList: []}
  current: {mergingList: []}
  threeWay: {}
  result: {mergingList: []}
- description: defined null values should propagate overwrite current fields (with conflict)
  original: {name: 2}
  twoWay: {name: 1, value: 1, other: null}
  twoWayResult: {name: 1, value: 1}
  modified: {name: 1, value: 1, other: null}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1, other: null}
  result: {name: 1, value: 1}
- description: defined null values should propagate removing original fields
  original: {name: original-name, value: original-value}
  current: {name: original-name, value: original-value, other: current-other}
  modified: {name: modified-name, value: null}
  twoWay: {name: modified-name, value: null}
  twoWayResult: {name: modified-name}
  threeWay: {name: modified-name, value: null}
  result: {name: modified-name, other: current-other}
- description: nil patch with retainKeys map
  original: {name: a, retainKeysMap: {name: foo}}
  current: {name: a, value: b, retainKeysMap: {name: foo}}
  modified: {name: a, retainKeysMap: {name: foo}}
  twoWay: {}
  threeWay: {}
  result: {name: a, value: b, retainKeysMap: {name: foo}}
- description: retainKeys map with no change should not be present
  original: {name: a, retainKeysMap: {name: foo}}
  current: {name: a, other: c, retainKeysMap: {name: foo}}
  modified: {name: a, value: b, retainKeysMap: {name: foo}}
  twoWay: {value: b}
  threeWay: {value: b}
  result: {name: a, value: b, other: c, retainKeysMap: {name: foo}}
- description: delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2]
    $deleteFromPrimitiveList/mergingIntList: [3]
  modified: {mergingIntList: [1, 2]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 2]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [1, 2, 4]}
- description: add and delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 4]
    $deleteFromPrimitiveList/mergingIntList: [3]
    mergingIntList: [4]
  modified: {mergingIntList: [1, 2, 4]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 2, 4]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [1, 2, 4]}
- description: merge lists of maps
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  modified: {mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: merge lists of maps with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3, value: 3}]
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: add field to map in merging list
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
""")


@pytest.mark.parametrize("case", CREATE_CASES, ids=lambda c: c["description"])
def test_strategic_merge_patch(case):
    """testTwoWayPatch, testThreeWayPatch and the application of both."""
    original = case.get("original") or {}
    two_way = create_two_way_merge_patch(original, case["modified"], MERGE_ITEM)
    assert _sorted(two_way, MERGE_ITEM) == _sorted(case["twoWay"], MERGE_ITEM)
    expected = case.get("twoWayResult", case["modified"])
    applied = strategic_merge_patch(original, two_way, MERGE_ITEM)
    assert _sorted(applied, MERGE_ITEM) == _sorted(expected, MERGE_ITEM)
    three_way = create_three_way_merge_patch(case.get("original"), case["modified"],
                                             case["current"], MERGE_ITEM)  # fmt: skip
    assert _sorted(three_way, MERGE_ITEM) == _sorted(case["threeWay"], MERGE_ITEM)
    result = strategic_merge_patch(case["current"], three_way, MERGE_ITEM)
    assert result == case["result"]


def test_the_inputs_are_not_changed():
    case = CREATE_CASES[-2]
    before = copy.deepcopy(case)
    patch = create_three_way_merge_patch(
        case["original"], case["modified"], case["current"], MERGE_ITEM
    )
    strategic_merge_patch(case["current"], patch, MERGE_ITEM)
    assert case == before


def test_a_list_without_its_merge_key_is_refused_with_the_api_servers_message():
    """``Error from server: map: map[image:nginx] does not contain declared merge key: name``
    (mergepatch.ErrNoMergeKey; the API server answers a plain error as a 500 Status)."""
    from webapp.engine.apiserver.patch.meta import for_kind

    pod = {"spec": {"containers": [{"name": "app", "image": "nginx:1.14.2"}]}}
    with pytest.raises(PatchError) as raised:
        strategic_merge_patch(pod, {"spec": {"containers": [{"image": "nginx"}]}}, for_kind("Pod"))
    assert str(raised.value) == "map: map[image:nginx] does not contain declared merge key: name"
    status = raised.value.status()
    assert status["code"] == 500 and "reason" not in status
    assert status["message"] == str(raised.value)


def test_go_value_prints_as_fmt_v():
    assert (
        go_value({"b": [1, 2.5, True, None], "a": {"x": "y"}})
        == "map[a:map[x:y] b:[1 2.5 true <nil>]]"
    )
