"""The API object store: resourceVersions, create/update/delete as the API server does them,
optimistic concurrency, list with selectors, watch resume, "too old" and "too large"
versions, and bad input (a 3 MiB object, conflicting writes in a loop) refused with the API
server's own Status while nothing else changes. Watch tests follow the cases of
k8s.io/apiserver's watch_cache_test.go (TestWatchCacheBasic, TestEvents) where they apply."""

from __future__ import annotations

import copy

import pytest

from webapp.engine.store import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Expired,
    Invalid,
    NotFound,
    ObjectStore,
    RequestEntityTooLarge,
    Timeout,
)
from webapp.engine.store.errors import ApiError


class Clock:
    def __init__(self) -> None:
        self.seconds = 0

    def stamp(self) -> str:
        m, s = divmod(self.seconds, 60)
        h, m = divmod(m, 60)
        return f"2026-01-01T{h:02d}:{m:02d}:{s:02d}Z"


def pod(name: str, labels: dict | None = None, node: str | None = None, **extra) -> dict:
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
           "spec": {"containers": [{"name": "app", "image": "nginx"}]}}  # fmt: skip
    if node:
        obj["spec"]["nodeName"] = node
    obj.update(extra)
    return obj


def deployment(name: str, image: str = "nginx:1.14.2") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "nginx", "image": image}]}}},
            "status": {}}  # fmt: skip


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock):
    return ObjectStore(first_version=1000, timestamp=clock.stamp, seed=0)


def snapshot(store: ObjectStore):
    return copy.deepcopy((store._objects, list(map(list, store._history.values())), store._rv))


# -- metadata and resource versions -------------------------------------------------------


def test_one_resource_version_counter_for_every_kind(store, clock):
    a = store.create(pod("a"))
    d = store.create(deployment("web"))
    clock.seconds = 5
    b = store.create(pod("b"))
    assert [o["metadata"]["resourceVersion"] for o in (a, d, b)] == ["1000", "1001", "1002"]
    assert store.resource_version == "1002"
    assert b["metadata"]["creationTimestamp"] == "2026-01-01T00:00:05Z"
    assert a["metadata"]["uid"] != b["metadata"]["uid"]
    assert d["metadata"]["generation"] == 1 and "generation" not in a["metadata"]
    assert store.get("Pod", "default", "a") is a
    assert store.get("Pod", "default", "zzz") is None


def test_create_refusals_are_the_api_servers(store):
    store.create(pod("a"))
    with pytest.raises(AlreadyExists) as caught:
        store.create(pod("a"))
    assert caught.value.message == 'pods "a" already exists'
    assert caught.value.status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "a" already exists', "reason": "AlreadyExists",
        "details": {"name": "a", "kind": "pods"}, "code": 409,
    }  # fmt: skip
    with pytest.raises(AlreadyExists, match=r'deployments\.apps "web" already exists'):
        store.create(deployment("web"))
        store.create(deployment("web"))
    nameless = pod("")
    with pytest.raises(Invalid) as invalid:
        store.create(nameless)
    assert invalid.value.message == (
        'Pod "" is invalid: metadata.name: Required value: name or generateName is required'
    )
    assert invalid.value.code == 422
    assert invalid.value.details["causes"] == [{"reason": "FieldValueRequired",
        "message": "Required value: name or generateName is required", "field": "metadata.name"}]  # fmt: skip
    stale = pod("b")
    stale["metadata"]["resourceVersion"] = "5"
    with pytest.raises(
        BadRequest, match="resourceVersion should not be set on objects to be created"
    ):
        store.create(stale)


def test_generate_name(store):
    made = pod("")
    made["metadata"]["generateName"] = "web-"
    created = store.create(made)
    name = created["metadata"]["name"]
    assert name.startswith("web-") and len(name) == 9
    assert set(name[4:]) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_namespaces_enforced_when_the_store_has_them(clock):
    store = ObjectStore(timestamp=clock.stamp, namespaces=("default", "kube-system"))
    assert [n["metadata"]["name"] for n in store.list("Namespace")[0]] == ["default", "kube-system"]
    other = pod("a")
    other["metadata"]["namespace"] = "team-a"
    with pytest.raises(NotFound, match='namespaces "team-a" not found'):
        store.create(other)


