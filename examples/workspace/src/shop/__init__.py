"""A tiny shop used to demonstrate llm-edits."""
