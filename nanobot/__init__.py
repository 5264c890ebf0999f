"""nanobot: a local-model-first agent runtime for small GGUF models."""

__version__ = "0.1.0"
