"""`kubectl exec` over WebSocket: GET pods/<name>/exec with `Upgrade: websocket` and the
`v5.channel.k8s.io` subprotocol kubectl 1.37 offers (shared/KUBE-API-NOTES.md §7).

The command runs in the container's process model (the engine's `exec` action,
engine/actions.py: its shell and files, at the session's instant, recorded in the
timeline like the page's actions).
Every message is a binary frame whose first byte is the channel: 1 stdout, 2 stderr, 3 the
result as a Status (`AS:pkg/util/proxy/streamtranslator.go`, kubelet `ServeExec`): Success,
or `NonZeroExitCode` with the exit code as its cause, which kubectl prints as `command
terminated with exit code N` and exits with. Standard input and terminals (`-i`, `-t`) are
not served: their channels get nothing (docs/kubectl.md).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import struct
from typing import Any

from flask import Response, request

from webapp.engine.actions import EXEC_MAX_BYTES
from webapp.engine.store import errors as api_errors
from webapp.engine.store.errors import ApiError
from webapp.kubeapi.common import bad_request, status_response
from webapp.kubeapi.objects import bring_to_now, view_of
from webapp.kubeapi.resources import resource

WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3
PROTOCOL = "v5.channel.k8s.io"
STDOUT, STDERR, ERROR = 1, 2, 3


def _frame(payload: bytes, opcode: int = 0x2) -> bytes:
    """One unmasked server frame (RFC 6455 §5.2), FIN set."""
    head = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([size])
    elif size < 1 << 16:
        head += bytes([126]) + struct.pack("!H", size)
    else:
        head += bytes([127]) + struct.pack("!Q", size)
    return head + payload


def _result_status(result: dict) -> dict:
    """The engine's answer (`stdout`, `stderr`, `exitCode`, `error`, `timedOut`) as the
    Status on channel 3."""
    if result.get("error") and result.get("exitCode") is None:
        return {"metadata": {}, "status": "Failure", "message": result["error"],
                "reason": "InternalError", "code": 500}  # fmt: skip
    if result.get("exitCode") == 0:
        return {"metadata": {}, "status": "Success"}
    code = 124 if result.get("exitCode") is None else result["exitCode"]
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"command terminated with non-zero exit code: exit status {code}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


def serve(token: str, namespace: str, name: str) -> Any:
    from webapp.kubeapi import api

    try:
        session = api._session(token)
        command = request.args.getlist("command")
        if not command:
            raise bad_request("you must specify at least 1 command")
        if sum(len(a.encode("utf-8", "replace")) + 1 for a in command) > EXEC_MAX_BYTES:
            raise api_errors.new_request_entity_too_large(EXEC_MAX_BYTES)
        protocols = [
            p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")
        ]
        if PROTOCOL not in protocols:
            raise bad_request(f"the {PROTOCOL} subprotocol is required")
        key = request.headers.get("Sec-WebSocket-Key", "")
        result = exec_in(session, namespace, name, request.args.get("container"), command)
    except ApiError as error:
        return status_response(error)
    gunicorn = request.environ.get("gunicorn.socket")
    sock = gunicorn or request.environ.get("werkzeug.socket")
    accept = base64.b64encode(hashlib.sha1((key + WEBSOCKET_GUID).encode()).digest()).decode()
    handshake = (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: {PROTOCOL}\r\n\r\n"
    )
    out = [handshake.encode("ascii"), _frame(bytes([STDOUT]))]
    if result.get("stdout"):
        out.append(_frame(bytes([STDOUT]) + result["stdout"].encode("utf-8", "replace")))
    stderr = result.get("stderr") or ""
    if result.get("error") and result.get("exitCode") is not None:
        stderr += result["error"] if result["error"].endswith("\n") else result["error"] + "\n"
    if stderr and not _tty():
        out.append(_frame(bytes([STDERR]) + stderr.encode("utf-8", "replace")))
    status = _result_status(result)
    out.append(_frame(bytes([ERROR]) + json.dumps(status, separators=(",", ":")).encode()))
    out.append(_frame(struct.pack("!H", 1000), opcode=0x8))
    data = b"".join(out)

    return _Answered(sock, data, gunicorn is not None)


def exec_in(session: Any, namespace: str, name: str, container: str | None,
            command: list[str], shell: dict | None = None) -> dict:  # fmt: skip
    """The engine's `exec` of `command` in container `container` (None: the Pod's only one) of
    Pod `name`, as the API server runs it: its answer (stdout, stderr, exitCode, error), or
    the ApiError kubectl prints. The terminal's `kubectl exec` runs it too; `shell`: a line
    of its `exec -it` shell (webapp/terminal/shell.py, the engine's exec `shell`)."""
    from webapp.kubeapi import api

    res = resource("", "v1", "pods")
    assert res is not None
    with session.lock:
        bring_to_now(session)
        pod = api._find(view_of(session).items(session.sim, "Pod"), res, namespace, name)
        if pod is None:
            raise api_errors.new_not_found("pods", "", name)
        names = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
        container = container or (names[0] if len(names) == 1 else "")
        if not container:
            raise bad_request(f"a container name must be specified for pod {name}, choose "
                              f"one of: [{' '.join(names)}]")  # fmt: skip
        action = {"action": "exec", "pod": name, "container": container, "command": command}
        if shell is not None:
            action["shell"] = shell
        try:
            result: dict = session.act(action)  # engine/actions.py _exec: its answer
            session.used = True
        except Exception as error:
            if not isinstance(getattr(error, "code", None), str):
                raise
            if error.code == "container_not_running":
                raise bad_request(f'container not found ("{container}")') from None
            raise api._action_error(error, res, name, "create") from None
    return result


class _Answered(Response):
    """The 101 and the frames go on the socket itself; then the server must write nothing
    of its own: gunicorn closes the connection quietly on StopIteration from the app (its
    workers' `handle`, as Flask-Sock ends a WebSocket), Werkzeug on ConnectionError
    (serving.py WSGIRequestHandler.run_wsgi: a dropped connection)."""

    def __init__(self, sock: Any, data: bytes, gunicorn: bool) -> None:
        super().__init__(status=200)
        self._sock, self._data, self._gunicorn = sock, data, gunicorn

    def __call__(self, environ: Any, start_response: Any) -> Any:
        with contextlib.suppress(OSError):
            self._sock.sendall(self._data)
        if self._gunicorn:
            raise StopIteration
        raise ConnectionError("the WebSocket was answered on the socket itself")


def _tty() -> bool:
    return request.args.get("tty", "").lower() in ("1", "true")
