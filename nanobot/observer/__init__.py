"""Situational awareness: the observer, the reflector, CONTEXT.md, time and external changes.

- ``context``: CONTEXT.md as a pydantic model (parse <-> render, section budget).
- ``observation``: the observation schema (grammar for the model) and its file format.
- ``observer``: writing observations of live sessions and of transcripts.
- ``reflector``: observations -> MEMORY.md (near-duplicates merged), CONTEXT.md freshness.
- ``timeaware``: gap since the last interaction, its hint, the session pattern.
- ``external``: git status / recent commits / files changed outside nanobot.
- ``hooks``: the feature tying them together (``ObserverFeature``, ``attach_observer``).
"""
