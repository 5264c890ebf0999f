"""``[coding]``: the coding session feature's section (``nanobot/coding/``, ``nanobot session``)."""

from __future__ import annotations

from pydantic import Field

from nanobot.config.strict import SECONDS, TOKENS, Strict


class CodingSettings(Strict):
    session: str = ""  # the coding session's root id; set by `nanobot session` (empty: feature off)
    context: int = Field(600, ge=0, le=TOKENS)  # prompt budget: descriptions, diff stat, hunks
    describe: bool = True  # rewrite the change's living description after each turn
    describe_tokens: int = Field(256, ge=32, le=TOKENS)  # bound on the rewrite the model writes
    description: int = Field(200, ge=40, le=TOKENS)  # token budget of the living description (older items merged)
    test_command: str = ""  # run in the repository before each checkpoint (e.g. "pytest -q -x"); "" = none
    test_timeout: float = Field(300.0, gt=0, le=SECONDS)  # seconds the test command may run
