"""The process model of one container instance: its processes, in virtual time.

A :class:`Process` is what a container start creates: PID 1 (a shell interpreting its
script, or a program such as nginx) and whatever it starts (``&`` jobs, foreground
children, ``kubectl exec``-style sessions for probes and hooks). Each process of the model
is a :class:`Thread`: an explicit stack of frames over the immutable syntax tree, so the
whole state is plain data that deep-copies cheaply and runs the same every time.

Time: the caller drives it. ``advance(now_ms, world)`` runs everything due up to
``now_ms``; ``next_wake()`` says when something is due next. A command that waits
(``sleep``, ``wait``, a server) blocks its thread until a time or an event. A loop that
never waits runs at most ``STEPS_PER_SLICE`` commands per virtual second; once a whole
slice changes nothing (variables, files, processes) it is parked as spinning: 100 % CPU,
no real time, until a signal or a file change wakes it.

Signals follow the kernel's rule for PID 1 of a PID namespace (CONTAINER-SEMANTICS §1):
a signal without a handler is dropped, except SIGKILL. A shell's ``trap`` is its handler:
it runs once the foreground command returns, at once during ``wait``.
"""

from __future__ import annotations

import functools
import posixpath
from datetime import datetime, timedelta
from typing import Any

from webapp.engine.programs import commands, cond, servers
from webapp.engine.programs.base import (
    BUSY_SLICE_MS,
    FATAL,
    MAX_CAPTURE_CHARS,
    MAX_LINE_CHARS,
    MAX_LOG_LINES,
    MAX_THREADS,
    SIGNUM,
    STEPS_PER_SLICE,
    Answer,
    ExecResult,
    StartInfo,
    Thread,
    World,
    flavour,
    shell_error,
)
from webapp.engine.programs.fs import FileSystem
from webapp.engine.programs.syntax import Node, line_column


