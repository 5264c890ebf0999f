"""Tool-calling figures on the bundled model: index vs schema tokens, decision and argument latency.

    .venv/bin/python bench/tools_bench.py [--json out.json] [--base-url http://127.0.0.1:8000/v1]

``--base-url``: the same requests against an OpenAI-compatible model server (constraints over the wire).

Runs the fixed request set of tests/test_tools_model.py: for each request the free decision step, and
the argument step for the request's tool (forced), at temperature 0. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from figures import emit  # noqa: E402
from test_tools_model import REQUESTS  # noqa: E402

from nanobot.config import load_settings  # noqa: E402
from nanobot.loop.agent import Agent  # noqa: E402
from nanobot.runtime import load_model  # noqa: E402
from nanobot.tools.feature import attach_tools  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--base-url", help="an OpenAI-compatible model server to run the requests against")
    opts = ap.parse_args()
    out_path = opts.json
    home = Path(tempfile.mkdtemp(prefix="nanobot-toolbench-"))
    server = {"models": {"server": {"base_url": opts.base_url}}} if opts.base_url else {}
    settings = load_settings(home, **server, chat={"temperature": 0, "max_tokens": 48},
                             memory={"enabled": False}, observer={"enabled": False},
                             kv_cache={"enabled": False}, tools={"web_timeout": 1.0})
    init_workspace(settings.workspace)
    agent = Agent(settings, load_model(settings, "server" if opts.base_url else None))
    runner = attach_tools(agent)
    agent.start_session()
    valid = total = chose_tool = 0
    for request, tool in REQUESTS:
        msgs = agent.messages_for(request)
        chose_tool += runner.decide(agent, msgs, runner.names()) is not None
        if tool in runner.tools:
            total += 1
            valid += runner.arguments(agent, msgs, runner.tools[tool])[1] is not None
    figures = {"model": agent.model.name, "requests": len(REQUESTS), "free_decisions_chose_tool": chose_tool,
               "args_valid": f"{valid}/{total}", **runner.cost_report(agent.model.count_tokens)}
    for kind in ("decision", "args"):
        steps = [s for s in runner.stats if s.kind == kind]
        figures[kind] = {
            "median_ms": round(statistics.median(s.seconds for s in steps) * 1000),
            "mean_ms": round(statistics.mean(s.seconds for s in steps) * 1000),
            "mean_tokens": round(statistics.mean(s.tokens for s in steps), 1),
            "mean_evaluated_tokens": round(statistics.mean(s.evaluated_tokens for s in steps), 1),
            "median_ttft_ms": round(statistics.median(s.ttft_s for s in steps) * 1000),
            "constrained_ms_per_token": round(sum(s.seconds - s.ttft_s for s in steps) * 1000
                                              / max(1, sum(s.tokens - 1 for s in steps)), 1),
        }
    figures.pop("schema_tokens")
    emit(figures, out_path)


if __name__ == "__main__":
    main()
