"""`terminal {line}`: one command line of the page's terminal (webapp/terminal), answered
with `terminal:output {line, stdout, stderr, exitCode}` to the tab that typed it.

Bounded like every event: the client's rate limit (dispatch.guarded), a line of at most
MAX_LINE_BYTES (refused `terminal_line_too_long` before it is read), the session's CPU
share (`Realtime.working`: `session_busy` when spent), and at most MAX_OUTPUT_BYTES of
output a line (the rest cut, and said). `{signal: "SIGINT"}` is answered with nothing to
stop: no command of this terminal runs past its own answer yet.
"""

from __future__ import annotations

from typing import Any

from webapp import terminal
from webapp.realtime.state import Realtime, Refusal
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check

MAX_OUTPUT_BYTES = 512 * 1024
CUT = {
    "en": "\n(the output was cut at {limit} KiB in this terminal)\n",
    "zh": "\n（此终端的输出在 {limit} KiB 处被截断）\n",
}


def _bounded(text: str, lang: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= MAX_OUTPUT_BYTES:
        return text
    kept = data[:MAX_OUTPUT_BYTES].decode("utf-8", "ignore")
    return kept + CUT.get(lang, CUT["en"]).format(limit=MAX_OUTPUT_BYTES // 1024)


def on_terminal(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    if "signal" in payload:
        check.only_fields(payload, ["signal"])
        check.choice(payload, "signal", ["SIGINT"])
        return
    check.only_fields(payload, ["line"])
    value = payload.get("line")
    if not isinstance(value, str):
        raise PayloadProblem("missing" if value is None else "not_string", field="line")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > terminal.MAX_LINE_BYTES:
        raise Refusal("terminal_line_too_long", size=size // 1024,
                      limit=terminal.MAX_LINE_BYTES // 1024)  # fmt: skip
    line = value.replace("\r", "").split("\n", 1)[0]
    session = rt.joined_session(sid)
    lang = rt.lang(sid)
    with rt.working(session):
        outcome = terminal.run_line(session, line, lang)
    rt.outbox.emit(
        "terminal:output",
        {
            "line": line,
            "stdout": _bounded(outcome.stdout, lang),
            "stderr": _bounded(outcome.stderr, lang),
            "exitCode": outcome.exit_code,
        },
        to=sid,
    )
