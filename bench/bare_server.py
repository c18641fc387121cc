"""A bare python-socketio server that pushes prerecorded tick messages: the baseline.

python bench/bare_server.py SAMPLES.json RATE

Same stack as the playground (python-socketio in threading mode on a threaded Werkzeug
server, WebSocket through simple-websocket) but no Flask, no sessions and no engine: each
client that sends `join` gets RATE messages a second, cycling through the samples, each
with a fresh `sentAt`. bench/sessions.py compares its CPU per message with the real server.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

import socketio
from werkzeug.serving import make_server


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as file:
        samples: list[dict[str, Any]] = json.load(file)
    rate = float(argv[1])
    server = socketio.Server(async_mode="threading", max_http_buffer_size=512 * 1024)
    joined: dict[str, int] = {}  # sid -> next sample index
    lock = threading.Lock()

    @server.on("join")
    def on_join(sid: str, _: Any = None) -> None:
        with lock:
            joined[sid] = len(joined) % len(samples)

    @server.on("clock")
    def on_clock(sid: str, _: Any = None) -> None:
        pass

    @server.on("disconnect")
    def on_disconnect(sid: str, *_: Any) -> None:
        with lock:
            joined.pop(sid, None)

    def push() -> None:
        period, seq = 1.0 / rate, 0
        while True:
            started = time.monotonic()
            seq += 1
            with lock:
                targets = list(joined.items())
                for sid, index in targets:
                    joined[sid] = (index + 1) % len(samples)
            for sid, index in targets:
                payload = {**samples[index], "seq": seq, "sentAt": time.time()}
                server.emit("tick", payload, to=sid)
            time.sleep(max(0.0, period - (time.monotonic() - started)))

    threading.Thread(target=push, daemon=True).start()
    http = make_server("127.0.0.1", 0, socketio.WSGIApp(server), threaded=True)
    print(f"bare server on http://127.0.0.1:{http.server_port}/", flush=True)
    http.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