def test_update_generation_and_status_subresource(store):
    d = store.create(deployment("web"))
    assert d["status"] == {}
    rolled = copy.deepcopy(d)
    rolled["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.16.1"
    rolled["status"] = {"replicas": 99}  # the main resource's update keeps the status
    after = store.update(rolled)
    assert after["metadata"]["generation"] == 2
    assert after["status"] == {}
    status = copy.deepcopy(after)
    status["status"] = {"replicas": 3, "observedGeneration": 2}
    status["spec"]["replicas"] = 10  # a status update keeps everything else
    after = store.update(status, subresource="status")
    assert after["status"] == {"replicas": 3, "observedGeneration": 2}
    assert after["spec"]["replicas"] == 3 and after["metadata"]["generation"] == 2


def test_an_update_that_changes_nothing_takes_no_resource_version(store):
    a = store.create(pod("a"))
    version = store.resource_version
    same = store.update(copy.deepcopy(a))
    assert same is a and store.resource_version == version
    assert store.watch_since("Pod", version) == []


def test_stale_update_is_a_conflict_in_the_api_servers_words(store):
    a = store.create(pod("a"))
    first = copy.deepcopy(a)
    first["metadata"]["labels"] = {"x": "1"}
    store.update(first)
    second = copy.deepcopy(a)  # still carries the first resourceVersion
    second["metadata"]["labels"] = {"x": "2"}
    with pytest.raises(Conflict) as caught:
        store.update(second)
    assert caught.value.message == (
        'Operation cannot be fulfilled on pods "a": the object has been modified; please apply '
        "your changes to the latest version and try again"
    )
    assert caught.value.code == 409 and caught.value.reason == "Conflict"
    assert store.get("Pod", "default", "a")["metadata"]["labels"] == {"x": "1"}
    with pytest.raises(NotFound, match='pods "nope" not found'):
        store.update(pod("nope"))


def test_conflicting_writes_in_a_tight_loop_change_nothing(store):
    """Bad input: 1000 writers all holding the same stale version; every one is refused."""
    a = store.create(pod("a"))
    winner = copy.deepcopy(a)
    winner["metadata"]["labels"] = {"won": "yes"}
    store.update(winner)
    before = snapshot(store)
    for i in range(1000):
        loser = copy.deepcopy(a)
        loser["metadata"]["labels"] = {"try": str(i)}
        with pytest.raises(Conflict):
            store.update(loser)
    assert snapshot(store) == before


def test_an_object_of_3_mib_is_refused_and_nothing_changes(store):
    store.create(pod("a"))
    before = snapshot(store)
    big = pod("big")
    big["metadata"]["annotations"] = {"blob": "x" * (3 * 1024 * 1024)}
    with pytest.raises(RequestEntityTooLarge) as caught:
        store.create(big)
    assert caught.value.message == "Request entity too large: limit is 3145728"
    assert caught.value.code == 413
    grown = copy.deepcopy(store.get("Pod", "default", "a"))
    grown["metadata"]["annotations"] = {"blob": "x" * (3 * 1024 * 1024)}
    with pytest.raises(RequestEntityTooLarge):
        store.update(grown)
    assert snapshot(store) == before


def test_a_full_store_refuses_creates(clock):
    store = ObjectStore(timestamp=clock.stamp, max_objects=3)
    for name in "abc":
        store.create(pod(name))
    with pytest.raises(ApiError) as caught:
        store.create(pod("d"))
    assert caught.value.code == 500
    assert (
        caught.value.message == "Internal error occurred: etcdserver: mvcc: database space exceeded"
    )


# -- deletion -----------------------------------------------------------------------------


def test_delete_without_finalizers_removes_at_a_new_version(store):
    store.create(deployment("web"))
    gone, removed = store.delete("Deployment", "default", "web")
    assert removed and gone["metadata"]["resourceVersion"] == "1001"
    assert store.get("Deployment", "default", "web") is None
    with pytest.raises(NotFound, match=r'deployments\.apps "web" not found'):
        store.delete("Deployment", "default", "web")


def test_graceful_pod_delete_marks_then_a_zero_grace_delete_removes(store, clock):
    store.create(pod("a", node="node-1"))
    clock.seconds = 10
    marked, removed = store.delete("Pod", "default", "a")
    assert not removed
    assert marked["metadata"]["deletionTimestamp"] == "2026-01-01T00:00:40Z"
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 30
    again, removed = store.delete("Pod", "default", "a", grace_period_seconds=60)
    assert again is marked and not removed  # no later than already asked
    _, removed = store.delete("Pod", "default", "a", grace_period_seconds=0)
    assert removed and store.get("Pod", "default", "a") is None
    unscheduled = store.create(pod("b"))
    _, removed = store.delete("Pod", "default", "b")
    assert removed, "a Pod on no node goes at once"
    del unscheduled


def test_finalizers_hold_the_object_until_removed(store):
    d = deployment("web")
    d["metadata"]["finalizers"] = ["example.com/hold"]
    store.create(d)
    marked, removed = store.delete("Deployment", "default", "web")
    assert not removed and marked["metadata"]["deletionTimestamp"]
    assert marked["metadata"]["generation"] == 2
    released = copy.deepcopy(marked)
    released["metadata"]["finalizers"] = []
    store.update(released)
    assert store.get("Deployment", "default", "web") is None
    events = [t for t, _ in store.watch_since("Deployment", "1000")]
    assert events == ["MODIFIED", "DELETED"]


def test_delete_preconditions(store):
    a = store.create(pod("a"))
    with pytest.raises(Conflict) as caught:
        store.delete("Pod", "default", "a", preconditions={"uid": "other"})
    assert caught.value.message == (
        'Operation cannot be fulfilled on pods "a": Precondition failed: UID in precondition: '
        f"other, UID in object meta: {a['metadata']['uid']}"
    )


def test_foreground_propagation_adds_the_gc_finalizer(store):
    store.create(deployment("web"))
    marked, removed = store.delete("Deployment", "default", "web", propagation_policy="Foreground")
    assert not removed and marked["metadata"]["finalizers"] == ["foregroundDeletion"]


# -- list ---------------------------------------------------------------------------------


def test_list_with_label_and_field_selectors(store):
    store.create(pod("b", {"app": "web", "tier": "front"}, node="node-1"))
    store.create(pod("a", {"app": "web"}, node="node-2"))
    store.create(pod("c", {"app": "db"}))
    names = lambda items: [o["metadata"]["name"] for o in items[0]]  # noqa: E731
    assert names(store.list("Pod")) == ["a", "b", "c"]
    assert names(store.list("Pod", label_selector="app=web")) == ["a", "b"]
    assert names(store.list("Pod", label_selector="app in (web,db),!tier")) == ["a", "c"]
    assert names(store.list("Pod", label_selector={"app": "db"})) == ["c"]
    assert names(store.list("Pod", field_selector="spec.nodeName=node-1")) == ["b"]
    assert names(store.list("Pod", field_selector="spec.nodeName=")) == ["c"]
    assert names(store.list("Pod", namespace="other")) == []
    assert store.list("Pod")[1] == store.resource_version


def test_invalid_selectors_are_bad_requests(store):
    with pytest.raises(BadRequest) as caught:
        store.list("Pod", label_selector="a in")
    assert caught.value.status()["message"] == "unable to parse requirement: found '' expected: '('"
    with pytest.raises(BadRequest, match=r"field label not supported: spec\.foo"):
        store.list("Pod", field_selector="spec.foo=x")
    with pytest.raises(BadRequest, match=r'"spec\.replicas" is not a known field selector'):
        store.watch_since("Deployment", "0", field_selector="spec.replicas=3")


# -- watch --------------------------------------------------------------------------------


def test_watch_cache_basic(store):
    store.create(pod("a"))
    start = store.resource_version
    b = store.create(pod("b"))
    changed = copy.deepcopy(b)
    changed["metadata"]["labels"] = {"x": "y"}
    store.update(changed)
    store.delete("Pod", "default", "a")
    events = store.watch_since("Pod", start)
    assert [(t, o["metadata"]["name"], o["metadata"]["resourceVersion"]) for t, o in events] == [
        ("ADDED", "b", "1001"), ("MODIFIED", "b", "1002"), ("DELETED", "a", "1003")]  # fmt: skip
    assert [o["metadata"]["name"] for t, o in store.watch_since("Pod", "0")] == ["b"]
    # a watch resumed from any event's version gets exactly the rest
    assert store.watch_since("Pod", "1002") == events[2:]
    assert store.watch_since("Pod", store.resource_version) == []


def test_watch_filter_moves_objects_in_and_out_of_the_selection(store):
    a = store.create(pod("a", {"app": "web"}))
    since = store.resource_version
    out = copy.deepcopy(a)
    out["metadata"]["labels"] = {"app": "db"}
    out = store.update(out)
    back = copy.deepcopy(out)
    back["metadata"]["labels"] = {"app": "web"}
    store.update(back)
    events = store.watch_since("Pod", since, label_selector="app=web")
    assert [(t, o["metadata"]["resourceVersion"], o["metadata"]["labels"]) for t, o in events] == [
        ("DELETED", "1001", {"app": "web"}), ("ADDED", "1002", {"app": "web"})]  # fmt: skip


def test_events(clock):
    """watch_cache_test.go TestEvents: past the window a watch is 410 Expired."""
    store = ObjectStore(first_version=1, timestamp=clock.stamp, history=5)
    store.create(pod("a"))
    for i in range(9):
        current = copy.deepcopy(store.get("Pod", "default", "a"))
        current["metadata"]["labels"] = {"i": str(i)}
        store.update(current)
    assert store.resource_version == "10"
    # kept: the events of versions 6..10; a watch from 5 still sees all of them
    assert len(store.watch_since("Pod", "5")) == 5
    with pytest.raises(Expired) as caught:
        store.watch_since("Pod", "4")
    assert caught.value.message == "too old resource version: 4 (5)"
    assert caught.value.code == 410 and caught.value.reason == "Expired"
    # other kinds keep their own window
    store.create(deployment("web"))
    assert [t for t, _ in store.watch_since("Deployment", "1")] == ["ADDED"]


def test_watch_from_a_future_version_is_the_api_servers_timeout(store):
    store.create(pod("a"))
    before = snapshot(store)
    with pytest.raises(Timeout) as caught:
        store.watch_since("Pod", "99999")
    assert caught.value.code == 504
    assert caught.value.message == "Timeout: Too large resource version: 99999, current: 1000"
    assert caught.value.details == {"causes": [{"reason": "ResourceVersionTooLarge",
                                                "message": "Too large resource version"}],
                                    "retryAfterSeconds": 1}  # fmt: skip
    assert snapshot(store) == before


def test_watch_from_before_the_store_began_is_expired(clock):
    store = ObjectStore(first_version=1000, timestamp=clock.stamp)
    store.create(pod("a"))
    with pytest.raises(Expired, match=r"too old resource version: 5 \(999\)"):
        store.watch_since("Pod", "5")


def test_a_resource_version_that_is_not_a_number_is_invalid(store):
    with pytest.raises(Invalid) as caught:
        store.watch_since("Pod", "abc")
    assert caught.value.message == (
        'pods "" is invalid: resourceVersion: Invalid value: "abc": '
        'strconv.ParseUint: parsing "abc": invalid syntax'
    )


def test_bookmark(store):
    store.create(pod("a"))
    assert store.bookmark("Pod", initial_events_end=True) == ("BOOKMARK", {
        "kind": "Pod", "apiVersion": "v1", "metadata": {
            "resourceVersion": "1000", "annotations": {"k8s.io/initial-events-end": "true"}}})  # fmt: skip


# -- managed fields -----------------------------------------------------------------------


def test_managed_fields_follow_each_manager(store, clock):
    d = store.create(deployment("web"), manager="kubectl-client-side-apply")
    (entry,) = d["metadata"]["managedFields"]
    assert entry["manager"] == "kubectl-client-side-apply" and entry["operation"] == "Update"
    assert entry["apiVersion"] == "apps/v1" and entry["fieldsType"] == "FieldsV1"
    assert "f:replicas" in entry["fieldsV1"]["f:spec"]
    scaled = copy.deepcopy(d)
    scaled["spec"]["replicas"] = 5
    clock.seconds = 3
    d = store.update(scaled, manager="kubectl")
    managers = {e["manager"]: e for e in d["metadata"]["managedFields"]}
    assert set(managers) == {"kubectl-client-side-apply", "kubectl"}
    assert managers["kubectl"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert managers["kubectl"]["time"] == "2026-01-01T00:00:03Z"
    assert "f:replicas" not in managers["kubectl-client-side-apply"]["fieldsV1"]["f:spec"]


def test_put_is_the_engines_write(store):
    first = store.put(pod("a", node="node-1", status={"phase": "Pending"}))
    assert first["metadata"]["resourceVersion"] == "1000"
    running = {**first, "status": {"phase": "Running"}}
    second = store.put(running)
    assert second["status"] == {"phase": "Running"}
    assert second["metadata"]["uid"] == first["metadata"]["uid"]
    assert store.put({**second}) is second  # unchanged: no version
    gone = store.remove("Pod", "default", "a")
    assert gone["metadata"]["resourceVersion"] == "1002"
    assert [t for t, _ in store.watch_since("Pod", "999")] == ["ADDED", "MODIFIED", "DELETED"]
