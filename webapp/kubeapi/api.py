"""The Kubernetes API of a session, under `/kube/<token>/`: the paths, verbs, bodies and
Status errors of a 1.37 API server (shared/KUBE-API-NOTES.md has what kubectl sends).

Reads come from the session's engine through `objects.ApiView` (one code path for every
engine); writes are the engine's actions (`session.act` under the session's lock), so they
are in the session's timeline like the page's buttons: delete, eviction, scale, cordon and
uncordon, rollout restart, set image, pause and resume, and any other change of a workload
as the engine's `apply` of the whole desired object.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import select
import socket
import time
from collections.abc import Iterator
from typing import Any

import yaml
from flask import Response, current_app, request

from webapp.clients import current_client
from webapp.engine.apiserver.patch import (
    PatchError,
    apply_json_patch,
    apply_merge_patch,
    strategic_merge_patch,
)
from webapp.engine.apiserver.patch.meta import for_kind
from webapp.engine.store import errors as api_errors
from webapp.engine.store import fields as field_selectors
from webapp.engine.store import labels as label_selectors
from webapp.engine.store.errors import ApiError
from webapp.kubeapi import openapi, tables
from webapp.kubeapi.common import (
    DISCOVERY_MEDIA,
    JSON,
    MAX_SELECTOR_BYTES,
    MAX_WATCH_SECONDS,
    POLL_SECONDS,
    bad_request,
    decode_json_body,
    json_response,
    method_not_supported,
    not_found_path,
    query_bool,
    query_int,
    read_body,
    status_response,
    success_status,
    too_many_requests,
    unauthorized,
    unsupported_media,
)
from webapp.kubeapi.objects import ApiView, bring_to_now, view_of
from webapp.kubeapi.resources import (
    VERSION_INFO,
    Resource,
    aggregated,
    api_group,
    api_group_list,
    api_resource_list,
    api_versions,
    group_versions,
    resource,
)
from webapp.kubeapi.sessions import state_of
from webapp.kubectl.logs import all_container_names, log_container_id, rfc3339_nano

log = logging.getLogger(__name__)

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)
SCALABLE = ("Deployment", "ReplicaSet", "StatefulSet")


def _realtime() -> Any:
    return current_app.extensions["playground.realtime"]


# -- entry --------------------------------------------------------------------------------


def serve(token: str, path: str) -> Response:
    """Every request under /kube/<token>/: Status errors for whatever goes wrong."""
    try:
        session = _session(token)
        client = current_client()
        if not state_of(current_app).requests.allow(client):
            raise too_many_requests("too many requests from this client, please try again later")
        return _dispatch(session, path.strip("/"), client)
    except ApiError as error:
        return status_response(error)
    except Exception:  # a bug: logged once, answered as the API server answers a panic
        log.exception("kube API request %s %s failed", request.method, request.path)
        return status_response(api_errors.new_internal_error("an error on the server"))


def _session(token: str) -> Any:
    try:
        return _session_of(token)
    except ApiError:
        raise
    except Exception as error:  # Redis unreachable: a clean 503, never a 500 or a hang
        if type(error).__module__.split(".")[0] != "redis":
            raise
        raise ApiError(503, "ServiceUnavailable", "the session store cannot be reached",
                       {"retryAfterSeconds": 5}) from None  # fmt: skip


def _session_of(token: str) -> Any:
    state = state_of(current_app)
    session_id = state.session_id(token)
    if session_id is None:
        raise unauthorized()
    rt = _realtime()
    session = rt.manager.get(session_id)
    if session is not None:
        return session
    keeper = rt.keeper
    if keeper is not None and state.redis is not None:
        # Another worker or host holds it, or held it and is gone (kill -9): with its lease
        # free, it is rebuilt here from its record as a tab's join rebuilds it
        # (docs/workers.md); while another holds it, a clean 503 that kubectl prints.
        holder = state.redis.get(f"playground:lease:{session_id}")
        if holder is not None:
            # No Retry-After: client-go would retry it silently for up to 10 times.
            raise ApiError(503, "ServiceUnavailable",
                           "the session is served by another worker; please try again")  # fmt: skip
        try:
            session = keeper.resume(session_id, sid=None, client=current_client())
        except Exception:
            log.warning("a kube API session could not be resumed here")
            session = None
        if session is not None:
            with session.lock:
                session.kube_token = token
            return session
    state.forget(token)
    raise unauthorized()


def _dispatch(session: Any, path: str, client: str) -> Response:
    parts = [p for p in path.split("/") if p]
    method = request.method
    if method == "HEAD":
        method = "GET"
    if not parts:
        return _only_get(method, lambda: {"paths": ["/api", "/api/v1", "/apis", "/openapi/v2",
                                                    "/openapi/v3", "/version"]})  # fmt: skip
    head = parts[0]
    if parts == ["version"]:
        return _only_get(method, lambda: VERSION_INFO)
    if head == "openapi":
        if method != "GET":
            raise not_found_path()
        return openapi.serve(parts[1:])
    if parts in (["api"], ["apis"]):
        if method != "GET":
            raise not_found_path()
        return _discovery(head == "api")
    if head == "api" and len(parts) >= 2:
        group, version, rest = "", parts[1], parts[2:]
    elif head == "apis" and len(parts) >= 2:
        group = parts[1]
        if len(parts) == 2:
            if not any(g == group for g, _ in group_versions()):
                raise not_found_path()
            return _only_get(method, lambda: {"kind": "APIGroup", "apiVersion": "v1",
                                              **api_group(group)})  # fmt: skip
        version, rest = parts[2], parts[3:]
    else:
        raise not_found_path()
    if (group, version) not in group_versions():
        raise not_found_path()
    if not rest:
        return _only_get(method, lambda: api_resource_list(group, version))
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        inner = resource(group, version, rest[2])
        if inner is not None and inner.namespaced:
            namespace, rest = rest[1], rest[2:]
    res = resource(group, version, rest[0])
    if res is None or len(rest) > 3:
        raise not_found_path()
    name = rest[1] if len(rest) > 1 else None
    sub = rest[2] if len(rest) > 2 else None
    if res.namespaced and name is not None and namespace is None:
        raise not_found_path()
    if sub is not None and res.sub(sub) is None:
        raise not_found_path()
    return _resource_request(session, res, namespace, name, sub, method, client)


def _only_get(method: str, body: Any) -> Response:
    if method != "GET":
        raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the "
                       "requested resource", {})  # fmt: skip
    return json_response(body())


def _discovery(core: bool) -> Response:
    accept = request.headers.get("Accept", "")
    if "as=APIGroupDiscoveryList" in accept.replace(" ", "") and "apidiscovery.k8s.io" in accept:
        return json_response(aggregated(core), content_type=DISCOVERY_MEDIA)
    if core:
        return json_response(api_versions(request.host))
    return json_response(api_group_list())


# -- one resource -------------------------------------------------------------------------


def _resource_request(session: Any, res: Resource, namespace: str | None, name: str | None,
                      sub: str | None, method: str, client: str) -> Response:  # fmt: skip
    if res.kind == "SelfSubjectAccessReview":
        if method != "POST" or name is not None:
            raise method_not_supported(res.plural, res.group, _verb(method, name))
        return _access_review()
    verb = _verb(method, name)
    if sub is None and verb not in res.verbs:
        raise method_not_supported(res.plural, res.group, verb)
    if sub == "log":
        if method != "GET":
            raise method_not_supported("pods/log", "", verb)
        return _logs(session, namespace or "", name or "", client)
    if sub == "eviction":
        if method != "POST":
            raise method_not_supported("pods/eviction", "policy", verb)
        return _evict(session, namespace or "", name or "")
    if sub == "scale":
        return _scale(session, res, namespace or "", name or "", method)
    if sub == "status":
        if method == "GET":
            return _get(session, res, namespace, name or "")
        raise method_not_supported(f"{res.plural}/status", res.group, verb)
    if method == "GET":
        if name is None:
            if query_bool("watch"):
                return _watch(session, res, namespace, client)
            return _list(session, res, namespace)
        return _get(session, res, namespace, name)
    if method == "DELETE":
        if name is None:
            raise method_not_supported(res.plural, res.group, "deletecollection")
        return _delete(session, res, namespace, name)
    if method == "PATCH" and name is not None:
        return _patch(session, res, namespace, name)
    if method == "PUT" and name is not None:
        return _replace(session, res, namespace, name)
    if method == "POST" and name is None:
        return _create(session, res, namespace)
    raise method_not_supported(res.plural, res.group, verb)


def _verb(method: str, name: str | None) -> str:
    return {
        "GET": "get" if name else "list",
        "POST": "create",
        "PUT": "update",
        "PATCH": "patch",
        "DELETE": "delete" if name else "deletecollection",
    }.get(method, method.lower())


def _wants_table() -> bool:
    return "as=Table" in request.headers.get("Accept", "").replace(" ", "")


def _read(session: Any, res: Resource) -> tuple[ApiView, list[dict], Any]:
    """Under the session's lock: the view, the kind's objects now, the virtual `now`."""
    bring_to_now(session)
    view = view_of(session)
    items = view.items(session.sim, res.kind)
    return view, items, session.sim.wall_time()


def _in_scope(obj: dict, res: Resource, namespace: str | None) -> bool:
    if not res.namespaced or namespace is None:
        return True
    return ((obj.get("metadata") or {}).get("namespace") or "default") == namespace


def _find(items: list[dict], res: Resource, namespace: str | None, name: str) -> dict | None:
    for obj in items:
        if (obj.get("metadata") or {}).get("name") == name and _in_scope(obj, res, namespace):
            return obj
    return None


def _selectors(res: Resource) -> tuple[Any, Any]:
    label_text = request.args.get("labelSelector") or ""
    field_text = request.args.get("fieldSelector") or ""
    for text in (label_text, field_text):
        if len(text) > MAX_SELECTOR_BYTES:
            raise bad_request(f"selector is too long: {len(text)} bytes (limit "
                              f"{MAX_SELECTOR_BYTES})")  # fmt: skip
    try:
        lsel = label_selectors.parse(label_text) if label_text else None
        fsel = field_selectors.parse(field_text, res.kind) if field_text else None
    except label_selectors.SelectorError as error:
        raise bad_request(str(error)) from None
    return lsel, fsel


def _matches(obj: dict, lsel: Any, fsel: Any) -> bool:
    if lsel is not None and not lsel.matches((obj.get("metadata") or {}).get("labels") or {}):
        return False
    return fsel is None or fsel.matches(obj)


def _sort_key(obj: dict) -> tuple[str, str]:
    metadata = obj.get("metadata") or {}
    return (metadata.get("namespace") or "", metadata.get("name") or "")


def _list_kind(res: Resource) -> str:
    return f"{res.kind}List"


def _list(session: Any, res: Resource, namespace: str | None) -> Response:
    lsel, fsel = _selectors(res)
    limit = query_int("limit", 0) or 0
    cont = request.args.get("continue") or ""
    start: tuple[str, str] | None = None
    if cont:
        try:
            token = json.loads(base64.urlsafe_b64decode(cont.encode()))
            start = (str(token["ns"]), str(token["name"]))
        except (ValueError, KeyError, TypeError):
            raise bad_request(f"continue key is not valid: {cont[:100]}") from None
    table = _wants_table()
    include = tables.include_object() if table else "Metadata"
    with session.lock:
        view, items, now = _read(session, res)
        rv = str(view.rv)
    chosen = sorted((o for o in items if _in_scope(o, res, namespace) and _matches(o, lsel, fsel)),
                    key=_sort_key)  # fmt: skip
    if start is not None:
        chosen = [o for o in chosen if _sort_key(o) > start]
    next_token = ""
    if limit > 0 and len(chosen) > limit:
        chosen = chosen[:limit]
        last = _sort_key(chosen[-1])
        next_token = base64.urlsafe_b64encode(
            json.dumps({"ns": last[0], "name": last[1]}).encode()
        ).decode()
    if table:
        return json_response(tables.table(res.kind, chosen, now, rv, include=include,
                                          cont=next_token), content_type=JSON)  # fmt: skip
    metadata: dict[str, Any] = {"resourceVersion": rv}
    if next_token:
        metadata["continue"] = next_token
    return json_response({"kind": _list_kind(res), "apiVersion": res.api_version,
                          "metadata": metadata, "items": chosen})  # fmt: skip


def _not_found(res: Resource, name: str) -> ApiError:
    return api_errors.new_not_found(res.plural, res.group, name)


def _get(session: Any, res: Resource, namespace: str | None, name: str) -> Response:
    with session.lock:
        view, items, now = _read(session, res)
    obj = _find(items, res, namespace, name)
    if obj is None:
        raise _not_found(res, name)
    if _wants_table():
        include = tables.include_object()
        return json_response(tables.table(res.kind, [obj], now, str(view.rv), include=include))
    return json_response(obj)


# -- watch ----------------------------------------------------------------------------------


def _event_line(kind: str, obj: dict) -> bytes:
    return (json.dumps({"type": kind, "object": obj}, separators=(",", ":")) + "\n").encode()


def _watch(session: Any, res: Resource, namespace: str | None, client: str) -> Response:
    """A chunked stream of WatchEvents (apiserver/pkg/endpoints/handlers/watch.go)."""
    lsel, fsel = _selectors(res)
    rv_text = request.args.get("resourceVersion", "")
    initial = query_bool("sendInitialEvents")
    bookmarks = query_bool("allowWatchBookmarks")
    timeout = query_int("timeoutSeconds", MAX_WATCH_SECONDS) or MAX_WATCH_SECONDS
    timeout = max(1, min(timeout, MAX_WATCH_SECONDS))
    table = _wants_table()
    include = tables.include_object() if table else "Metadata"
    if initial and not bookmarks:
        raise api_errors.Invalid(422, "Invalid", "ListOptions.meta.k8s.io \"\" is invalid: "
                                 "sendInitialEvents: Forbidden: sendInitialEvents requires "
                                 "setting allowWatchBookmarks to true",
                                 {"group": "meta.k8s.io", "kind": "ListOptions",
                                  "causes": [{"reason": "FieldValueForbidden",
                                              "message": "Forbidden: sendInitialEvents requires "
                                              "setting allowWatchBookmarks to true",
                                              "field": "sendInitialEvents"}]})  # fmt: skip
    if rv_text not in ("", "0"):
        try:
            since = int(rv_text)
        except ValueError:
            raise bad_request(f'invalid resource version "{rv_text}"') from None
    else:
        since = None
    with session.lock:
        view, items, now = _read(session, res)
        start_rv = view.rv
        error: ApiError | None = None
        backlog: list[Any] = []
        if since is not None and not initial:
            try:
                backlog = view.changes_since(res.kind, since)
            except ApiError as too_old:
                error = too_old
    state = state_of(current_app)
    state.open_watch(session.id, client)
    manager = _realtime().manager
    client_socket = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    # The page's terminal (webapp/terminal/streams.py) watches in-process: no socket, a flag.
    stopped = request.environ.get("playground.stopped")
    first = [obj for obj in sorted(items, key=_sort_key)
             if _in_scope(obj, res, namespace) and _matches(obj, lsel, fsel)]  # fmt: skip
    send_initial = since is None or initial

    def encode(kind: str, obj: dict, wall_now: Any, headers: list[bool]) -> bytes:
        if table and kind in ("ADDED", "MODIFIED", "DELETED"):
            obj = tables.table(res.kind, [obj], wall_now, obj["metadata"].get("resourceVersion", ""),
                               include=include, headers=not headers[0])  # fmt: skip
            headers[0] = True
        return _event_line(kind, obj)

    def stream() -> Iterator[bytes]:
        try:
            yield b""  # the status line and headers leave at once (watch.go BeginStream)
            if error is not None:
                yield _event_line("ERROR", error.status())
                return
            headers = [False]
            matching: set[tuple[str, str]] = set()
            if not send_initial:
                # A watch from a resourceVersion (kubectl's after its list) knows the objects
                # that matched then: a later change of one is MODIFIED, its deletion DELETED.
                matching = _matching_at(first, backlog, res, namespace, lsel, fsel)
            if send_initial:
                for obj in first:
                    matching.add(_sort_key(obj))
                    yield encode("ADDED", obj, now, headers)
                if initial:
                    yield _event_line("BOOKMARK", {
                        "kind": res.kind, "apiVersion": res.api_version,
                        "metadata": {"resourceVersion": str(start_rv),
                                     "annotations": {"k8s.io/initial-events-end": "true"}}})  # fmt: skip
            last = start_rv
            pending = list(backlog)
            for change in pending:
                for line in _changes([change], res, namespace, lsel, fsel, matching):
                    yield encode(line[0], line[1], now, headers)
            ends = time.monotonic() + timeout
            while time.monotonic() < ends:
                time.sleep(POLL_SECONDS)
                if (manager.get(session.id) is not session or _client_gone(client_socket)
                        or (stopped is not None and stopped())):  # fmt: skip
                    return  # the session was freed (the stream ends as a closed watch does),
                    # or the client went away
                with session.lock:
                    bring_to_now(session)
                    view.sync(session.sim, res.kind)
                    try:
                        changes = view.changes_since(res.kind, last)
                    except ApiError as too_old:
                        yield _event_line("ERROR", too_old.status())
                        return
                    last = view.rv
                    wall_now = session.sim.wall_time()
                for kind, obj in _changes(changes, res, namespace, lsel, fsel, matching):
                    yield encode(kind, obj, wall_now, headers)
        finally:
            state.close_watch(session.id, client)

    response = Response(stream(), status=200, content_type=JSON, direct_passthrough=True)
    response.headers["Cache-Control"] = "no-cache, private"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def _matching_at(first: list[dict], backlog: list[Any], res: Resource, namespace: str | None,
                 lsel: Any, fsel: Any) -> set[tuple[str, str]]:  # fmt: skip
    """The objects a watcher's selectors matched at the resourceVersion it starts from: those
    matching now, less those the backlog (the changes since) adds first, plus those it
    deletes (they were there before)."""
    matching = {_sort_key(obj) for obj in first}
    firsts: dict[tuple[str, str], Any] = {}
    for change in backlog:
        firsts.setdefault(_sort_key(change.obj), change)
    for key, change in firsts.items():
        if change.type == "ADDED":
            matching.discard(key)
        elif _in_scope(change.obj, res, namespace) and _matches(change.obj, lsel, fsel):
            matching.add(key)
    return matching


def _client_gone(sock: Any) -> bool:
    """Whether the client closed its connection (a watch with nothing to send would not
    find out by writing): readable with nothing to read."""
    if sock is None:
        return False
    try:
        ready, _, _ = select.select([sock], [], [], 0)
        if not ready:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _changes(changes: list[Any], res: Resource, namespace: str | None, lsel: Any, fsel: Any,
             matching: set[tuple[str, str]]) -> list[tuple[str, dict]]:  # fmt: skip
    """The watch events of `changes` for a watcher with these selectors (cacheWatcher: an
    object that stops matching is DELETED for it, one that starts matching ADDED)."""
    out = []
    for change in changes:
        obj = change.obj
        if not _in_scope(obj, res, namespace):
            continue
        key = _sort_key(obj)
        was = key in matching
        now_matches = change.type != "DELETED" and _matches(obj, lsel, fsel)
        if change.type == "DELETED":
            if was:
                matching.discard(key)
                out.append(("DELETED", obj))
        elif now_matches and not was:
            matching.add(key)
            out.append(("ADDED", obj))
        elif now_matches:
            out.append(("MODIFIED", obj))
        elif was:
            matching.discard(key)
            out.append(("DELETED", obj))
    return out


# -- writes ---------------------------------------------------------------------------------


def _action_error(error: Exception, res: Resource, name: str, verb: str) -> ApiError:
    """An engine's refusal as the API server's Status."""
    code = getattr(error, "code", "")
    params = getattr(error, "params", {}) or {}
    message = getattr(error, "message", str(error))
    if code in ("unknown_object", "unknown_pod", "pod_gone", "unknown_node"):
        return _not_found(res, name)
    if code == "too_many_actions" or code == "too_much_action_text":
        return too_many_requests(message, 60)
    if code in ("apply_kind", "unknown_action"):
        return method_not_supported(res.plural, res.group, verb)
    if code == "eviction_refused":
        status = int(params.get("code") or 429)
        details: dict[str, Any] = {}
        if params.get("cause"):
            details["causes"] = [{"reason": "DisruptionBudget", "message": params["cause"]}]
        if status == 429:
            details["retryAfterSeconds"] = int(params.get("retryAfter") or 0)
            return ApiError(429, "TooManyRequests", message, details)
        if status == 403:
            return ApiError(403, "Forbidden", message, details)
        return ApiError(500, "InternalError", message, details)
    if code == "immutable_selector":
        return ApiError(422, "Invalid", message, {"name": name, "group": res.group,
                                                  "kind": res.kind})  # fmt: skip
    return bad_request(message)


def _act(session: Any, actions: list[dict], res: Resource, name: str, verb: str) -> None:
    """Under the session's lock: the engine's actions, in the timeline as the page's are."""
    for action in actions:
        try:
            session.act(action)
        except Exception as error:
            if not isinstance(getattr(error, "code", None), str):
                raise
            raise _action_error(error, res, name, verb) from None
    session.used = True


