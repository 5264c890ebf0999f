"""What a feature's hook asks of the Agent, instead of assigning to it: a hook returns these among
its events, the Agent applies them (in ``Agent._run_hooks``) and passes only the other events on.

- ``FreshContext(history)``: the context starts over with ``history`` (a coding checkpoint, whose
  hand-off is in the prompt; a resumed change's exchanges). The Agent then rebuilds the turn's
  messages instead of guessing from them whether a hook replaced its history.
- ``TranscriptMeta(user_meta)``: fields added to every user record of this session's transcript
  (a group chat's speaker).
- ``PrefillOff()``: this session, the idle time between turns is the feature's (no prefill).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from nanobot.backends.base import Message


class FreshContext(BaseModel):
    kind: Literal["fresh_context"] = "fresh_context"
    history: list[Message] = []


class TranscriptMeta(BaseModel):
    kind: Literal["transcript_meta"] = "transcript_meta"
    user_meta: dict[str, Any] = {}


class PrefillOff(BaseModel):
    kind: Literal["prefill_off"] = "prefill_off"


Intent = FreshContext | TranscriptMeta | PrefillOff
INTENTS = (FreshContext, TranscriptMeta, PrefillOff)
