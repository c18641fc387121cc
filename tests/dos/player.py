"""The legitimate player of tests/dos/harness.py, in a process of its own: joins a
built-in scenario on the server at argv[1] (argv[2]: which), plays it, and prints one line
per thing it is sent, stamped when it arrived (time.monotonic(), one clock for every
process of the machine):

    ready | tick <t> | snapshot | error <json> | failed <why>

It reads JSON lines `[event, data]` on stdin and emits them; stdin closed, it hangs up.
Its own process, so that what it measures is the server's pacing, not the GIL of the test
process whose tens of attacking clients' reader threads would delay its receive thread.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

import socketio

_out = threading.Lock()


def say(line: str) -> None:
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def main(url: str, scenario: str) -> int:
    client = socketio.Client(reconnection=False)
    client.on("tick", lambda _: say(f"tick {time.monotonic()!r}"))
    client.on("snapshot", lambda _: say("snapshot"))

    def error(payload: Any) -> None:
        say("error " + json.dumps(payload))

    client.on("error", error)
    try:
        client.connect(url, transports=["websocket"], wait_timeout=10)
    except Exception as problem:
        say(f"failed {type(problem).__name__}: {problem}")
        return 1
    client.emit("join", {"scenario": scenario})
    client.emit("clock", {"op": "play"})
    say("ready")
    for line in sys.stdin:
        if line.strip():
            event, data = json.loads(line)
            client.emit(event, data)
    client.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
