from pathlib import Path


def config_dir() -> Path:
    return Path.home() / ".config" / "store"
