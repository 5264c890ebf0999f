"""Tools: names in the prompt, schemas on demand, grammar-constrained calls (see runner.py)."""

from nanobot.tools.base import NoArgs, Tool, ToolArgs, ToolContext

__all__ = ["NoArgs", "Tool", "ToolArgs", "ToolContext"]
