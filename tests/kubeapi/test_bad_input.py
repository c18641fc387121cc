"""Bad input to a session's API gets the API server's Status (or ours in its shape), within
docs/limits.md's bounds, and changes nothing else in the session."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import urllib.parse

import pytest

from tests.kubeapi.conftest import CLUSTER, Kube, make_session


@pytest.fixture(scope="module")
def kube(live_server, tmp_path_factory) -> Kube:
    kube = make_session(live_server, tmp_path_factory.mktemp("bad"), yaml=CLUSTER, speed=20)
    done = kube.run("rollout", "status", "deploy/web", "--timeout=90s", timeout=120)
    assert done.returncode == 0, done.stderr
    return kube


def _status(code: int, message: str, reason: str, **details) -> dict:
    out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason}  # fmt: skip
    if details:
        out["details"] = details
    out["code"] = code
    return out


def _pods_state(kube: Kube) -> list:
    _, body = kube.api("/api/v1/namespaces/default/pods")
    return sorted(p["metadata"]["name"] for p in body["items"])


def test_unknown_kind_and_path(kube: Kube) -> None:
    for path in ("/api/v1/namespaces/default/foos", "/apis/apps/v1/widgets", "/apis/nope/v1",
                 "/api/v2", "/apis/apps/v1/namespaces/default/deployments/web/nope", "/nope"):  # fmt: skip
        status, body = kube.api(path)
        assert (status, body) == (404, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the server could not find the requested resource", "reason": "NotFound",
            "code": 404}), path  # fmt: skip


def test_unknown_verbs(kube: Kube) -> None:
    before = _pods_state(kube)
    status, body = kube.api("/api/v1/namespaces/default/pods", "DELETE")
    assert (status, body) == (405, _status(405, 'deletecollection is not supported on resources '
                                           'of kind "pods"', "MethodNotAllowed", kind="pods"))  # fmt: skip
    status, body = kube.api("/apis/apps/v1/namespaces/default/deployments/web", "DELETE")
    assert status == 405
    assert body["message"] == 'delete is not supported on resources of kind "deployments.apps"'
    status, body = kube.api("/api/v1/namespaces/default/pods/x/log", "POST", {})
    assert status == 405
    status, body = kube.api("/version", "POST", {})
    assert status == 405 and body["reason"] == "MethodNotAllowed"
    status, body = kube.api("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
    assert status == 405
    assert _pods_state(kube) == before


def test_malformed_bodies(kube: Kube) -> None:
    before = _pods_state(kube)
    path = "/apis/apps/v1/namespaces/default/deployments/web"
    for content_type in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
        status, body = kube.api(path, "PATCH", b"{not json", {"Content-Type": content_type})
        assert status == 400 and body["reason"] == "BadRequest", body
    status, body = kube.api(path, "PATCH", b"{}", {"Content-Type": "text/plain"})
    assert status == 415 and body["reason"] == "UnsupportedMediaType", body
    status, body = kube.api(path, "PATCH", json.dumps([{"op": "remove", "path": "/nope"}]).encode(),
                            {"Content-Type": "application/json-patch+json"})  # fmt: skip
    assert status >= 400 and body["kind"] == "Status", body
    status, body = kube.api(path, "PATCH", json.dumps({"spec": {"replicas": "three"}}).encode(),
                            {"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert status >= 400 and body["kind"] == "Status", body
    status, body = kube.api(path + "/scale", "PATCH", json.dumps({"spec": {"replicas": -1}}).encode(),
                            {"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert (status, body["reason"]) == (422, "Invalid"), body
    assert body["message"] == ('Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: '
                               "-1: must be greater than or equal to 0")  # fmt: skip
    status, body = kube.api("/api/v1/namespaces/default/pods/" + before[0] + "/eviction", "POST",
                            b"[1, 2")  # fmt: skip
    assert status == 400 and body["reason"] == "BadRequest", body
    status, body = kube.api("/api/v1/namespaces/default/pods?limit=abc")
    assert status == 400 and body["message"] == 'strconv.ParseInt: parsing "abc": invalid syntax'
    assert _pods_state(kube) == before
    assert kube.api(path)[1]["spec"]["replicas"] == 3


def test_body_over_3_mib(kube: Kube) -> None:
    """maxRequestBodyBytes: `Request entity too large: limit is 3145728`."""
    url = urllib.parse.urlsplit(kube.info["server"])
    body = b'{"spec":{"replicas":' + b" " * (3 * 1024 * 1024) + b"4}}"
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.putrequest(
            "PATCH", url.path + "/apis/apps/v1/namespaces/default/deployments/web"
        )
        connection.putheader("Content-Type", "application/merge-patch+json")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.send(body)  # it may be answered before the whole body was read
        response = connection.getresponse()
        answer = json.loads(response.read())
    finally:
        connection.close()
    assert response.status == 413
    assert answer == _status(413, "Request entity too large: limit is 3145728",
                             "RequestEntityTooLarge")  # fmt: skip
    assert kube.api("/apis/apps/v1/namespaces/default/deployments/web")[1]["spec"]["replicas"] == 3


def test_selector_of_10000_terms(kube: Kube) -> None:
    """The request line is bounded (gunicorn's 8190 bytes, docs/limits.md): answered 414 in
    the Status shape; a long selector that fits is parsed and refused with the parser's
    words."""
    terms = ",".join(f"k{i}=v" for i in range(10_000))
    url = urllib.parse.urlsplit(kube.info["server"])
    path = url.path + "/api/v1/namespaces/default/pods?labelSelector=" + urllib.parse.quote(terms)
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ")
    answer = json.loads(body)
    assert (answer["kind"], answer["status"], answer["code"]) == ("Status", "Failure", 414)
    few = ",".join(f"k{i}=v" for i in range(500))
    status, body = kube.api(
        "/api/v1/namespaces/default/pods?labelSelector=" + urllib.parse.quote(few)
    )
    assert (status, body["items"]) == (200, [])
    status, body = kube.api("/api/v1/namespaces/default/pods?labelSelector=" +
                            urllib.parse.quote("a in (b"))  # fmt: skip
    assert status == 400 and body["reason"] == "BadRequest"


def test_watch_from_a_compacted_resource_version(kube: Kube) -> None:
    """`too old resource version` as an in-stream ERROR event, then the stream ends
    (KUBE-API-NOTES §3)."""
    url = urllib.parse.urlsplit(kube.info["server"])
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    connection.request(
        "GET", url.path + "/api/v1/namespaces/default/pods?watch=true&resourceVersion=5"
    )
    response = connection.getresponse()
    assert response.status == 200
    lines = [json.loads(line) for line in response.read().splitlines() if line.strip()]
    connection.close()
    assert lines == [{"type": "ERROR", "object": _status(
        410, "too old resource version: 5 (1001)", "Expired")}]  # fmt: skip


def test_watch_list_initial_events(kube: Kube) -> None:
    url = urllib.parse.urlsplit(kube.info["server"])
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    connection.request("GET", url.path + "/apis/apps/v1/namespaces/default/deployments?watch=1"
                       "&sendInitialEvents=true&allowWatchBookmarks=true&timeoutSeconds=1"
                       "&resourceVersionMatch=NotOlderThan")  # fmt: skip
    response = connection.getresponse()
    events = [json.loads(line) for line in response.read().splitlines() if line.strip()]
    connection.close()
    assert [e["type"] for e in events[:2]] == ["ADDED", "BOOKMARK"]
    assert events[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    status, body = kube.api("/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true")
    assert status == 422 and body["reason"] == "Invalid"


def test_wrong_and_missing_token(kube: Kube) -> None:
    base = kube.info["server"].rsplit("/", 1)[0]
    for server in (base + "/kp-nope", base + "/" + kube.info["token"][:-1]):
        status, body = Kube(kube.server, kube.kubeconfig, kube.cache, {"server": server}).api(
            "/api/v1/namespaces/default/pods"
        )
        assert (status, body) == (401, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                        "status": "Failure", "message": "Unauthorized",
                                        "reason": "Unauthorized", "code": 401})  # fmt: skip


def test_many_watches_from_one_client(kube: Kube) -> None:
    """Past MAX_WATCHES_PER_SESSION open watches: 429 with Retry-After (docs/limits.md)."""
    from webapp.kubeapi.common import MAX_WATCHES_PER_SESSION

    url = urllib.parse.urlsplit(kube.info["server"])
    opened = []
    try:
        for _ in range(MAX_WATCHES_PER_SESSION):
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
            connection.request("GET", url.path + "/api/v1/namespaces/default/pods?watch=true"
                               "&timeoutSeconds=60")  # fmt: skip
            response = connection.getresponse()
            assert response.status == 200
            opened.append((connection, response))
        status, body = kube.api("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=60")
        assert status == 429
        assert body["reason"] == "TooManyRequests"
        assert body["details"] == {"retryAfterSeconds": 5}
    finally:
        for connection, _ in opened:
            connection.close()
    status, _ = kube.api("/api/v1/namespaces/default/pods")
    assert status == 200
