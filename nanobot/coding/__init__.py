"""Coding sessions keyed to version-control changes (``nanobot session``).

A session is keyed to a change: its description is the session's living summary, a checkpoint is a
new change whose parent's description is the hand-off, and any ancestor's description, diff or
transcript can be queried on demand. ``vcs.open_vcs`` picks jj or git per repository;
``session.CodingSession`` is the library core, ``feature.CodingFeature`` plugs it into the Agent.
"""
