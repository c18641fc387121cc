"""The images of the "Run a Replicated Stateful Application" tutorial: ``mysql:5.7``
(``docker-entrypoint.sh mysqld``, the ``mysql`` and ``mysqladmin`` clients) and
``gcr.io/google-samples/xtrabackup:1.0`` (``ncat``, ``xbstream``, ``xtrabackup``, the
``mysql`` client). The tutorial's own scripts are interpreted; what these programs do is
modelled here, by its effect:

- ``mysqld`` (through the image's entrypoint): on a data directory without ``mysql/`` the
  entrypoint initializes it (``--initialize-insecure``, a temporary server, a restart),
  which takes ``INIT_MS``; on an initialized one the server starts in ``START_MS`` (both
  estimates). Only then does it listen on 3306 (the Unix socket too), so the readiness
  probe ``mysql -h 127.0.0.1 -e "SELECT 1"`` fails until it does. Its ``server-id`` and
  ``log-bin`` come from the ``.cnf`` files in ``/etc/mysql/conf.d`` (what ``init-mysql``
  wrote); with ``log-bin`` the binary log is ``<hostname>-bin.000001`` at position 154
  (5.7's first event; the file's number is an estimate).
- The server answers ``SELECT 1``, ``SELECT @@server_id``, ``NOW()``, ``SHOW MASTER
  STATUS``, ``CHANGE MASTER TO …`` and ``START SLAVE`` (remembered: ``SHOW SLAVE STATUS``'s
  source), in the batch format the client prints without a terminal (tab-separated, a
  header line). Any other statement succeeds with no output and a "not modelled" warning
  (no tables, no data, no replication traffic).
- ``mysql`` / ``mysqladmin ping``: connect over TCP (``-h HOST``, ``-P PORT``) or the
  socket (no host or ``localhost``: only inside the container that runs ``mysqld``), with
  the clients' error messages when refused.
- ``ncat --listen … PORT -c "xtrabackup --backup …"`` serves, to each connection, the
  data directory as an xbstream (files, with ``xtrabackup_binlog_info`` from the server's
  ``SHOW MASTER STATUS`` and, with ``--slave-info`` on a replica,
  ``xtrabackup_slave_info``); ``ncat --recv-only HOST PORT`` prints what it receives;
  ``xbstream -x -C DIR`` unpacks it; ``xtrabackup --prepare --target-dir=DIR`` marks the
  backup prepared. The stream's bytes are this model's own format, not xbstream's.
"""

from __future__ import annotations

import re
import shlex

from webapp.engine.programs.base import Machine, Thread

INIT_MS = 12_000  # the entrypoint's first run: initialize, temporary server, restart
START_MS = 3_000  # mysqld on an initialized data directory
DATADIR = "/var/lib/mysql"
CONF_DIR = "/etc/mysql/conf.d"
SOCKET = "/var/run/mysqld/mysqld.sock"
STREAM_HEADER = "XBSTCK01\n"
MAX_STREAM = 1 << 20  # bytes a backup stream carries at most (bounded work)


def version(m: Machine) -> str:
    tag = m.facts.ref.tag or m.facts.version or ""
    return "5.7.44" if tag.startswith("5.7") or tag == "5" else (m.facts.version or "8.4.3")


def _note(m: Machine, th: Thread, text: str) -> None:
    stamp = m.wall().strftime("%Y-%m-%d %H:%M:%S+00:00")
    m.write(th, 1, f"{stamp} [Note] [Entrypoint]: {text}\n")


def _server_time(m: Machine) -> str:
    moment = m.wall()
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}Z"


def _config(m: Machine) -> dict[str, str]:
    """The ``[mysqld]`` options of the ``.cnf`` files in conf.d, in name order."""
    options: dict[str, str] = {}
    prefix = CONF_DIR + "/"
    for path in sorted(p for p in m.fs.all_paths() if p.startswith(prefix) and p.endswith(".cnf")):
        section = ""
        for line in (m.fs.read(path) or "").splitlines():
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]").strip()
            elif section == "mysqld":
                name, _, value = line.partition("=")
                options[name.strip().replace("_", "-")] = value.strip()
    return options


