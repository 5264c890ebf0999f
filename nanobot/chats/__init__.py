"""Per-chat context: chats (named conversations of many sessions), their CONTEXT.md, and the three-pass
consolidation that keeps it (suggester -> reviewer -> committer). See ``consolidate.py``."""
