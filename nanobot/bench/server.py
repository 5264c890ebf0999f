"""``nanobot bench --model NAME`` for a model server: TTFT of a first and a second turn, generation
tok/s over HTTP, and (``against``: the same GGUF in process) the HTTP overhead per turn.

Both backends get the same messages: the lean system prompt of the bench workspace (tools index
included, memory off) and the bench questions. A "first turn" starts with a fresh nonce line so
neither the server's prefix cache nor the in-process KV cache can reuse it (a cold prompt); "turn 2"
appends the reply and the next question, so only the new tokens need evaluating. The runs alternate
between the backends, so both see the same machine load.

HTTP overhead per turn = (median TTFT over HTTP - median TTFT in process) + (prompt counting over HTTP
- in process); as a share of the in-process TTFT. The library never prints.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path

from pydantic import BaseModel

from nanobot.backends.base import ChatModel, Message
from nanobot.bench.figures import Stat, stat
from nanobot.bench.runner import QUESTIONS, Progress, bench_workspace
from nanobot.config import Settings


class Side(BaseModel):
    """One backend's figures."""

    ttft_turn1: Stat
    ttft_turn2: Stat
    gen_tps: Stat
    count_s: Stat  # counting the turn's prompt tokens (the agent does it every turn to fit n_ctx)
    turn2_prompt_tokens: int
    turn2_reused_tokens: int | None  # None: not reported


class ServerBench(BaseModel):
    model: str
    url: str
    flavor: str
    structured: str
    token_counting: str
    repeat: int
    gen_tokens: int
    turn1_prompt_tokens: int
    server: Side
    in_process: Side | None = None
    against: str | None = None
    overhead_turn1_s: float | None = None
    overhead_turn1_pct: float | None = None
    overhead_turn2_s: float | None = None
    overhead_turn2_pct: float | None = None


def _side(model: ChatModel, system: str, gen_tokens: int, runs: list) -> None:
    """One alternation: a cold first turn and its second turn; appends to ``runs``."""
    first = [Message(role="system", content=f"[bench {uuid.uuid4().hex[:8]}]\n{system}"),
             Message(role="user", content=QUESTIONS[0])]
    t0 = time.perf_counter()
    model.prompt_tokens(first)
    count_s = time.perf_counter() - t0
    g1, reply = _timed(model, first, gen_tokens)
    second = [*first, Message(role="assistant", content=reply.strip()), Message(role="user", content=QUESTIONS[1])]
    g2, _ = _timed(model, second, gen_tokens)
    runs.append((g1, g2, count_s))


def _timed(model: ChatModel, messages: list[Message], gen_tokens: int):
    """(generation, reply) with TTFT and total taken here, around the whole call (template,
    tokenizing and, for a server, the HTTP round trip included), the same way for both backends."""
    start = time.perf_counter()
    first_at, parts = None, []
    for piece in model.stream(messages, max_tokens=gen_tokens, temperature=0.0):
        first_at = first_at or time.perf_counter()
        parts.append(piece)
    end = time.perf_counter()
    gen = model.last.model_copy(update={"ttft_s": (first_at or end) - start, "total_s": end - start})
    return gen, "".join(parts)


def _figures(runs: list) -> Side:
    def tps(g) -> float:
        gen_s = g.total_s - g.ttft_s
        return (g.completion_tokens - 1) / gen_s if g.completion_tokens > 1 and gen_s > 0 else 0.0

    last2 = runs[-1][1]
    return Side(ttft_turn1=stat([r[0].ttft_s for r in runs]), ttft_turn2=stat([r[1].ttft_s for r in runs]),
                gen_tps=stat([tps(r[0]) for r in runs] + [tps(r[1]) for r in runs]),
                count_s=stat([r[2] for r in runs]), turn2_prompt_tokens=last2.prompt_tokens,
                turn2_reused_tokens=last2.reused_tokens if last2.reuse_known else None)


def run_server_bench(settings: Settings, model: str, *, against: str | None = None, repeat: int = 3,
                     gen_tokens: int = 16, progress: Progress | None = None) -> ServerBench:
    """Measure the server model ``model`` (and the in-process model ``against``, name or .gguf)."""
    from nanobot.runtime import build_agent, load_model

    progress = progress or (lambda step, done, total: None)
    server = load_model(settings, model)
    caps = server.detect()
    local = load_model(settings, against) if against else None
    with tempfile.TemporaryDirectory(prefix="nanobot-bench-") as tmp:
        ws = bench_workspace(Path(tmp), small=True)
        ws.memory.enabled = ws.observer.enabled = ws.kv_cache.enabled = False
        system = build_agent(ws, server).system_prompt().text
    progress("warm-up", 0, repeat + 1)
    sides: dict[str, list] = {"server": [], "local": []}
    for m in (server, local):  # not counted: page in, build graphs
        if m is not None:
            _side(m, system, gen_tokens, [])
    for i in range(repeat):
        progress("turns", i + 1, repeat + 1)
        order = [("server", server), ("local", local)][:: 1 if i % 2 == 0 else -1]
        for name, m in order:
            if m is not None:
                _side(m, system, gen_tokens, sides[name])
    first = [Message(role="system", content=system), Message(role="user", content=QUESTIONS[0])]
    result = ServerBench(model=server.name, url=server.base, flavor=caps.flavor, structured=caps.structured,
                         token_counting=caps.token_counting, repeat=repeat, gen_tokens=gen_tokens,
                         turn1_prompt_tokens=(local or server).prompt_tokens(first),
                         server=_figures(sides["server"]), against=against)
    if local is not None:
        inp = result.in_process = _figures(sides["local"])
        for turn in ("turn1", "turn2"):
            base = getattr(inp, f"ttft_{turn}").median
            extra = (getattr(result.server, f"ttft_{turn}").median - base
                     + result.server.count_s.median - inp.count_s.median)
            setattr(result, f"overhead_{turn}_s", round(extra, 4))
            setattr(result, f"overhead_{turn}_pct", round(100 * extra / base, 1) if base else None)
    progress("done", repeat + 1, repeat + 1)
    return result
