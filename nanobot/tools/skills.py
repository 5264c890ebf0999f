"""skill_manager: markdown skills in ``workspace/skills/``, listed by name, loaded on demand.

A skill is ``skills/NAME.md`` or ``skills/NAME/SKILL.md`` (``README.md`` is not a skill). Only names are listed (like tool names in
the prompt); the text enters the context when the model loads one. Loading goes through the file
tools' confinement (``paths.resolve_in_roots``): a skill that is a symlink leaving the roots is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.base.regular import read_regular
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect
from nanobot.tools.paths import resolve_in_roots


def find_skills(workspace: Path) -> dict[str, Path]:
    root = workspace / "skills"
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for p in sorted(root.glob("*.md")):
        if p.stem.upper() != "README":  # the folder's own explanation is not a skill
            found[p.stem] = p
    for p in sorted(root.glob("*/SKILL.md")):
        found.setdefault(p.parent.name, p)
    return found


class SkillArgs(ToolArgs):
    action: Literal["list", "load"] = Field(description="list skill names, or load one")
    name: str = Field("", description="skill name (load)", max_length=100)


class SkillManager(Tool):
    name = "skill_manager"
    effects = frozenset({Effect.SEARCHES})
    description = "List skills, or load one skill's instructions."
    Args = SkillArgs

    def run(self, args: SkillArgs, ctx: ToolContext) -> str:
        skills = find_skills(ctx.workspace)
        if args.action == "list":
            return ", ".join(skills) if skills else "no skills (add markdown files to workspace/skills/)"
        name = args.name.strip().removesuffix(".md")
        if name not in skills:
            known = ", ".join(skills) or "none"
            raise ToolError(f"no skill '{args.name}'; known skills: {known}")
        path = resolve_in_roots(str(skills[name].relative_to(ctx.workspace)), ctx)
        try:
            return read_regular(path).decode("utf-8").strip() or f"skill {name} is empty"
        except (OSError, UnicodeDecodeError) as e:
            raise ToolError(f"cannot read skill {name}: {e}") from None
