"""Strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch, patch.go): apply
(``StrategicMergeMapPatch``, the API server's side), ``CreateTwoWayMergeMapPatch`` and
kubectl apply's ``CreateThreeWayMergePatch`` (with overwrite, as ``kubectl apply`` calls
it). Lists tagged ``merge`` are merged by their merge key; the directives ``$patch``
(replace / delete / merge), ``$retainKeys``, ``$setElementOrder/<list>`` and
``$deleteFromPrimitiveList/<list>`` mean what they mean there. Each function here is named
after its Go counterpart and keeps its order of operations (the order of merged lists
depends on it). Inputs are never changed: everything works on copies.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

from webapp.engine.apiserver.patch import errors as e
from webapp.engine.apiserver.patch.errors import PatchError, go_value
from webapp.engine.apiserver.patch.merge_patch import same
from webapp.engine.apiserver.patch.meta import Field, Meta

DIRECTIVE_MARKER = "$patch"
DELETE_DIRECTIVE = "delete"
REPLACE_DIRECTIVE = "replace"
MERGE_DIRECTIVE = "merge"
RETAIN_KEYS_DIRECTIVE = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER_PREFIX = "$setElementOrder"


@dataclass(frozen=True)
class DiffOptions:
    set_element_order: bool = False
    ignore_changes_and_additions: bool = False
    ignore_deletions: bool = False
    build_retain_keys_directive: bool = False


@dataclass(frozen=True)
class MergeOptions:
    merge_parallel_list: bool = False
    ignore_unmatched_nulls: bool = False


# -- public entry points ------------------------------------------------------------------


def strategic_merge_patch(original: dict, patch: dict, meta: Meta) -> dict:
    """``StrategicMergeMapPatch``: ``patch`` applied to ``original`` (server side)."""
    if not isinstance(original, dict) or not isinstance(patch, dict):
        raise PatchError(e.ERR_BAD_JSON_DOC)
    options = MergeOptions(merge_parallel_list=True, ignore_unmatched_nulls=True)
    return _merge_map(copy.deepcopy(original), copy.deepcopy(patch), meta, options)


def create_two_way_merge_patch(original: dict, modified: dict, meta: Meta) -> dict:
    """``CreateTwoWayMergeMapPatch``: the patch that yields ``modified`` from ``original``."""
    return _diff_maps(copy.deepcopy(original), copy.deepcopy(modified), meta,
                      DiffOptions(set_element_order=True))  # fmt: skip


def create_three_way_merge_patch(
    original: dict | None, modified: dict, current: dict, meta: Meta
) -> dict:
    """``CreateThreeWayMergePatch(original, modified, current, overwrite=true)``: the
    changes from ``current`` to ``modified`` without deletions, plus the deletions from
    ``original`` (the last applied configuration) to ``modified``."""
    original = copy.deepcopy(original or {})
    modified = copy.deepcopy(modified)
    current = copy.deepcopy(current)
    delta = _diff_maps(current, modified, meta,
                       DiffOptions(ignore_deletions=True, set_element_order=True))  # fmt: skip
    deletions = _diff_maps(original, modified, meta,
                           DiffOptions(set_element_order=True, ignore_changes_and_additions=True))  # fmt: skip
    return _merge_map(deletions, delta, meta, MergeOptions())


# -- values as Go sees them ---------------------------------------------------------------


def _kind(value: Any) -> str:
    """reflect.TypeOf(v).Kind() of a decoded JSON value."""
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64"
    return "string"


def _go_eq(left: Any, right: Any) -> bool:
    """Go's ``==`` on two interface{} values holding scalars."""
    return _kind(left) == _kind(right) and (left == right)


def _slice_element_kind(*slices: list) -> str:
    """``sliceElementType``: the one kind of every element of the slices."""
    previous = None
    for items in slices:
        for value in items:
            kind = _kind(value)
            if previous is None:
                previous = kind
                if kind == "slice":
                    raise PatchError(e.ERR_NO_LIST_OF_LISTS)
            elif previous != kind:
                shown = "[" + " ".join(go_value(s) for s in slices) + "]"
                raise PatchError(f"list element types are not identical: {shown}")
    if previous is None:
        raise PatchError("no elements in any of the given slices")
    return previous


