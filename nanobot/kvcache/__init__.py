"""The disk KV cache of the stable prompt prefix (a feature: ``feature.py``)."""