def prepare(m: Machine, th: Thread, program: dict, args: list[str]) -> None:
    """``mysqld`` started by the entrypoint: initialize when needed, listen later."""
    release = version(m)
    _note(m, th, f"Entrypoint script for MySQL Server {release}-1.el7 started.")
    _note(m, th, "Switching to dedicated user 'mysql'")
    _note(m, th, f"Entrypoint script for MySQL Server {release}-1.el7 started.")
    initialized = m.fs.is_dir(DATADIR + "/mysql")
    if not initialized:
        _note(m, th, "Initializing database files")
    options = _config(m)
    server_id = options.get("server-id", "0")
    log_bin = "log-bin" in options
    host = m.start.hostname.split(".")[0]
    program["mysql"] = {
        "initialized": initialized,
        "server_id": int(server_id) if server_id.isdigit() else 0,
        "binlog": f"{host}-bin.000001" if log_bin else "",
        "read_only": "super-read-only" in options or "read-only" in options,
        "source": None,
        "version": release + ("-log" if log_bin else ""),
    }
    program["listen_at"] = m.now + (START_MS if initialized else INIT_MS)
    program["ports"] = [(3306, "mysql")]
    if not release.startswith("5."):
        program["ports"].append((33060, "tcp"))


def started(m: Machine, th: Thread, program: dict) -> None:
    """The server listens: the data directory exists from now on."""
    state = program["mysql"]
    if not state["initialized"]:
        m.fs.mkdir(DATADIR + "/mysql", parents=True)
        m.fs.write(DATADIR + "/mysql/db.opt", "default-character-set=latin1\n"
                   "default-collation=latin1_swedish_ci\n", append=False)  # fmt: skip
        m.fs.write(DATADIR + "/ibdata1", "", append=False)
        _note(m, th, "Database files initialized")
        _note(m, th, "MySQL init process done. Ready for start up.")
        state["initialized"] = True
    stamp = _server_time(m)
    m.write(th, 2, f"{stamp} 0 [Note] mysqld: ready for connections.\n")
    m.write(th, 2, f"Version: '{state['version']}'  socket: '{SOCKET}'  port: 3306  "
            "MySQL Community Server (GPL)\n")  # fmt: skip


# -- the server's answers ----------------------------------------------------------------


def statements(sql: str) -> list[str]:
    """``;``-separated statements, outside quotes."""
    found, current, quote = [], [], ""
    for ch in sql:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
            current.append(ch)
        elif ch == ";":
            found.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    found.append("".join(current).strip())
    return [s for s in found if s]


def query(m: Machine, th: Thread | None, sql: str) -> str:
    """What the server sends back for ``sql``, as the client prints it in batch mode."""
    if th is None or th.program is None or "mysql" not in th.program:
        return ""
    state = th.program["mysql"]
    out: list[str] = []
    for statement in statements(sql):
        words = statement.split()
        head = " ".join(words[:2]).upper()
        select = re.fullmatch(r"(?is)select\s+(.+)", statement)
        if select:
            columns = [c.strip() for c in select.group(1).split(",")]
            values = [_value(m, state, c) for c in columns]
            if None not in values:
                out.append("\t".join(columns) + "\n" + "\t".join(values) + "\n")
                continue
        elif head == "SHOW MASTER":
            if state["binlog"]:
                out.append("File\tPosition\tBinlog_Do_DB\tBinlog_Ignore_DB\tExecuted_Gtid_Set\n"
                           f"{state['binlog']}\t154\t\t\t\n")  # fmt: skip
            continue
        elif head == "CHANGE MASTER":
            source = dict(re.findall(r"(?i)(MASTER_\w+)\s*=\s*'?([^',]*)'?", statement))
            state["source"] = {k.upper(): v for k, v in source.items()}
            continue
        elif head in ("START SLAVE", "STOP SLAVE"):
            state["replicating"] = head == "START SLAVE"
            continue
        m.note("partially_modelled", None, command=f"mysql: {statement[:60]}")
    return "".join(out)


