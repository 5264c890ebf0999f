"""The lowest layer: crash-safe files, errors, locks, safe text, git, the database; imports nothing above it."""
