"""The observer as a feature: session start, context pressure, session end, and the CONTEXT and Time
sections.

Session start (cheap, nothing here loads torch or calls the model): refresh a stale CONTEXT.md from
observations, note past sessions with no observation, start external change detection in a thread
(bounded by ``observer.git_timeout``), and start a background reflection when one is due.
Context pressure (prompt >= ``chat.pressure_threshold`` x n_ctx, before trimming): observe once per
crossing; it re-arms when a prompt falls below ``observer.rearm_below`` x n_ctx. In the interactive
chat (``observer.background``) the crossing is seen right after the reply that made it, and the
observation runs while the user reads and types (``idle_work``, on the prefill thread; see
``observer/idle.py``); a message sent before it said anything useful cancels it (retried at the next
idle moment). Whatever the mode, trimming never drops a message no observation covered: such a
message is observed first, in the turn.
Session end (/quit, EOF, Ctrl-C, /new): observe the session, then up to ``observer.recover_max``
past sessions that have none. With ``agent.detach_housekeeping`` (the chat CLI, ``observer.background``) that work, and
a due reflection, goes to a detached ``nanobot housekeep`` child instead (``observer/handoff.py``
queues it, ``nanobot/housekeeping/housekeep.py`` is the child), so the terminal is back at once. A failure is
reported as a warning; the transcript is never touched.

``sections`` gives the CONTEXT section (CONTEXT.md as the observer keeps it), the "Last session"
section (when it ended, how long it lasted, the pattern: stable from that session's end on, so the
disk KV entry holds it) and lines under Time (the gap and what it means, changes outside); all are
computed once per session so the prompt, and with it the KV-cache prefix, stays the same for every turn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from nanobot.backends.base import Message
from nanobot.base import background
from nanobot.base.written import load_written
from nanobot.core.events import Notice
from nanobot.core.features import Feature
from nanobot.core.fitting import least_from, trim_oldest
from nanobot.core.prompt import RawSection
from nanobot.core.sections import TIME, context_section, time_section
from nanobot.observer import external, handoff, nowscope, reflector
from nanobot.observer.catchup import observe_pending
from nanobot.observer.contextmd import load_context, update_context
from nanobot.observer.idle import Cancellable, Cancelled, SessionView
from nanobot.observer.observer import (
    INSTRUCTION,
    draft_budget,
    find_pending,
    observe_live,
)
from nanobot.observer.state import record_written
from nanobot.observer.timeaware import recent_spans, session_line, time_report

LAST_SESSION = 85  # stable until the next session starts: after every other stable section, before Time
LAST_SESSION_BUDGET = 50  # tokens: an end time, a length and a pattern
START_WAIT_S = 1.0  # the most the first prompt waits for external change detection
FALLBACK_NOTE = " (fallback: the model's draft was unusable)"
MIN_DRAFT = 128  # a pressure draft this small still says something; below it, history gives way


class ObserverFeature(Feature):
    name = "observer"

    def __init__(self, settings):
        self.settings = settings
        self._external: threading.Thread | None = None
        self._external_changes: list = []  # (label, DirChanges) of this session's start
        self._reflect: threading.Thread | None = None
        self._time_text: dict[str, str] = {}
        self._reports: dict[str, object] = {}  # the session's TimeReport (the gap before it)
        self._pending: list[Path] = []
        self._refresh_on_trim = False
        self._armed = True
        self._last_seen = None  # the newest history message at the last pressure call
        self._idle_due = 0  # the % of n_ctx of a crossing whose observation waits for an idle moment
        self._idle_notices: list[Notice] = []  # what the idle observation did, for the next turn
        self._covered: list[Message] = []  # history messages the last observation saw (refs: ids stay)
        self.last_error: str = ""

    # -- session start -----------------------------------------------------------------------
    def on_session_start(self, agent) -> list[Notice]:
        notices: list[Notice] = []
        now, sid = agent.clock(), agent.transcript.id
        self._refresh_on_trim = False
        self._armed, self._last_seen = True, None
        self._idle_due, self._idle_notices, self._covered = 0, [], []
        self._guard(notices, "refreshing CONTEXT.md",
                    lambda: _note(notices, reflector.refresh_context(self.settings, now, agent.model.count_tokens)))
        self._pending = find_pending(self.settings, exclude=sid)
        self._start_external(agent)
        if agent.detach_housekeeping and handoff.model_arg(agent.model):
            due = self.settings.observer.reflect_on_start and reflector.reflection_due(self.settings, now)
            jobs = handoff.queued(self.settings.home)
            self._pending = [p for p in self._pending if p.stem not in {j.stem for j in jobs}]
            if self._pending or due or (jobs and not handoff.running(self.settings.home)):
                pid = self._guard(notices, "starting background housekeeping",
                                  lambda: handoff.spawn(self.settings, handoff.model_arg(agent.model),
                                                          exclude=sid, reflect=due))
                if pid:
                    n = len(self._pending) + len(jobs)
                    what = f"{n} earlier session(s) without an observation" if n else "reflection"
                    notices.append(Notice(text=f"{what}: housekeeping in the background (pid {pid}; `nanobot status`)"))
            self._pending = []
            return notices
        if self._pending:
            n = len(self._pending)
            notices.append(Notice(text=f"{n} earlier session(s) have no observation yet; they are observed when this session ends (or run `nanobot reflect`)"))
        if self.settings.observer.reflect_on_start and reflector.reflection_due(self.settings, now):
            self._reflect = background.start(self._reflect_quietly, "nanobot-reflect", (now,))
            notices.append(Notice(text="reflecting new observations into MEMORY.md in the background"))
        return notices

    def _start_external(self, agent) -> None:
        obs = self.settings.observer
        spans = recent_spans(self.settings.sessions_dir, exclude=agent.transcript.id)
        last_end = max((s.end for s in spans), default=None)
        dirs = [("workspace", self.settings.workspace)]
        dirs += [(_label(p), p.expanduser()) for p in obs.project_dirs]
        ignore = load_written(self.settings.home)
        now = agent.clock()
        self._external_changes = []

        def run() -> None:
            changes = external.detect_changes(dirs, now, last_end, timeout=obs.git_timeout, ignore=ignore)
            self._external_changes = changes
            lines = [line for label, ch in changes if (line := ch.line(label))]
            path = self.settings.workspace / "CONTEXT.md"
            if load_context(path).external != lines:
                update_context(path, lambda doc: setattr(doc, "external", lines), self.settings.prompt.context)
                record_written(self.settings.home, self.settings.workspace, path)

        self._external = background.start(self._quietly(run), "nanobot-external")

    def _reflect_quietly(self, now) -> None:
        self._quietly(lambda: reflector.reflect(self.settings, now=now))()

    def _quietly(self, fn: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except Exception as e:  # a background helper must never take the session down
                self.last_error = f"{type(e).__name__}: {e}"
        return run

    # -- prompt ------------------------------------------------------------------------------
    def sections(self, agent) -> list[RawSection]:
        return [context_section(agent.workspace, self.settings, self.context_text(agent)),
                RawSection(name="last_session", text=self._report(agent).before(), budget=LAST_SESSION_BUDGET,
                           header="## Last session", order=LAST_SESSION),
                RawSection(name="time", text=self.time_extra(agent), budget=0, stable=False, order=TIME)]

    def _report(self, agent):
        """This session's TimeReport (the gap before it, the last session, the pattern), once."""
        sid = agent.transcript.id if agent.transcript else ""
        if sid not in self._reports:
            self._reports = {sid: time_report(self.settings.sessions_dir, agent.started, exclude=sid)}
        return self._reports[sid]

    def time_extra(self, agent) -> str:
        sid = agent.transcript.id if agent.transcript else ""
        if sid not in self._time_text:
            if self._external is not None:
                self._external.join(min(self.settings.observer.git_timeout, START_WAIT_S))
            lines = [x for x in self._report(agent).lines().splitlines() if x]
            if self._external_changes:  # fitted into what the Time budget leaves: never trimmed away
                count = agent.model.count_tokens
                core = time_section(agent.started, self.settings)
                while True:
                    room = self.settings.prompt.time - count("\n".join([core.header, core.text, *lines, ""])) - 2
                    line = external.fit_line(self._external_changes, room, count)
                    if not line or count(line) <= room or len(lines) <= 1:
                        break
                    lines.pop()  # the last-interaction line gives way to it
                if line:
                    lines.append(line)
            self._time_text = {sid: "\n".join(lines)}
        return self._time_text[sid]

    def turn_block(self, agent, query: str) -> str:
        """Later turns: how long the session has run and the gap before it (volatile, so never in
        the system prompt)."""
        if not agent.user_turns:
            return ""
        self.time_extra(agent)  # computed once per session, with the system prompt
        report = self._reports.get(agent.transcript.id if agent.transcript else "")
        return session_line(agent.started, agent.clock(), report.gap if report else None)

    def context_text(self, agent) -> str:
        doc = load_context(agent.workspace / "CONTEXT.md")
        doc = nowscope.scoped(doc, nowscope.load(self.settings.sessions_dir), nowscope.scope_of(agent))
        doc.external = []  # shown in the volatile Time section instead (it changes every session)
        doc.fit(self.settings.prompt.context, agent.model.count_tokens)
        return doc.prompt_text()

    # -- context pressure --------------------------------------------------------------------
    def on_context_pressure(self, agent, used: int) -> list[Notice]:
        budget = agent.model.n_ctx - self.settings.chat.max_tokens
        fires = self._fires(agent)
        trimming = used > budget
        background = self._in_background(agent)
        if fires and background and not trimming:
            self._idle_due = round(100 * used / agent.model.n_ctx)  # the user's own message crossed it
            return []
        if not (fires and not background) and not (trimming and (self._idle_due or self._uncovered(agent, used))):
            if self._refresh_on_trim and trimming:  # trimming rebuilds the cache anyway
                agent.refresh_prompt()
                self._refresh_on_trim = False
            return []
        notices: list[Notice] = []  # fired, or trimming would drop what no observation saw: now
        pct = round(100 * used / agent.model.n_ctx)
        crossing = fires or bool(self._idle_due)
        view, budget = self._fitted(SessionView.of(agent), oldest=not crossing)  # else: what trimming drops
        out = self._guard(notices, "writing the observation",
                          lambda: observe_live(view, "pressure" if crossing else "trim", budget))
        self._idle_due = 0
        if out is not None:
            self._refresh_on_trim = True
            self._covered += view.history
            what = f"context at {pct}% of n_ctx" if crossing else "history trimming would drop unobserved turns"
            notices.append(Notice(text=f"{what}: observation written to "
                                       f"{_rel(out.path, agent.workspace)}{_fallback_note(out)}"))
        return notices

    def _fitted(self, view: SessionView, oldest: bool = False) -> tuple[SessionView, int]:
        """``view`` with only the exchanges its observation prompt can hold, so what the model saw
        is known exactly (``_covered``), and the draft's budget. The whole history when at least
        ``MIN_DRAFT`` tokens are left beside it (the KV cache already holds it: only the
        instruction is evaluated); else the newest exchanges, or (``oldest``) the oldest ones."""
        model, system = view.model, Message(role="system", content=view.system_prompt().text)
        cap, ask = self.settings.observer.max_tokens, Message(role="user", content=INSTRUCTION)
        hist = view.history

        def fit(d: int) -> tuple[list[Message], int, int]:  # d exchanges dropped: (history, budget, room)
            h = hist[: len(hist) - 2 * d] if oldest else hist[2 * d:]
            return h, draft_budget(cap, [(m.role, m.content) for m in h]), \
                model.n_ctx - model.prompt_tokens([system, *h, ask])

        def fits(d: int) -> bool:
            _, budget, room = fit(d)
            return room >= min(budget, MIN_DRAFT)

        _, budget, room = fit(0)
        if room >= min(budget, MIN_DRAFT) or len(hist) <= 2:
            return view, max(32, min(budget, room))
        most, short, guess = (len(hist) - 1) // 2, min(budget, MIN_DRAFT) - room, 1  # stops at two messages
        for i, m in enumerate(hist[::-1] if oldest else hist):  # each message counted once: a first guess
            short -= model.count_tokens(m.content)
            if short <= 0:
                guess = i // 2 + 1
                break
        view.history, budget, room = fit(least_from(guess, most, fits))
        return view, max(32, min(budget, room))

    def _in_background(self, agent) -> bool:
        return bool(agent.interactive and self.settings.observer.background)

    def _uncovered(self, agent, used: int) -> bool:
        """Whether trimming a prompt of ``used`` tokens would drop a message no observation saw
        (the messages ``Agent._fit`` drops: the oldest exchanges until the rest fits)."""
        budget = agent.model.n_ctx - self.settings.chat.max_tokens
        system = Message(role="system", content=agent.system_prompt().text)
        hist = list(agent.history)
        extra = used - agent.model.prompt_tokens([system, *hist])  # the new message's share
        kept, _ = trim_oldest(hist, lambda h: agent.model.prompt_tokens([system, *h]) + extra, budget,
                              cost=lambda m: agent.model.count_tokens(m.content))
        seen = {id(m) for m in self._covered}
        return any(id(m) not in seen for m in hist[: len(hist) - len(kept)])

    # -- the 80% observation while the user reads and types ----------------------------------
    def on_turn_end(self, agent, done) -> list[Notice]:
        """Interactive chat: did this reply cross the threshold? Then observe at the idle moment."""
        if self._in_background(agent):
            system = Message(role="system", content=agent.system_prompt().text)
            used = agent.model.prompt_tokens([system, *agent.history, Message(role="user", content="")])
            if used >= self.settings.chat.pressure_threshold * agent.model.n_ctx and self._fires(agent):
                self._idle_due = round(100 * used / agent.model.n_ctx)
        return []

    def on_turn_start(self, agent) -> list[Notice]:
        if agent.transcript is not None:  # whose Now this session writes (written once per session)
            nowscope.register(self.settings.sessions_dir, agent.transcript.id, nowscope.scope_of(agent))
        notices, self._idle_notices = self._idle_notices, []
        return notices

    def idle_work(self, agent):
        if not (self._idle_due and self._in_background(agent)):
            return None
        (view, budget), pct = self._fitted(SessionView.of(agent)), self._idle_due  # on the main thread

        def run(ctl) -> None:
            view.model = Cancellable(agent.model, ctl)
            try:
                out = observe_live(view, "pressure", budget)
            except Cancelled:
                return  # nothing written; still due: the next idle moment retries
            except Exception as e:  # never the session's problem; the turn will say so
                self._idle_due = 0
                self.last_error = f"{type(e).__name__}: {e}"
                self._idle_notices.append(Notice(level="warning", text=f"observer: writing the observation failed ({self.last_error}); the transcript is kept and the next start will retry"))
                return
            self._idle_due = 0
            self._refresh_on_trim = True
            self._covered += view.history
            self._idle_notices.append(Notice(text=f"context at {pct}% of n_ctx: observation written to "
                                                  f"{_rel(out.path, agent.workspace)} while you typed"
                                                  f"{_fallback_note(out)}"))
        return run

    def _fires(self, agent) -> bool:
        """Once per crossing: armed at session start; after firing, re-armed only when some turn's
        prompt (after trimming) fell below ``observer.rearm_below`` x n_ctx. Trimming keeps usage
        oscillating just around the threshold; without this margin that would fire every turn."""
        obs = self.settings.observer
        if not self._armed:
            floor = min(obs.rearm_below, self.settings.chat.pressure_threshold) * agent.model.n_ctx
            self._armed = self._lowest_since_last(agent) < floor
        self._last_seen = agent.history[-1] if agent.history else None
        fire, self._armed = self._armed, False
        return fire

    def _lowest_since_last(self, agent) -> float:
        """The smallest prompt of the turns since the last pressure call, as history stands now."""
        hist = agent.history
        start = next((i + 1 for i, m in enumerate(hist) if m is self._last_seen), 0)
        system = Message(role="system", content=agent.system_prompt().text)
        # a prompt only grows with history: the smallest is the first turn's (one count, not one a turn)
        first = next((j for j in range(start, len(hist)) if hist[j].role == "user"), None)
        return float("inf") if first is None else agent.model.prompt_tokens([system, *hist[: first + 1]])

    # -- session end -------------------------------------------------------------------------
    def on_session_end(self, agent, reason: str) -> list[Notice]:
        notices: list[Notice] = []
        self._idle_due = 0  # the session's observation below covers it
        if agent.detach_housekeeping and (model := handoff.model_arg(agent.model)):
            return self._hand_off(agent, reason, model)
        for t in (self._external, self._reflect):
            if t is not None:
                t.join(30)
        if agent.user_turns:
            out = self._guard(notices, "writing the observation", lambda: observe_live(agent, reason))
            if out is not None:
                notices.append(Notice(text=f"observation written to {_rel(out.path, agent.workspace)}"
                                           f"{_fallback_note(out)}"))
        done = observe_pending(self.settings, lambda: agent.model, agent.clock(),
                               self._pending[: self.settings.observer.recover_max], keep_going=True)
        for o in done.observed:
            note = "" if o.generator == "model" else FALLBACK_NOTE
            notices.append(Notice(text=f"observed earlier session {o.session}{note}"))
        for session, why in done.failed:
            self._warn(notices, f"observing {session}.jsonl", why)
        self._pending = []
        return notices

    def _hand_off(self, agent, reason: str, model: str) -> list[Notice]:
        """Detached: the job file (the session as the model saw it), then the child; returns at once."""
        notices: list[Notice] = []
        if not agent.user_turns and not self._pending:
            return notices
        if agent.user_turns and self._guard(notices, "queueing the observation",
                                            lambda: handoff.write_job(agent, reason)) is None:
            return notices
        pid = self._guard(notices, "starting background housekeeping",
                          lambda: handoff.spawn(self.settings, model))
        self._pending = []
        if pid:
            notices.append(Notice(text=f"observing this session in the background (pid {pid}; "
                                       f"`nanobot status` shows it)"))
        return notices

    def _guard(self, notices: list[Notice], what: str, fn: Callable):
        """Run ``fn``; a failure becomes a warning (the transcript is intact, nothing is lost)."""
        try:
            return fn()
        except Exception as e:  # the observer must never take the session (or its exit) down
            self._warn(notices, what, f"{type(e).__name__}: {e}")
            return None

    def _warn(self, notices: list[Notice], what: str, why: str) -> None:
        self.last_error = why
        notices.append(Notice(level="warning", text=f"observer: {what} failed ({why}); the transcript is kept and the next start will retry"))


def _label(path: Path) -> str:
    return str(path).replace(str(Path.home()), "~", 1)


def _rel(path: Path, workspace: Path) -> str:
    try:
        return str(path.relative_to(workspace))
    except ValueError:
        return str(path)


def _fallback_note(out) -> str:
    """Said whenever the observation is the extractive fallback, not the model's draft."""
    return "" if out.part.generator == "model" else FALLBACK_NOTE


def _note(notices: list[Notice], text: str) -> None:
    if text:
        notices.append(Notice(text=text))


def make_feature(agent) -> ObserverFeature:
    return ObserverFeature(agent.settings)


def attach_observer(agent) -> ObserverFeature:
    return agent.add_feature(make_feature(agent))