def _value(m: Machine, state: dict, column: str) -> str | None:
    text = column.strip()
    if re.fullmatch(r"-?\d+", text):
        return str(int(text))
    lowered = text.lower()
    if lowered == "@@server_id":
        return str(state["server_id"])
    if lowered in ("now()", "current_timestamp()", "current_timestamp"):
        return m.wall().strftime("%Y-%m-%d %H:%M:%S")
    if lowered == "@@hostname":
        return m.start.hostname.split(".")[0]
    if lowered in ("version()", "@@version"):
        return state["version"]
    return None


def backup_stream(m: Machine, th: Thread | None) -> str:
    """``xtrabackup --backup --slave-info --stream=xbstream`` behind ``ncat --listen``: the
    data directory, and the server's binary log position read over 127.0.0.1:3306."""
    world = m.world
    files: dict[str, str] = {}
    prefix = DATADIR + "/"
    for path in m.fs.all_paths():
        if path.startswith(prefix) and m.fs.is_file(path):
            name = path[len(prefix) :]
            if not name.startswith(("xtrabackup_", "change_master_to")):
                files[name] = m.fs.read(path) or ""
    status = world.exchange(m.now, "127.0.0.1", 3306, "SHOW MASTER STATUS") if world else None
    if status is None:
        return ""  # xtrabackup cannot connect: it fails and the stream ends empty
    rows = status.splitlines()
    if len(rows) > 1:
        name, position = rows[1].split("\t")[:2]
        files["xtrabackup_binlog_info"] = f"{name}\t{position}\n"
    source = world.exchange(m.now, "127.0.0.1", 3306, "\x00source")
    if source:
        files["xtrabackup_slave_info"] = source
    files["xtrabackup_checkpoints"] = "backup_type = full-backuped\n"
    stream = [STREAM_HEADER]
    for name in sorted(files):
        stream.append(f"{name}\t{len(files[name])}\n{files[name]}")
    text = "".join(stream)
    return text if len(text) <= MAX_STREAM else text[:MAX_STREAM]


def slave_info(th: Thread | None) -> str:
    """``--slave-info`` on a replica: the position it replicates from."""
    if th is None or th.program is None or "mysql" not in th.program:
        return ""
    source = th.program["mysql"].get("source")
    if not source or "MASTER_LOG_FILE" not in source:
        return ""
    return (f"CHANGE MASTER TO MASTER_LOG_FILE='{source['MASTER_LOG_FILE']}', "
            f"MASTER_LOG_POS={source.get('MASTER_LOG_POS', '4')};\n")  # fmt: skip


# -- the clients -------------------------------------------------------------------------


def _client_options(args: list[str]) -> tuple[dict[str, str], list[str]] | str:
    options: dict[str, str] = {}
    rest: list[str] = []
    short = {"h": "host", "e": "execute", "u": "user", "p": "password", "P": "port"}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--") and "=" in arg:
            name, _, value = arg[2:].partition("=")
            options[name] = value
        elif arg.startswith("--"):
            if arg[2:] in ("host", "execute", "user", "port") and i + 1 < len(args):
                options[arg[2:]] = args[i + 1]
                i += 1
            else:
                options[arg[2:]] = ""
        elif arg.startswith("-") and len(arg) > 1 and arg[1] in short:
            name = short[arg[1]]
            if len(arg) > 2:
                options[name] = arg[2:]
            elif name == "password":
                options[name] = ""
            elif i + 1 < len(args):
                options[name] = args[i + 1]
                i += 1
            else:
                return f"option '-{arg[1]}' requires an argument"
        elif arg.startswith("-") and len(arg) > 1:
            options[arg.lstrip("-")] = ""
        else:
            rest.append(arg)
        i += 1
    return options, rest


