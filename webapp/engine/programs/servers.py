"""Long-running programs of the model: what they log, where they listen, how they answer
HTTP, gRPC and TCP, and what they do on each signal (``catalogue.yaml`` ``programs``).
"""

from __future__ import annotations

import posixpath
import re

from webapp.engine.programs import bignum, mysql, pycmd, zookeeper
from webapp.engine.programs.base import Answer, Machine, Thread, parse_duration
from webapp.engine.programs.catalogue import ImageFacts
from webapp.engine.programs.catalogue import program as program_config

NGINX_ENTRYPOINT_LINES = (
    "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
    "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
    "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
    "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
    "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
    "/docker-entrypoint.sh: Configuration complete; ready for start up",
)
NGINX_ROOT = "/usr/share/nginx/html"
GO_SIGNALS = frozenset(("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"))
STRESS_OOM_MS = 1_000  # stress touches its allocation within about a second (§10)
AGNHOST_LIVENESS_HEALTHY_MS = 10_000  # server.go: duration.Seconds() > 10 means 500
STATUS_TEXT = {200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently",
               302: "Found", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
               412: "Precondition Failed", 500: "Internal Server Error",
               503: "Service Unavailable"}  # fmt: skip


_TIME_FORMATS = {
    "nginx_time": lambda t: t.strftime("%Y/%m/%d %H:%M:%S"),
    "go_time": lambda t: t.strftime("%Y/%m/%d %H:%M:%S"),
    "redis_time": lambda t: t.strftime("%d %b %Y %H:%M:%S.") + f"{t.microsecond // 1000:03d}",
    "pg_time": lambda t: t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d} UTC",
    "httpd_time": lambda t: (
        t.strftime("%a %b %d %H:%M:%S.") + f"{t.microsecond:06d}" + t.strftime(" %Y")
    ),
    "mysql_time": lambda t: t.strftime("%Y-%m-%d %H:%M:%S+00:00"),
    "epoch": lambda t: str(int(t.timestamp())),
}


class _Template(dict):
    """Placeholders filled on demand (a log line needs one or two of them)."""

    def __init__(self, m: Machine, extra: dict) -> None:
        super().__init__(extra)
        self.m = m

    def __missing__(self, key: str) -> str:
        m = self.m
        if key in _TIME_FORMATS:
            value = _TIME_FORMATS[key](m.wall())
        elif key == "version":
            value = m.facts.version or ""
        elif key == "pod_ip":
            value = m.start.pod_ip
        elif key == "hostname":
            value = m.start.hostname
        elif key == "sender":
            value = ""
        else:
            return "{" + key + "}"
        self[key] = value
        return value


# strftime of whole-second formats by (epoch, virtual second, format): a probe's access log
# line at each of many instants of one second has the same stamp.
_STAMPS: dict[tuple, str] = {}
_STAMPS_MAX = 4096


