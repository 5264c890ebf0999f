"""``nanobot chat``: interactive on a terminal, one message per line when piped.

Everything that comes from the model, a tool, a file or a web page is printed as plain text (never
Rich markup) with control characters made visible (``nanobot/base/safe_text.py``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import typer

from nanobot.base import foreground
from nanobot.base.errors import NanobotError, StorageError
from nanobot.base.nonutf8 import NOTICE, scrub
from nanobot.base.regular import read_regular
from nanobot.base.safe_text import printable
from nanobot.cli import signals
from nanobot.cli.loading import Loading
from nanobot.cli.signals import SessionSignal
from nanobot.cli.term import console
from nanobot.config import load_settings
from nanobot.configfile import write_default
from nanobot.core.events import Event, Notice, TextDelta, ToolCall, ToolResult, TurnDone

if TYPE_CHECKING:  # pragma: no cover - the agent's modules load behind the prompt (cli/loading.py)
    from nanobot.loop.agent import Agent

HELP = """Commands:
  /help            this help
  /new             start a fresh session
  /prompt          token breakdown of the prompt (and the last turn's KV-cache reuse)
  /model [NAME]    show the model, or switch to NAME (a configured name or a .gguf path)
  /quit, /exit     leave (Ctrl-D too)
Enter sends; Alt+Enter (or Esc then Enter) adds a new line. Ctrl-C stops a reply."""


class ChatUI:
    """``agent`` is the Agent, or a ``Loading`` building it (the interactive chat: the prompt is
    shown while the model loads; the first use of ``self.agent`` waits for it)."""

    def __init__(self, agent: Agent | Loading, interactive: bool, verbose: bool, model_name: str = "",
                 home=None):
        self.interactive = interactive
        self.home = home  # $NANOBOT_HOME (the input history), known before the agent
        self.verbose = verbose
        self.model_name = model_name
        self.out = console(highlight=False, soft_wrap=True, emoji=False)
        self.err = console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
        self._loading = agent if isinstance(agent, Loading) else None
        self._agent = None if self._loading else agent
        self._held: list[Event] = []  # events of the session start, shown at the next chance
        self._app = None  # the prompt_toolkit application while the prompt is up
        self.detached = False
        if self._agent is not None:
            self.attach(self._agent)

    @property
    def agent(self) -> Agent:
        if self._agent is None:
            self._agent = self._loading.get()
        return self._agent

    @property
    def ready(self) -> bool:
        return self._agent is not None or (self._loading is not None and self._loading.ready)

    def attach(self, agent: Agent) -> None:
        """Wire the front end into ``agent`` (before its session starts)."""

        if self.interactive:  # tools that need permission (exec) ask here; piped chat cannot ask
            agent.confirm = self.confirm
        obs = agent.settings.observer  # the session's observation runs in a child: exit returns at once
        self.detached = agent.detach_housekeeping = obs.enabled and obs.background

    def begin(self, agent: Agent) -> list[Event]:
        """The session start: encoding warnings and the features' notices (then, interactive, the
        prefill of the system prompt while the person types)."""
        from nanobot.workspace import encoding_warnings

        events: list[Event] = [Notice(text=w, level="warning") for w in encoding_warnings(agent.workspace)]
        events += agent.start_session()
        if self.interactive:
            agent.prefill()  # the system prompt, while the user types the first message
            self.typed_so_far(agent)
            if agent.template_tools() and hasattr(agent.model, "warm_decision"):
                from nanobot.tools.templatecalls import NO_OPENING

                agent.model.warm_decision(NO_OPENING)  # the first decision's token table and reply mask
        return events

    def typed_so_far(self, agent: Agent) -> None:
        """Once the model is ready: prefill what was typed while it loaded (keystrokes before then
        had nothing to prefill into)."""
        buffer = getattr(self, "_buffer", None)
        if buffer is not None and buffer.text.strip():
            agent.prefill(buffer.text, idle=False)

    def hold(self, events: list[Event]) -> None:
        """Show ``events`` now if the prompt is up (above it), else at the next ``flush``."""
        if not events:
            return
        app = self._app
        loop = getattr(app, "loop", None) if app is not None and app.is_running else None
        if loop is None:
            self._held += events
            return
        from prompt_toolkit.application import run_in_terminal

        loop.call_soon_threadsafe(lambda: run_in_terminal(lambda: self._show(events)))

    def flush(self) -> None:
        held, self._held = self._held, []
        self._show(held)

    def _show(self, events: list[Event]) -> None:
        for ev in events:
            self.render(iter([ev]))

    def confirm(self, question: str) -> bool:
        """A y/N question on the terminal (default no); control characters in it shown escaped."""
        try:
            answer = input(f"{printable(question, keep='')} [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        return answer.strip().lower() in ("y", "yes")

    # -- input -------------------------------------------------------------------------------
    def lines(self) -> Iterator[str]:
        if not self.interactive:  # one bad byte must not end the chat (see nanobot.base.nonutf8)
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

        history = (self.home or self.agent.settings.home) / "input_history"
        session = PromptSession(history=FileHistory(str(history)), key_bindings=kb)
        # as the user types, the draft is prefilled (after a pause; never blocks a keystroke)
        session.default_buffer.on_text_changed += lambda buf: self.ready and self.agent.prefill(buf.text, idle=False)
        self._app, self._buffer = session.app, session.default_buffer
        if self._loading is not None:  # the model loads once the prompt is on the screen
            def loaded_after_render(app) -> None:
                if app.renderer.waiting_for_cpr:  # not drawn yet: the terminal is telling where the cursor is
                    return
                session.app.after_render -= loaded_after_render
                self._loading.start()
            session.app.after_render += loaded_after_render
        while True:
            self.flush()
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
            from nanobot.cli.prompt import prompt_report, render_report

            render_report(prompt_report(self.agent), self.out)
        elif cmd == "/model":
            if arg.strip():
                from nanobot.runtime import load_model

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
        self.first_line()
        if self._loading is None:
            self._show(self.begin(self.agent))
        reason = "eof"
        try:
            for line in self.lines():
                if line.startswith("/"):
                    if not self.command(line):
                        reason = "quit"
                        break
                else:
                    agent = self.agent  # typed before the model was ready: the turn waits for it here
                    self.flush()
                    try:
                        with foreground.busy(agent.settings.home):  # background housekeeping pauses
                            self.render(agent.turn(line))
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
        self.flush()
        if self.interactive and self.agent.user_turns and self.agent.settings.observer.enabled and not self.detached:
            self.err.print("[dim]writing an observation of this session… (Ctrl-C skips the model)[/dim]")
        events = self.agent.end_session(reason, leaving=self._loading is not None)
        if cancel:
            cancel()
        for ev in events:
            self.render(iter([ev]))
        return 1 if failed else 0

    def first_line(self) -> None:
        """The model's name, first, where a person reads it: on the terminal, or on stderr when that is
        one (stdout keeps only replies); a chat whose output is all captured gets no extra line."""
        if self.interactive:
            name = self.model_name or self.agent.model.name
            self.err.print(f"nanobot · {printable(name)} · /help for commands · Ctrl-D to quit", style="dim", markup=False)
        elif sys.stderr.isatty():
            self.err.print(f"nanobot · {printable(self.agent.model.name)}", style="dim", markup=False)

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
             speaker: str | None = None, coding_session: str = "") -> None:
    """The chat loop for ``settings`` (``nanobot chat``, ``nanobot session``); exits 1 if a turn failed.

    On a terminal the prompt comes first: the model loads and the session starts on a background
    thread (``cli/loading.py``) while the person types; at the end the process leaves as soon as the
    session end is on disk (``leave``)."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    created = write_default(settings)  # the first chat leaves a config.toml to edit (never overwritten)
    made = [Notice(text=f"created {created}: every setting with its default, commented; edit it to change one")
            ] if created is not None and interactive else []  # shown under the first line
    if not interactive:
        agent = build_chat(settings, model, interactive, chat_id, speaker, coding_session)
        signals.install()
        leave(ChatUI(agent, interactive, verbose).run())  # no interpreter teardown: 1.5-1.8 s on the 1.5B
    from nanobot.models import resolve_model

    name = resolve_model(settings, model).name  # a wrong name: its one-line error before the prompt
    ui: ChatUI

    def build():
        with foreground.busy(settings.home):  # the last session's housekeeping waits meanwhile
            agent = build_chat(settings, model, interactive, chat_id, speaker, coding_session)
            ui.attach(agent)
            ui.hold(ui.begin(agent))
        return agent

    ui = ChatUI(Loading(build), interactive, verbose, model_name=name, home=settings.home)
    ui.hold(made)
    signals.install()
    code = ui.run()
    leave(code)


def build_chat(settings, model: str | None, interactive: bool, chat_id: str, speaker: str | None,
               coding_session: str = "") -> Agent:
    from nanobot.base import faults
    from nanobot.runtime import build_agent, load_model_importing

    faults.point("model-load")
    return build_agent(settings, load_model_importing(settings, model), interactive=interactive, chat_id=chat_id,
                       speaker=speaker, coding_session=coding_session)


def leave(code: int) -> None:
    """Exit now that the session end is durable (transcript record, observation job handed off):
    background work that only derives data (the memory index, the embedder warming) is abandoned
    (it is redone at the next start), the rest is waited for, and the interpreter's teardown (freeing
    the model, its KV cache and every module) is skipped."""
    from nanobot.base import background

    background.join_all(derived=False)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
