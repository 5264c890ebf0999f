"""The base of every config.toml section: an unknown key is an error (a typo names itself), and a
value set later is validated too."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