def _act_on_pod(session: Any, action: dict, res: Resource, name: str, verb: str) -> None:
    """A Pod action: the cluster engine names its Pod; the one-Pod engine, whose only Pod it
    is, takes no name (it says so: `unknown_field`), so it is asked again without one."""
    try:
        session.act(action)
        session.used = True
        return
    except Exception as error:
        if not isinstance(getattr(error, "code", None), str):
            raise
        if error.code != "unknown_field" or (error.params or {}).get("field") != "name":
            raise _action_error(error, res, name, verb) from None
    pod = session.sim.pod()
    if pod is None or pod["metadata"]["name"] != name:
        raise _not_found(res, name)
    _act(session, [{k: v for k, v in action.items() if k != "name"}], res, name, verb)


def _delete_options() -> dict:
    data = read_body()
    body = decode_json_body(data, "DeleteOptions") if data else None
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise bad_request("the body of the request was not a DeleteOptions object")
    for key in ("gracePeriodSeconds",):
        if key in request.args:
            body[key] = query_int(key)
    if "dryRun" in request.args:
        body["dryRun"] = request.args.getlist("dryRun")
    return body


def _delete(session: Any, res: Resource, namespace: str | None, name: str) -> Response:
    options = _delete_options()
    grace = options.get("gracePeriodSeconds")
    if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
        raise bad_request("gracePeriodSeconds must be an integer")
    with session.lock:
        view, items, _ = _read(session, res)
        obj = _find(items, res, namespace, name)
        if obj is None:
            raise _not_found(res, name)
        uid = obj["metadata"].get("uid", "")
        pre = options.get("preconditions") or {}
        if pre.get("uid") and pre["uid"] != uid:
            raise api_errors.new_conflict(res.plural, res.group, name,
                                          f"Precondition failed: UID in precondition: "
                                          f"{pre['uid']}, UID in object meta: {uid}")  # fmt: skip
        if pre.get("resourceVersion") and pre["resourceVersion"] != obj["metadata"].get(
            "resourceVersion"
        ):
            raise api_errors.new_conflict(res.plural, res.group, name,
                                          f"Precondition failed: ResourceVersion in precondition: "
                                          f"{pre['resourceVersion']}, ResourceVersion in object "
                                          f"meta: {obj['metadata'].get('resourceVersion')}")  # fmt: skip
        if options.get("dryRun"):
            return json_response(obj)
        if res.kind == "DaemonSet":
            _act(session, [{"action": "delete", "kind": "DaemonSet", "name": name}], res, name,
                 "delete")  # fmt: skip
            return json_response(success_status({"name": name, "kind": res.plural, "uid": uid}))
        if res.kind != "Pod":
            raise method_not_supported(res.plural, res.group, "delete")
        action: dict[str, Any] = {"action": "delete", "name": name}
        if grace is not None:
            action["gracePeriodSeconds"] = grace
            if grace == 0:
                action["force"] = True
        _act_on_pod(session, action, res, name, "delete")
        after = _find(view.items(session.sim, res.kind), res, namespace, name)
    if after is not None and after["metadata"].get("uid") == uid:
        return json_response(after)
    return json_response(success_status({"name": name, "kind": res.plural, "uid": uid}))


