"""Where the wait after Enter goes (issue 23), in process: the chat's start-up steps timed one by one.

    python bench/waits_parts.py [--model qwen2.5-coder-1.5b|smollm2|PATH.gguf] [--home DIR]
                                [--threads N] [--sessions 3] [--context FILE] [--json OUT]

Per session, as ``nanobot chat`` does them on its loading thread (``cli/loading.py``) and then on the
prefill thread: model load, agent build, session start (of which the disk-KV step: what it restored or
evaluated, ``KVCacheFeature.last``), the prefill of the system prompt (tokens, seconds), the decision's
token table; then the question's prefill as if typed and finished (draft = the whole question), and
Enter to the first visible token with nothing left to prefill. Token counts of the prompt's parts
(the first system message with the tool schemas, the second one's stable part and its Time part)
come with it. Sessions share one ``NANOBOT_HOME`` and model file, so the second and later sessions
show what the disk cache restores (the model's KV cache is cleared between them, as a new process's
is); sessions are not ended, so no observation runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import emit  # noqa: E402
from waits_bench import QUESTION, make_home  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, round(time.perf_counter() - t, 3)


def parts(agent) -> dict:
    """Token counts: first system message + schemas (as rendered), the whole system part."""
    from nanobot.backends.base import Message

    msgs = agent.system_messages()
    count = agent.model.count_tokens
    out = {"system_messages": len(msgs), "tokens": [count(m.content) for m in msgs]}
    base, render = agent.first_call([*msgs, Message(role="user", content="x")])
    out["rendered_tokens"] = len(agent.model.tokenize_prompt(agent.model.render(base, **render)))
    return out


def session(settings, model_name: str, model=None) -> tuple[dict, object]:
    from nanobot.core.events import TextDelta
    from nanobot.kvcache.feature import KVCacheFeature
    from nanobot.runtime import build_agent, load_model

    row: dict = {}
    if model is None:
        model, row["load_s"] = timed(lambda: load_model(settings, model_name))
    else:  # a new process's model: nothing in its KV cache
        model.llm.reset()
        model.llm._ctx.kv_cache_clear()
    agent, row["build_s"] = timed(lambda: build_agent(settings, model, interactive=True))
    _, row["session_start_s"] = timed(agent.start_session)
    kv = agent.feature(KVCacheFeature)
    if kv is not None and kv.last is not None:
        row["kv"] = kv.last.model_dump(include={"action", "prefix_tokens", "seconds", "file_mb"})
    row |= parts(agent)
    t = time.perf_counter()
    agent.prefill()
    agent._prefill.wait()
    row["prefill_system_s"] = round(time.perf_counter() - t, 3)
    row["prefill_system_tokens"] = agent._prefill.evaluated
    if hasattr(agent.model, "warm_decision"):
        _, row["warm_decision_s"] = timed(agent.model.warm_decision)
    t = time.perf_counter()
    agent.prefill(QUESTION, idle=False)
    agent._prefill.wait()
    row["prefill_question_s"] = round(time.perf_counter() - t, 3)
    row["prefill_question_tokens"] = agent._prefill.evaluated
    t = time.perf_counter()
    for ev in agent.turn(QUESTION):
        if isinstance(ev, TextDelta) and ev.text.strip() and "enter_to_first_token_s" not in row:
            row["enter_to_first_token_s"] = round(time.perf_counter() - t, 3)
    row["turn_s"] = round(time.perf_counter() - t, 3)
    gen = agent.model.last
    row["last_call"] = {"prompt": gen.prompt_tokens, "reused": gen.reused_tokens, "evaluated": gen.evaluated_tokens}
    return row, model  # no session end: its observation is not what this measures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--home", type=Path)
    ap.add_argument("--threads", type=int, help="n_threads for llama.cpp (default: the chat's own)")
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--context", type=Path, help="start with this CONTEXT.md (e.g. bench/data/waits-context.md)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    home, name = make_home(args.model, args.home or Path(tempfile.mkdtemp(prefix="waits-parts-")), args.threads)
    if args.context:  # a CONTEXT.md with content, as a person's has after some sessions
        (home / "workspace").mkdir(parents=True, exist_ok=True)
        (home / "workspace" / "CONTEXT.md").write_text(args.context.read_text())
    os.environ["NANOBOT_HOME"] = str(home)
    import nanobot
    from nanobot.config import load_settings

    settings = load_settings(home)
    load0 = os.getloadavg()[0]
    rows, model = [], None
    for i in range(args.sessions):
        row, model = session(settings, name, model if i else None)
        rows.append(row)
        print(row, flush=True)
    emit({"bench": "waits-parts", "model": args.model, "home": str(home), "threads": args.threads,
          "context": str(args.context or ""), "root": str(Path(nanobot.__file__).parent.parent),
          "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2), "sessions": rows},
         args.json, indent=1)


if __name__ == "__main__":
    main()
