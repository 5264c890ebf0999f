"""Chat model backends: one small protocol (``base.ChatModel``), a llama.cpp implementation, and a
scripted model for unit tests of loop logic.

How to add a backend: implement ``ChatModel`` (``count_tokens``, ``render``, ``stream``, ``last``,
``n_ctx``) in a new module here; the agent, prompt builder and observer only see the protocol.
"""

from nanobot.backends.base import ChatModel, Generation, Message

__all__ = ["ChatModel", "Generation", "Message"]