def _evict(session: Any, namespace: str, name: str) -> Response:
    data = read_body()
    body = decode_json_body(data, "Eviction") if data else None
    if not isinstance(body, dict):
        raise bad_request("the body of the request was not an Eviction object")
    given = (body.get("metadata") or {}).get("name")
    if given and given != name:
        raise bad_request("name in URL does not match name in Eviction object")
    res = resource("", "v1", "pods")
    assert res is not None
    options = body.get("deleteOptions") or {}
    action: dict[str, Any] = {"action": "evict", "name": name}
    if isinstance(options.get("gracePeriodSeconds"), int):
        action["gracePeriodSeconds"] = options["gracePeriodSeconds"]
    with session.lock:
        _, items, _ = _read(session, res)
        if _find(items, res, namespace, name) is None:
            raise _not_found(res, name)
        if options.get("dryRun"):
            return json_response(success_status(), 201)
        try:
            _act_on_pod(session, action, res, name, "create")
        except ApiError as error:
            if error.code != 405:
                raise
            # An engine without evictions has no PodDisruptionBudgets: a plain delete.
            plain = {k: v for k, v in action.items() if k != "action"}
            _act_on_pod(session, {"action": "delete", **plain}, res, name, "create")
    return json_response(success_status(), 201)


def _scale_object(obj: dict, res: Resource) -> dict:
    metadata = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    selector = spec.get("selector") or {}
    from webapp.kubectl.workloads import selector_string

    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: metadata[k]
            for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if k in metadata
        },
        "spec": {"replicas": int(spec.get("replicas", 1) or 0)},
        "status": {
            "replicas": int(status.get("replicas", 0) or 0),
            "selector": selector_string(selector),
        },
    }


