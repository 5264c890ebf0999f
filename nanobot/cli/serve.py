"""``nanobot serve [MODEL]``: serve a configured, catalogue or .gguf model over HTTP (OpenAI API)."""

from __future__ import annotations

import socket

import typer

from nanobot.base.errors import NanobotError
from nanobot.cli.term import echo

KEY_ENV = "NANOBOT_SERVE_API_KEY"


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        model: str = typer.Argument(None, help="Model name or .gguf path (default: the configured model)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface; "
                                 "any address but loopback needs --api-key or --no-auth)."),
        port: int = typer.Option(8000, "--port", "-p", min=0, max=65535, help="Port to listen on (0: any free port)."),
        api_key: str = typer.Option(None, "--api-key", envvar=KEY_ENV, show_default=False,
                                    help="Key every request must send as 'Authorization: Bearer KEY'; prefer "
                                         f"the variable (${KEY_ENV}): a command line is visible to other users."),
        no_auth: bool = typer.Option(False, "--no-auth", help="Serve a non-loopback address without a key "
                                     "(anyone who can reach it can use the model)."),
        queue: int = typer.Option(4, "--queue", min=0, max=1000, help="Requests that may wait while one is "
                                  "answered; more get HTTP 429 with Retry-After."),
        threads: int = typer.Option(None, "--threads", "-t", min=1, help="llama.cpp threads (default: the model's setting, else free cores)."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="llama.cpp's own log (prompt-cache hits, timings) on stderr."),
    ) -> None:
        """Serve one loaded model to several chats and other OpenAI clients (llm, aider, editors), with
        nanobot's settings for it: n_ctx, threads, weight repacking per CPU (off on AMX builds). The
        model answers one request at a time; others wait their turn (up to --queue of them)."""
        from nanobot.backends.serve import needs_key, server_app
        from nanobot.config import load_settings
        from nanobot.models import resolve_model

        if not api_key and not no_auth and needs_key(host):
            raise NanobotError(f"--host {host} lets other machines use the model; set a key ({KEY_ENV}=... or "
                               "--api-key KEY) or pass --no-auth to serve it open")
        resolved = resolve_model(load_settings(), model)
        served = server_app(resolved, threads, verbose, key=api_key or None, queue=queue)
        sock = _listen(host, port)
        bound, real_port = sock.getsockname()[:2]
        shown = f"[{bound}]" if ":" in bound else bound
        url = f"http://{shown}:{real_port}/v1"
        repack = "on" if served.repack else "off" + (" (AMX build)" if served.amx else "")
        wide = " (every interface)" if bound in ("0.0.0.0", "::") else ""
        auth = "key required" if api_key else "no key"
        echo(f"serving {served.alias} ({resolved.path}) at {url}{wide} · {auth} · n_ctx {served.n_ctx} · "
             f"{served.n_threads} threads · weight repacking {repack}")
        local = url if not wide else f"http://127.0.0.1:{real_port}/v1"
        key_hint = f", api_key_env = \"{KEY_ENV}\"" if api_key else ""
        echo(f"use it from nanobot: [models.srv] base_url = \"{local}\", served_model = \"{served.alias}\"{key_hint}; "
             "Ctrl-C stops it")
        import uvicorn

        uvicorn.Server(uvicorn.Config(served.app, log_level="warning")).run(sockets=[sock])


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (the real port when ``port`` is 0), or a one-line error."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as e:
        raise NanobotError(f"cannot listen on {host}:{port}: {e.strerror or e}; pick another --host or --port") from None
    sock.set_inheritable(True)
    return sock
