"""Why observations fell back to the extractive draft, and the Focus that is a summary.

Measured on Qwen2.5-Coder-1.5B in a real chat: the model's grounded items were dropped as "repeats the
instructions" because the system prompt quotes the user (CONTEXT.md's Focus/Task from the last
session, USER.md's notes): a session on the same work as the last fell back every time, and the
fallback wrote the first message into CONTEXT.md again. The user's own words are not the instructions
(``grounding.repeats_instructions(spoken=...)``); and the fallback's Focus is the session's gist
(``observer/gist.py``), not its first message."""

from __future__ import annotations

import json

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.observer.contextmd import load_context
from nanobot.observer.feature import attach_observer
from nanobot.observer.observer import fallback_draft, load_observation, observation_path
from nanobot.workspace import init_workspace

TASK = "Today I need to add a --name option to greet.py using argparse."
DRAFT = json.dumps({"focus": {"text": "add a --name option to greet.py", "quote": TASK},
                    "task": {"text": "", "quote": ""}, "blocked": {"text": "", "quote": ""},
                    "decisions": [], "open_items": [], "facts": []})


def test_the_same_task_as_last_session_is_the_models_draft_not_the_fallback(home):
    settings = load_settings(memory={"enabled": False}, observer={"reflect_on_start": False},
                             tools={"enabled": []}, kv_cache={"enabled": False})
    init_workspace(settings.workspace)
    ctx = settings.workspace / "CONTEXT.md"
    ctx.write_text(ctx.read_text().replace("## Now\n", f"## Now\n- Task: {TASK}\n", 1))  # last session's
    agent = Agent(settings, ScriptedModel(["On it.", DRAFT]))
    attach_observer(agent)
    agent.start_session()
    assert TASK in agent.system_prompt().text  # the prompt quotes the user
    list(agent.turn("Hi, my name is Priya. " + TASK))
    agent.end_session("quit")
    (part,) = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts
    # the model's focus copies the user's words and stops before the sentence ends: widened to its end
    assert part.generator == "model" and part.focus == "add a --name option to greet.py using argparse."
    assert part.summary == part.focus  # Recent gets the model's focus, not the first message
    assert load_context(ctx).now.focus == "add a --name option to greet.py using argparse."


def test_the_fallback_focus_is_the_gist_not_the_first_message():
    said = ["Hi, my name is Priya and I work on a Python CLI called greet. I prefer short answers.",
            TASK, "Keep the --name option optional in greet.py please."]
    floor = fallback_draft([("user", t) for t in said])
    assert floor.focus == TASK and floor.summary == TASK
    assert floor.evidence[floor.focus] == TASK  # still grounded in itself
    assert floor.task == said[-1]