def _scale(session: Any, res: Resource, namespace: str, name: str, method: str) -> Response:
    if res.kind not in SCALABLE:
        raise not_found_path()
    with session.lock:
        view, items, _ = _read(session, res)
        obj = _find(items, res, namespace, name)
        if obj is None:
            raise _not_found(res, name)
        scale = _scale_object(obj, res)
        if method == "GET":
            return json_response(scale)
        if method not in ("PUT", "PATCH"):
            raise method_not_supported(f"{res.plural}/scale", res.group, _verb(method, name))
        body = _body_object()
        if method == "PATCH":
            wanted = _patched(scale, body, "Scale")
        else:
            wanted = body
            given_rv = (wanted.get("metadata") or {}).get("resourceVersion")
            if given_rv and given_rv != scale["metadata"].get("resourceVersion"):
                raise api_errors.new_conflict(res.plural, res.group, name)
        replicas = (wanted.get("spec") or {}).get("replicas")
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
            raise api_errors.new_invalid("Scale", "autoscaling", name, [
                api_errors.invalid_value("spec.replicas", replicas,
                                         "must be greater than or equal to 0")])  # fmt: skip
        if replicas != scale["spec"]["replicas"]:
            _act(session, [{"action": "scale", "kind": res.kind, "name": name,
                            "replicas": replicas}], res, name, "patch")  # fmt: skip
            obj = _find(view.items(session.sim, res.kind), res, namespace, name) or obj
    return json_response(_scale_object(obj, res))


