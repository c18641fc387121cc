"""Who a request comes from, for per-client limits (sessions, share links, connections).

proxies = trusted_proxies("127.0.0.1, 10.0.0.0/8")   # ProxySettingError if not addresses
client_address(environ, proxies)                      # "203.0.113.7"

With no trusted proxies (the default) the client is the peer address of the connection,
`REMOTE_ADDR`: an `X-Forwarded-For` header is ignored, since any client can send one.
Behind reverse proxies that each append the address they received from (nginx
`proxy_add_x_forwarded_for`), set `TRUSTED_PROXIES` (or `PLAYGROUND_TRUSTED_PROXIES`) to
*their addresses*: IPs or CIDR blocks, separated by commas or spaces. X-Forwarded-For is
believed only on a connection whose peer is one of them, and then read from the right: each
entry that is itself a trusted proxy is skipped, and the first one that is not is the client
(entries further left were written by the client and are not believed). A request straight
to the port, from an address not listed, keeps its peer address whatever it sends.

A count of proxies (`TRUSTED_PROXIES=1`, what this setting used to take) is refused at start
(`ProxySettingError`): a count believes the header from anyone who can reach the port, so a
forged `X-Forwarded-For: 127.0.0.1` opened /metrics and escaped every per-address limit
(issue 26 F10). `0` still means none.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable, Mapping
from typing import Any

from flask import current_app, request

from webapp.config import StartupError

MAX_ADDRESS = 64  # longer "addresses" are cut: a key, never trusted content
MAX_FORWARDED_ENTRIES = 32  # a longer X-Forwarded-For is read from its right end only

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Proxies = tuple[Network, ...]

_SEPARATORS = re.compile(r"[\s,]+")


class ProxySettingError(StartupError):
    """TRUSTED_PROXIES is not a list of addresses; the message says what to write."""


def trusted_proxies(value: Any) -> Proxies:
    """TRUSTED_PROXIES as networks: None, "", 0 or an empty list is none; a string of IPs
    and CIDRs separated by commas or spaces, or a list of them. A count is refused."""
    if value is None or value == "" or (isinstance(value, int) and value == 0):
        return ()
    if isinstance(value, int | float):  # bool too: True is a count of 1
        raise _count_refused(value)
    items: Iterable[Any]
    if isinstance(value, str):
        if value.strip().isdigit():
            if int(value.strip()) == 0:
                return ()
            raise _count_refused(value.strip())
        items = [item for item in _SEPARATORS.split(value.strip()) if item]
    elif isinstance(value, list | tuple | set | frozenset):
        items = value
    else:
        raise ProxySettingError(f"TRUSTED_PROXIES must be addresses, not {type(value).__name__}")
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(str(item).strip(), strict=False))
        except ValueError:
            raise ProxySettingError(
                f"TRUSTED_PROXIES: {str(item)[:MAX_ADDRESS]!r} is not an IP address or CIDR "
                "block (write the proxies' addresses, e.g. TRUSTED_PROXIES=127.0.0.1,10.0.0.0/8)"
            ) from None
    return tuple(networks)


def _count_refused(value: Any) -> ProxySettingError:
    return ProxySettingError(
        f"TRUSTED_PROXIES={value} is a count of proxies; it now takes the proxies' own "
        "addresses, so that X-Forwarded-For is believed only from them: write, for nginx on "
        "this machine, TRUSTED_PROXIES=127.0.0.1 (or its IPs/CIDRs, e.g. 10.0.0.0/8, comma-"
        "separated; docs/hosting.md)"
    )


@functools.lru_cache(maxsize=4096)
def is_trusted(address: str, proxies: Proxies) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 from a dual-stack socket
    return any(ip.version == net.version and ip in net for net in proxies)


def client_address(environ: Mapping[str, Any], proxies: Proxies = ()) -> str:
    peer = str(environ.get("REMOTE_ADDR") or "")[:MAX_ADDRESS]
    if not proxies or not is_trusted(peer, proxies):
        return peer
    header = str(environ.get("HTTP_X_FORWARDED_FOR") or "")
    values = [v.strip() for v in header.split(",")[-MAX_FORWARDED_ENTRIES:] if v.strip()]
    client = peer
    for value in reversed(values):
        client = value[:MAX_ADDRESS]
        if not is_trusted(client, proxies):
            break
    return client


def proxies_of(config: Mapping[str, Any]) -> Proxies:
    """The app's trusted proxies (parsed once, at create_app: webapp/config.py)."""
    found = config.get("TRUSTED_PROXY_NETWORKS")
    if found is None:
        found = trusted_proxies(config.get("TRUSTED_PROXIES"))
    return found


def current_client() -> str:
    """The client of the current Flask request (or Socket.IO connection)."""
    return client_address(request.environ, proxies_of(current_app.config))
