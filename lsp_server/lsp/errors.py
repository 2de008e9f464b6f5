"""The error a request answers when it was called wrongly."""


class CommandError(Exception):
    """A command was called wrongly (bad arguments, unknown run): an InvalidParams error."""