def _body_object() -> Any:
    data = read_body()
    content_type = (request.mimetype or "").lower()
    if (
        content_type
        and content_type not in (JSON, "application/yaml", *PATCH_TYPES)
        and not (data.startswith(b"k8s\x00"))
    ):
        raise unsupported_media(content_type)
    body = decode_json_body(data)
    if body is None:
        raise bad_request("the body of the request was empty")
    return body


def _patched(current: dict, patch: Any, kind: str) -> dict:
    """The object after a patch of the request's content type
    (apiserver/pkg/endpoints/handlers/patch.go)."""
    content_type = (request.mimetype or "").lower()
    try:
        if content_type == "application/json-patch+json":
            result = apply_json_patch(copy.deepcopy(current), patch)
        elif content_type == "application/merge-patch+json":
            result = apply_merge_patch(copy.deepcopy(current), patch)
        elif content_type == "application/strategic-merge-patch+json":
            if not isinstance(patch, dict):
                raise bad_request("invalid JSON document")
            result = strategic_merge_patch(current, patch, for_kind(kind))
        elif content_type == "application/apply-patch+yaml":
            if not isinstance(patch, dict):
                raise bad_request("invalid object")
            result = apply_merge_patch(copy.deepcopy(current), patch)
        else:
            raise unsupported_media(content_type)
    except PatchError as error:
        status = error.status()
        raise ApiError(status["code"], status.get("reason", ""), status["message"]) from None
    except ApiError:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise ApiError(422, "Invalid", f"the server rejected our request due to an error in our "
                       f"request: {error}", {}) from None  # fmt: skip
    if not isinstance(result, dict):
        raise bad_request("the patch did not yield an object")
    return result


