"""The suite's own guarantees (tests/conftest.py): it never reaches beyond loopback, in this process
or in any Python it starts, and it finds the processes a test leaves behind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest

from tests.conftest import ROOT, _children, cli_env


def test_connections_beyond_loopback_are_refused_in_process():
    with pytest.raises(OSError, match="offline"):
        socket.create_connection(("192.0.2.1", 80), timeout=5)  # TEST-NET-1: would only time out
    with pytest.raises(socket.gaierror, match="offline"):
        socket.getaddrinfo("example.com", 443)
    server = socket.create_server(("127.0.0.1", 0))  # loopback still works
    with server, socket.create_connection(server.getsockname(), timeout=5):
        pass


def test_connections_beyond_loopback_are_refused_in_every_child(home):
    code = ("import socket, urllib.request\n"
            "try:\n    urllib.request.urlopen('http://example.com/', timeout=5)\n"
            "except OSError as e:\n    print('refused:', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env=cli_env(home), timeout=60)
    assert "refused:" in r.stdout and "offline" in r.stdout, (r.stdout, r.stderr)


def test_a_started_process_is_seen_until_it_ends():
    proc = subprocess.Popen(["sleep", "30"])
    try:
        assert proc.pid in _children(os.getpid())
    finally:
        proc.kill()
        proc.wait()
    assert proc.pid not in _children(os.getpid())
    done = threading.Event()
    threading.Thread(target=done.set).start()  # threads are not processes
    assert done.wait(5)
