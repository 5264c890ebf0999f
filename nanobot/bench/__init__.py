"""``nanobot bench``: measure prompt size, time to first token, KV caching and llama.cpp settings.

One concern per module: ``runner`` (the measurements, ``run_bench``), ``figures`` (the result
records and statistics), ``baseline`` (the full-dump prompt to compare with), ``speed`` (llama-bench
style rows per setting), ``synthetic`` (a random-weight GGUF with Llama 3.2 3B's shapes).
"""