def _connect(m: Machine, host: str | None, port: int, sql: str) -> tuple[str | None, str]:
    """(answer, error): the server's answer to ``sql``, or the client's error."""
    if host in (None, "", "localhost"):
        if 3306 in m.listeners and m.listeners[3306][1] == "mysql":
            pid = m.listeners[3306][0]
            owner = next((th for th in m.threads.values() if not th.done and th.program
                          and th.program.get("pid") == pid), None)  # fmt: skip
            return query(m, owner, sql), ""
        return None, (f"Can't connect to local MySQL server through socket '{SOCKET}' (2)", 2002)
    world = m.world
    if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", host):
        ip = host
    else:
        found = world.resolve(host, True) if world is not None else None
        if found is None:
            return None, (f"Unknown MySQL server host '{host}' (-2)", 2005)
        ip = found[1]
    answer = _exchange(m, ip, port, sql)
    if answer is None:
        return None, (f"Can't connect to MySQL server on '{host}' (111)", 2003)
    return answer, ""


def _exchange(m: Machine, ip: str, port: int, data: str) -> str | None:
    """Send ``data`` to ``ip:port`` and read the answer; None when refused."""
    world = m.world
    if world is None:
        return None
    exchange = getattr(world, "exchange", None)
    if exchange is None:  # a world that only knows whether a port is open
        return "" if world.tcp(m.now, ip, port) else None
    return exchange(m.now, ip, port, data)


def mysql_client(m: Machine, th: Thread, argv: list[str]) -> int:
    """``mysql [-h HOST] [-P PORT] [-e SQL]``: SQL from ``-e`` or standard input."""
    parsed = _client_options(argv[1:])
    if isinstance(parsed, str):
        m.write(th, 2, f"mysql: [ERROR] mysql: {parsed}.\n")
        return 1
    options, _rest = parsed
    sql = options.get("execute")
    if sql is None:
        stdin = th.io[-1].get(0) if th.io else None
        sql = stdin if isinstance(stdin, str) and stdin != "<open>" else ""
        if not sql:
            m.note("partially_modelled", None, command="mysql (interactive)")
            return 0
    port = options.get("port", "3306")
    answer, error = _connect(m, options.get("host"), int(port) if port.isdigit() else 3306, sql)
    if answer is None:
        m.write(th, 2, f"ERROR {error[1]} (HY000): {error[0]}\n")
        return 1
    m.write(th, 1, answer)
    return 0


def mysqladmin(m: Machine, th: Thread, argv: list[str]) -> int:
    """``mysqladmin [-h HOST] ping`` (other commands: not modelled, succeed)."""
    parsed = _client_options(argv[1:])
    if isinstance(parsed, str):
        m.write(th, 2, f"mysqladmin: {parsed}\n")
        return 1
    options, commands = parsed
    host = options.get("host")
    port = options.get("port", "3306")
    answer, error = _connect(m, host, int(port) if port.isdigit() else 3306, "SELECT 1")
    if answer is None:
        shown = host or "localhost"
        m.write(th, 2, f"mysqladmin: connect to server at '{shown}' failed\n"
                f"error: '{error[0]}'\n")  # fmt: skip
        if error[1] == 2002:
            m.write(
                th, 2, f"Check that mysqld is running and that the socket: '{SOCKET}' exists!\n"
            )
        return 1
    for command in commands:
        if command == "ping":
            m.write(th, 1, "mysqld is alive\n")
        else:
            m.note("partially_modelled", None, command=f"mysqladmin {command}")
    return 0


# -- xtrabackup's tools ------------------------------------------------------------------


