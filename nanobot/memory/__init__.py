"""Memory: embedding retrieval over MEMORY.md, observations/ and knowledge/, one turn at a time.

Instead of sending MEMORY.md whole, nanobot indexes it (and the observer's notes and the user's
knowledge files) in one SQLite database with sqlite-vec and FTS5, and each turn injects only the few
chunks relevant to the user's message, as a "Relevant Memory:" block placed before that message.

Modules, one concern each:
- ``embedder``: the sentence-transformers model, loaded in the background (``get_embedder``).
- ``chunker``: markdown -> chunks (a bullet with its heading, or a paragraph).
- ``store``: the database: chunks, vec0 vectors, FTS5, the embedding cache; hybrid search.
- ``indexer``: workspace files -> store, incrementally, in one transaction.
- ``retriever``: the per-turn block (floor, dedupe, token budget) the Agent sends.
- ``service``: ``MemoryService`` ties them together for the agent, the tools and the CLI.

Importing this package never imports torch; only ``Embedder.load`` does.
"""