def _sort_scalars(items: list) -> list:
    return sorted(items, key=go_value)


def _deduplicate_scalars(items: list) -> list:
    """``deduplicateScalars``, its order included (a duplicate takes the last element)."""
    s = list(items)
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if _go_eq(s[i], s[j]):
                s[j] = s[length]
                s = s[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s


def _stable_sort(items: list, less: Any) -> list:
    """``sort.SliceStable`` with a comparator that may not be a strict order: Go's insertion
    sort (which it uses for up to 20 items) so the result is Go's."""
    s = list(items)
    if len(s) > 20:
        import functools

        return sorted(
            s, key=functools.cmp_to_key(lambda a, b: -1 if less(a, b) else 1 if less(b, a) else 0)
        )
    for i in range(1, len(s)):
        j = i
        while j > 0 and less(s[j], s[j - 1]):
            s[j], s[j - 1] = s[j - 1], s[j]
            j -= 1
    return s


# -- diff ---------------------------------------------------------------------------------


def _diff_maps(original: dict, modified: dict, meta: Meta, options: DiffOptions) -> dict:
    """``diffMaps``."""
    patch: dict[str, Any] = {}
    retain_keys: list[str] = []
    for key, modified_value in modified.items():
        if options.build_retain_keys_directive and modified_value is not None:
            retain_keys.append(key)
        if key not in original:
            if not options.ignore_changes_and_additions:
                patch[key] = modified_value
            continue
        original_value = original[key]
        if key == DIRECTIVE_MARKER:  # handleDirectiveMarker
            if not isinstance(original_value, str) or not isinstance(modified_value, str):
                raise PatchError(f"invalid value for special key: {DIRECTIVE_MARKER}")
            if original_value != modified_value:
                patch[DIRECTIVE_MARKER] = modified_value
            continue
        if _kind(original_value) != _kind(modified_value):
            if not options.ignore_changes_and_additions:
                patch[key] = modified_value
            continue
        if isinstance(original_value, dict):
            _handle_map_diff(key, original_value, modified_value, patch, meta, options)
        elif isinstance(original_value, list):
            _handle_slice_diff(key, original_value, modified_value, patch, meta, options)
        else:
            _replace_patch_field_if_not_equal(key, original_value, modified_value, patch, options)
    if not options.ignore_deletions:  # updatePatchIfMissing
        for key in original:
            if key not in modified:
                patch[key] = None
    if retain_keys and (patch or _has_additional_new_field(original, modified)):
        patch[RETAIN_KEYS_DIRECTIVE] = _sort_scalars(retain_keys)
    return patch


def _has_additional_new_field(original: dict, modified: dict) -> bool:
    return any(v is not None and k not in modified for k, v in original.items())


def _replace_patch_field_if_not_equal(
    key: str, original: Any, modified: Any, patch: dict, options: DiffOptions
) -> None:
    if options.ignore_changes_and_additions or same(original, modified):
        return
    patch[key] = modified


def _handle_map_diff(
    key: str, original: dict, modified: dict, patch: dict, meta: Meta, options: DiffOptions
) -> None:
    field = meta.lookup(key)
    options = replace(options, build_retain_keys_directive=field.retain_keys)
    if field.strategy == REPLACE_DIRECTIVE:
        if not options.ignore_changes_and_additions:
            patch[key] = modified
        return
    value = _diff_maps(original, modified, field.meta(), options)
    if value:
        patch[key] = value


def _handle_slice_diff(
    key: str, original: list, modified: list, patch: dict, meta: Meta, options: DiffOptions
) -> None:
    field = meta.lookup(key)
    if field.strategy != MERGE_DIRECTIVE:
        _replace_patch_field_if_not_equal(key, original, modified, patch, options)
        return
    options = replace(options, build_retain_keys_directive=field.retain_keys)
    add, deletions, order = _diff_lists(original, modified, field, options)
    if add:
        patch[key] = add
    if deletions:
        patch[f"{DELETE_FROM_PRIMITIVE_LIST_PREFIX}/{key}"] = deletions
    if order:
        patch[f"{SET_ELEMENT_ORDER_PREFIX}/{key}"] = order


def _diff_lists(
    original: list, modified: list, field: Field, options: DiffOptions
) -> tuple[list, list, list]:
    """``diffLists``: (patch list, parallel deletion list, $setElementOrder list)."""
    merge_key = field.merge_key
    if not original:
        if not modified or options.ignore_changes_and_additions:
            return [], [], []
        return modified, [], []
    kind = _slice_element_kind(original, modified)
    order: list = []
    if kind == "map":
        patch_list, delete_list = _diff_lists_of_maps(original, modified, field, options)
        patch_list = _normalize_slice_order(patch_list, modified, merge_key, kind)
        order_same = _is_order_same(original, modified, merge_key)
        patch_list = patch_list + delete_list
        delete_list = []
        if options.set_element_order and (
            (not options.ignore_changes_and_additions and (patch_list or not order_same))
            or (not options.ignore_deletions and patch_list)
        ):
            order = [{merge_key: item[merge_key]} for item in modified]
        return patch_list, delete_list, order
    if kind == "slice":
        raise PatchError(e.ERR_NO_LIST_OF_LISTS)
    patch_list, delete_list = _diff_lists_of_scalars(original, modified, options)
    patch_list = _normalize_slice_order(patch_list, modified, merge_key, kind)
    if options.set_element_order and (
        (not options.ignore_deletions and delete_list)
        or (not options.ignore_changes_and_additions and not same(original, modified))
    ):
        order = modified
    return patch_list, delete_list, order


def _is_order_same(original: list, modified: list, merge_key: str) -> bool:
    if len(original) != len(modified):
        return False
    return all(
        _merge_key_value_equal(a, b, merge_key) for a, b in zip(original, modified, strict=True)
    )


def _diff_lists_of_scalars(
    original: list, modified: list, options: DiffOptions
) -> tuple[list, list]:
    originals = _sort_scalars(original)
    modifieds = _sort_scalars(modified)
    i = j = 0
    add: list = []
    deletions: list = []
    while i < len(originals) or j < len(modifieds):
        if i < len(originals) and j < len(modifieds):
            left, right = go_value(originals[i]), go_value(modifieds[j])
            if left == right:
                i += 1
                j += 1
                continue
            removed = left < right
        else:
            removed = j >= len(modifieds)
        if removed:
            if not options.ignore_deletions:
                deletions.append(originals[i])
            i += 1
        else:
            if not options.ignore_changes_and_additions:
                add.append(modifieds[j])
            j += 1
    return add, _deduplicate_scalars(deletions)


def _sort_merge_list_by_name(items: list, merge_key: str) -> list:
    """``sortMergeListsByNameArray`` without recursion."""
    if not items:
        return items
    if _slice_element_kind(items) != "map":
        return _sort_scalars(_deduplicate_scalars(items))
    return sorted(items, key=lambda item: go_value(item.get(merge_key)))


def _diff_lists_of_maps(
    original: list, modified: list, field: Field, options: DiffOptions
) -> tuple[list, list]:
    merge_key = field.merge_key
    originals = _sort_merge_list_by_name(original, merge_key)
    modifieds = _sort_merge_list_by_name(modified, merge_key)
    patch: list = []
    deletions: list = []
    i = j = 0
    while i < len(originals) or j < len(modifieds):
        left = right = None
        if i < len(originals):
            left_item, left = _map_and_merge_key(originals[i], merge_key)
        if j < len(modifieds):
            right_item, right = _map_and_merge_key(modifieds[j], merge_key)
        both = i < len(originals) and j < len(modifieds)
        if both and go_value(left) == go_value(right):
            value = _diff_maps(left_item, right_item, field.meta(), options)
            if value:
                value[merge_key] = right
                patch.append(value)
            i += 1
            j += 1
        elif i >= len(originals) or (both and go_value(left) > go_value(right)):
            if not options.ignore_changes_and_additions:
                patch.append(right_item)
            j += 1
        else:
            if not options.ignore_deletions:
                deletions.append({merge_key: left, DIRECTIVE_MARKER: DELETE_DIRECTIVE})
            i += 1
    return patch, deletions


def _map_and_merge_key(item: Any, merge_key: str) -> tuple[dict, Any]:
    if not isinstance(item, dict):
        raise e.err_bad_arg_type({}, item)
    if merge_key not in item:
        raise e.err_no_merge_key(item, merge_key)
    return item, item[merge_key]


# -- order --------------------------------------------------------------------------------


def _index(items: list, value: Any, merge_key: str, kind: str) -> int:
    def key_of(item: Any) -> Any:
        if kind == "map":
            return item.get(merge_key) if isinstance(item, dict) else None
        return item

    wanted = key_of(value)
    for position, item in enumerate(items):
        if _go_eq(wanted, key_of(item)):
            return position
    return -1


def _validate_merge_key_in_lists(merge_key: str, *lists: list) -> None:
    for items in lists:
        for item in items:
            if not isinstance(item, dict):
                raise e.err_bad_arg_type({}, item)
            if merge_key not in item:
                raise e.err_no_merge_key(item, merge_key)


def _extract_to_delete_items(items: list) -> tuple[list, list]:
    keep: list = []
    delete: list = []
    for item in items:
        if not isinstance(item, dict):
            raise e.err_bad_arg_type({}, item)
        if DIRECTIVE_MARKER in item and _go_eq(item[DIRECTIVE_MARKER], DELETE_DIRECTIVE):
            delete.append(item)
        else:
            keep.append(item)
    return keep, delete


def _normalize_slice_order(to_sort: list, order: list, merge_key: str, kind: str) -> list:
    delete: list = []
    if kind == "map":
        _validate_merge_key_in_lists(merge_key, to_sort, order)
        to_sort, delete = _extract_to_delete_items(to_sort)

    def less(a: Any, b: Any) -> bool:
        ia = _index(order, a, merge_key, kind)
        if ia >= 0:
            ib = _index(order, b, merge_key, kind)
            if ib >= 0:
                return ia < ib
        return True

    return _stable_sort(to_sort, less) + delete


def _merge_sorted_slice(
    left: list, right: list, server_order: list, merge_key: str, kind: str
) -> list:
    """``mergeSortedSlice``: the server-only items (left) put among the patch's (right)."""
    merged: list = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            merged.append(right[j])
            j += 1
        elif j >= len(right):
            merged.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], merge_key, kind)
            ri = _index(server_order, right[j], merge_key, kind)
            if li >= 0 and ri >= 0 and li < ri:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
    return merged