def stamp(m: Machine, fmt: str) -> str:
    """``strftime`` of the current virtual instant, computed once per second and format
    (the formats here have whole seconds) when the epoch is a whole second, else once per
    instant."""
    epoch = m.start.epoch
    if not epoch.microsecond and "%f" not in fmt:
        key = (epoch, m.now // 1000, fmt)
        text = _STAMPS.get(key)
        if text is None:
            if len(_STAMPS) >= _STAMPS_MAX:
                _STAMPS.clear()
            text = _STAMPS[key] = m.wall().strftime(fmt)
        return text
    cached = m.render_cache
    if cached is None or cached[0] != m.now:
        cached = m.render_cache = (m.now, _Template(m, {}))
    key = "\x00" + fmt
    text = cached[1].get(key)
    if text is None:
        text = cached[1][key] = m.wall().strftime(fmt)
    return text


def render(m: Machine, template: str, **extra: object) -> str:
    """Fill a log template with the virtual wall time and the program's facts."""
    if extra:
        return template.format_map(_Template(m, {k: str(v) for k, v in extra.items()}))
    cached = m.render_cache
    if cached is None or cached[0] != m.now:
        cached = m.render_cache = (m.now, _Template(m, {}))
    return template.format_map(cached[1])


# -- which program -----------------------------------------------------------------------


_PYTHON = re.compile(r"python[0-9.]*")
_PERL = re.compile(r"perl[0-9.]*")


def program_key(facts: ImageFacts, argv: list[str]) -> str | None:
    """The catalogue program ``argv`` runs, or None when it is not a server we model."""
    base = posixpath.basename(argv[0])
    args = argv[1:]
    if base == "httpd":
        if facts.tools == "busybox" and facts.key not in ("httpd",):
            return "busybox-httpd"
        return "httpd"
    if base in ("redis-server", "postgres", "mysqld", "etcd", "goproxy"):
        return base
    if base == "pause" or argv[0] == "/pause":
        return "pause"
    if base == "agnhost":
        sub = args[0] if args else "pause"
        return {"pause": "agnhost-pause", "liveness": "agnhost-liveness",
                "netexec": "agnhost-netexec", "serve-hostname": "agnhost-serve-hostname"}.get(sub)  # fmt: skip
    if argv[0] == "/server" and facts.key == "liveness":
        return "agnhost-liveness"
    if base == "stress":
        return "vish-stress" if facts.key == "vish-stress" else "stress"
    if _PYTHON.fullmatch(base):
        if "-m" in args and "http.server" in args:
            return "python-http"
        if pycmd.modelled(args):
            return "python-c"
        return "python"
    if base in ("node", "nodejs"):
        return "node"
    if _PERL.fullmatch(base):
        return "perl-bpi" if bignum.perl_bpi_digits(args) is not None else "perl"
    if base == "java":
        return "java"
    if base == "start-zookeeper" and facts.key == "kubernetes-zookeeper":
        return "zookeeper"
    if base in ("nc", "netcat") and any(a.startswith("-") and "l" in a for a in args):
        return "nc-listen"
    if base == "ncat" and ("--listen" in args or "-l" in args) and mysql.ncat_listen_kind(args):
        return "ncat-listen"
    return None


def handles(facts: ImageFacts, argv: list[str]) -> bool:
    return program_key(facts, argv) is not None


# -- starting ----------------------------------------------------------------------------


def start_program(m: Machine, th: Thread, argv: list[str], exec_mode: bool, *,
                  name: str | None = None, unknown: bool = False,
                  setup: dict | None = None) -> int | None:  # fmt: skip
    """Run a long-running program in ``th`` (as the thread itself, or as its child);
    ``setup``: more state of its own (``tail -f``'s files)."""
    key = name or (None if unknown else program_key(m.facts, argv)) or "unknown"
    base = posixpath.basename(argv[0]) if argv else key
    config = program_config(key)
    if exec_mode:
        th.kind = "program"
        th.name = base
    pid = th.pid if exec_mode else m.fork_pid()
    env = {k: v for k, v in th.vars.items() if k in th.exported}
    required = config.get("requireEnv")
    if required and not _env_satisfied(env, required["anyOf"]):
        for stream, template in required.get("logs") or ():
            m.write(th, 1 if stream == "stdout" else 2, render(m, template) + "\n")
        return int(required["exit"])
    args = argv[1:]
    program = {"name": base, "key": key, "argv": list(argv), "pid": pid, "started": m.now,
               "memory": 0, "events": [], "stdin": th.io[-1].get(0) if th.io else None}  # fmt: skip
    interactive = not [a for a in args if not a.startswith("-")] and "-c" not in args
    if key in ("python", "node", "perl") and interactive and program["stdin"] != "<open>":
        return 0  # an interactive interpreter with no terminal reads end-of-file and exits 0
    if setup:
        program.update(setup)
    if key == "zookeeper":
        failed = zookeeper.prepare(m, th, program, args)
        if failed is not None:
            return failed
    if key == "mysqld":
        mysql.prepare(m, th, program, args)
    th.program = program
    extra: dict[str, object] = {}
    ports = program_ports(key, config, args)
    if ports:
        extra["port"] = ports[0][0]
    if key == "stress":
        counts = _stress_counts(args)
        extra.update(counts)
        _stress(m, program, args)
    elif key == "vish-stress":
        _vish_stress(m, program, args)
    elif key == "perl-bpi":
        _perl_bpi(m, program, args)
    elif key == "python-c":
        _python_c(m, program, args, env)
    elif key == "tail" and program.get("follow"):
        program["sig"] = follow_signature(m, program)
        m.follows = True
    for stream, template in config.get("startLogs") or ():
        if key == "python-http" and not (env.get("PYTHONUNBUFFERED") or "-u" in args):
            continue
        m.write(th, 1 if stream == "stdout" else 2, render(m, template, **extra) + "\n")
    if key == "python-http" and (env.get("PYTHONUNBUFFERED") or "-u" in args):
        port = ports[0][0] if ports else 8000
        m.write(th, 1, f"Serving HTTP on 0.0.0.0 port {port} (http://0.0.0.0:{port}/) ...\n")
    if unknown or key == "unknown":
        ports = [(port, "unknown") for port in m.start.assumed_ports]
    if "listen_at" in program:  # a program that binds its ports once it has started
        program["events"].append((program["listen_at"], "listen", 0))
        ports = []
    for port, kind in ports:
        if port in m.listeners:
            if key == "nginx":
                stamp = render(m, "{nginx_time}")
                m.write(
                    th,
                    2,
                    f"{stamp} [emerg] 1#1: bind() to 0.0.0.0:{port} failed (98: Address already in use)\n",
                )
                m.write(
                    th,
                    2,
                    f"nginx: [emerg] bind() to 0.0.0.0:{port} failed (98: Address already in use)\n",
                )
                th.program = None
                return 1
            continue
        m.listeners[port] = (pid, kind, key)
    th.block = ("program",)
    _schedule(m, th)
    return None


def _env_satisfied(env: dict, any_of: list[str]) -> bool:
    for item in any_of:
        name, eq, value = item.partition("=")
        if eq and env.get(name) == value:
            return True
        if not eq and env.get(name):
            return True
    return False


def program_ports(key: str, config: dict, args: list[str]) -> list[tuple[int, str]]:
    ports = []
    for listen in config.get("listen") or ():
        port = int(listen["port"])
        flag = listen.get("flag")
        if flag:
            value = _flag_value(args, flag)
            if value:
                found = re.findall(r"(\d+)\s*$", value.split(",")[0])
                if found:
                    port = int(found[0])
        ports.append((port, listen["serve"]))
    if key == "python-http":
        rest = args[args.index("http.server") + 1 :] if "http.server" in args else []
        numbers = [a for a in rest if a.isdigit()]
        ports = [(int(numbers[0]) if numbers else 8000, "python-http")]
    elif key == "nc-listen":
        value = _flag_value(args, "-p")
        numbers = [a for a in args if a.isdigit()]
        port = int(value) if value and value.isdigit() else int(numbers[-1]) if numbers else 0
        ports = [(port, "nc")] if port else []
    elif key == "ncat-listen":
        found = mysql.ncat_listen_kind(args)
        ports = [found] if found else []
    elif key == "redis-server":
        value = _flag_value(args, "--port")
        if value and value.isdigit():
            ports = [(int(value), "redis")]
    return ports


def _flag_value(args: list[str], flag: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg[len(flag) + 1 :]
        if (
            flag.startswith("-")
            and not flag.startswith("--")
            and arg.startswith(flag)
            and len(arg) > len(flag)
        ):
            return arg[len(flag) :]
        if (
            arg.startswith("-")
            and not arg.startswith("--")
            and flag == "-p"
            and arg.endswith("p")
            and i + 1 < len(args)
        ):
            return args[i + 1]  # nc -lp 8080
    return None


def _size(text: str, unit: int = 1024) -> int | None:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([BbKkMmGgTt]?)(i?)", text)
    if not match:
        return None
    factor = {"": 1, "b": 1, "k": unit, "m": unit**2, "g": unit**3, "t": unit**4}[
        match.group(2).lower()
    ]
    return int(float(match.group(1)) * factor)


def _stress_counts(args: list[str]) -> dict[str, int]:
    counts = {"cpu": 0, "io": 0, "vm": 0, "hdd": 0}
    names = {"--cpu": "cpu", "-c": "cpu", "--io": "io", "-i": "io", "--vm": "vm", "-m": "vm",
             "--hdd": "hdd", "-d": "hdd"}  # fmt: skip
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args) and args[i + 1].isdigit():
            counts[names[arg]] = int(args[i + 1])
    return counts


def _stress(m: Machine, program: dict, args: list[str]) -> None:
    """``stress --vm N --vm-bytes B [--timeout T]`` (stress 1.0.4)."""
    counts = _stress_counts(args)
    vm_bytes = _size(_flag_value(args, "--vm-bytes") or "256M") or 256 * 1024**2
    program["memory"] = counts["vm"] * vm_bytes
    m.memory_bytes += program["memory"]
    limit = m.start.memory_limit
    if limit is not None and m.memory_bytes > limit:
        program["events"].append((m.now + STRESS_OOM_MS, "oom", 0))
    timeout = _flag_value(args, "--timeout") or _flag_value(args, "-t")
    if timeout:
        seconds = parse_duration(timeout)
        if seconds is not None:
            line = f"stress: info: [1] successful run completed in {int(seconds)}s"
            program["events"].append((m.now + round(seconds * 1000), "exit", (0, line)))


def _perl_bpi(m: Machine, program: dict, args: list[str]) -> None:
    """``perl -Mbignum=bpi -wle 'print bpi(N)'``: computes, prints pi to N digits on stdout
    (``-l`` adds the newline) and exits 0."""
    digits = bignum.perl_bpi_digits(args) or 1
    program["events"].append(
        (m.now + bignum.compute_ms(digits), "exit", (0, bignum.bpi(digits), 1))
    )


def _python_c(m: Machine, program: dict, args: list[str], env: dict[str, str]) -> None:
    """``python3 -c PROGRAM`` of the modelled subset (programs/pycmd.py): it ends after
    RUN_MS with the program's output (stdout is flushed at exit) and exit code."""
    tree = pycmd.compile_program(pycmd.program_of(args) or "")
    result = pycmd.run(tree, env) if not isinstance(tree, int | None) else None
    if result is None:  # a value the model does not compute: it runs on, noted
        m.note("not_modelled", None, command="python3")
        return
    code, out, err = result
    program["events"].append((m.now + pycmd.RUN_MS, "finish", (code, out, err)))


def _quantity(text: str) -> int | None:
    match = re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti|K|M|G|T|k)?", text)
    if not match:
        return None
    unit = match.group(2) or ""
    factor = {"": 1, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "K": 1000,
              "k": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4}[unit]  # fmt: skip
    return int(match.group(1)) * factor


