"""The observer: turns a session into an observation file and folds it into CONTEXT.md.

Two sources: a live session (``observe_live``: the agent's own system prompt and history plus one
instruction, so the KV cache already holds all but the instruction), or a transcript on disk
(``observe_transcript``: for sessions whose observation never got written). The model fills a
``GroundedDraft`` (every item with a quote) under a JSON-schema grammar with a bounded
``max_tokens``; only items whose quotes ground them in what the user typed this session are kept
(``observer/evidence.py``, the shared ``nanobot.core.grounding`` verifier), on an extractive floor: empty
Now fields from the fallback draft, the user's stated facts (``observer/stated.py``) always. If the
model fails, grounds nothing, or the user presses Ctrl-C while it runs, the extractive fallback
draft is used. Nothing here touches the
transcript, so a failure of the model or of a write never loses the session: ``find_pending`` lists
transcripts with user turns and no observation, and the next session end (or ``nanobot reflect``)
writes them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from nanobot.backends.base import ChatModel, Message
from nanobot.base import faults
from nanobot.base.atomic import atomic_write
from nanobot.base.interruptible import interruptible
from nanobot.base.regular import read_regular
from nanobot.base.shorten import shorten
from nanobot.config import Settings
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.observer import nowscope
from nanobot.observer.contextmd import ContextDoc, load_context, update_context
from nanobot.observer.evidence import ground
from nanobot.observer.gist import gist
from nanobot.observer.lastopen import quote_of, still_open
from nanobot.observer.nowtask import set_now
from nanobot.observer.observation import (
    DRAFT_SCALARS,
    LISTS,
    MAX_FACTS,
    MAX_ITEMS,
    MAX_OUTCOMES,
    GroundedDraft,
    Observation,
    ObservationDraft,
    ObservationPart,
    draft_grammar,
    item_chars,
    parse_draft,
    quote_spans,
    whole_quotes,
    whole_texts,
)
from nanobot.observer.state import record_written
from nanobot.observer.stated import stated_facts
from nanobot.observer.timeaware import human_gap, read_span, recent_spans, session_pattern
from nanobot.observer.toolevents import ToolEvent, latest, outcomes, read_events, still_failing
from nanobot.observer.usernotes import note_user
from nanobot.workspace import read_text

INSTRUCTION = (
    "Take notes on our conversation so far as JSON: the topic, the user's current task, what blocks "
    "it, decisions made, open questions, and facts about the user. Give every note a quote: the "
    "user's exact words that it rests on."
)
TRANSCRIPT_SYSTEM = "You write short, factual observations of chat sessions."


class Outcome(BaseModel):
    path: Path
    part: ObservationPart
    context_dropped: list[str] = []


def observation_path(workspace: Path, session_id: str) -> Path:
    return workspace / "observations" / f"{session_id}.md"


def load_observation(path: Path) -> Observation | None:
    text = read_text(path)
    return Observation.parse(text) if text.strip() else None


# -- drafting --------------------------------------------------------------------------------
COPY_SPANS = True  # quotes copied from the user's sentences by the grammar (bench/grounding_bench.py)


def generate_draft(model: ChatModel, messages: list[Message], max_tokens: int,
                   spans: tuple[str, ...] = (), seconds: float | None = None) -> GroundedDraft | None:
    """One bounded, grammar-constrained call; None when the output is not a valid draft. With
    ``spans`` each quote is one of them (a copy-span grammar). Bounded by ``max_tokens`` and, with
    ``seconds``, by time (``observer.draft_seconds``): a draft cut off either way is closed as far
    as it got (``parse_draft``). A watchdog may interrupt it (``nanobot/base/interruptible.py``):
    the caller falls back."""
    deadline = time.monotonic() + seconds if seconds else None
    pieces: list[str] = []
    with interruptible():
        stream = model.stream(messages, max_tokens=max_tokens, temperature=0.0, grammar=draft_grammar(spans, max_tokens))
        try:
            for piece in stream:
                pieces.append(piece)
                if deadline is not None and time.monotonic() > deadline:
                    break
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()
    return read_draft("".join(pieces), messages, max_tokens)


def read_draft(text: str, messages: list[Message], max_tokens: int) -> GroundedDraft | None:
    """The draft the model wrote as ``text`` for ``messages`` under ``max_tokens``: closed if cut
    off, each text near the grammar's bound ending at a whole word of what the model read."""
    known = frozenset(w.lower() for m in messages for w in _WORD.findall(m.content))
    return parse_draft(text, item_chars(max_tokens), known)


_WORD = re.compile(r"[\w'’.-]*\w")  # a word as the model read it (utils.py, reverse_words, don't)


