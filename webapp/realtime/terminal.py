"""`terminal {line}`: one command line of the page's terminal (webapp/terminal), answered
with `terminal:output {line, stdout, stderr, exitCode}` to the tab that typed it.

Bounded like every event: the client's rate limit (dispatch.guarded), a line of at most
MAX_LINE_BYTES (refused `terminal_line_too_long` before it is read), the session's CPU
share (`Realtime.working`: `session_busy` when spent), and at most MAX_OUTPUT_BYTES of
output a line (the rest cut, and said).

A command that goes on (`kubectl get -w`) answers at once with what it prints first and
`exitCode: null`, then sends further `terminal:output` as its output grows, each with
`exitCode: null`, until `terminal {signal: "SIGINT"}` (the last one: `^C`'s exit code 130,
as bash reports it), a new line from the tab (which stops it first, as a shell's prompt
only comes back after it), the tab leaving, the watch's own end (exit code 0) or
MAX_STREAM_BYTES of output (the cut said, exit code 0). One such command per tab; each is
a watch of the session's API, within its bounds (MAX_WATCHES_PER_SESSION / _PER_CLIENT).

`kubectl exec -it POD -- sh` opens a shell (webapp/terminal/shell.py): its answer has
`exitCode: null` and `prompt` (what the shell prints, e.g. `/ # `), and while it is open
every line the tab sends goes to it, each answered with its output and the next `prompt`;
`terminal {signal: "EOF"}` is Ctrl+D (the shell exits). It ends with the shell (`exit [N]`:
its last `terminal:output` has kubectl's exit code and no `prompt`), its container stopping
(seen at the next line or the next look, every SHELL_LOOK_SECONDS: 137), SHELL_IDLE_SECONDS
without a line, or the tab leaving. A shell is the tab's running command; at most
MAX_SHELLS_PER_SESSION open on a session and MAX_SHELLS_PER_CLIENT from one client address
(a line over them is answered in the tab's language, and opens nothing).

A class's teacher types for the class: every `terminal:output` of the teacher's tab goes as
`terminal:mirror` (the same payload) to the class's run too (its followers, the teacher's
other tabs, presenter mode: `Realtime.terminal_mirrors`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from webapp import terminal
from webapp.clients import current_client
from webapp.realtime.state import Realtime, Refusal
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check
from webapp.sessions.tasks import tasks_of
from webapp.terminal import api as terminal_api
from webapp.terminal import shell as terminal_shell
from webapp.terminal.words import ShellError, split_words

MAX_OUTPUT_BYTES = 512 * 1024
MAX_STREAM_BYTES = 1024 * 1024  # what one running `-w` may print in all
STREAM_CUT = {
    "en": "(the output of this command was cut at {limit} KiB in this terminal; it has stopped)\n",
    "zh": "（此命令的输出在 {limit} KiB 处被截断，命令已停止）\n",
}
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


class Running:
    """The command a tab has going on (one per tab)."""

    def __init__(self, line: str, stop: Any) -> None:
        self.line = line
        self.stop = stop  # ends the watch under it (webapp/terminal/kubectl.watch)
        self.interrupted = False


_running: dict[str, Running] = {}
_running_lock = threading.Lock()


# -- exec -it: the tab's open shell --------------------------------------------------------

MAX_SHELLS_PER_SESSION = 10
MAX_SHELLS_PER_CLIENT = 20
SHELL_IDLE_SECONDS = 30 * 60  # wall seconds without a line
SHELL_LOOK_SECONDS = 1.0  # how often an open shell's container is looked at


@dataclass(eq=False)
class OpenShell:
    """A tab's shell (or, until `shell` is set, the place reserved for the one it opens)."""

    session: Any
    client: str
    line: str = ""  # the `kubectl exec -it ...` line that opened it
    shell: Any = None  # webapp/terminal/shell.Shell
    used: float = field(default_factory=time.monotonic)
    closed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


_shells: dict[str, OpenShell] = {}


