"""Test-only: the suite never leaves this machine.

``tests/conftest.py`` puts this folder first on ``PYTHONPATH``, so every Python the suite starts (the
pytest process itself, every ``nanobot`` subprocess, the housekeeping children they detach, the MCP
and model servers) imports this at start-up. It refuses connections and name lookups to anything but
loopback: a real model that decides to ``web_fetch`` a public page gets an ``OSError`` (a tool error,
as offline), never the internet. ``TESTS_ONLINE=1`` turns it off.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import socket


class OfflineError(OSError):
    """A connection or lookup the offline test suite refused."""


def local(host) -> bool:
    """Whether ``host`` (a name or an IP literal) is this machine's loopback."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    h = str(host).strip("[]").split("%")[0].lower().rstrip(".")
    if h in ("", "localhost") or h.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(h)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def _install() -> None:
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def refuse(where) -> OfflineError:
        return OfflineError(errno.ENETUNREACH, f"the test suite is offline: refused {where}")

    def check(sock, address) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not local(address[0]):
            raise refuse(f"a connection to {address[0]}")

    def connect(self, address):
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self, address):
        check(self, address)
        return real_connect_ex(self, address)

    def numeric(host, port) -> list | None:
        """An IP literal in any form ("169.254.169.254", "2130706433"): no lookup is needed (the
        connection to it is still checked), so nanobot's own address checks get to see it."""
        try:
            return real_getaddrinfo(host, port, flags=socket.AI_NUMERICHOST)
        except (socket.gaierror, UnicodeError, TypeError, ValueError):
            return None

    def getaddrinfo(host, *args, **kw):
        if not local(host) and numeric(host, args[0] if args else kw.get("port")) is not None:
            return real_getaddrinfo(host, *args, **kw)
        if not local(host):
            raise socket.gaierror(socket.EAI_NONAME, f"the test suite is offline: refused looking up {host}")
        return real_getaddrinfo(host, *args, **kw)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
    socket.getaddrinfo = getaddrinfo
    socket._nanobot_offline = True


if not os.environ.get("TESTS_ONLINE") and not getattr(socket, "_nanobot_offline", False):
    _install()
