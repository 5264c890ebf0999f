"""Where web_fetch may connect: public addresses only, unless the user allowed the host.

A model that reads a hostile page can be told to fetch ``http://127.0.0.1:...``, a router at
``192.168.1.1`` or the cloud metadata service at ``169.254.169.254``. So every connection (the first
and each redirect hop, since urllib opens a new connection per hop through the same handlers) resolves
the host name itself, bounded by the timeout, refuses loopback, private, link-local, multicast, reserved
and unspecified addresses, and connects to the very address it checked (no second lookup that DNS
rebinding could answer differently). ``[tools] web_allow_hosts = ["localhost:8888", "intranet"]``
lets named hosts (any port, or the one given) through.

>>> public("93.184.215.14"), public("127.0.0.1"), public("::ffff:169.254.169.254")
(True, False, False)
"""

from __future__ import annotations

import ipaddress
import socket
import threading


class BlockedAddress(OSError):
    """A connection refused by this guard (urllib wraps it in a URLError)."""


def public(address: str) -> bool:
    """Whether ``address`` (an IP literal) is a public unicast address."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_private or ip.is_loopback
                                 or ip.is_link_local or ip.is_unspecified)


def host_allowed(host: str, port: int, allow: list[str]) -> bool:
    host = host.lower().strip("[]").rstrip(".")
    return any(a.lower().rstrip(".") in (host, f"{host}:{port}") for a in allow)


def lookup(host: str, port: int, timeout: float) -> list[tuple]:
    """getaddrinfo in a thread, so a slow resolver is bounded by ``timeout`` (TimeoutError)."""
    box: list = []

    def work() -> None:
        try:
            box.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as e:
            box.append(e)

    thread = threading.Thread(target=work, daemon=True, name="nanobot-dns")
    thread.start()
    thread.join(timeout)
    if not box:
        raise TimeoutError(f"looking up {host} took over {timeout:g}s")
    if isinstance(box[0], OSError):
        raise box[0]
    return box[0]


def connect(host: str, port: int, timeout: float, allow: list[str]) -> socket.socket:
    """A socket connected to a checked address of ``host`` (BlockedAddress when none may be used)."""
    infos = lookup(host, port, timeout)
    if not host_allowed(host, port, allow):
        bad = [i[4][0] for i in infos if not public(i[4][0])]
        if bad:  # one private answer taints the name (rebinding answers mix them)
            raise BlockedAddress(f"{host} resolves to {bad[0]}, a local or private address; "
                                 f"add \"{host}:{port}\" to tools.web_allow_hosts to allow it")
    error: OSError | None = None
    for family, kind, proto, _, addr in infos:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout)
        try:
            sock.connect(addr)
            return sock
        except OSError as e:
            sock.close()
            error = e
    raise error or OSError(f"no address for {host}")
