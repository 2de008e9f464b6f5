"""Fuzzing the engine and the server with hostile LLM responses (see fuzz/README.md)."""
