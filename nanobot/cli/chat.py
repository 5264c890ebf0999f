"""``nanobot chat``: interactive on a terminal, one message per line when piped.

Everything that comes from the model, a tool, a file or a web page is printed as plain text (never
Rich markup) with control characters made visible (``nanobot/safe_text.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import typer

from nanobot.agent import Agent
from nanobot.chats.feature import ChatContextFeature
from nanobot.cli import signals
from nanobot.cli.prompt import prompt_report, render_report
from nanobot.cli.signals import SessionSignal
from nanobot.cli.term import console
from nanobot.config import load_settings
from nanobot.configfile import write_default
from nanobot.decode import NOTICE, scrub
from nanobot.errors import NanobotError, StorageError
from nanobot.events import Event, Notice, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.observer.hooks import ObserverFeature
from nanobot.regular import read_regular
from nanobot.runtime import build_agent, load_model
from nanobot.safe_text import printable
from nanobot.workspace import encoding_warnings

HELP = """Commands:
  /help            this help
  /new             start a fresh session
  /prompt          token breakdown of the prompt (and the last turn's KV-cache reuse)
  /model [NAME]    show the model, or switch to NAME (a configured name or a .gguf path)
  /quit, /exit     leave (Ctrl-D too)
Enter sends; Alt+Enter (or Esc then Enter) adds a new line. Ctrl-C stops a reply."""


class ChatUI:
    def __init__(self, agent: Agent, interactive: bool, verbose: bool):
        self.agent = agent
        self.interactive = interactive
        self.verbose = verbose
        self.out = console(highlight=False, soft_wrap=True, emoji=False)
        self.err = console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
        if interactive:  # tools that need permission (exec) ask here; piped chat cannot ask
            agent.confirm = self.confirm
        observer = agent.feature(ObserverFeature) if agent.settings.observer.enabled else None
        self.detached = observer is not None and agent.settings.observer.background
        if observer is not None:  # the session's observation runs in a child: exit returns at once
            observer.detach = self.detached

    def confirm(self, question: str) -> bool:
        """A y/N question on the terminal (default no); control characters in it shown escaped."""
        try:
            answer = input(f"{printable(question, keep='')} [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        return answer.strip().lower() in ("y", "yes")

    # -- input -------------------------------------------------------------------------------
    def lines(self) -> Iterator[str]:
        if not self.interactive:  # one bad byte must not end the chat (see nanobot.decode)
            if hasattr(sys.stdin, "reconfigure"):
                sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
            warned = False
            for raw in sys.stdin:
                line, bad = scrub(raw)
                if bad and not warned:
                    warned = True
                    self.notice(Notice(text=f"stdin: {NOTICE}", level="warning"))
                if line.strip():
                    yield line.rstrip("\r\n")
            return
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.keys import Keys

        kb = KeyBindings()

        @kb.add("escape", "enter")
        def _newline(event) -> None:
            event.current_buffer.insert_text("\n")

        @kb.add(Keys.Vt100MouseEvent)
        def _stray_mouse(event) -> None:
            """Mouse tracking is off, so this is a stray or pasted escape sequence: ignore it (the
            default handler raises on malformed ones)."""

        history = self.agent.settings.home / "input_history"
        session = PromptSession(history=FileHistory(str(history)), key_bindings=kb)
        # as the user types, the draft is prefilled (after a pause; never blocks a keystroke)
        session.default_buffer.on_text_changed += lambda buf: self.agent.prefill(buf.text, idle=False)
        while True:
            try:
                text = session.prompt([("bold ansigreen", "You: ")], multiline=False)
            except SessionSignal:
                raise
            except KeyboardInterrupt:
                continue  # Ctrl-C at the prompt clears the line
            except EOFError:
                return
            if text.strip():
                yield text

    # -- output ------------------------------------------------------------------------------
    def notice(self, ev: Notice) -> None:
        style = "yellow" if ev.level == "warning" else "dim"
        self.err.print(printable(ev.text), style=style, markup=False)

    def render(self, events: Iterator[Event]) -> None:
        started = midline = False  # midline: the reply's last line is not ended yet
        try:
            for ev in events:
                if midline and isinstance(ev, (ToolCall, ToolResult, Notice)):
                    self.out.print()  # a warning mid-reply (a reply check) goes on its own line
                    midline = False
                if isinstance(ev, TextDelta):
                    if not started:
                        self.out.print("[bold cyan]Nano:[/bold cyan] ", end="")
                        started = True
                        ev = TextDelta(text=ev.text.lstrip())
                    self.out.print(printable(ev.text), end="", markup=False)
                    midline = not ev.text.endswith("\n")
                elif isinstance(ev, ToolCall):
                    self.err.print(f"→ {printable(ev.name, keep='')}", style="magenta", markup=False, end=" ")
                    self.err.print(printable(str(ev.arguments), keep=""), markup=False)
                elif isinstance(ev, ToolResult):
                    mark = "✓" if ev.ok else "✗"
                    self.err.print(printable(f"{mark} {ev.name}: {ev.text[:200]}"), style="dim", markup=False)
                elif isinstance(ev, Notice):
                    self.notice(ev)
                elif isinstance(ev, TurnDone):
                    if not started:
                        self.out.print("[bold cyan]Nano:[/bold cyan] ", end="")
                        self.out.print(printable(ev.reply), end="", markup=False)
                    if midline or not started:
                        self.out.print()
                    midline = False
                    if self.verbose:
                        g = ev.generation
                        self.err.print(
                            f"[prompt {g.prompt_tokens} tok · reused {g.reused_tokens if g.reuse_known else '?'} · "
                            f"evaluated {g.evaluated_tokens} · {g.completion_tokens} tok · "
                            f"{ev.timing.line() if ev.timing else f'ttft {g.ttft_s:.2f}s · {g.total_s:.2f}s'}"
                            f"{' · stopped: repetition' if g.finish_reason == 'repetition' else ''}]",
                            style="dim", markup=False)
        except SessionSignal:
            raise  # not Ctrl-C: the session ends (run handles it)
        except KeyboardInterrupt:
            events.close()
            self.out.print()
            self.err.print("[interrupted: reply stopped, session kept]", style="yellow", markup=False)

    # -- commands ----------------------------------------------------------------------------
    def command(self, line: str) -> bool:
        """Handle a slash command; return False to quit."""
        cmd, _, arg = line.strip().partition(" ")
        if cmd in ("/quit", "/exit"):
            return False
        if cmd == "/help":
            self.out.print(HELP, markup=False)
        elif cmd == "/new":
            for ev in self.agent.end_session("new") + self.agent.start_session():
                self.notice(ev) if isinstance(ev, Notice) else None
            self.err.print("[dim]new session[/dim]")
        elif cmd == "/prompt":
            render_report(prompt_report(self.agent), self.out)
        elif cmd == "/model":
            if arg.strip():
                self.agent.stop_prefill()
                try:
                    self.agent.model = load_model(self.agent.settings, arg.strip())
                except NanobotError as e:  # a typo must not end the session: keep the current model
                    self.err.print(f"Error: {printable(str(e))} (keeping {self.agent.model.name})", style="red", markup=False)
                    return True
                self.agent.refresh_prompt()
            m = self.agent.model
            self.out.print(f"model: {m.name} ({getattr(getattr(m, 'resolved', None), 'path', '')}), n_ctx {m.n_ctx}", markup=False)
        else:
            self.err.print(f"unknown command {cmd}; /help lists them", markup=False)
        return True

    def run(self) -> int:
        """Chat until EOF or /quit; returns the exit code (1 if a turn failed, after the rest ran)."""
        failed = False
        for warning in encoding_warnings(self.agent.workspace):
            self.notice(Notice(text=warning, level="warning"))
        for ev in self.agent.start_session():
            self.render(iter([ev]))
        if self.interactive:
            self.err.print(f"[dim]nanobot · {self.agent.model.name} · /help for commands · Ctrl-D to quit[/dim]")
            self.agent.prefill()  # the system prompt, while the user types the first message
        reason = "eof"
        try:
            for line in self.lines():
                if line.startswith("/"):
                    if not self.command(line):
                        reason = "quit"
                        break
                else:
                    try:
                        self.render(self.agent.turn(line))
                    except NanobotError as e:  # e.g. a message too long for n_ctx: say so, keep going
                        failed = True
                        self.err.print(f"Error: {printable(str(e))}", style="red", markup=False)
                    except OSError as e:  # a full disk, a read-only home: the cause, not a traceback
                        failed = True
                        self.err.print(f"Error: {StorageError.from_os(e)}", style="red", markup=False)
                if self.interactive:
                    self.agent.prefill()  # while the user reads and types
        except SessionSignal as e:  # terminal closed (SIGHUP) or SIGTERM: end like /quit, bounded
            reason = e.reason
        except KeyboardInterrupt:
            reason = "interrupt"
        cancel = signals.watchdog(lambda: self._close(reason)) if reason in signals.REASONS.values() else None
        if self.interactive and self.agent.user_turns and self.agent.settings.observer.enabled and not self.detached:
            self.err.print("[dim]writing an observation of this session… (Ctrl-C skips the model)[/dim]")
        events = self.agent.end_session(reason)
        if cancel:
            cancel()
        for ev in events:
            self.render(iter([ev]))
        return 1 if failed else 0

    def _close(self, reason: str) -> None:
        """The watchdog's last resort: the transcript's "session end" record, unless already there."""
        t = self.agent.transcript
        tail = read_regular(t.path)[-400:] if t is not None and t.path.exists() else b""
        if t is not None and b'"session end"' not in tail:
            t.append("event", "session end", reason=reason, bounded=True)


def register(app: typer.Typer) -> None:
    @app.command()
    def chat(
        model: str = typer.Option(None, "--model", "-m", help="Model name or .gguf path."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Print per-turn token and timing figures to stderr."),
        chat_id: str = typer.Option("local", "--chat", help="The chat this session belongs to (its own CONTEXT.md)."),
        speaker: str = typer.Option(None, "--as", help="Who is speaking (group chats); recorded per message."),
    ) -> None:
        """Chat with the model. Piped stdin: one message per line, one reply per message."""
        run_chat(load_settings(), model, verbose, chat_id, speaker)


def run_chat(settings, model: str | None, verbose: bool, chat_id: str = "local",
             speaker: str | None = None) -> None:
    """The chat loop for ``settings`` (``nanobot chat``, ``nanobot session``); exits 1 if a turn failed."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    created = write_default(settings)  # the first chat leaves a config.toml to edit (never overwritten)
    if created is not None and interactive:
        console(stderr=True, highlight=False).print(
            printable(f"created {created}: every setting with its default, commented; edit it to change one"),
            style="dim", markup=False)
    agent = build_agent(settings, load_model(settings, model), interactive=interactive)
    chats = agent.feature(ChatContextFeature)
    if chats is not None:
        chats.select(chat_id, speaker)
    signals.install()
    code = ChatUI(agent, interactive, verbose).run()
    if code:
        raise typer.Exit(code)
