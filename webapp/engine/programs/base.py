"""What every part of the process model shares: limits, signals, the thread record, the
results handed back to the engine, the protocol of the process (``Machine``) that the
commands and programs act on, and the shells' and tools' message formats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from webapp.engine.programs.catalogue import ImageFacts
from webapp.engine.programs.fs import EISDIR, ENOENT, ENOTDIR, EROFS, FileSystem
from webapp.engine.programs.syntax import Node, ShellSyntaxError, line_column

SIGNUM = {"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGKILL": 9, "SIGUSR1": 10, "SIGUSR2": 12,
          "SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGCHLD": 17, "SIGCONT": 18,
          "SIGSTOP": 19, "SIGWINCH": 28}  # fmt: skip
SIGNAME = {number: name for name, number in SIGNUM.items()}
# Signals whose default action ends the process (for a process that is not PID 1).
FATAL = frozenset(("SIGHUP", "SIGINT", "SIGQUIT", "SIGKILL", "SIGUSR1", "SIGUSR2", "SIGPIPE",
                   "SIGALRM", "SIGTERM"))  # fmt: skip

STEPS_PER_SLICE = 2000  # commands a loop that never waits runs per virtual second
BUSY_SLICE_MS = 1000
MAX_THREADS = 64  # processes in one container model ("can't fork" beyond)
MAX_LOG_LINES = 2000  # per container instance (the kubelet rotates logs too)
MAX_LINE_CHARS = 16 * 1024
MAX_CAPTURE_CHARS = 1024 * 1024
HORIZON_MS = 366 * 24 * 3600 * 1000  # a sleep beyond a year never ends in any run


class World(Protocol):
    """What a process can reach outside itself (the engine implements it)."""

    dns_server: str

    def resolve(self, name: str, search: bool) -> tuple[str, str] | None:
        """(fully qualified name, IPv4 address) of a DNS name, or None (NXDOMAIN); the
        resolv.conf search domains apply when ``search``."""

    def http(self, now_ms: int, host: str, port: int, path: str) -> Answer:
        """An HTTP GET from inside the Pod."""

    def tcp(self, now_ms: int, host: str, port: int) -> bool:
        """A TCP connect from inside the Pod: True when something accepts."""

    # optional: ``exchange(now_ms, host, port, data) -> str | None``, a connection that
    # sends ``data`` and reads what the server answers before it closes (``nc``)


@dataclass(frozen=True, slots=True)
class Answer:
    """The outcome of one HTTP request or connection attempt."""

    kind: str  # "ok" | "refused" | "timeout" | "eof" | "unresolved"
    status: int = 0
    reason: str = ""
    body: str = ""


@dataclass(slots=True)
class ExecResult:
    """What ``kubectl exec``-style execution (probes, hooks) returned."""

    exit_code: int | None  # None: never finished (or timed out)
    stdout: str
    stderr: str
    duration_ms: int | None  # None: still running when the limit came
    timed_out: bool = False
    error: str = ""  # the runtime could not start the command at all
    # An interactive shell's state after the command (``kubectl exec -it``: Machine.exec's
    # ``shell``): workingDir, variables, exported, status, exited.
    shell: dict | None = None

    @property
    def output(self) -> str:
        """stdout then stderr, as ``RunInContainer`` returns them (not interleaved)."""
        return self.stdout + self.stderr


@dataclass(eq=False)
class Thread:
    """One process of the model (PID 1, a job, a foreground child, an exec session)."""

    pid: int
    kind: str  # "shell" | "program" | "exec"
    name: str  # what ps shows as its command
    frames: list = field(default_factory=list)
    status: int = 0
    block: tuple | None = None
    wake: int | None = None
    vars: dict = field(default_factory=dict)
    exported: set = field(default_factory=set)
    positional: list = field(default_factory=list)
    arg0: str = "sh"
    options: set = field(default_factory=set)
    cwd: str = "/"
    io: list = field(default_factory=list)
    caps: dict = field(default_factory=dict)
    program: dict | None = None
    jobs: list = field(default_factory=list)
    last_bg: int | None = None
    done: bool = False
    exit_code: int | None = None
    steps: int = 0
    steps_at: int = -1
    fingerprint: Any = None
    ppid: int = 0
    line: int = 1
    tails: frozenset = frozenset()
    deadline: int | None = None
    deadline_status: int = 124
    exit_trap_done: bool = False
    shell: str = ""  # ash | dash | bash when the thread is a shell
    session: bool = False  # an exec session (probe, hook): not part of the process tree
    start_error: str = ""
    exited: bool = False  # ``exit`` (or errexit) ended the shell itself, not a subshell


@dataclass(frozen=True, slots=True)
class StartInfo:
    """Everything a container start hands the process model."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    hostname: str
    pod_ip: str
    working_dir: str
    stdin_open: bool
    memory_limit: int | None
    epoch: datetime
    facts: ImageFacts
    container_ports: tuple[int, ...] = ()
    assumed_ports: tuple[int, ...] = ()
    fqdn: str = ""  # what `hostname -f` prints (the hostname when the Pod has no subdomain)