class Process:
    """One container instance's processes. See the module docstring."""

    def __init__(self, start: StartInfo, fs: FileSystem, now_ms: int) -> None:
        self.start = start
        self.facts = start.facts
        self.fs = fs
        self.threads: dict[int, Thread] = {}
        self.next_pid = 7  # PIDs the first children get after a shell's own start-up
        self.logs: list[list] = []  # [ms, "stdout"|"stderr", text]
        self.partial = {"stdout": "", "stderr": ""}
        self.exit_code: int | None = None
        self.exit_ms: int | None = None
        self.oom = False
        self.start_error = ""
        self.now = now_ms
        self.started_ms = now_ms
        self.listeners: dict[int, tuple] = {}  # port -> (pid, serve kind, extra)
        self.memory_bytes = 0
        self.notes: list[dict] = []
        self.traps: dict[str, Node | str] = {}
        self.pending_traps: list[str] = []
        self.cpu_ms = 0
        self.world: World | None = None
        self.current: Thread | None = None
        self.render_cache: tuple | None = None  # (ms, the log placeholders of that instant)
        self.signals_seen: list[tuple[int, str]] = []
        self.follows = False  # a `tail -f` runs here: file changes schedule its next read

    # -- public API ---------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.exit_code is None

    def begin(self, world: World) -> None:
        """PID 1 starts: the runtime execs the container's argv."""
        main = Thread(pid=1, kind="program", name=posixpath.basename(self.start.argv[0]))
        main.vars = dict(self.start.env)
        main.exported = set(main.vars)
        main.cwd = self.start.working_dir or "/"
        main.io = [{0: None if not self.start.stdin_open else "<open>",
                    1: ("log", "stdout"), 2: ("log", "stderr")}]  # fmt: skip
        main.frames = [["end"], ["argv", tuple(self.start.argv), True, "runtime"]]
        self.threads[1] = main
        self.advance(self.now, world)

    def follow_changes(self, now_ms: int) -> bool:
        """Another container changed a shared volume: does a ``tail -f`` here now have a
        read to do (its next timer set)? The kubelet asks after each container's step."""
        if not self.follows or self.exit_code is not None:
            return False
        self.now = max(self.now, now_ms)
        return servers.follow_due(self)

    def next_wake(self) -> int | None:
        if self.exit_code is not None:
            return None
        earliest = None
        for t in self.threads.values():
            if t.done:
                continue
            wake, deadline = t.wake, t.deadline
            if wake is not None and (earliest is None or wake < earliest):
                earliest = wake
            if deadline is not None and (earliest is None or deadline < earliest):
                earliest = deadline
        return earliest

    def advance(self, now_ms: int, world: World) -> None:
        """Run everything due up to ``now_ms``."""
        self.world = world
        try:
            self._advance(now_ms)
        finally:
            self.world = None

    def signal(self, now_ms: int, sig: str, world: World, sender: int = 0) -> None:
        """A signal for PID 1 (the runtime's stop signal, or ``kill`` from inside)."""
        self.advance(now_ms, world)
        if self.exit_code is not None:
            return
        self.world = world
        try:
            self.signals_seen.append((now_ms, sig))
            self.deliver(1, sig, sender)
            self._advance(now_ms)
        finally:
            self.world = None

    def kill(self, now_ms: int, *, oom: bool = False) -> None:
        """SIGKILL (or the OOM killer): everything ends now, no handler runs."""
        if self.exit_code is not None:
            return
        self.now = now_ms
        self._exit(137, oom=oom)

    def exec(
        self,
        now_ms: int,
        argv: list[str],
        timeout_ms: int | None,
        world: World,
        head_chars: int | None = None,
        shell: dict | None = None,
    ) -> ExecResult:
        """Run ``argv`` in the container (a probe or hook), in its own time line.

        The command's sleeps advance its own clock only (the rest of the container does not
        run meanwhile); its effects (files, signals to PID 1) happen at ``now_ms``. Of
        each stream a probe keeps the last 10 KiB; ``head_chars`` keeps the first that
        many instead (``kubectl exec``, which streams all of it).

        ``shell`` (``kubectl exec -it``: one line typed into an interactive shell, run as
        ``SHELL -c LINE``): the session starts in that shell's state (``workingDir``,
        ``variables``, ``exported``, ``status``; {} for the container's own) and the result
        carries the state after it, and ``exited`` when ``exit`` ended the shell."""
        self.advance(now_ms, world)
        if self.exit_code is not None:
            return ExecResult(None, "", "", 0, error="container is not running")
        self.world = world
        try:
            return self._exec(now_ms, [str(a) for a in argv], timeout_ms, head_chars, shell)
        finally:
            self.world = None
            self.now = max(self.now, now_ms)

    def http(self, now_ms: int, port: int, path: str, client: str, world: World) -> Answer:
        """An HTTP GET to ``port`` of this container (probes, hooks, other containers)."""
        self.advance(now_ms, world)
        if self.exit_code is not None or port not in self.listeners:
            return Answer("refused")
        self.world = world
        try:
            return servers.http(self, port, path, client)
        finally:
            self.world = None

    def tcp(self, now_ms: int, port: int, world: World) -> bool:
        self.advance(now_ms, world)
        if self.exit_code is not None or port not in self.listeners:
            return False
        self.world = world
        try:
            servers.tcp_connected(self, port)
            self._advance(now_ms)
        finally:
            self.world = None
        return True

    def exchange(self, now_ms: int, port: int, data: str, world: World) -> str | None:
        """A connection to ``port`` that sends ``data`` and reads the answer until the
        server closes (``echo ruok | nc 127.0.0.1 2181``); None when refused. From inside
        this container (an exec of its own probe) the rest of it does not run meanwhile."""
        inside = self.world is not None
        if not inside:
            self.advance(now_ms, world)
        if self.exit_code is not None or port not in self.listeners:
            return None
        previous, self.world = self.world, world
        try:
            answer = servers.exchange(self, port, data)
            if not inside:
                self._advance(now_ms)
        finally:
            self.world = previous
        return answer

    def grpc(self, now_ms: int, port: int, service: str, world: World) -> str:
        """ "SERVING" | "NOT_SERVING" | "unimplemented" | "refused"."""
        self.advance(now_ms, world)
        if self.exit_code is not None or port not in self.listeners:
            return "refused"
        return servers.grpc(self, port, service)

    def log_lines(self) -> list[list]:
        """Every complete log line, plus a last partial one once the process ended."""
        lines = list(self.logs)
        if self.exit_code is not None:
            for stream in ("stdout", "stderr"):
                if self.partial[stream]:
                    lines.append([self.exit_ms, stream, self.partial[stream]])
        return lines

    def termination_message(self, path: str, policy: str, exit_code: int | None = None) -> str:
        """``state.terminated.message`` (CONTAINER-SEMANTICS §6): the last 4096 bytes of the
        file; with FallbackToLogsOnError and a non-zero exit, when the file is empty, the
        last 80 log lines cut to their last 2048 bytes."""
        content = (self.fs.read(path) or "").encode()
        code = self.exit_code if exit_code is None else exit_code
        if content or policy != "FallbackToLogsOnError" or not code:
            return content[-4096:].decode(errors="replace")
        lines = [line[2] for line in self.log_lines()][-80:]
        text = ("\n".join(lines) + ("\n" if lines else "")).encode()
        return text[-2048:].decode(errors="replace")

    def wall(self, ms: int | None = None) -> datetime:
        return self.start.epoch + timedelta(milliseconds=self.now if ms is None else ms)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["render_cache"] = None  # derived from the clock: never copied
        return state

    def note(self, code: str, pos: int | None = None, **params: Any) -> None:
        """A runtime warning ("not modelled: …"), recorded once per code and command."""
        entry = {"code": code, "pos": pos, **params}
        if entry not in self.notes and len(self.notes) < 50:
            self.notes.append(entry)

    # -- time ---------------------------------------------------------------------------

    def _advance(self, now_ms: int) -> None:
        guard = 0
        while self.exit_code is None:
            guard += 1
            if guard > 100_000:
                break  # cannot happen: every round makes progress or stops
            # One pass: the threads due by now_ms, a spinning loop whose files changed let
            # look again, the threads that can run (each in the threads' order).
            due = []
            runnable = []
            version = self.fs.version
            for t in self.threads.values():
                block = t.block
                if block is not None and block[0] == "spin" and block[1] != version:
                    t.block = block = None
                    t.fingerprint = None
                if t.done:
                    continue
                wake, deadline = t.wake, t.deadline
                if (wake is not None and wake <= now_ms) or (
                    deadline is not None and deadline <= now_ms
                ):
                    due.append(t)
                if block is None:
                    runnable.append(t)
            if self.follows and not runnable:
                servers.follow_due(self)
            if runnable:
                for thread in sorted(runnable, key=lambda t: t.pid):
                    if not thread.done and thread.block is None and self.exit_code is None:
                        self.run_thread(thread)
                continue
            if not due:
                break
            at = min(
                min(x for x in (t.wake, t.deadline) if x is not None and x <= now_ms) for t in due
            )
            self.now = max(self.now, at)
            for thread in sorted(due, key=lambda t: t.pid):
                if thread.done or self.exit_code is not None:
                    continue
                if (
                    thread.deadline is not None
                    and thread.deadline <= self.now
                    and (thread.wake is None or thread.deadline <= thread.wake)
                ):
                    self._deadline(thread)
                elif thread.wake is not None and thread.wake <= self.now:
                    self.wake(thread)
        self.now = max(self.now, now_ms)

    def wake(self, th: Thread) -> None:
        block = th.block or ("",)
        th.wake = None
        kind = block[0]
        if kind == "sleep":
            self._resume(th, 0)
        elif kind == "busy":
            th.block = None
        elif kind == "exiting":
            self.finish_program(th, block[1])
        elif kind == "program":
            servers.program_event(self, th)
        elif kind == "wait":
            th.block = None
        else:
            th.block = None

    def _deadline(self, th: Thread) -> None:
        """``timeout N cmd``: the command ran out of time."""
        self._resume(th, th.deadline_status)

    def _resume(self, th: Thread, status: int) -> None:
        """The blocking command of ``th`` (a sleep, a program, its own program when it is
        one) ended with ``status``; the thread goes on with its next frame."""
        self.stop_child_program(th)
        th.block = None
        th.wake = None
        th.deadline = None
        th.status = status

    def fork_pid(self) -> int:
        pid = self.next_pid
        self.next_pid += 1
        return pid

    # -- threads ------------------------------------------------------------------------

    def run_thread(self, th: Thread) -> None:
        previous, self.current = self.current, th
        try:
            self._run_loop(th)
        finally:
            self.current = previous

    def _run_loop(self, th: Thread) -> None:
        if th.steps_at != self.now:
            th.steps_at, th.steps = self.now, 0
        while th.block is None and not th.done and self.exit_code is None:
            if th.pid == 1 and self.pending_traps and th.kind == "shell":
                self._run_trap(th, self.pending_traps.pop(0))
                continue
            if not th.frames:
                self._thread_end(th, th.status)
                return
            th.steps += 1
            if th.steps > STEPS_PER_SLICE:
                self._busy(th)
                return
            self._step(th)

    def _busy(self, th: Thread) -> None:
        """The loop has not waited for a whole slice: charge a virtual second of CPU."""
        fingerprint = (
            tuple(sorted(th.vars.items())), self.fs.version, len(self.threads),
            tuple(sorted(self.listeners)), len(th.jobs),
        )  # fmt: skip
        self.cpu_ms += BUSY_SLICE_MS
        self.note("busy_loop")
        if fingerprint == th.fingerprint:
            th.block = ("spin", self.fs.version)
            th.wake = None
            return
        th.fingerprint = fingerprint
        th.block = ("busy",)
        th.wake = self.now + BUSY_SLICE_MS

    def unspin(self) -> None:
        """Something outside a spinning loop changed: let it look again."""
        for th in self.threads.values():
            if not th.done and th.block is not None and th.block[0] == "spin":
                th.block = None
                th.fingerprint = None

    def _step(self, th: Thread) -> None:
        frame = th.frames[-1]
        tag = frame[0]
        if tag == "list":
            items = frame[1].a
            i = frame[2]
            if i > 0 and "e" in th.options and th.status != 0:
                previous = items[i - 1][0]
                if not previous_guarded(previous) and not frame[3]:
                    self.exit_shell(th, th.status)
                    return
            if i >= len(items):
                th.frames.pop()
                return
            frame[2] = i + 1
            node, background = items[i]
            if background:
                self._background(th, node)
            else:
                self.push(th, node)
        elif tag == "andor":
            node = frame[1]
            i = frame[2]
            if i == 0:
                frame[2] = 1
                th.frames.append(["guard"])
                self.push(th, node.a)
                return
            rest = node.b
            if i > len(rest):
                th.frames.pop()
                return
            op, nxt = rest[i - 1]
            frame[2] = i + 1
            if (op == "&&") == (th.status == 0):
                if i < len(rest):
                    th.frames.append(["guard"])
                self.push(th, nxt)
        elif tag == "guard":
            th.frames.pop()
        elif tag == "if":
            node = frame[1]
            clauses = node.a
            if frame[3] == 0:
                if frame[2] < len(clauses):
                    frame[3] = 1
                    th.frames.append(["guard"])
                    self.push(th, clauses[frame[2]][0])
                else:
                    th.frames.pop()
                    if node.b is not None:
                        self.push(th, node.b)
                    else:
                        th.status = 0
            else:
                if th.status == 0:
                    th.frames.pop()
                    self.push(th, clauses[frame[2]][1])
                else:
                    frame[2] += 1
                    frame[3] = 0
        elif tag == "while":
            node = frame[1]
            phase = frame[2]
            if phase == 0:
                frame[2] = 1
                th.frames.append(["guard"])
                self.push(th, node.a)
            elif phase == 1:
                if (th.status == 0) != bool(node.c):
                    frame[2] = 2
                    self.push(th, node.b)
                else:
                    th.frames.pop()
                    th.status = frame[3]
            else:
                frame[3] = th.status
                frame[2] = 0
        elif tag == "for":
            node = frame[1]
            if frame[2] is None:
                if node.b is None:
                    frame[2] = list(th.positional)
                else:
                    values: list[str] = []
                    for word in node.b:
                        values.extend(self.expand(th, word))
                    frame[2] = values
            if frame[3] < len(frame[2]):
                th.vars[node.a] = frame[2][frame[3]]
                frame[3] += 1
                self.push(th, node.c)
            else:
                th.frames.pop()
                if not frame[2]:
                    th.status = 0
        elif tag == "negate":
            th.frames.pop()
            th.status = 0 if th.status else 1
        elif tag == "redir":
            th.frames.pop()
            del th.io[frame[1] :]
        elif tag == "subshell":
            th.frames.pop()
            restore(th, frame[1])
        elif tag == "pipe":
            self._pipe_step(th, frame)
        elif tag == "trapret":
            th.frames.pop()
            th.status = frame[1]
        elif tag == "exitret":
            th.frames.pop()
            self._thread_end(th, frame[1])
        elif tag == "argv":
            th.frames.pop()
            status = commands.run_argv(
                self, th, list(frame[1]), exec_mode=frame[2], node=None, origin=frame[3]
            )
            if status is not None:
                th.status = status
        elif tag == "end":
            th.frames.pop()
            self._thread_end(th, th.status)
        else:  # pragma: no cover - every frame tag is handled above
            raise AssertionError(tag)

    def push(self, th: Thread, node: Node) -> None:
        kind = node.kind
        if kind == "list":
            top = th.frames[-1] if th.frames else None
            guarded = top is not None and (top[0] == "guard" or (top[0] == "list" and top[3]))
            th.frames.append(["list", node, 0, guarded])
        elif kind == "andor":
            th.frames.append(["andor", node, 0])
        elif kind == "pipeline":
            if node.b:
                th.frames.append(["negate"])
            if len(node.a) == 1:
                self.push(th, node.a[0])
            else:
                th.frames.append(["pipe", node, 0, None, None])
        elif kind == "if":
            th.frames.append(["if", node, 0, 0])
        elif kind == "while":
            th.frames.append(["while", node, 0, 0])
        elif kind == "for":
            th.frames.append(["for", node, None, 0])
        elif kind == "group":
            self.push(th, node.a)
        elif kind == "subshell":
            saved = {"vars": dict(th.vars), "cwd": th.cwd, "options": set(th.options)}
            th.frames.append(["subshell", saved])
            self.push(th, node.a)
        elif kind == "redirected":
            depth = len(th.io)
            if not commands.apply_redirects(self, th, node.b):
                del th.io[depth:]
                th.status = 2 if flavour(self, th) == "dash" else 1
                return
            th.frames.append(["redir", depth])
            self.push(th, node.a)
        elif kind == "simple":
            th.line = self.line_of(th, node.pos)
            commands.run_simple(self, th, node)
        elif kind == "cond":
            th.line = self.line_of(th, node.pos)
            cond.run_cond(self, th, node)
        else:  # pragma: no cover
            raise AssertionError(kind)

    def line_of(self, th: Thread, pos: int) -> int:
        script = th.vars.get("\x00script")
        if not isinstance(script, str):
            return 1
        return _line_at(script, pos)

    def _pipe_step(self, th: Thread, frame: list) -> None:
        """``a | b | c``: run the stages in turn, each one's output the next one's input."""
        node = frame[1]
        stages = node.a
        i = frame[2]
        if i > 0:
            # the stage i-1 finished: collect its captured output
            cap_id = frame[4]
            frame[3] = "".join(th.caps.pop(cap_id, []))
            del th.io[frame[5] :]
        if i >= len(stages):
            th.frames.pop()
            return
        frame[2] = i + 1
        last = i == len(stages) - 1
        depth = len(th.io)
        io = dict(th.io[-1])
        if i > 0:
            io[0] = frame[3]
        if not last:
            cap_id = f"p{id(frame)}-{i}"
            th.caps[cap_id] = []
            io[1] = ("cap", cap_id)
            frame[4] = cap_id
        th.io.append(io)
        if len(frame) < 6:
            frame.append(depth)
        else:
            frame[5] = depth
        if last:
            th.frames.pop()
            th.frames.append(["redir", depth])
        self.push(th, stages[i])

    def _background(self, th: Thread, node: Node) -> None:
        alive = sum(1 for t in self.threads.values() if not t.done)
        if alive >= MAX_THREADS:
            self.note("too_many_processes", node.pos, limit=MAX_THREADS)
            shell_error(self, th, "can't fork: Resource temporarily unavailable",
                                 dash="Cannot fork", bash="fork: retry: Resource temporarily unavailable")  # fmt: skip
            th.status = 2
            return
        child = self.spawn(th, "shell", th.name)
        child.frames = [["end"]]
        self.push(child, node)
        th.jobs.append(child.pid)
        th.last_bg = child.pid
        th.status = 0

    def spawn(self, parent: Thread, kind: str, name: str) -> Thread:
        child = Thread(pid=self.fork_pid(), kind=kind, name=name)
        child.vars = dict(parent.vars)
        child.exported = set(parent.exported)
        child.positional = list(parent.positional)
        child.arg0 = parent.arg0
        child.options = set(parent.options)
        child.cwd = parent.cwd
        child.io = [dict(parent.io[-1])]
        child.ppid = parent.pid
        child.shell = parent.shell
        child.tails = frozenset()
        self.threads[child.pid] = child
        return child

    # -- ending -------------------------------------------------------------------------

    def exit_shell(self, th: Thread, code: int) -> None:
        """``exit N`` (or errexit): leave a subshell, or end the thread."""
        for index in range(len(th.frames) - 1, -1, -1):
            frame = th.frames[index]
            if frame[0] == "subshell":
                restore(th, frame[1])
                del th.frames[index:]
                th.status = code
                return
            if frame[0] == "exitret":
                del th.frames[index:]
                self._thread_end(th, code)
                return
        th.frames.clear()
        th.exited = True
        self._thread_end(th, code)

    def _thread_end(self, th: Thread, code: int) -> None:
        if th.done:
            return
        if th.pid == 1 and th.kind == "shell" and "EXIT" in self.traps and not th.exit_trap_done:
            th.exit_trap_done = True
            action = self.traps["EXIT"]
            if isinstance(action, Node):
                th.frames = [["exitret", code]]
                th.status = code
                self.push(th, action)
                return
        th.done = True
        th.exit_code = code
        th.block = None
        th.wake = None
        th.deadline = None
        for port in [p for p, owner in self.listeners.items() if owner[0] == th.pid]:
            del self.listeners[port]
        if th.program is not None:
            self.memory_bytes -= th.program.get("memory", 0)
        if th.pid == 1:
            self._exit(code)
            return
        for other in self.threads.values():
            if other.block is not None and other.block[0] == "wait" and not other.done:
                waiting = [p for p in other.block[1] if not self.threads[p].done]
                if not waiting:
                    status = code if len(other.block[1]) == 1 else 0
                    other.block = None
                    other.wake = None
                    other.status = status
        if th.session:
            return
        # a finished thread keeps its entry (for wait and $!) but drops its state
        th.frames = []
        th.caps = {}

    def _exit(self, code: int, *, oom: bool = False) -> None:
        """PID 1 ended: the kernel kills every other process of the namespace."""
        if self.exit_code is not None:
            return
        self.exit_code = code
        self.exit_ms = self.now
        self.oom = oom
        self.listeners.clear()
        for th in self.threads.values():
            th.done = True
            th.block = None
            th.wake = None
            th.frames = []

    def finish_program(self, th: Thread, code: int) -> None:
        """A program (PID 1 or a child) ended by itself or after a signal."""
        self._resume(th, code)

    def stop_child_program(self, th: Thread) -> None:
        if th.program is None:
            return
        child = th.program.get("pid", th.pid)
        for port in [p for p, owner in self.listeners.items() if owner[0] == child]:
            del self.listeners[port]
        self.memory_bytes -= th.program.get("memory", 0)
        th.program = None

    # -- signals ------------------------------------------------------------------------

    def find_pid(self, pid: int) -> tuple[Thread, str] | None:
        """The thread that is process ``pid``: itself, or its foreground child."""
        th = self.threads.get(pid)
        if th is not None and not th.done:
            return th, "self"
        for other in self.threads.values():
            if other.done or other.block is None:
                continue
            if other.block[0] in ("sleep", "program", "forever") and self.child_pid(other) == pid:
                return other, "child"
        return None

    def child_pid(self, th: Thread) -> int | None:
        if th.block is None:
            return None
        if th.program is not None:
            return th.program.get("pid")
        if th.block[0] == "sleep" and len(th.block) > 1:
            return th.block[1]
        return None

    def process_names(self) -> list[tuple[int, str, str]]:
        """(pid, name, command line) of every live process, for ps / pidof / killall."""
        found = []
        for th in sorted(self.threads.values(), key=lambda t: t.pid):
            if th.done:
                continue
            if th.kind == "program" and th.program is not None:
                found.append((th.pid, th.program["name"], " ".join(th.program["argv"])))
            elif th.kind == "program" and th.block is not None and th.block[0] == "sleep":
                found.append((th.pid, th.name, th.name))
            elif th.kind == "shell":
                found.append((th.pid, th.name, th.name))
                child = self.child_pid(th)
                if child is not None and child != th.pid:
                    name = th.program["name"] if th.program is not None else "sleep"
                    argv = " ".join(th.program["argv"]) if th.program is not None else "sleep"
                    found.append((child, name, argv))
        return found

    def deliver(self, pid: int, sig: str, sender: int) -> bool:
        """Send ``sig`` to process ``pid``. False when there is no such process."""
        found = self.find_pid(pid)
        if found is None:
            return False
        th, role = found
        if sig == "SIGKILL":
            if th.pid == 1 and role == "self":
                self._exit(137)
            elif role == "child":
                self.stop_child_program(th)
                self._resume(th, 137)
            else:
                self._kill_thread(th, 137)
            return True
        if role == "child":
            self._signal_program(th, sig, sender, as_child=True)
        elif th.kind == "shell":
            self._signal_shell(th, sig)
        else:
            self._signal_program(th, sig, sender, as_child=False)
        if self.current is not None and th is not self.current and th.block is None and not th.done:
            self.run_thread(
                th
            )  # it reacts within the sender's instant (an exec session waits for no one)
        return True

    def _kill_thread(self, th: Thread, code: int) -> None:
        if th.pid == 1:
            self._exit(code)
            return
        th.frames = []
        self._thread_end(th, code)

    def _signal_shell(self, th: Thread, sig: str) -> None:
        short = sig[3:]
        action = self.traps.get(short) if th.pid == 1 else None
        if action is None:
            if th.pid != 1 and sig in FATAL:
                self._kill_thread(th, 128 + SIGNUM[sig])
            return  # PID 1 without a handler: the kernel drops it
        if action == "":
            return  # trap '' SIG: ignored
        self.pending_traps.append(short)
        block = th.block
        if block is not None and block[0] in ("wait", "spin", "busy", "read"):
            th.block = None
            th.wake = None
            th.status = 128 + SIGNUM[sig]
        # a foreground child (sleep, a program) keeps running: the trap waits for it

    def _signal_program(self, th: Thread, sig: str, sender: int, *, as_child: bool) -> None:
        program = th.program
        name = program["name"] if program is not None else th.name
        handled = servers.signal_program(self, th, name, sig, sender)
        if handled:
            return
        pid1 = th.pid == 1 and not as_child
        if pid1 or sig not in FATAL:
            return  # no handler: PID 1 ignores it; a non-fatal signal is ignored anyway
        code = 128 + SIGNUM[sig]
        if as_child:
            self.stop_child_program(th)
            self._resume(th, code)
        else:
            self._kill_thread(th, code)

    def _run_trap(self, th: Thread, short: str) -> None:
        action = self.traps.get(short)
        if not isinstance(action, Node):
            return
        th.frames.append(["trapret", th.status])
        self.push(th, action)

    # -- exec sessions ------------------------------------------------------------------

    def _exec(
        self,
        now_ms: int,
        argv: list[str],
        timeout_ms: int | None,
        head_chars: int | None,
        shell: dict | None = None,
    ) -> ExecResult:
        start = now_ms
        alive = sum(1 for t in self.threads.values() if not t.done)
        if alive >= MAX_THREADS:
            return ExecResult(None, "", "", 0, error="too many processes")
        name = posixpath.basename(argv[0]) if argv else ""
        th = Thread(pid=self.fork_pid(), kind="program", name=name, session=True)
        th.vars = dict(self.start.env)
        th.exported = set(th.vars)
        th.cwd = self.start.working_dir or "/"
        if shell:
            _enter_shell_state(th, shell)
        th.caps = {"out": [], "err": []}
        th.io = [{0: None, 1: ("cap", "out"), 2: ("cap", "err")}]
        th.frames = [["end"], ["argv", tuple(argv), True, "session"]]
        self.threads[th.pid] = th
        try:
            result = self._exec_session(th, start, timeout_ms, head_chars)
            if shell is not None:
                result.shell = _shell_state(th)
            return result
        finally:
            th.done = True
            self.threads.pop(th.pid, None)
            self.now = max(now_ms, min(self.now, now_ms))

    def _exec_session(
        self, th: Thread, start: int, timeout_ms: int | None, head_chars: int | None
    ) -> ExecResult:
        local = start
        limit = None if timeout_ms is None else start + timeout_ms
        for _ in range(100_000):
            self.now = local
            if th.block is None and not th.done:
                self.run_thread(th)
            if th.done or self.exit_code is not None:
                break
            wake = th.wake if th.deadline is None else min(th.wake or th.deadline, th.deadline)
            if wake is None or (limit is not None and wake > limit):
                return self._exec_result(
                    th, None, None if limit is None else timeout_ms, True, head_chars
                )
            local = wake
            self.now = local
            if th.deadline is not None and th.deadline <= local:
                self._deadline(th)
            else:
                self.wake(th)
        killed = self.exit_code is not None and not th.done
        code = (
            137 if killed or (self.exit_code is not None and th.exit_code is None) else th.exit_code
        )
        return self._exec_result(th, code, local - start, False, head_chars)

    def _exec_result(
        self,
        th: Thread,
        code: int | None,
        duration: int | None,
        timed_out: bool,
        head_chars: int | None = None,
    ) -> ExecResult:
        if th.program is not None:
            self.stop_child_program(th)
        for port in [p for p, owner in self.listeners.items() if owner[0] == th.pid]:
            del self.listeners[port]
        out = "".join(th.caps.get("out", []))
        err = "".join(th.caps.get("err", []))
        if head_chars is None:
            out, err = out[-10240:], err[-10240:]
        else:
            out, err = out[:head_chars], err[:head_chars]
        return ExecResult(code, out, err, duration, timed_out, th.start_error)

    # -- output -------------------------------------------------------------------------

    def write(self, th: Thread, fd: int, text: str) -> None:
        if not text:
            return
        target = th.io[-1].get(fd) if th.io else None
        if target is None:
            return
        kind = target[0]
        if kind == "log":
            self.log(target[1], text)
        elif kind == "cap":
            buffer = th.caps.setdefault(target[1], [])
            if sum(len(x) for x in buffer[-4:]) < MAX_CAPTURE_CHARS:
                buffer.append(text)
        elif kind == "file":
            self.fs.write(target[1], text, True)

    def log(self, stream: str, text: str) -> None:
        data = self.partial[stream] + text
        *lines, rest = data.split("\n")
        self.partial[stream] = rest[-MAX_LINE_CHARS:]
        for line in lines:
            self.logs.append([self.now, stream, line[:MAX_LINE_CHARS]])
        if len(self.logs) > MAX_LOG_LINES:
            del self.logs[: len(self.logs) - MAX_LOG_LINES]

    # -- expansion (used by commands) ------------------------------------------------

    def expand(self, th: Thread, word: Any) -> list[str]:
        return commands.expand_word(self, th, word)