def _reserve(sid: str, session: Any, client: str, lang: str) -> str | None:
    """A place for one more shell of this tab, within the bounds; else the refusal."""
    with _running_lock:
        open_ = [s for k, s in _shells.items() if k != sid]
        if sum(s.session is session for s in open_) >= MAX_SHELLS_PER_SESSION:
            return terminal_shell.said("too_many_session", lang, limit=MAX_SHELLS_PER_SESSION)
        if sum(s.client == client for s in open_) >= MAX_SHELLS_PER_CLIENT:
            return terminal_shell.said("too_many_client", lang, limit=MAX_SHELLS_PER_CLIENT)
        _shells[sid] = OpenShell(session, client)
    return None


def _close(sid: str, entry: OpenShell) -> bool:
    """Forget the tab's shell; True for the one caller that closed it."""
    with _running_lock:
        if _shells.get(sid) is not entry or entry.closed:
            return False
        entry.closed = True
        del _shells[sid]
    return True


def _shell_line(rt: Realtime, sid: str, entry: OpenShell, line: str, lang: str) -> None:
    """A line typed at the shell's prompt (or Ctrl+D: `line` None)."""
    with entry.lock:
        if entry.closed:
            return
        entry.used = time.monotonic()
        if line is None:
            answer = entry.shell.eof()
        else:
            with rt.working(entry.session), terminal_api.as_client(entry.client):
                answer = entry.shell.line(entry.session, line, lang)
        shown = "" if line is None else line
        if answer.ended is None:
            _output(rt, sid, shown, _bounded(answer.stdout, lang), _bounded(answer.stderr, lang),
                    None, entry.shell.prompt())  # fmt: skip
        elif _close(sid, entry):
            _output(rt, sid, shown, _bounded(answer.stdout, lang), _bounded(answer.stderr, lang),
                    answer.ended)  # fmt: skip


