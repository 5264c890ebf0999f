"""``nanobot import``: conversation histories from other assistants -> session transcripts."""