def _enter_shell_state(th: Thread, shell: dict) -> None:
    """An interactive shell's state (Machine.exec ``shell``) on the session thread."""
    if "variables" in shell:
        th.vars = dict(shell["variables"])
        th.exported = {name for name in shell.get("exported", ()) if name in th.vars}
    th.cwd = shell.get("workingDir") or th.cwd
    th.status = int(shell.get("status", 0))


def _shell_state(th: Thread) -> dict:
    """What an interactive shell keeps from one line to the next."""
    variables = {k: v for k, v in th.vars.items() if not k.startswith("\x00")}
    return {
        "workingDir": th.cwd,
        "variables": variables,
        "exported": sorted(name for name in th.exported if name in variables),
        "status": th.status if th.exit_code is None else th.exit_code,
        "exited": th.exited or th.kind != "shell",
    }


@functools.lru_cache(maxsize=4096)
def _line_at(script: str, pos: int) -> int:
    """The 1-based line of ``pos`` in ``script`` (each command of a loop asks every round)."""
    return line_column(script, pos)[0]


def restore(th: Thread, saved: dict) -> None:
    """Leave a subshell (or a script file run in this thread): its variables, directory
    and options, and for a script its arguments and shell, are the parent's again."""
    th.vars, th.cwd, th.options = saved["vars"], saved["cwd"], saved["options"]
    if "positional" in saved:
        th.positional, th.arg0, th.shell = saved["positional"], saved["arg0"], saved["shell"]


def previous_guarded(node: Node) -> bool:
    """errexit does not apply to ``a || b``, ``a && b``, ``!`` and compound commands."""
    if node.kind in ("andor", "if", "while", "for", "group", "subshell"):
        return True
    return node.kind == "pipeline" and bool(node.b)