def _normalize_element_order(
    patch: list, server_only: list, patch_order: list, server_order: list, merge_key: str, kind: str
) -> list:
    patch = _normalize_slice_order(patch, patch_order, merge_key, kind)
    server_only = _normalize_slice_order(server_only, server_order, merge_key, kind)
    return _merge_sorted_slice(server_only, patch, server_order, merge_key, kind)


def _partition_primitives(items: list, by: list) -> tuple[list, list]:
    inside, outside = [], []
    for item in items:
        (inside if any(_go_eq(item, b) for b in by) else outside).append(item)
    return inside, outside


def _partition_maps(items: list, by: list, merge_key: str) -> tuple[list, list]:
    inside, outside = [], []
    for item in items:
        if not isinstance(item, dict):
            raise e.err_bad_arg_type({}, item)
        if merge_key not in item:
            raise e.err_no_merge_key(item, merge_key)
        found = _find_map(by, merge_key, item[merge_key])[0] >= 0
        (inside if found else outside).append(item)
    return inside, outside


def _find_map(items: list, key: str, value: Any) -> tuple[int, dict | None]:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise PatchError(f"value for key {position} is not a map.")
        if key in item and _go_eq(item[key], value):
            return position, item
    return -1, None


def _merge_key_value_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _go_eq(left, right)
    if not isinstance(left, dict):
        raise e.err_bad_arg_type({}, left)
    if not isinstance(right, dict):
        raise e.err_bad_arg_type({}, right)
    if merge_key not in left:
        raise e.err_no_merge_key(left, merge_key)
    if merge_key not in right:
        raise e.err_no_merge_key(right, merge_key)
    return _go_eq(left[merge_key], right[merge_key])