def instructions_of(messages: list[Message]) -> str:
    """What the model was told, not said by the user: the system prompt and the instruction."""
    return "\n".join([*(m.content for m in messages if m.role == "system"), INSTRUCTION])


def fallback_draft(exchanges: list[tuple[str, str]], events: list[ToolEvent] = ()) -> ObservationDraft:
    """An extractive draft when the model cannot be used: no invented facts, just what was asked (the
    session's gist, ``observer/gist.py``, is the summary and focus: the sentence the session kept
    coming back to, not its first message; what the last message leaves open, ``observer/lastopen.py``,
    is the task) and what the user stated
    about themselves (``observer/stated.py``); each item's evidence is itself, so the verifier keeps
    it (a summary that framed it, "2 user message(s), starting with: ...", failed its content share).
    The tool ``events`` give the outcomes (``observer/toolevents.py``) and, when the last command
    failed, the open item: facts of the session, written without the model."""
    asked = [text for role, text in exchanges if role == "user" and text.strip()]
    done, failing = outcomes(list(events)), still_failing(list(events))
    if not asked:
        return ObservationDraft(outcomes=done[-MAX_OUTCOMES:], open_items=[failing] if failing else [])
    focus, last = gist(asked), still_open(asked, list(events))
    task = last if len(asked) > 1 and last != focus else ""
    facts = stated_facts(asked, MAX_FACTS)
    evidence = {focus: focus.rstrip("…"), **({task: quote_of(task)} if task else {}), **dict(facts)}
    return ObservationDraft(summary=focus, focus=focus, task=task, facts=[f for f, _ in facts],
                            evidence=evidence, outcomes=done[-MAX_OUTCOMES:],
                            open_items=[failing] if failing else [])


def with_floor(model_draft: ObservationDraft, floor: ObservationDraft, last: str = "") -> ObservationDraft:
    """The model's grounded draft, each empty Now field taken from the extractive ``floor``, the
    summary the model's own focus (or task) when it has one, the user's stated facts first among the
    facts, and what the user's ``last`` message leaves open (in their words) an open item where the model's Now says
    something else: the draft never holds less than the floor."""
    pick = {k: getattr(model_draft, k) or getattr(floor, k) for k in ("focus", "task")}
    pick["summary"] = model_draft.summary or model_draft.focus or model_draft.task or floor.summary
    facts = [*floor.facts, *(f for f in model_draft.facts if f not in floor.facts)][:MAX_FACTS]
    opens = [*model_draft.open_items, *(o for o in floor.open_items if o not in model_draft.open_items)]
    kept = {}
    if last and last not in (pick["focus"], pick["task"], *opens):
        opens.append(last)  # the user's last request stays open beside the model's reading of it
        kept = {last: quote_of(last)}
    used = {*pick.values(), model_draft.blocked, *model_draft.decisions, *opens, *facts}
    evidence = {k: v for k, v in (floor.evidence | kept | model_draft.evidence).items() if k in used}
    return model_draft.model_copy(update=pick | {"facts": facts, "evidence": evidence, "outcomes": floor.outcomes,
                                                 "open_items": opens[:MAX_ITEMS]})


REPLY_CHARS = 160  # a reply's gist will do: the user's words and the tools' outcomes are the facts


def transcript_messages(model: ChatModel, exchanges: list[tuple[str, str]], max_tokens: int,
                        events: list[ToolEvent] = ()) -> list[Message]:
    """A compact rendering of the session + the instruction: the most recent exchanges that fit
    (the user's words whole, replies shortened to ``REPLY_CHARS``) and what the tools did
    (``observer/toolevents.py``); not the system prompt, whose tokens cost the draft most."""
    done = outcomes(list(events))
    tools = ("\n\nWhat the tools did:\n" + "\n".join(f"- {o}" for o in done)) if done else ""
    budget = model.n_ctx - max_tokens - 64 - model.count_tokens(INSTRUCTION + tools)
    lines: list[str] = []
    used = 0
    for role, text in reversed(exchanges):
        user = role == "user"
        line = f"User: {' '.join(text.split())}" if user else f"Assistant: {_clip(text, REPLY_CHARS)}"
        cost = model.count_tokens(line) + 1
        if used + cost > budget:
            break
        lines.insert(0, line)
        used += cost
    convo = "\n".join(lines)
    return [Message(role="system", content=TRANSCRIPT_SYSTEM),
            Message(role="user", content=f"Conversation:\n{convo}{tools}\n\n{INSTRUCTION}")]


