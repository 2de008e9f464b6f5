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
# Written after the parser was imported once (offline) in the venv, so later runs skip the
# few-second import check.
IMPORT_OK = AIDER_VENV / ".parser-import-ok"
NO_DEPS = AIDER_VENV / ".installed-no-deps"  # the fallback install was used (don't retry full)
_IMPORT_CHECK = "from aider.coders.editblock_coder import find_original_update_blocks"


def aider_ready() -> bool:
    """The venv exists and its parser import was checked (cheap: no interpreter started)."""
    return AIDER_PYTHON.exists() and (IMPORT_OK.exists() or NO_DEPS.exists())


def aider_importable() -> bool:
    """aider's parser imports normally in the venv (checked once, then remembered)."""
    if AIDER_PYTHON.exists() and IMPORT_OK.exists():
        return True
    if not AIDER_PYTHON.exists():
        return False
    check = subprocess.run([str(AIDER_PYTHON), "-c", _IMPORT_CHECK],
                           capture_output=True, timeout=120)
    if check.returncode == 0:
        IMPORT_OK.write_text("ok\n")
    return check.returncode == 0


def ensure_aider() -> tuple[bool, str]:
    """(usable, how): make the aider venv if needed; ``how`` says what was installed.
    pip's output goes to ``bench/.venv-aider/install.log``."""
    if aider_importable():
        return True, "aider-chat (full install, reused)"
    if aider_ready():
        return True, "aider-chat --no-deps (parser module loaded from source), reused"
    if not (AIDER_PYTHON.exists()):
        made = subprocess.run([sys.executable, "-m", "venv", str(AIDER_VENV)],
                              capture_output=True, text=True)
        if made.returncode != 0:
            return False, f"venv creation failed: {made.stderr.strip()[-300:]}"
    with open(AIDER_VENV / "install.log", "ab") as out:
        pip = [str(AIDER_PYTHON), "-m", "pip", "install", "-q"]
        full = subprocess.run([*pip, "aider-chat"], stdout=out, stderr=out, timeout=1200)
        if full.returncode == 0 and aider_importable():
            return True, "aider-chat (full install)"
        bare = subprocess.run([*pip, "--no-deps", "aider-chat"], stdout=out, stderr=out,
                              timeout=600)
        if bare.returncode == 0:
            NO_DEPS.write_text("aider-chat installed with --no-deps\n")
            return True, "aider-chat --no-deps (parser module loaded from source)"
        return False, f"pip install aider-chat failed (see {AIDER_VENV / 'install.log'})"