# -- merge --------------------------------------------------------------------------------


def _extract_key(key: str, prefix: str) -> str:
    parts = key.split("/", 1)
    if len(parts) <= 1 or parts[0] != prefix:
        if prefix == DELETE_FROM_PRIMITIVE_LIST_PREFIX:
            raise PatchError(e.ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
        raise PatchError(e.ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
    return parts[1]


def _merge_map(original: dict | None, patch: dict, meta: Meta, options: MergeOptions) -> dict:
    """``mergeMap``: ``patch`` merged into ``original`` (both may be changed)."""
    if DIRECTIVE_MARKER in patch:  # handleDirectiveInMergeMap
        directive = patch[DIRECTIVE_MARKER]
        if _go_eq(directive, REPLACE_DIRECTIVE):
            del patch[DIRECTIVE_MARKER]
            return patch
        if _go_eq(directive, DELETE_DIRECTIVE):
            return {}
        raise e.err_bad_patch_type(directive, patch)
    if original is None:
        original = {}
    _apply_retain_keys_directive(original, patch, options)
    _merge_patch_into_original(original, patch, meta, options)
    for key, patch_value in list(patch.items()):
        delete_list = False
        if key.startswith(DELETE_FROM_PRIMITIVE_LIST_PREFIX):
            if not options.merge_parallel_list:
                original[key] = patch_value
                continue
            key = _extract_key(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX)
            delete_list = True
        if patch_value is None:
            original.pop(key, None)
            if options.ignore_unmatched_nulls:
                continue
        if key not in original:
            original[key] = patch_value
            continue
        if _kind(original[key]) != _kind(patch_value):
            original[key] = patch_value
            continue
        field = meta.lookup(key)
        if isinstance(patch_value, dict):
            if field.strategy != REPLACE_DIRECTIVE:
                original[key] = _merge_map(original[key], patch_value, field.meta(), options)
            else:
                original[key] = patch_value
        elif isinstance(patch_value, list):
            original[key] = _merge_slice_handler(
                original[key], patch_value, field, delete_list, options
            )
        else:
            original[key] = patch_value
    return original


def _merge_slice_handler(
    original: list, patch: list, field: Field, delete_list: bool, options: MergeOptions
) -> list:
    if field.strategy == MERGE_DIRECTIVE:
        return _merge_slice(original, patch, field, options, delete_list)
    return patch


def _apply_retain_keys_directive(original: dict, patch: dict, options: MergeOptions) -> None:
    if RETAIN_KEYS_DIRECTIVE not in patch:
        return
    retain = patch.pop(RETAIN_KEYS_DIRECTIVE)
    if not options.merge_parallel_list:
        if RETAIN_KEYS_DIRECTIVE in original:
            if not same(original[RETAIN_KEYS_DIRECTIVE], retain):
                raise PatchError(
                    f"{go_value(original[RETAIN_KEYS_DIRECTIVE])} and {go_value(retain)} are not "
                    "deep equal: this may happen when calculating the 3-way diff patch"
                )
        else:
            original[RETAIN_KEYS_DIRECTIVE] = retain
        return
    if not isinstance(retain, list):
        raise PatchError(e.ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    kept = {go_value(k) for k in retain if isinstance(k, str)}
    for key, value in patch.items():
        if value is None or key.startswith(
            (DELETE_FROM_PRIMITIVE_LIST_PREFIX, SET_ELEMENT_ORDER_PREFIX)
        ):
            continue
        if key not in kept:
            raise PatchError(e.ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    for key in list(original):
        if key not in kept:
            del original[key]


def _merge_patch_into_original(
    original: dict, patch: dict, meta: Meta, options: MergeOptions
) -> None:
    """``mergePatchIntoOriginal``: the ``$setElementOrder/<list>`` directives."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER_PREFIX)]:
        order = patch[key]
        if not options.merge_parallel_list:
            if key in original:
                if not same(original[key], order):
                    raise PatchError(e.ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
            else:
                original[key] = order
        del patch[key]
        if not isinstance(order, list):
            raise e.err_bad_arg_type([], order)
        list_key = _extract_key(key, SET_ELEMENT_ORDER_PREFIX)
        found_original, found_patch = list_key in original, list_key in patch
        original_list: list = []
        patch_list: list = []
        if found_original:
            if not isinstance(original[list_key], list):
                raise e.err_bad_arg_type([], original[list_key])
            original_list = original[list_key]
        if found_patch:
            if not isinstance(patch[list_key], list):
                raise e.err_bad_arg_type([], patch[list_key])
            patch_list = patch[list_key]
        field = meta.lookup(list_key)
        _validate_patch_with_set_order_list(patch_list, order, field.merge_key)
        if found_original and not found_patch:
            merged = original_list
        elif found_patch and not found_original:
            merged = patch_list
        elif found_original and found_patch:
            merged = _merge_slice_handler(original_list, patch_list, field, False, options)
        else:
            continue
        if not field.merge_key:
            items, server_only = _partition_primitives(merged, order)
        else:
            items, server_only = _partition_maps(merged, order, field.merge_key)
        kind = _slice_element_kind(original_list, patch_list)
        original[list_key] = _normalize_element_order(items, server_only, order, original_list,
                                                      field.merge_key, kind)  # fmt: skip
        patch.pop(list_key, None)


def _validate_patch_with_set_order_list(patch_list: list, order: list, merge_key: str) -> None:
    if not order or not patch_list:
        return
    if merge_key:
        keep, _ = _extract_to_delete_items(patch_list)
    else:
        keep = patch_list
    p = o = 0
    while p < len(keep) and o < len(order):
        if isinstance(keep[p], dict) and DIRECTIVE_MARKER in keep[p]:
            p += 1
            continue
        if _merge_key_value_equal(keep[p], order[o], merge_key):
            p += 1
        o += 1
    if p < len(keep) and o >= len(order):
        raise PatchError(
            f"The order in patch list:\n{go_value(patch_list)}\n doesn't match "
            f"{SET_ELEMENT_ORDER_PREFIX} list:\n{go_value(order)}\n"
        )


def _merge_slice(
    original: list, patch: list, field: Field, options: MergeOptions, delete_list: bool
) -> list:
    """``mergeSlice``."""
    if not original and not patch:
        return original
    merge_key = field.merge_key
    kind = _slice_element_kind(original, patch)
    if kind != "map":
        if options.merge_parallel_list and delete_list:
            return [v for v in original if not any(_go_eq(v, d) for d in patch)]
        merged = _deduplicate_scalars(original + patch)
    else:
        if not merge_key:
            raise PatchError("cannot merge lists without merge key for type struct")
        original, patch = _merge_slice_with_special_elements(original, patch, merge_key)
        merged = _merge_slice_without_special_elements(original, patch, field, options)
    if not merge_key:
        items, server_only = _partition_primitives(merged, patch)
    else:
        items, server_only = _partition_maps(merged, patch, merge_key)
    return _normalize_element_order(items, server_only, patch, original, merge_key, kind)


def _merge_slice_with_special_elements(
    original: list, patch: list, merge_key: str
) -> tuple[list, list]:
    plain: list = []
    replace_all = False
    for item in patch:
        if DIRECTIVE_MARKER not in item:
            plain.append(item)
            continue
        directive = item[DIRECTIVE_MARKER]
        if _go_eq(directive, DELETE_DIRECTIVE):
            if merge_key not in item:
                raise e.err_no_merge_key(item, merge_key)
            value = item[merge_key]
            original = [o for o in original if not (isinstance(o, dict) and merge_key in o
                                                    and _go_eq(o[merge_key], value))]  # fmt: skip
        elif _go_eq(directive, REPLACE_DIRECTIVE):
            replace_all = True
        elif _go_eq(directive, MERGE_DIRECTIVE):
            raise PatchError("merging lists cannot yet be specified in the patch")
        else:
            raise e.err_bad_patch_type(directive, item)
    if replace_all:
        return plain, []
    return original, plain


def _merge_slice_without_special_elements(
    original: list, patch: list, field: Field, options: MergeOptions
) -> list:
    merge_key = field.merge_key
    original = list(original)
    for item in patch:
        if merge_key not in item:
            raise e.err_no_merge_key(item, merge_key)
        position, found = _find_map(original, merge_key, item[merge_key])
        if found is not None:
            original[position] = _merge_map(found, item, field.meta(), options)
        else:
            original.append(item)
    return original