def draft_or_fallback(model: ChatModel | None, messages: Callable[[], list[Message]],
                      exchanges: list[tuple[str, str]], max_tokens: int,
                      said: str | None = None, events: list[ToolEvent] = (),
                      seconds: float | None = None) -> tuple[ObservationDraft, str]:
    """(draft, generator). The model's draft keeps only the items its quotes ground in ``said`` (what
    the user said this session; default: the user's turns in ``exchanges``), on the extractive floor
    (``with_floor``). A model error, Ctrl-C during generation, or nothing grounded: the fallback."""
    floor = fallback_draft(exchanges, events)
    said = said if said is not None else "\n".join(t for r, t in exchanges if r == "user")
    if model is not None:
        try:
            msgs = messages()
            spans = quote_spans(said.splitlines()) if COPY_SPANS else ()
            raw = generate_draft(model, msgs, max_tokens, spans, seconds)
            raw = whole_texts(whole_quotes(raw, said.splitlines()), said.splitlines()) if raw is not None else None
        except (Exception, KeyboardInterrupt):  # whatever the model does, the session is observed
            raw = None
        grounded = ground(raw, said, instructions_of(msgs)).draft if raw is not None else None
        if grounded is not None and any(getattr(grounded, k) for k in (*DRAFT_SCALARS, *LISTS)):
            asked = [t for r, t in exchanges if r == "user" and t.strip()]
            return with_floor(grounded, floor, still_open(asked, list(events))), "model"
    return floor, "fallback"


# -- writing ---------------------------------------------------------------------------------
def write_part(settings: Settings, session_id: str, started: datetime | None,
               part: ObservationPart, count: Callable[[str], int] | None = None) -> Outcome:
    """Append ``part`` to the session's observation file and fold it into CONTEXT.md."""
    path = observation_path(settings.workspace, session_id)
    if not has_substance(part):  # "hi": kept as a part (the session was observed), with no gist to retrieve
        part = part.model_copy(update={"summary": "", "focus": "", "task": "", "evidence": {}})
    obs = load_observation(path) or Observation(session=session_id, started=started)
    obs.parts.append(part)
    faults.point("observation-write")
    atomic_write(path, obs.render())
    ctx_path = settings.workspace / "CONTEXT.md"
    dropped = update_context(
        ctx_path, lambda doc: fold_into_context(doc, part, started, settings.sessions_dir, session_id,
                                      settings.workspace),
        settings.prompt.context, *([count] if count else []))
    record_written(settings.home, settings.workspace, ctx_path)
    nowscope.stamp(settings.sessions_dir, session_id, load_context(ctx_path).now)  # whose Now it is
    return Outcome(path=path, part=part, context_dropped=dropped)


SUBSTANCE_WORDS = 3  # a session whose gist is shorter ("hi", "thanks!") and did nothing says nothing new


def has_substance(part: ObservationPart) -> bool:
    """Whether ``part`` says anything a person coming back needs: a tool outcome, a decision, an open
    step, a blocker, a stated fact, or a gist of a few words. A greeting-only session has none, and
    the Now and Recent of the sessions before it stand."""
    if part.outcomes or part.decisions or part.open_items or part.blocked or part.facts:
        return True
    return any(len(v.split()) >= SUBSTANCE_WORDS for v in (part.summary, part.focus, part.task))


def fold_into_context(doc: ContextDoc, part: ObservationPart, started: datetime | None,
                      sessions_dir: Path, session_id: str, workspace: Path) -> None:
    if has_substance(part):
        set_now(doc, workspace, focus=part.focus, task=part.task, blocked=part.blocked)
        doc.set_now(next=part.open_items[0] if part.open_items else "")  # this session's open step, or none
        stamp = f"{part.at:%m-%d}"
        done = latest(part.outcomes, RECENT_CHARS)  # Recent: what happened (the latest outcomes), then decisions
        recent = [f"{stamp} {done}"] if done else []
        recent += [f"{stamp} {d}" for d in part.decisions  # a decision that only repeats an outcome's start is no decision
                   if not any(o.lower().startswith(d.lower().rstrip(".")) for o in part.outcomes)]
        doc.add_recent(recent or ([f"{stamp} {part.summary}"] if part.summary else []))
    if started is not None:
        length = human_gap(part.at - started)
        doc.time.last_session = f"{started:%Y-%m-%d %H:%M}-{part.at:%H:%M} ({length}, {part.turns} turns)"
        doc.time.session_started = f"{started:%Y-%m-%d %H:%M}"
    spans = recent_spans(sessions_dir)
    pattern = session_pattern(spans)
    if pattern:
        doc.time.pattern = pattern


RECENT_CHARS = 180


