"""web_fetch cannot be pointed at the user's own machine or network: loopback, private ranges and
the cloud metadata address are refused, directly, through DNS and through a redirect, unless the user
allowed the host in ``[tools] web_allow_hosts``. Real HTTP servers on 127.0.0.1; no other network."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools import netguard
from nanobot.tools.base import ToolContext
from nanobot.tools.netguard import public
from nanobot.tools.web import WebFetch

SECRET = b"internal secret page"


def serve(handler_cls) -> tuple[ThreadingHTTPServer, int]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1]


class Secret(BaseHTTPRequestHandler):
    hits = 0

    def log_message(self, *args):
        pass

    def do_GET(self):
        Secret.hits += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(SECRET)))
        self.end_headers()
        self.wfile.write(SECRET)


@pytest.fixture(scope="module")
def secret():
    srv, port = serve(Secret)
    yield port
    srv.shutdown()


@pytest.fixture(scope="module")
def redirector(secret):
    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            targets = {"/to-secret": f"http://127.0.0.1:{secret}/", "/to-metadata": "http://169.254.169.254/latest/",
                       "/to-ftp": "ftp://127.0.0.1/x", "/to-localhost": f"http://localhost:{secret}/",
                       "/ok": None}
            if targets.get(self.path):
                self.send_response(302)
                self.send_header("Location", targets[self.path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "6")
            self.end_headers()
            self.wfile.write(b"public")

    srv, port = serve(Redirect)
    yield port
    srv.shutdown()


def fetch(home, url, **tools):
    return WebFetch().run(WebFetch.Args(url=url), ToolContext(settings=load_settings(home, tools=tools)))


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "2130706433"])
def test_loopback_is_refused_without_connecting(home, secret, host):
    Secret.hits = 0
    with pytest.raises(ToolError, match=r"refused: .* a local or private address; add .*tools.web_allow_hosts"):
        fetch(home, f"http://{host}:{secret}/")
    assert Secret.hits == 0


def test_an_allowed_local_host_works(home, secret):
    assert fetch(home, f"http://127.0.0.1:{secret}/", web_allow_hosts=[f"127.0.0.1:{secret}"]) == SECRET.decode()
    assert fetch(home, f"http://localhost:{secret}/", web_allow_hosts=["LOCALHOST"]) == SECRET.decode()
    with pytest.raises(ToolError, match="refused"):  # host:port allows that port only
        fetch(home, f"http://127.0.0.1:{secret}/", web_allow_hosts=["127.0.0.1:1"])


def test_a_public_name_that_resolves_to_loopback_is_refused(home, secret, monkeypatch):
    real = netguard.lookup

    def resolver(host, port, timeout):  # a DNS answer pointing inside (rebinding, a hostile zone)
        return real("127.0.0.1" if host == "rebind.example" else host, port, timeout)

    monkeypatch.setattr(netguard, "lookup", resolver)
    Secret.hits = 0
    with pytest.raises(ToolError, match="rebind.example resolves to 127.0.0.1"):
        fetch(home, f"http://rebind.example:{secret}/")
    assert Secret.hits == 0
    # the checked address is the one connected to: an allowed name reaches it without a second lookup
    assert fetch(home, f"http://rebind.example:{secret}/", web_allow_hosts=["rebind.example"]) == SECRET.decode()


@pytest.mark.parametrize("path,why", [
    ("/to-secret", r"127.0.0.1 resolves to 127.0.0.1"),
    ("/to-localhost", r"localhost resolves to"),
    ("/to-metadata", r"169.254.169.254 resolves to 169.254.169.254"),
    ("/to-ftp", r"unknown url type: ftp"),
])
def test_every_redirect_hop_is_checked(home, redirector, secret, path, why):
    allow = [f"127.0.0.1:{redirector}"]  # the first hop is allowed, the target is not
    assert fetch(home, f"http://127.0.0.1:{redirector}/ok", web_allow_hosts=allow) == "public"
    Secret.hits = 0
    with pytest.raises(ToolError, match=why):
        fetch(home, f"http://127.0.0.1:{redirector}{path}", web_allow_hosts=allow)
    assert Secret.hits == 0


def test_a_slow_name_lookup_is_bounded_by_web_timeout(home, monkeypatch):
    def slow(*args, **kw):
        time.sleep(5)
        raise socket.gaierror("too late")

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    start = time.monotonic()
    with pytest.raises(ToolError, match=r"no answer within 0.5s"):
        fetch(home, "http://slow.example/", web_timeout=0.5)
    assert time.monotonic() - start < 2.5  # 5x headroom over the 0.5 s bound, half the lookup


@pytest.mark.parametrize("address,ok", [
    ("93.184.215.14", True), ("2606:4700::1111", True), ("127.0.0.1", False), ("10.1.2.3", False),
    ("172.16.0.1", False), ("192.168.1.1", False), ("169.254.169.254", False), ("100.64.0.1", False),
    ("224.0.0.1", False), ("240.0.0.1", False), ("0.0.0.0", False), ("::1", False), ("fe80::1", False),
    ("fc00::1", False), ("::ffff:127.0.0.1", False), ("ff02::1", False), ("fe80::1%eth0", False),
])
def test_address_classes(address, ok):
    assert public(address) is ok