def _vish_stress(m: Machine, program: dict, args: list[str]) -> None:
    """vish/stress: ``-mem-total X -mem-alloc-size Y -mem-alloc-sleep Z``."""
    total = _quantity(_flag_value(args, "-mem-total") or "0") or 0
    size = _quantity(_flag_value(args, "-mem-alloc-size") or "4Ki") or 4096
    sleep_ms = go_duration_ms(_flag_value(args, "-mem-alloc-sleep") or "1ms") or 1
    limit = m.start.memory_limit
    if total <= 0:
        return
    program["memory"] = total
    if limit is not None and total > limit:
        steps = limit // size + 1
        program["events"].append((m.now + steps * sleep_ms, "oom", 0))
    else:
        m.memory_bytes += total


def go_duration_ms(text: str) -> int | None:
    """A Go duration (``1s``, ``100ms``, ``1m30s``) in milliseconds."""
    units = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    return round(sum(float(value) * units[unit] for value, unit in parts))


def _schedule(m: Machine, th: Thread) -> None:
    program = th.program
    th.wake = None
    if program and program["events"]:
        program["events"].sort(key=lambda e: e[0])
        th.wake = program["events"][0][0]


def program_event(m: Machine, th: Thread) -> None:
    """A program's own timer came due (OOM, ``--timeout``)."""
    program = th.program
    if program is None:
        th.block = None
        return
    due = [e for e in program["events"] if e[0] <= m.now]
    program["events"] = [e for e in program["events"] if e[0] > m.now]
    for _at, kind, value in due:
        if kind == "oom":
            m.kill(m.now, oom=True)
            return
        if kind == "exit":
            code, line, *stream = value  # (code, last line[, fd]): stderr unless told
            if line:
                m.write(th, stream[0] if stream else 2, line + "\n")
            m.finish_program(th, code)
            return
        if kind == "finish":
            code, out, err = value
            m.write(th, 1, out)
            m.write(th, 2, err)
            m.finish_program(th, code)
            return
        if kind == "listen":
            for port, serve in program.get("ports") or ():
                if port not in m.listeners:
                    m.listeners[port] = (program["pid"], serve, program["key"])
            if program["key"] == "zookeeper":
                zookeeper.started(m, th, program)
            elif program["key"] == "mysqld":
                mysql.started(m, th, program)
        if kind == "poll":
            tail_poll(m, th, program)
    _schedule(m, th)