# -- entry points ----------------------------------------------------------------------------
def draft_budget(cap: int, exchanges: list[tuple[str, str]]) -> int:
    """The draft's token budget, scaled with what happened: the JSON skeleton plus a share per user
    turn, at most ``cap`` (``observer.max_tokens``); a 2-turn session does not get a 256-token draft.

    >>> draft_budget(256, [("user", "hi"), ("assistant", "hello")]), draft_budget(512, [("user", "x")] * 9)
    (224, 480)
    """
    turns = sum(1 for role, _ in exchanges if role == "user")
    return max(32, min(cap, 192 + 32 * turns))  # a full grounded draft (6 items + quotes) is ~200 tokens


def observe_live(agent, trigger: str, max_tokens: int | None = None) -> Outcome:
    """Observe the agent's current session (history as the model saw it)."""
    settings = agent.settings
    said = user_said(agent.transcript.path)
    events = read_events(agent.transcript.path)
    exchanges = [(m.role, _typed(m.content, said) if m.role == "user" else m.content) for m in agent.history]
    max_tokens = max_tokens or draft_budget(settings.observer.max_tokens, exchanges)
    draft, gen = draft_or_fallback(
        agent.model, lambda: transcript_messages(agent.model, exchanges, max_tokens, events),
        exchanges, max_tokens, "\n".join(said), events, settings.observer.draft_seconds)
    part = ObservationPart.of(draft, trigger, agent.user_turns, at=agent.clock(), generator=gen)
    out = write_part(settings, agent.transcript.id, agent.started, part, agent.model.count_tokens)
    _note_user(settings, said)
    return out


def observe_transcript(settings: Settings, model: ChatModel | None, path: Path,
                       now: datetime | None = None, max_tokens: int | None = None) -> Outcome:
    """Observe a past session from its transcript (trigger ``recovered``)."""
    records, _ = read_transcript(path)
    exchanges = [(r.role, r.content) for r in records if r.role in ("user", "assistant")]
    events = read_events(path)
    max_tokens = max_tokens or draft_budget(settings.observer.max_tokens, exchanges)
    draft, gen = draft_or_fallback(model, lambda: transcript_messages(model, exchanges, max_tokens, events),
                                   exchanges, max_tokens, events=events, seconds=settings.observer.draft_seconds)
    span = read_span(path)
    turns = sum(1 for role, _ in exchanges if role == "user")
    at = span.end if span else (now or datetime.now().astimezone())
    part = ObservationPart.of(draft, "recovered", turns, at=at, generator=gen)
    out = write_part(settings, path.stem, span.start if span else None, part,
                     model.count_tokens if model is not None else None)
    _note_user(settings, [text for role, text in exchanges if role == "user"])
    return out


def _note_user(settings: Settings, said: list[str]) -> None:
    """The user's stated name, preferences and instructions into USER.md (``observer/usernotes.py``);
    a failure there never costs the observation, which is already written."""
    try:
        note_user(settings, said)
    except Exception:  # noqa: BLE001 - USER.md is the user's file: on any trouble, leave it alone
        pass


def user_said(path: Path) -> list[str]:
    """What the user typed in the session of transcript ``path`` (the evidence quotes must come from)."""
    records, _ = read_transcript(path) if path.exists() else ([], [])
    return [r.content for r in records if r.role == "user"]


def _typed(sent: str, said: list[str]) -> str:
    """A user message as typed: the per-turn memory block the model saw in front of it removed."""
    return next((t for t in said if sent == t or sent.endswith("\n\n" + t)), sent)


def find_pending(settings: Settings, exclude: str | None = None, limit: int = 50) -> list[Path]:
    """Transcripts (among the last ``limit``) with user turns but no observation file.

    Imported sessions (``nanobot import``) are not pending unless they were imported with
    ``--observe``: they are searched as past conversations as they are, and an import of 500 old
    sessions must not queue 500 model observations."""
    obs_dir = settings.workspace / "observations"
    pending = []
    for path in list_transcripts(settings.sessions_dir)[-limit:]:
        if path.stem == exclude or (obs_dir / f"{path.stem}.md").exists():
            continue
        try:
            data = read_regular(path)
        except OSError:
            continue
        if b'"role":"user"' in data and not _imported_unobserved(data):
            pending.append(path)
    return pending


def _imported_unobserved(data: bytes) -> bool:
    """Does this transcript's session record say it was imported without ``--observe``?"""
    try:
        head = json.loads(data.split(b"\n", 1)[0] or b"{}")
    except ValueError:
        return False
    meta = head.get("meta") if isinstance(head, dict) and head.get("role") == "session" else None
    return isinstance(meta, dict) and bool(meta.get("imported")) and not meta.get("observe")


def _clip(text: str, n: int) -> str:
    return shorten(text, n)
