"""The knowledge vault: ``workspace/knowledge/**/*.md`` docs with a one-line ``summary`` each, a table of
contents in the stable prompt, and a digest of the last hours' changes read from the append-only audit
ledger (``workspace/audit/ledger.jsonl``).

Modules: ``frontmatter`` (parse / rewrite preserving bytes), ``fmcache`` (frontmatter cache by path +
mtime + size), ``toc`` (the "Your Knowledge" section and its truncation rule), ``ledger`` (entries,
durable appends, reading backwards), ``digest`` ("Recent Changes"), ``apply`` (knowledge_apply: write
order and crash recovery), ``backfill`` (model-written summaries), ``feature`` (``VaultFeature``).
This package file stays empty: the memory chunker imports ``frontmatter`` alone.
"""