def _watch_shell(rt: Realtime, sid: str, entry: OpenShell, lang: str) -> None:
    """End the shell when its container stops (137, as kubectl says it) or it idles."""
    while not entry.closed:
        rt.socketio.sleep(SHELL_LOOK_SECONDS)
        with entry.lock:
            if entry.closed:
                return
            idle = time.monotonic() - entry.used > SHELL_IDLE_SECONDS
            if idle:
                text, code = (
                    terminal_shell.said("idle", lang, minutes=int(SHELL_IDLE_SECONDS // 60)),
                    1,
                )
            else:
                with terminal_api.as_client(entry.client):
                    gone = entry.shell.gone(entry.session)
                if not gone:
                    continue
                text = entry.shell._ended(terminal_shell.KILLED).stderr
                code = terminal_shell.KILLED
            if _close(sid, entry):
                _output(rt, sid, "", "", text, code)


def _opened(rt: Realtime, sid: str, entry: OpenShell, lang: str) -> None:
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def watch() -> None:
        with app.app_context():
            _watch_shell(rt, sid, entry, lang)

    rt.socketio.start_background_task(watch)


def stop(sid: str, *, interrupted: bool = False, rt: Realtime | None = None) -> None:
    """Stop the tab's running command: the tab left (nothing said), or SIGINT or a new line
    (`rt` given: its last `terminal:output`, exit code 130, goes out now, before anything
    the new line prints). A tab that leaves closes its shell."""
    if not interrupted:
        entry = _shells.get(sid)
        if entry is not None:
            _close(sid, entry)
    with _running_lock:
        running = _running.pop(sid, None)
    if running is None:
        return
    running.interrupted = True
    running.stop()
    if interrupted and rt is not None:
        _output(rt, sid, running.line, "", "", 130)


def _output(rt: Realtime, sid: str, line: str, stdout: str, stderr: str, code: int | None,
            prompt: str | None = None) -> None:  # fmt: skip
    payload: dict[str, Any] = {"line": line, "stdout": stdout, "stderr": stderr, "exitCode": code}
    if prompt is not None:  # a shell is open (exec -it): the page shows its prompt
        payload["prompt"] = prompt
    rt.outbox.emit("terminal:output", payload, to=sid)
    for mirror in rt.terminal_mirrors:  # the same text to whoever watches this terminal
        room = mirror(sid)
        if room is not None:
            rt.outbox.emit("terminal:mirror", payload, to=room, skip=[sid])


def _follow(rt: Realtime, sid: str, lang: str, running: Running, stream: Any) -> None:
    """The running command's further output, until it ends or is stopped."""
    sent = 0
    code = 0
    try:
        for chunk in stream:
            stdout, stderr = chunk[0], chunk[1]
            if running.interrupted:
                break
            sent += len(stdout.encode("utf-8")) + len(stderr.encode("utf-8"))
            if sent > MAX_STREAM_BYTES:
                cut = STREAM_CUT.get(lang, STREAM_CUT["en"]).format(limit=MAX_STREAM_BYTES // 1024)
                _output(rt, sid, running.line, "", cut, None)
                break
            if stdout or stderr:
                _output(rt, sid, running.line, stdout, stderr, None)
            if len(chunk) > 2:  # the command says how it ends (drain: retries on stderr, then 0)
                code = chunk[2]
            elif stderr:
                code = 1
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
        with _running_lock:
            if _running.get(sid) is running:
                del _running[sid]
        if not running.interrupted:  # its own end (the stop said 130 itself)
            _output(rt, sid, running.line, "", "", code)
        running.stop()


def _ran(rt: Realtime, session: Any, line: str) -> None:
    """A kubectl line that ran without an error, for the lesson's tasks (`ran` checks:
    webapp/sessions/tasks.py); the tabs hear of a task it completed at once."""
    progress = tasks_of(session)
    if progress is None:
        return
    here = terminal.HEREDOC.search(line)  # `kubectl apply -f - <<EOF`: its words before
    try:
        words = split_words(line[: here.start()] if here else line)
    except ShellError:
        return
    if not words or words[0] != "kubectl":
        return
    with session.lock:
        progress.ran(words[1:])
        rt.send_tick(session)


def on_terminal(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    if "signal" in payload:
        check.only_fields(payload, ["signal"])
        check.choice(payload, "signal", ["SIGINT", "EOF"])
        entry = _shells.get(sid)
        if entry is not None and entry.shell is not None:
            if payload["signal"] == "EOF":  # Ctrl+D at an empty prompt: the shell exits
                _shell_line(rt, sid, entry, None, rt.lang(sid))
            return  # ^C at a shell's prompt: the shell prints a new one (the page does)
        if payload["signal"] == "SIGINT":
            stop(sid, interrupted=True, rt=rt)
        return
    check.only_fields(payload, ["line", "stdin"])
    stdin = payload.get("stdin")
    if stdin is not None:  # a here-document's lines (`kubectl apply -f - <<EOF`)
        if not isinstance(stdin, str):
            raise PayloadProblem("not_string", field="stdin")
        if (size := check.utf8_size(stdin, "stdin")) > rt.text_limit:
            raise Refusal("text_too_large", size=size // 1024, limit=rt.text_limit // 1024)
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
    entry = _shells.get(sid)
    if entry is not None and entry.shell is not None and entry.session is session:
        _shell_line(rt, sid, entry, line, lang)  # the open shell reads it
        return
    stop(sid, interrupted=True, rt=rt)
    if entry is not None:  # a shell of the session the tab joined before
        _close(sid, entry)
    client = current_client()
    with (
        rt.working(session),
        terminal_api.as_client(client),
        terminal_shell.admitting(lambda: _reserve(sid, session, client, lang)),
    ):
        outcome = None
        try:
            outcome = terminal.run_line(session, line, lang, stdin)
        finally:
            reserved = _shells.get(sid)
            if reserved is not None and reserved.shell is None:
                if outcome is not None and outcome.shell is not None:
                    reserved.shell, reserved.line = outcome.shell, line
                else:
                    _close(sid, reserved)  # the place is kept only by a shell that opened
    if outcome.shell is not None:
        _output(rt, sid, line, "", _bounded(outcome.stderr, lang), None, outcome.shell.prompt())
        _opened(rt, sid, _shells[sid], lang)
        return
    going = outcome.stream is not None
    _output(rt, sid, line, _bounded(outcome.stdout, lang), _bounded(outcome.stderr, lang),
            None if going else outcome.exit_code)  # fmt: skip
    if going or outcome.exit_code == 0:
        _ran(rt, session, line)
    if going:
        running = Running(line, outcome.stop)
        with _running_lock:
            _running[sid] = running
        app = current_app._get_current_object()  # type: ignore[attr-defined]

        def follow() -> None:
            with app.app_context():
                _follow(rt, sid, lang, running, outcome.stream)

        rt.socketio.start_background_task(follow)
