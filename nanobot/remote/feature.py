"""``RemoteModelFeature``: when the model is a server (``base_url``), probe what it can do at each
session start and say, once per session, what nanobot cannot get from it: constrained output (tool
calls then are parsed, validated and retried) or an exact tokenizer (budgets then use the stated
approximation). A server that does not answer is said so too; the first turn then fails with the
one-line reason. Nothing for in-process models.
"""

from __future__ import annotations

from typing import Any

from nanobot.backends.base import abilities
from nanobot.base.redact import redact, redact_url
from nanobot.core.events import Event, Notice
from nanobot.core.features import Feature


class RemoteModelFeature(Feature):
    name = "remote-model"

    def on_session_start(self, agent: Any) -> list[Event]:
        model = agent.model
        if not abilities(model).server:  # /model switched to an in-process model
            return []
        caps = model.detect()
        where = f"model server '{model.name}' ({caps.flavor}, {redact_url(model.base)})"
        if caps.flavor == "unreachable":
            return [Notice(text=redact(f"{where} is not answering ({caps.error}); start it or fix base_url"), level="warning")]
        out: list[Event] = []
        if caps.structured == "none":
            out.append(Notice(level="warning", text=(
                f"{where} cannot constrain output: tool calls are parsed, validated and retried instead "
                "(set structured = \"json_schema\" under its [models.NAME] if it honours response_format)")))
        if not caps.tokenize:
            out.append(Notice(text=f"{where}: prompt budgets use an approximation, {caps.token_counting}"))
        return out


def make_feature(agent: Any) -> RemoteModelFeature | None:
    return RemoteModelFeature() if abilities(agent.model).server else None