def ncat_client(m: Machine, th: Thread, argv: list[str]) -> int:
    """``ncat [--recv-only] HOST PORT``: print what the server sends until it closes."""
    positional = [a for a in argv[1:] if not a.startswith("-")]
    if len(positional) < 2 or not positional[1].isdigit():
        m.write(th, 2, "Ncat: You must specify a host to connect to. QUITTING.\n")
        return 2
    host, port = positional[0], int(positional[1])
    world = m.world
    found = (host, host) if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", host) else (
        world.resolve(host, True) if world is not None else None)  # fmt: skip
    if found is None:
        m.write(
            th,
            2,
            f'Ncat: Could not resolve hostname "{host}": Name or service not known. QUITTING.\n',
        )
        return 2
    answer = _exchange(m, found[1], port, "")
    if answer is None:
        m.write(th, 2, "Ncat: Connection refused.\n")
        return 1
    m.write(th, 1, answer)
    return 0


def ncat_listen_kind(args: list[str]) -> tuple[int, str] | None:
    """(port, listener kind) of ``ncat --listen … PORT [-c CMD]``."""
    port = None
    command = ""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-c", "--sh-exec", "-e", "--exec") and i + 1 < len(args):
            command = args[i + 1]
            i += 2
            continue
        if arg in ("-p", "--source-port") and i + 1 < len(args) and args[i + 1].isdigit():
            port = int(args[i + 1])
        elif arg.isdigit():
            port = int(arg)
        i += 1
    if port is None:
        return None
    words = shlex.split(command) if command else []
    if words[:1] == ["xtrabackup"] and "--backup" in words:
        return port, "xtrabackup"
    return port, "tcp"


def xbstream(m: Machine, th: Thread, argv: list[str]) -> int:
    """``xbstream -x [-C DIR]``: unpack the stream on standard input."""
    args = argv[1:]
    if "-x" not in args and "--extract" not in args:
        m.note("partially_modelled", None, command="xbstream " + " ".join(args))
        return 0
    directory = th.cwd
    if "-C" in args and args.index("-C") + 1 < len(args):
        directory = m.fs.normalize(args[args.index("-C") + 1], th.cwd)
    stdin = th.io[-1].get(0) if th.io else None
    text = stdin if isinstance(stdin, str) and stdin != "<open>" else ""
    if not text:
        return 0  # an empty stream: nothing to unpack
    if not text.startswith(STREAM_HEADER):
        m.write(th, 2, "xbstream: incorrect chunk magic.\n")
        return 1
    pos = len(STREAM_HEADER)
    while pos < len(text):
        end = text.find("\n", pos)
        name, _, size = text[pos:end].rpartition("\t")
        if end < 0 or not size.isdigit() or ".." in name.split("/"):
            m.write(th, 2, "xbstream: corrupted stream.\n")
            return 1
        body = text[end + 1 : end + 1 + int(size)]
        path = m.fs.normalize(directory + "/" + name)
        m.fs.mkdir(path.rsplit("/", 1)[0] or "/", parents=True)
        m.fs.write(path, body, append=False)
        pos = end + 1 + int(size)
    return 0


def xtrabackup(m: Machine, th: Thread, argv: list[str]) -> int:
    """``xtrabackup --prepare --target-dir=DIR`` (``--backup`` runs behind ncat)."""
    args = argv[1:]
    target = next((a.split("=", 1)[1] for a in args if a.startswith("--target-dir=")), None)
    stamp = m.wall().strftime("%y%m%d %H:%M:%S")
    if "--prepare" in args and target:
        path = m.fs.normalize(target, th.cwd) + "/xtrabackup_checkpoints"
        if m.fs.read(path) is None:
            m.write(th, 2, f"xtrabackup: cannot open {path}\n"
                    "xtrabackup: error: xtrabackup_read_metadata()\n")  # fmt: skip
            return 1
        m.fs.write(path, "backup_type = full-prepared\n", append=False)
        m.write(th, 2, f"{stamp} completed OK!\n")
        return 0
    m.note("partially_modelled", None, command="xtrabackup " + " ".join(args))
    return 0
