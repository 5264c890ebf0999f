"""The feature contract and what it speaks of: features, intents, events, the prompt and its budget rules,
the transcript, provenance, grounding and prefill. Features import this; it imports no feature."""
