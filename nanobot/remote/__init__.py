"""A model server's abilities, probed and said once per session (a feature: ``feature.py``)."""
