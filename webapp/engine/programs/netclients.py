"""DNS and HTTP clients inside a container: ``nslookup``, ``getent hosts``, ``wget``,
``curl`` and ``nc`` (client side), against the simulated cluster (the ``World``).

Texts: busybox 1.36 ``nslookup`` / ``wget`` (networking/nslookup.c, wget.c; CONTAINER-
SEMANTICS §5), the old busybox ≤ 1.28 ``nslookup`` (the one the init-container docs use,
which also applies the resolv.conf search domains), curl 8's error lines.
"""

from __future__ import annotations

import re

from webapp.engine.programs.base import Answer, Machine, Thread, parse_duration, tool_error

KUBE_DNS_NAME = "kube-dns.kube-system.svc.cluster.local"


def _resolve(m: Machine, name: str, search: bool) -> tuple[str, str] | None:
    world = m.world
    if world is None:
        return None
    return world.resolve(name, search)


def parse_url(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) of an http(s) URL (a bare host means http)."""
    match = re.fullmatch(r"(?:(https?)://)?([^/:?#\s]+)(?::(\d+))?([^\s#]*)", url)
    if not match:
        return None
    scheme = match.group(1) or "http"
    port = int(match.group(3)) if match.group(3) else (443 if scheme == "https" else 80)
    path = match.group(4) or "/"
    if not path.startswith("/"):
        path = "/" + path
    return scheme, match.group(2), port, path


def nslookup(m: Machine, th: Thread, argv: list[str]) -> int:
    names = [a for a in argv[1:] if not a.startswith("-")]
    if not names:
        m.write(
            th,
            2,
            "BusyBox v1.36.1 multi-call binary.\n\nUsage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n",
        )
        return 1
    name = names[0]
    world = m.world
    server = world.dns_server if world is not None else "10.96.0.10"
    if m.facts.tools == "busybox" and m.facts.old_nslookup:
        m.write(th, 1, f"Server:    {server}\nAddress 1: {server} {KUBE_DNS_NAME}\n\n")
        found = _resolve(m, name, True)
        if found is None:
            m.write(th, 2, f"nslookup: can't resolve '{name}'\n")
            return 1
        fqdn, ip = found
        m.write(th, 1, f"Name:      {fqdn}\nAddress 1: {ip} {fqdn}\n")
        return 0
    if m.facts.tools == "busybox":
        m.write(th, 1, f"Server:\t\t{server}\nAddress:\t{server}:53\n\n")
        found = _resolve(m, name, False)
        if found is None:
            m.write(th, 1, f"** server can't find {name}: NXDOMAIN\n\n" * 2)
            return 1
        fqdn, ip = found
        m.write(th, 1, f"Name:\t{fqdn}\nAddress: {ip}\n\n")
        return 0
    m.write(th, 1, f"Server:\t\t{server}\nAddress:\t{server}#53\n\n")
    found = _resolve(m, name, True)
    if found is None:
        m.write(th, 1, f"** server can't find {name}: NXDOMAIN\n\n")
        return 1
    fqdn, ip = found
    m.write(th, 1, f"Name:\t{fqdn}\nAddress: {ip}\n\n")
    return 0


def getent(m: Machine, th: Thread, argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] not in ("hosts", "ahosts", "ahostsv4"):
        return 1 if len(argv) < 2 else 2
    status = 0
    for name in argv[2:]:
        found = _resolve(m, name, True)
        if found is None:
            status = 2
            continue
        fqdn, ip = found
        if argv[1] == "hosts":
            m.write(th, 1, f"{ip:<15} {fqdn}\n")
        else:
            m.write(th, 1, f"{ip:<15} STREAM {fqdn}\n{ip:<15} DGRAM  \n{ip:<15} RAW    \n")
    return status


def _request(m: Machine, host: str, port: int, path: str) -> tuple[str | None, Answer | None]:
    """(ip, answer) or (None, None) when the name does not resolve."""
    if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", host):
        ip = host
    elif host == "localhost":
        ip = "127.0.0.1"
    else:
        found = _resolve(m, host, True)
        if found is None:
            return None, None
        ip = found[1]
    world = m.world
    if world is None:
        return ip, Answer("refused")
    return ip, world.http(m.now, ip, port, path)


def wget(m: Machine, th: Thread, argv: list[str]) -> int:
    """busybox wget: ``wget [-q] [-O FILE] [-T SEC] [--spider] URL``."""
    quiet = spider = False
    output: str | None = None
    urls = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-O", "--output-document") and i + 1 < len(args):
            output = args[i + 1]
            i += 2
            continue
        if arg in ("-T", "--timeout", "-U", "--user-agent", "--header", "-P") and i + 1 < len(args):
            i += 2
            continue
        if arg.startswith("--output-document="):
            output = arg.split("=", 1)[1]
        elif arg == "--spider":
            spider = True
        elif arg in ("-q", "--quiet"):
            quiet = True
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters = arg[1:]
            if "q" in letters:
                quiet = True
            if "O" in letters:
                rest = letters.split("O", 1)[1]
                if rest:
                    output = rest
                elif i + 1 < len(args):
                    output = args[i + 1]
                    i += 1
        elif not arg.startswith("-"):
            urls.append(arg)
        i += 1
    if not urls:
        m.write(
            th,
            2,
            "BusyBox v1.36.1 multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n",
        )
        return 1
    parsed = parse_url(urls[0])
    if parsed is None:
        m.write(th, 2, f"wget: bad address '{urls[0]}'\n")
        return 1
    _scheme, host, port, path = parsed
    ip, answer = _request(m, host, port, path)
    hostport = host if ":" not in urls[0].split("//", 1)[-1].split("/", 1)[0] else f"{host}:{port}"
    if ip is None or answer is None:
        m.write(th, 2, f"wget: bad address '{hostport}'\n")
        return 1
    if not quiet:
        m.write(th, 2, f"Connecting to {hostport} ({ip}:{port})\n")
    if answer.kind == "refused":
        m.write(th, 2, f"wget: can't connect to remote host ({ip}): Connection refused\n")
        return 1
    if answer.kind == "timeout":
        m.write(th, 2, "wget: download timed out\n")
        return 1
    if answer.kind != "ok":
        m.write(th, 2, "wget: error getting response: Connection reset by peer\n")
        return 1
    if answer.status >= 400:
        m.write(th, 2, f"wget: server returned error: HTTP/1.1 {answer.status} {answer.reason}\n")
        return 1
    if spider:
        if not quiet:
            m.write(th, 2, "remote file exists\n")
        return 0
    size = len(answer.body.encode())
    if output == "-":
        if not quiet:
            m.write(th, 2, "writing to stdout\n")
        m.write(th, 1, answer.body)
        if not quiet:
            m.write(
                th,
                2,
                f"-                    100% |********************************| {size:5d}  0:00:00 ETA\nwritten to stdout\n",
            )
        return 0
    name = (
        output or (path.rstrip("/").rsplit("/", 1)[-1] if path.strip("/") else "") or "index.html"
    )
    target = m.fs.normalize(name, th.cwd)
    if output is None and m.fs.exists(target):
        m.write(th, 2, f"wget: can't open '{name}': File exists\n")
        return 1
    if not quiet:
        m.write(th, 2, f"saving to '{name}'\n")
    error = m.fs.write(target, answer.body, append=False)
    if error:
        text = {"ENOENT": "No such file or directory", "EROFS": "Read-only file system"}.get(
            error, error
        )
        m.write(th, 2, f"wget: can't open '{name}': {text}\n")
        return 1
    if not quiet:
        label = name.rsplit("/", 1)[-1]
        m.write(
            th,
            2,
            f"{label:<20} 100% |********************************| {size:5d}  0:00:00 ETA\n'{name}' saved\n",
        )
    return 0


def curl(m: Machine, th: Thread, argv: list[str]) -> int:
    silent = show_errors = fail = False
    output: str | None = None
    remote_name = False
    max_time: float | None = None
    urls = []
    args = argv[1:]
    i = 0
    takes_value = ("-o", "--output", "-m", "--max-time", "-H", "--header", "-X", "--request",
                   "-d", "--data", "-u", "--user", "-A", "--user-agent", "--connect-timeout",
                   "-w", "--write-out", "--retry", "-e")  # fmt: skip
    while i < len(args):
        arg = args[i]
        if arg in takes_value and i + 1 < len(args):
            if arg in ("-o", "--output"):
                output = args[i + 1]
            elif arg in ("-m", "--max-time"):
                max_time = parse_duration(args[i + 1])
            i += 2
            continue
        if arg in ("--silent",):
            silent = True
        elif arg in ("--show-error",):
            show_errors = True
        elif arg in ("--fail", "--fail-with-body"):
            fail = True
        elif arg == "--remote-name":
            remote_name = True
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters = arg[1:]
            silent = silent or "s" in letters
            show_errors = show_errors or "S" in letters
            fail = fail or "f" in letters
            remote_name = remote_name or "O" in letters
            if letters.endswith("o") and i + 1 < len(args):
                output = args[i + 1]
                i += 1
        elif not arg.startswith("-"):
            urls.append(arg)
        i += 1
    del max_time
    errors = not silent or show_errors

    def error(code: int, text: str) -> int:
        if errors:
            m.write(th, 2, f"curl: ({code}) {text}\n")
        return code

    if not urls:
        if errors:
            m.write(th, 2, "curl: try 'curl --help' or 'curl --manual' for more information\n")
        return 2
    parsed = parse_url(urls[0])
    if parsed is None:
        return error(3, "URL rejected: Malformed input to a URL function")
    _scheme, host, port, path = parsed
    ip, answer = _request(m, host, port, path)
    if ip is None or answer is None:
        return error(6, f"Could not resolve host: {host}")
    if answer.kind == "refused":
        return error(
            7, f"Failed to connect to {host} port {port} after 0 ms: Couldn't connect to server"
        )
    if answer.kind == "timeout":
        return error(28, "Operation timed out after 0 milliseconds with 0 bytes received")
    if answer.kind != "ok":
        return error(52, "Empty reply from server")
    if fail and answer.status >= 400:
        return error(22, f"The requested URL returned error: {answer.status}")
    size = len(answer.body.encode())
    if not silent:
        m.write(th, 2, "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
                       "                                 Dload  Upload   Total   Spent    Left  Speed\n"
                       f"100 {size:>5}  100 {size:>5}    0     0   {size:>4}      0 --:--:-- --:--:-- --:--:--  {size:>4}\n")  # fmt: skip
    if remote_name and output is None:
        output = path.rstrip("/").rsplit("/", 1)[-1] or "index.html"
    if output is not None and output != "-":
        write_error = m.fs.write(m.fs.normalize(output, th.cwd), answer.body, append=False)
        if write_error:
            return error(23, f"Failure writing output to destination, passed {size} returned 0")
        return 0
    m.write(th, 1, answer.body)
    return 0


def nc(m: Machine, th: Thread, argv: list[str]) -> int:
    """``nc [-z] [-v] [-w N] HOST PORT`` (the client side; ``nc -l`` is a server)."""
    flags = set()
    positional = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-w", "-W", "-i", "-q") and i + 1 < len(args):
            i += 2
            continue
        if arg.startswith("-") and len(arg) > 1:
            flags.update(arg[1:])
        else:
            positional.append(arg)
        i += 1
    if len(positional) < 2 or not positional[1].isdigit():
        m.write(
            th,
            2,
            "BusyBox v1.36.1 multi-call binary.\n\nUsage: nc [OPTIONS] HOST PORT  - connect\n",
        )
        return 1
    host, port = positional[0], int(positional[1])
    found = (host, host) if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", host) else _resolve(m, host, True)
    if found is None:
        tool_error(
            m,
            th,
            f"nc: bad address '{host}'",
            f'nc: getaddrinfo for host "{host}" port {port}: Name or service not known',
        )
        return 1
    ip = found[1]
    world = m.world
    stdin = th.io[-1].get(0) if th.io else None
    exchange = getattr(world, "exchange", None)
    if "z" not in flags and isinstance(stdin, str) and stdin and stdin != "<open>" and exchange:
        # `echo ruok | nc HOST PORT`: send stdin, print what comes back until the close
        answer = exchange(m.now, ip, port, stdin)
        if answer is not None:
            if "v" in flags:
                tool_error(m, th, f"{host} ({ip}:{port}) open",
                           f"Connection to {host} {port} port [tcp/*] succeeded!")  # fmt: skip
            m.write(th, 1, answer)
            return 0
        ok = False
    else:
        ok = world.tcp(m.now, ip, port) if world is not None else False
    if not ok:
        if "v" in flags or "z" not in flags:
            tool_error(m, th, f"nc: {host} ({ip}:{port}): Connection refused",
                       f"nc: connect to {host} port {port} (tcp) failed: Connection refused")  # fmt: skip
        return 1
    if "v" in flags:
        tool_error(
            m,
            th,
            f"{host} ({ip}:{port}) open",
            f"Connection to {host} {port} port [tcp/*] succeeded!",
        )
    return 0
