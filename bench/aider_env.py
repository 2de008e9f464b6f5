"""The bench-only virtualenv holding aider-chat, for the side-by-side parser baseline.

``ensure_aider()`` creates ``bench/.venv-aider`` on first use with ``pip install aider-chat``
(about 700 MB and 1-2 minutes; later runs reuse it). If the full install fails (aider pins a
large dependency tree), it falls back to ``pip install --no-deps aider-chat``: the parser
module's own imports (``re``, ``difflib``, ``pathlib``) are standard library, and
``aider_parse.py`` then loads the module's source without its package-level imports.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
AIDER_VENV = BENCH_DIR / ".venv-aider"
AIDER_PYTHON = AIDER_VENV / "bin" / "python"
_IMPORT_CHECK = "from aider.coders.editblock_coder import find_original_update_blocks"


def aider_importable() -> bool:
    if not AIDER_PYTHON.exists():
        return False
    check = subprocess.run([str(AIDER_PYTHON), "-c", _IMPORT_CHECK],
                           capture_output=True, timeout=120)
    return check.returncode == 0


def ensure_aider(log: Path | None = None) -> tuple[bool, str]:
    """(usable, how): make the aider venv if needed; ``how`` says what was installed."""
    if aider_importable():
        return True, "aider-chat (full install, reused)"
    if not (AIDER_PYTHON.exists()):
        made = subprocess.run([sys.executable, "-m", "venv", str(AIDER_VENV)],
                              capture_output=True, text=True)
        if made.returncode != 0:
            return False, f"venv creation failed: {made.stderr.strip()[-300:]}"
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    try:
        pip = [str(AIDER_PYTHON), "-m", "pip", "install", "-q"]
        full = subprocess.run([*pip, "aider-chat"], stdout=out, stderr=out, timeout=1200)
        if full.returncode == 0 and aider_importable():
            return True, "aider-chat (full install)"
        bare = subprocess.run([*pip, "--no-deps", "aider-chat"], stdout=out, stderr=out,
                              timeout=600)
        if bare.returncode == 0:
            return True, "aider-chat --no-deps (parser module loaded from source)"
        return False, "pip install aider-chat failed (see the log)"
    finally:
        if log:
            out.close()  # type: ignore[union-attr]