def follow_signature(m: Machine, program: dict) -> tuple:
    """What ``tail -f`` would notice of its files: each one's length (None: missing)."""
    out = []
    for _name, path, _offset in program["follow"]:
        content = m.fs.read(path)
        out.append(None if content is None else len(content))
    return tuple(out)


def follow_due(m: Machine) -> bool:
    """Schedule the next read of every ``tail -f`` whose files changed since its last
    read: at its next poll, the first multiple of its period since it started (busybox
    reads once per ``sleep(1)``, so a round that finds nothing new changes nothing and is
    not run). True when a timer was set."""
    scheduled = False
    for th in m.threads.values():
        program = th.program
        if th.done or program is None or not program.get("follow"):
            continue
        if any(kind == "poll" for _at, kind, _v in program["events"]):
            continue
        if follow_signature(m, program) == program["sig"]:
            continue
        period, started = program["period"], program["started"]
        rounds = max(1, -(-(m.now - started) // period))
        program["events"].append((started + rounds * period, "poll", 0))
        _schedule(m, th)
        scheduled = True
    return scheduled


def tail_poll(m: Machine, th: Thread, program: dict) -> None:
    """One round of ``tail -f``: print what each followed file gained since the last
    read (busybox tail.c's follow loop: reopen with -F, start over after a truncation)."""
    busybox = program.get("busybox", True)
    for entry in program["follow"]:
        name, path, offset = entry
        content = m.fs.read(path)
        if content is None:
            if offset is not None:
                entry[2] = None
                m.write(th, 2, f"tail: {name} has become inaccessible: No such file or directory\n"
                        if busybox else f"tail: '{name}' has become inaccessible: No such file or directory\n")  # fmt: skip
            continue
        if offset is None:
            m.write(th, 2, f"tail: {name} has appeared; following end of new file\n"
                    if busybox else f"tail: '{name}' has appeared;  following new file\n")  # fmt: skip
            offset = 0
        elif len(content) < offset:
            if not busybox:
                m.write(th, 2, f"tail: {name}: file truncated\n")
            offset = 0
        if len(content) > offset:
            if program.get("headers") and program.get("last") != path:
                m.write(th, 1, f"\n==> {name} <==\n")
            program["last"] = path
            m.write(th, 1, content[offset:])
        entry[2] = len(content)
    program["sig"] = follow_signature(m, program)


# -- signals ---------------------------------------------------------------------------


def signal_program(m: Machine, th: Thread, name: str, sig: str, sender: int) -> bool:
    """A program's own handler for ``sig``: True when it handles it (and acts)."""
    program = th.program
    if program is None:
        return False
    config = program_config(program["key"])
    handler = (config.get("signals") or {}).get(sig)
    pid1 = program["pid"] == 1
    if handler is None:
        if config.get("go") and sig in GO_SIGNALS and pid1:
            # Go's runtime re-raises the signal, PID 1 drops it, so it exits 2 (§1.4)
            m.finish_program(th, 2)
            return True
        return False
    if th.block is not None and th.block[0] == "exiting":
        return True
    sender_text = f" from {sender}" if sender else ""
    for stream, template in handler.get("logs") or ():
        m.write(th, 1 if stream == "stdout" else 2, render(m, template, sender=sender_text) + "\n")
    if handler.get("continue"):
        return True
    code = int(handler.get("exit", 0))
    seconds = float(handler.get("seconds", 0))
    for port in [p for p, owner in m.listeners.items() if owner[0] == program["pid"]]:
        del m.listeners[port]
    if seconds <= 0:
        m.finish_program(th, code)
    else:
        th.block = ("exiting", code)
        th.wake = m.now + round(seconds * 1000)
    return True


# -- serving -----------------------------------------------------------------------------


def _owner(m: Machine, port: int) -> Thread | None:
    pid = m.listeners[port][0]
    for th in m.threads.values():
        if not th.done and th.program is not None and th.program.get("pid") == pid:
            return th
    return None


def http(m: Machine, port: int, path: str, client: str, agent: str = "kube-probe/1.37") -> Answer:
    _pid, kind, _key = m.listeners[port]
    th = _owner(m, port)
    path = path or "/"
    clean = path.split("?", 1)[0]
    if kind == "nginx":
        status, body, _path = _nginx(m, th, clean, client)
        size = len(body.encode()) if status != 403 else 153
        if status == 404:
            size = 153
        if th is not None:
            when = stamp(m, "%d/%b/%Y:%H:%M:%S +0000")
            m.write(
                th,
                1,
                f'{client} - - [{when}] "GET {path} HTTP/1.1" {status} {size} "-" "{agent}" "-"\n',
            )
        return Answer("ok", status, STATUS_TEXT.get(status, ""), body)
    if kind == "httpd":
        root = "/usr/local/apache2/htdocs"
        target = m.fs.normalize(root + clean)
        if m.fs.is_dir(target):
            target = posixpath.join(target, "index.html")
        content = m.fs.read(target)
        status = 200 if content is not None else 404
        body = content if content is not None else _httpd_404(clean)
        if th is not None:
            when = stamp(m, "%d/%b/%Y:%H:%M:%S +0000")
            m.write(
                th,
                1,
                f'{client} - - [{when}] "GET {path} HTTP/1.1" {status} {len(body.encode())}\n',
            )
        return Answer("ok", status, STATUS_TEXT.get(status, ""), body)
    if kind == "python-http":
        status, body = _static(m, th.cwd if th is not None else "/", clean, listing=True)
        if th is not None:
            when = stamp(m, "%d/%b/%Y %H:%M:%S")
            size = "-"
            m.write(th, 2, f'{client} - - [{when}] "GET {path} HTTP/1.1" {status} {size}\n')
        reason = STATUS_TEXT.get(status, "") if status != 404 else "File not found"
        return Answer("ok", status, reason, body)
    if kind == "busybox-httpd":
        program = th.program if th is not None else {"argv": []}
        home = _flag_value(program["argv"][1:], "-h") or (th.cwd if th is not None else "/")
        status, body = _static(m, home, clean, listing=False)
        return Answer("ok", status, STATUS_TEXT.get(status, ""), body)
    if kind == "agnhost-liveness":
        started = th.program["started"] if th is not None and th.program else m.now
        elapsed = (m.now - started) / 1000
        if clean == "/healthz":
            if m.now - started > AGNHOST_LIVENESS_HEALTHY_MS:
                return Answer("ok", 500, STATUS_TEXT[500], f"error: {elapsed:g}")
            return Answer("ok", 200, "OK", "ok")
        if clean == "/started":
            return Answer("ok", 200, "OK", f"{elapsed:g}")
        return Answer("ok", 404, STATUS_TEXT[404], "404 page not found\n")
    if kind == "netexec":
        if clean in ("/healthz", "/readyz", "/"):
            return Answer("ok", 200, "OK", "ok" if clean != "/" else f"NOW: {m.wall().isoformat()}")
        if clean in ("/hostname", "/hostName"):
            return Answer("ok", 200, "OK", m.start.hostname)
        return Answer("ok", 404, STATUS_TEXT[404], "404 page not found\n")
    if kind == "hostname":
        return Answer("ok", 200, "OK", m.start.hostname)
    if kind == "goproxy":
        return Answer(
            "ok",
            500,
            STATUS_TEXT[500],
            "This is a proxy server. Does not respond to non-proxy requests.\n",
        )
    if kind == "etcd":
        if clean == "/health":
            return Answer("ok", 200, "OK", '{"health":"true","reason":""}')
        return Answer("ok", 404, STATUS_TEXT[404], "404 page not found\n")
    if kind == "nc":
        return _nc_http(m, th, port, path, agent)
    if kind == "unknown":
        return Answer("ok", 200, "OK", "")
    return Answer("eof")


def _nginx(m: Machine, th: Thread | None, path: str, client: str) -> tuple[int, str, str]:
    target = m.fs.normalize(NGINX_ROOT + path)
    request = f'request: "GET {path} HTTP/1.1", host: "{m.start.pod_ip}"'
    if m.fs.is_dir(target):
        index = posixpath.join(target, "index.html")
        content = m.fs.read(index)
        if content is None:
            _nginx_error_log(
                m,
                th,
                f'directory index of "{target.rstrip("/")}/" is forbidden, client: {client}, server: localhost, {request}',
            )
            return 403, _nginx_error(403), target
        return 200, content, index
    content = m.fs.read(target)
    if content is None:
        _nginx_error_log(
            m,
            th,
            f'open() "{target}" failed (2: No such file or directory), client: {client}, server: localhost, {request}',
        )
        return 404, _nginx_error(404), target
    return 200, content, target


def _nginx_error(status: int) -> str:
    text = f"{status} {STATUS_TEXT[status]}"
    return f"<html>\r\n<head><title>{text}</title></head>\r\n<body>\r\n<center><h1>{text}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"


def _httpd_404(path: str) -> str:
    return ('<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n'
            "</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n")  # fmt: skip


def _static(m: Machine, root: str, path: str, *, listing: bool) -> tuple[int, str]:
    target = m.fs.normalize(root.rstrip("/") + "/" + path.lstrip("/"))
    if m.fs.is_dir(target):
        index = m.fs.read(posixpath.join(target, "index.html"))
        if index is not None:
            return 200, index
        if listing:
            names = m.fs.listdir(target)
            items = "".join(f'<li><a href="{n}">{n}</a></li>\n' for n in names)
            return (
                200,
                f'<!DOCTYPE HTML>\n<html lang="en">\n<body>\n<h1>Directory listing for {path}</h1>\n<hr>\n<ul>\n{items}</ul>\n<hr>\n</body>\n</html>\n',
            )
        return (
            404,
            "<HTML><HEAD><TITLE>404 Not Found</TITLE></HEAD>\n<BODY><H1>404 Not Found</H1>\nThe requested URL was not found\n</BODY></HTML>\n",
        )
    content = m.fs.read(target)
    if content is None:
        return (
            404,
            "Error response\nError code: 404\nMessage: File not found.\n"
            if listing
            else "404 Not Found\n",
        )
    return 200, content


def _nc_http(m: Machine, th: Thread | None, port: int, path: str, agent: str) -> Answer:
    """``nc -l -p PORT`` answers one connection with whatever its stdin holds (printing the
    request it received), then exits; without input it holds the connection open."""
    if th is None or th.program is None:
        return Answer("eof")
    data = th.program.get("stdin")
    keep = any(a.startswith("-") and "k" in a for a in th.program["argv"][1:])
    answer = Answer("timeout")
    if isinstance(data, str) and data and data != "<open>":
        text = data.replace("\r\n", "\n")
        head, _, body = text.partition("\n\n")
        first = head.split("\n", 1)[0]
        match = re.match(r"HTTP/\d(?:\.\d)?\s+(\d{3})\s*(.*)", first.strip())
        if match:
            answer = Answer("ok", int(match.group(1)), match.group(2).strip(), body)
        else:
            answer = Answer("malformed", body=first)
    host = f"{m.start.pod_ip}:{port}"
    m.write(th, 1, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {agent}\r\n"
                   "Accept: */*\r\nConnection: close\r\n\r\n")  # fmt: skip
    if not keep:
        m.finish_program(th, 0)
    return answer


def tcp_connected(m: Machine, port: int) -> None:
    """A TCP probe connected and closed: ``nc -l`` (without -k) has had its one client."""
    _pid, kind, _key = m.listeners[port]
    if kind != "nc":
        return
    th = _owner(m, port)
    if th is None or th.program is None:
        return
    if not any(a.startswith("-") and "k" in a for a in th.program["argv"][1:]):
        m.finish_program(th, 0)


def exchange(m: Machine, port: int, data: str) -> str:
    """A connection that sends ``data``: what the listener answers before it closes."""
    _pid, kind, _key = m.listeners[port]
    if kind == "zookeeper":
        return zookeeper.four_letter(m, _owner(m, port), data)
    if kind == "mysql":
        owner = _owner(m, port)
        return mysql.slave_info(owner) if data == "\x00source" else mysql.query(m, owner, data)
    if kind == "xtrabackup":
        return mysql.backup_stream(m, _owner(m, port))
    tcp_connected(m, port)
    return ""


def grpc(m: Machine, port: int, service: str) -> str:
    _pid, kind, _key = m.listeners[port]
    if kind in ("etcd", "unknown", "grpc"):
        return "SERVING"
    if kind in ("tcp", "redis", "nc"):
        return "unavailable"
    return "unavailable"


def _nginx_error_log(m: Machine, th: Thread | None, message: str) -> None:
    """One line of nginx's error log (stderr), as worker 29 writes it for connection 1."""
    if th is not None:
        when = stamp(m, "%Y/%m/%d %H:%M:%S")
        m.write(th, 2, f"{when} [error] 29#29: *1 {message}\n")
