"""A running terminal command's output is bounded (webapp/realtime/terminal.py): past
MAX_STREAM_BYTES it stops and says so; a stop (Ctrl+C, a new line, the tab leaving) ends it
at once and closes the watch under it."""

from __future__ import annotations

import itertools
from typing import Any

from webapp.realtime import terminal


class Outbox:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], str]] = []

    def emit(self, event: str, payload: dict[str, Any], to: str) -> None:
        self.sent.append((event, payload, to))


class Rt:
    def __init__(self) -> None:
        self.outbox = Outbox()
        self.terminal_mirrors: list[Any] = []


class Stream:
    """An endless watch: a row of `size` bytes at a time, as `-w` on a busy cluster for hours."""

    def __init__(self, size: int) -> None:
        self.rows = (("x" * (size - 1) + "\n", "") for _ in itertools.count())
        self.closed = False
        self.taken = 0

    def __iter__(self) -> Stream:
        return self

    def __next__(self) -> tuple[str, str]:
        self.taken += 1
        return next(self.rows)

    def close(self) -> None:
        self.closed = True


def test_an_endless_watch_stops_at_the_bound_and_says_so() -> None:
    rt, stream = Rt(), Stream(1000)
    stopped: list[bool] = []
    running = terminal.Running("kubectl get pods -w", lambda: stopped.append(True))
    terminal._running["tab"] = running
    terminal._follow(rt, "tab", "zh", running, stream)  # type: ignore[arg-type]
    sent = [payload for _, payload, to in rt.outbox.sent if to == "tab"]
    printed = sum(len(p["stdout"].encode()) for p in sent)
    assert printed <= terminal.MAX_STREAM_BYTES
    assert stream.taken <= terminal.MAX_STREAM_BYTES // 1000 + 2  # read no further than needed
    cut, last = sent[-2], sent[-1]
    assert (
        cut["stderr"] == "（此命令的输出在 1024 KiB 处被截断，命令已停止）\n"
        and cut["exitCode"] is None
    )
    assert last == {"line": "kubectl get pods -w", "stdout": "", "stderr": "", "exitCode": 0}
    assert stream.closed and stopped and "tab" not in terminal._running


def test_a_stop_ends_it_with_130_before_anything_else() -> None:
    rt, stream = Rt(), Stream(10)
    stopped: list[bool] = []
    running = terminal.Running("kubectl logs -f web", lambda: stopped.append(True))
    terminal._running["tab2"] = running
    terminal.stop("tab2", interrupted=True, rt=rt)  # type: ignore[arg-type]
    assert rt.outbox.sent == [("terminal:output", {"line": "kubectl logs -f web", "stdout": "",
                                                   "stderr": "", "exitCode": 130}, "tab2")]  # fmt: skip
    terminal._follow(rt, "tab2", "en", running, stream)  # type: ignore[arg-type]
    assert stream.taken <= 1 and stream.closed  # the watch under it is let go at once
    assert len(rt.outbox.sent) == 1  # no second end
    assert stopped
