"""``nanobot serve [MODEL]``: serve a configured, catalogue or .gguf model over HTTP (OpenAI API)."""

from __future__ import annotations

import typer

from nanobot.cli.term import echo


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        model: str = typer.Argument(None, help="Model name or .gguf path (default: the configured model)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
        port: int = typer.Option(8000, "--port", "-p", min=1, max=65535, help="Port to listen on."),
        threads: int = typer.Option(None, "--threads", "-t", min=1, help="llama.cpp threads (default: the model's setting, else free cores)."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="llama.cpp's own log (prompt-cache hits, timings) on stderr."),
    ) -> None:
        """Serve one loaded model to several chats and other OpenAI clients (llm, aider, editors), with
        nanobot's settings for it: n_ctx, threads, weight repacking per CPU (off on AMX builds)."""
        from nanobot.backends.serve import server_app
        from nanobot.config import load_settings
        from nanobot.models import resolve_model

        resolved = resolve_model(load_settings(), model)
        served = server_app(resolved, threads, verbose)
        repack = "on" if served.repack else "off" + (" (AMX build)" if served.amx else "")
        url = f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}/v1"
        echo(f"serving {served.alias} ({resolved.path}) at {url} · n_ctx {served.n_ctx} · "
             f"{served.n_threads} threads · weight repacking {repack}")
        echo(f"use it from nanobot: [models.srv] base_url = \"{url}\", served_model = \"{served.alias}\"; "
             "Ctrl-C stops it")
        import uvicorn

        uvicorn.run(served.app, host=host, port=port, log_level="warning")