class Machine(Protocol):
    """The process (``machine.Process``) as the commands and programs see it."""

    facts: ImageFacts
    fs: FileSystem
    start: StartInfo
    now: int
    world: World | None
    threads: dict[int, Thread]
    listeners: dict[int, tuple]
    memory_bytes: int
    traps: dict
    notes: list[dict]
    exit_code: int | None
    start_error: str
    render_cache: tuple | None
    follows: bool

    def write(self, th: Thread, fd: int, text: str) -> None: ...
    def note(self, code: str, pos: int | None = None, **params: Any) -> None: ...
    def push(self, th: Thread, node: Node) -> None: ...
    def fork_pid(self) -> int: ...
    def spawn(self, parent: Thread, kind: str, name: str) -> Thread: ...
    def exit_shell(self, th: Thread, code: int) -> None: ...
    def run_thread(self, th: Thread) -> None: ...
    def wake(self, th: Thread) -> None: ...
    def stop_child_program(self, th: Thread) -> None: ...
    def finish_program(self, th: Thread, code: int) -> None: ...
    def deliver(self, pid: int, sig: str, sender: int) -> bool: ...
    def kill(self, now_ms: int, *, oom: bool = False) -> None: ...
    def find_pid(self, pid: int) -> tuple[Thread, str] | None: ...
    def process_names(self) -> list[tuple[int, str, str]]: ...
    def wall(self, ms: int | None = None) -> datetime: ...


# -- messages ----------------------------------------------------------------------------

ERRNO_TEXT = {ENOENT: "No such file or directory", EROFS: "Read-only file system",
              EISDIR: "Is a directory", ENOTDIR: "Not a directory", "EEXIST": "File exists",
              "EBUSY": "Resource busy", "ENOTEMPTY": "Directory not empty"}  # fmt: skip


def shell_flavour(base: str, default: str) -> str:
    """Which shell ``base`` is: bash, dash or busybox ash (``sh`` is the image's /bin/sh)."""
    if base in ("bash", "dash", "ash"):
        return base
    return default if default in ("ash", "dash", "bash") else "dash"


def flavour(m: Machine, th: Thread) -> str:
    return th.shell or shell_flavour("sh", m.facts.shell)


def shell_error(m: Machine, th: Thread, text: str, *, dash: str | None = None,
                bash: str | None = None) -> None:  # fmt: skip
    """A message from the shell itself, prefixed the way each shell does."""
    shell = flavour(m, th)
    if shell == "dash":
        line = f"{th.arg0}: {th.line}: {dash or text}\n"
    elif shell == "bash":
        line = f"{th.arg0}: line {th.line}: {bash or text}\n"
    else:
        line = f"{th.arg0}: {text}\n"
    m.write(th, 2, line)


def tool_error(m: Machine, th: Thread, busybox: str, gnu: str) -> None:
    m.write(th, 2, (busybox if m.facts.tools == "busybox" else gnu) + "\n")


def errno_text(code: str) -> str:
    return ERRNO_TEXT.get(code, code)


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)")


def parse_duration(text: str) -> float | None:
    match = _DURATION.fullmatch(text)
    if not match:
        return None
    value = float(match.group(1))
    return value * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]


def syntax_message(error: ShellSyntaxError, shell: str, script: str, prefix: str) -> str:
    """What the real shell prints for a script it cannot parse (then it exits 2)."""
    line = line_column(script, error.pos)[0]
    code, params = error.code, error.params
    token = params.get("token", "")
    if shell == "dash":
        prefix = f"{prefix}: {line}: Syntax error: "
        text = {
            "unterminated_quote": "Unterminated quoted string",
            "unexpected_eof": "end of file unexpected",
            "expecting": f'end of file unexpected (expecting "{token}")',
            "unexpected_token": f'"{token}" unexpected'
            if token != "newline"
            else "newline unexpected",
            "unterminated_substitution": "EOF in backquote substitution",
            "bad_substitution": "Bad substitution",
            "unterminated_brace": "Missing '}'",
            "unterminated_arithmetic": "Missing '))'",
        }.get(code, "Syntax error")
        return prefix + text
    if shell == "bash":
        prefix = f"{prefix}: -c: line {line}: "
        text = {
            "unterminated_quote": "unexpected EOF while looking for matching quote",
            "unexpected_eof": "syntax error: unexpected end of file",
            "expecting": "syntax error: unexpected end of file",
            "unexpected_token": f"syntax error near unexpected token `{token}'",
            "bad_substitution": "bad substitution",
        }.get(code, "syntax error")
        return prefix + text
    text = {
        "unterminated_quote": "syntax error: unterminated quoted string",
        "unexpected_eof": "syntax error: unexpected end of file",
        "expecting": f'syntax error: unexpected end of file (expecting "{token}")',
        "unexpected_token": f'syntax error: unexpected "{token}"'
        if token != "newline"
        else "syntax error: unexpected newline",
        "unterminated_substitution": "syntax error: unterminated quoted string",
        "bad_substitution": "syntax error: bad substitution",
        "unterminated_brace": "syntax error: missing '}'",
        "unterminated_arithmetic": "syntax error: missing '))'",
    }.get(code, "syntax error")
    return f"{prefix}: {text}"