def _desired(obj: dict) -> dict:
    """The object the engine's `update` stores: as given, without its status (a write of
    the object leaves the status subresource alone) and without the resourceVersion the
    API serves (the engine keeps its own)."""
    metadata = obj.get("metadata") or {}
    keep = {k: v for k, v in metadata.items() if k not in ("resourceVersion", "managedFields")}
    out = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": keep}
    if "spec" in obj:
        out["spec"] = obj["spec"]
    return out


def _changed_paths(before: Any, after: Any, path: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in sorted(set(before) | set(after)):
            out += _changed_paths(before.get(key), after.get(key), f"{path}/{key}")
        return out
    return [] if before == after else [path or "/"]


def _actions_for(res: Resource, current: dict, wanted: dict) -> list[dict]:
    """The engine's actions that make `current` into `wanted`: the page's own actions
    where the change is one of theirs (cordon, scale, restart, pause), else the engine's
    `update` of the whole object (engine/kubectl_apply.py plan_update)."""
    name = current["metadata"]["name"]
    before = {"metadata": {k: current.get("metadata", {}).get(k)
                           for k in ("labels", "annotations")}, "spec": current.get("spec")}  # fmt: skip
    after = {"metadata": {k: wanted.get("metadata", {}).get(k)
                          for k in ("labels", "annotations")}, "spec": wanted.get("spec")}  # fmt: skip
    changed = _changed_paths(before, after)
    if not changed:
        return []
    if res.kind == "Node" and changed == ["/spec/unschedulable"]:
        on = bool((wanted.get("spec") or {}).get("unschedulable"))
        return [{"action": "cordon" if on else "uncordon", "node": name}]
    if res.kind in SCALABLE and changed == ["/spec/replicas"]:
        replicas = (wanted.get("spec") or {}).get("replicas")
        return [{"action": "scale", "kind": res.kind, "name": name, "replicas": replicas}]
    if res.kind == "Deployment":
        restarted = "/spec/template/metadata/annotations/kubectl.kubernetes.io/restartedAt"
        if changed == [restarted]:
            return [{"action": "rollout-restart", "name": name}]
        if changed == ["/spec/paused"]:
            paused = bool((wanted.get("spec") or {}).get("paused"))
            return [{"action": "rollout-pause" if paused else "rollout-resume", "name": name}]
    return [{"action": "update", "yaml": yaml.safe_dump(_desired(wanted), sort_keys=False)}]


def _write(session: Any, res: Resource, namespace: str | None, name: str,
           wanted_of: Any, verb: str) -> Response:  # fmt: skip
    with session.lock:
        view, items, _ = _read(session, res)
        current = _find(items, res, namespace, name)
        if current is None:
            raise _not_found(res, name)
        wanted = wanted_of(current)
        meta = wanted.get("metadata") or {}
        if meta.get("name") not in (None, name):
            raise bad_request(f"the name of the object ({meta.get('name')}) does not match the "
                              f"name on the URL ({name})")  # fmt: skip
        actions = _actions_for(res, current, wanted)
        if actions and not request.args.getlist("dryRun"):
            _act(session, actions, res, name, verb)
        after = _find(view.items(session.sim, res.kind), res, namespace, name) or current
    return json_response(after)


def _patch(session: Any, res: Resource, namespace: str | None, name: str) -> Response:
    content_type = (request.mimetype or "").lower()
    if content_type not in PATCH_TYPES:
        raise unsupported_media(content_type or "<none>")
    patch = _body_object()
    return _write(session, res, namespace, name,
                  lambda current: _patched(current, patch, res.kind), "patch")  # fmt: skip


def _replace(session: Any, res: Resource, namespace: str | None, name: str) -> Response:
    body = _body_object()
    if not isinstance(body, dict):
        raise bad_request("the body of the request was not an object")

    def wanted_of(current: dict) -> dict:
        given = (body.get("metadata") or {}).get("resourceVersion")
        if given and given != current["metadata"].get("resourceVersion"):
            raise api_errors.new_conflict(res.plural, res.group, name)
        return body

    return _write(session, res, namespace, name, wanted_of, "update")


def _create(session: Any, res: Resource, namespace: str | None) -> Response:
    body = _body_object()
    if not isinstance(body, dict):
        raise bad_request("the body of the request was not an object")
    metadata = body.get("metadata") or {}
    name = metadata.get("name")
    if not name:
        raise api_errors.new_invalid(res.kind, res.group, "", [
            api_errors.required_value("metadata.name", "name or generateName is required")])  # fmt: skip
    if body.get("kind") not in (None, res.kind):
        raise bad_request(f"the kind of the object ({body.get('kind')}) does not match the "
                          f"resource ({res.plural})")  # fmt: skip
    body = {**body, "kind": res.kind, "apiVersion": res.api_version}
    if namespace is not None:
        body["metadata"] = {**metadata, "namespace": namespace}
    with session.lock:
        view, items, _ = _read(session, res)
        if _find(items, res, namespace, name) is not None:
            raise api_errors.new_already_exists(res.plural, res.group, name)
        if request.args.getlist("dryRun"):
            return json_response(body, 201)
        _act(session, [{"action": "update", "yaml": yaml.safe_dump(_desired(body),
                                                                  sort_keys=False)}],
             res, name, "create")  # fmt: skip
        created = _find(view.items(session.sim, res.kind), res, namespace, name)
    if created is None:
        raise method_not_supported(res.plural, res.group, "create")
    return json_response(created, 201)


def _access_review() -> Response:
    """SelfSubjectAccessReview: allowed for the verbs each served resource has."""
    body = _body_object()
    if not isinstance(body, dict):
        raise bad_request("the body of the request was not a SelfSubjectAccessReview")
    spec = body.get("spec") or {}
    attrs = spec.get("resourceAttributes") or {}
    allowed, reason = False, ""
    if attrs:
        verb = attrs.get("verb", "")
        group = attrs.get("group", "")
        plural = attrs.get("resource", "")
        sub = attrs.get("subresource", "")
        found = [r for r in _all_resources() if r.group == group and r.plural == plural]
        if plural == "*" or verb == "*":
            allowed = False
        elif found:
            res = found[0]
            if sub:
                allowed = res.sub(sub) is not None and verb in res.sub(sub).verbs  # type: ignore[union-attr]
            else:
                allowed = verb in res.verbs and not (verb == "delete" and res.kind != "Pod")
            reason = "the playground serves this" if allowed else ""
    elif spec.get("nonResourceAttributes"):
        allowed = spec["nonResourceAttributes"].get("verb") == "get"
    status = {"allowed": allowed}
    if reason:
        status["reason"] = reason
    out = {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
           "metadata": {"creationTimestamp": None}, "spec": spec, "status": status}  # fmt: skip
    return json_response(out, 201)


def _all_resources() -> list[Resource]:
    from webapp.kubeapi.resources import RESOURCES

    return list(RESOURCES)


# -- logs -----------------------------------------------------------------------------------


def _logs(session: Any, namespace: str, name: str, client: str) -> Response:
    """GET pods/<name>/log (PodLogOptions): text/plain, streamed with follow."""
    res = resource("", "v1", "pods")
    assert res is not None
    container = request.args.get("container") or ""
    previous = query_bool("previous")
    follow = query_bool("follow")
    stamps = query_bool("timestamps")
    tail = query_int("tailLines")
    since = query_int("sinceSeconds")
    limit_bytes = query_int("limitBytes")
    for label, value in (("tailLines", tail), ("sinceSeconds", since), ("limitBytes", limit_bytes)):
        if value is not None and value < (0 if label == "tailLines" else 1):
            raise api_errors.new_invalid("PodLogOptions", "", "", [
                api_errors.invalid_value(label, value, "must be greater than 0")])  # fmt: skip
    with session.lock:
        _, items, _ = _read(session, res)
        pod = _find(items, res, namespace, name)
        if pod is None:
            raise _not_found(res, name)
        names = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
        every = names + [c["name"] for c in (pod.get("spec") or {}).get("initContainers") or []]
        if not container:
            if len(names) != 1:
                raise bad_request(f"a container name must be specified for pod {name}, choose "
                                  f"one of: [{' '.join(every)}]")  # fmt: skip
            container = names[0]
        elif container not in every and container not in [
            n.split(" ")[0] for n in all_container_names(pod)
        ]:
            raise bad_request(f"container {container} is not valid for pod {name}")
        if not (pod.get("spec") or {}).get("nodeName"):
            raise bad_request(f"pod {name} does not have a host assigned")
        container_id, problem = log_container_id(pod, container, previous)
        if container_id is None:
            raise bad_request(problem)
        lines = list(session.sim.logs_by_container_id(name).get(container_id) or [])
        now_ms = session.sim.now_ms
    if since is not None:
        lines = [line for line in lines if line[0] >= now_ms - since * 1000]
    if tail is not None:
        lines = lines[-tail:] if tail > 0 else []

    def render(batch: list) -> bytes:
        text = "".join(f"{rfc3339_nano(ms)} {line}\n" if stamps else f"{line}\n"
                       for ms, _stream, line in batch)  # fmt: skip
        return text.encode("utf-8", "replace")

    if not follow:
        body = render(lines)
        if limit_bytes is not None:
            body = body[:limit_bytes]
        return Response(body, status=200, content_type="text/plain")
    state = state_of(current_app)
    state.open_watch(session.id, client)
    manager = _realtime().manager
    client_socket = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    # The page's terminal (webapp/terminal/streams.py) watches in-process: no socket, a flag.
    stopped = request.environ.get("playground.stopped")
    seen = len(session.sim.logs_by_container_id(name).get(container_id) or [])

    def stream() -> Iterator[bytes]:
        nonlocal seen
        sent = 0
        try:
            yield b""
            first = render(lines)
            sent += len(first)
            yield first
            ends = time.monotonic() + MAX_WATCH_SECONDS
            while time.monotonic() < ends:
                if limit_bytes is not None and sent >= limit_bytes:
                    return
                time.sleep(POLL_SECONDS)
                if (manager.get(session.id) is not session or _client_gone(client_socket)
                        or (stopped is not None and stopped())):  # fmt: skip
                    return
                with session.lock:
                    bring_to_now(session)
                    all_lines = session.sim.logs_by_container_id(name).get(container_id) or []
                    fresh = list(all_lines[seen:])
                    seen = len(all_lines)
                    pod_now = _find(view_of(session).items(session.sim, "Pod"), res,
                                    namespace, name)  # fmt: skip
                chunk = render(fresh)
                if chunk:
                    sent += len(chunk)
                    yield chunk
                if pod_now is None or not _still_running(pod_now, container, container_id):
                    return  # the container ended: so does its log stream
        finally:
            state.close_watch(session.id, client)

    response = Response(stream(), status=200, content_type="text/plain", direct_passthrough=True)
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _still_running(pod: dict, container: str, container_id: str) -> bool:
    status = pod.get("status") or {}
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in status.get(key) or []:
            if entry.get("name") == container:
                return entry.get("containerID") == container_id and "running" in (
                    entry.get("state") or {}
                )
    return False
