"""`kubectl exec -it POD [-c C] -- sh`: an interactive shell in the page's terminal.

The real kubectl starts the shell once and hands it the keys; here each line typed at its
prompt is one engine `exec` of `SHELL -c LINE` (webapp/kubeapi/exec_ws.exec_in, recorded in
the timeline like every exec, so it replays) that starts in the shell's state: its working
directory, variables, exported names and `$?` (the engine's `exec` `shell`,
engine/programs/machine.py), and answers with the state after it. `cd`, `export`, `$?` and
relative paths carry from line to line, as in one shell.

    opened = open_shell(session, namespace, pod, container, "sh", tty=True, banner="")
    opened.shell.prompt()                     # "/ # " (busybox ash as root in /)
    answer = opened.shell.line(session, "rm /tmp/healthy", "en")   # ShellAnswer
    answer.ended                              # None while it is open, else kubectl's exit code

The shell ends with `exit [N]`, Ctrl+D (`eof`), or its container stopping (killed by a
restart, the Pod deleted): then kubectl prints `command terminated with exit code 137`, as
when the runtime kills an exec's process with its container.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.programs.base import shell_flavour
from webapp.engine.programs.catalogue import image_facts
from webapp.engine.store.errors import ApiError
from webapp.terminal import api

# The programs `exec -i` opens as a shell here (with or without a path).
SHELL_NAMES = frozenset({"sh", "ash", "bash", "dash"})
KILLED = 137  # the runtime kills an exec's processes with its container: 128 + SIGKILL

TEXTS = {
    "timed_out": {
        "en": "(this line was stopped after {seconds} s of its own time in this terminal: the shell goes on)\n",
        "zh": "（这一行在此终端中按其自身时间运行 {seconds} 秒后被停止；shell 仍然打开）\n",
    },
    "idle": {
        "en": "(the shell was closed after {minutes} min without input in this terminal)\n",
        "zh": "（此终端的 shell 在 {minutes} 分钟没有输入后被关闭）\n",
    },
    "too_many_session": {
        "en": "error: this session already has {limit} shells open (this terminal's limit); exit one of them first\n",
        "zh": "error: 这个会话已经打开了 {limit} 个 shell（此终端的上限）；请先退出其中一个\n",
    },
    "too_many_client": {
        "en": "error: your address already has {limit} shells open (this terminal's limit); exit one of them first\n",
        "zh": "error: 你的地址已经打开了 {limit} 个 shell（此终端的上限）；请先退出其中一个\n",
    },
}  # fmt: skip


def said(code: str, lang: str, **params: Any) -> str:
    texts = TEXTS[code]
    return texts.get(lang, texts["en"]).format(**params)


# Whether this tab may open one more shell: set by webapp/realtime/terminal.py around a line
# (its bounds per session and per client); answers None (yes) or the refusal's text.
_admit: ContextVar[Callable[[], str | None] | None] = ContextVar("shell_admit", default=None)


@contextmanager
def admitting(check: Callable[[], str | None]) -> Iterator[None]:
    token = _admit.set(check)
    try:
        yield
    finally:
        _admit.reset(token)


def is_shell(command: list[str]) -> bool:
    """`exec -i POD -- sh` (one word: sh, /bin/sh, bash, /bin/bash, ash, dash)."""
    return len(command) == 1 and posixpath.basename(command[0]) in SHELL_NAMES


@dataclass
class ShellAnswer:
    stdout: str = ""
    stderr: str = ""
    ended: int | None = None  # kubectl's exit code once the shell has ended


@dataclass
class Shell:
    """One open shell: where it runs and the state it carries between lines."""

    namespace: str
    pod: str
    container: str
    program: str  # as typed: sh, /bin/sh, bash ...
    flavour: str  # which shell that is in this image: ash | dash | bash (the engine's)
    tty: bool  # -t: a prompt (and bash's "exit"); -i alone reads lines without one
    container_id: str  # the container instance it was opened in
    state: dict = field(default_factory=dict)

    def prompt(self) -> str:
        """PS1 as the shell prints it as root (the engine's exec runs as root): busybox
        ash's `\\w \\$ `, dash's `# `, and Debian's bash.bashrc `\\u@\\h:\\w\\$ `."""
        if not self.tty:
            return ""
        if self.flavour == "dash":
            return "# "
        if self.flavour == "bash":
            host = self.state.get("variables", {}).get("HOSTNAME") or self.pod
            return f"root@{host.split('.', 1)[0]}:{self._w()}# "
        return f"{self._w()} # "

    def _w(self) -> str:
        """`\\w`: the working directory, $HOME as ~."""
        cwd = self.state.get("workingDir", "/")
        home = self.state.get("variables", {}).get("HOME", "")
        if home and home != "/" and (cwd == home or cwd.startswith(home + "/")):
            return "~" + cwd[len(home) :]
        return cwd

    def gone(self, session: Any) -> bool:
        """The container it runs in has stopped or been replaced (or the Pod is gone)."""
        status, pod = api.request(
            session, "GET", f"/api/v1/namespaces/{self.namespace}/pods/{self.pod}"
        )
        return status >= 400 or _running_id(pod, self.container) != self.container_id

    def line(self, session: Any, text: str, lang: str) -> ShellAnswer:
        """One line typed at the prompt."""
        from webapp.engine.actions import EXEC_TIMEOUT_MS
        from webapp.kubeapi.exec_ws import exec_in

        if self.gone(session):
            return self._ended(KILLED)
        if not text.strip():
            return ShellAnswer()
        kept = {k: self.state[k] for k in ("workingDir", "variables", "exported", "status")}
        try:
            result = exec_in(session, self.namespace, self.pod, self.container,
                             [self.program, "-c", text], shell=kept)  # fmt: skip
        except ApiError:  # the container stopped, the Pod went, between the look and the line
            return self._ended(KILLED)
        stdout, stderr = result.get("stdout") or "", result.get("stderr") or ""
        if result.get("error"):
            stderr += result["error"].rstrip("\n") + "\n"
        if result.get("timedOut"):
            stderr += said("timed_out", lang, seconds=EXEC_TIMEOUT_MS // 1000)
        state = result.get("shell")
        if state:
            exited = state.pop("exited", False)
            self.state = state
            if exited and result.get("exitCode") is not None:
                end = self._ended(int(result["exitCode"]), said_exit=True)
                return ShellAnswer(stdout, stderr + end.stderr, end.ended)
        return ShellAnswer(stdout, stderr)

    def eof(self) -> ShellAnswer:
        """Ctrl+D on an empty line: the shell exits with `$?`."""
        return self._ended(int(self.state.get("status", 0)), said_exit=True)

    def _ended(self, code: int, *, said_exit: bool = False) -> ShellAnswer:
        text = "exit\n" if said_exit and self.tty and self.flavour == "bash" else ""
        if code:
            text += f"command terminated with exit code {code}\n"
        return ShellAnswer("", text, code)


def _running_id(pod: dict, container: str) -> str | None:
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == container:
            running = "running" in (status.get("state") or {})
            return status.get("containerID") if running else None
    return None


def open_shell(session: Any, namespace: str, pod: dict, container: str, program: str,
               tty: bool) -> tuple[Shell | None, dict | None, str]:  # fmt: skip
    """Open `program` in `container` of `pod` (the object as kubectl got it): (the shell,
    None, "") or (None, the engine's exec answer when it could not start, "") or (None,
    None, why this tab may not open one more)."""
    from webapp.kubeapi.exec_ws import exec_in

    check = _admit.get()
    refusal = check() if check is not None else None
    if refusal:
        return None, None, refusal
    name = pod["metadata"]["name"]
    result = exec_in(session, namespace, name, container, [program], shell={})
    if result.get("exitCode") != 0 or result.get("error"):
        return None, result, ""
    spec = next(c for c in pod["spec"]["containers"] if c["name"] == container)
    flavour = shell_flavour(posixpath.basename(program), image_facts(spec.get("image", "")).shell)
    status, fresh = api.request(session, "GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
    container_id = _running_id(fresh, container) if status < 400 else None
    state = dict(result.get("shell") or {})
    state.pop("exited", None)
    shell = Shell(namespace, name, container, program, flavour, tty, container_id or "", state)
    return shell, None, ""
