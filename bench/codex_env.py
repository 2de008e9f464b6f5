"""OpenAI Codex's native ``apply_patch``, installed for the CLI baseline (benchmark 7).

``ensure_codex()`` fetches the pinned ``@openai/codex`` Linux x64 package with ``npm pack`` on
first use (a 167 MB download), keeps only its ``codex`` binary (294 MB) in
``bench/.codex/<version>/`` (ignored by git) and links it as ``apply_patch``: the binary
dispatches on the name it is called by, and as ``apply_patch`` applies the patch given as its
argument or on stdin to files relative to the current directory. The dispatch is checked on a
tiny patch before the binary is used; later runs reuse it.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
CODEX_VERSION = "0.169.0"  # the package's latest release when the baseline was added
CODEX_PACKAGE = f"@openai/codex@{CODEX_VERSION}-linux-x64"
BINARY_IN_PACKAGE = "package/vendor/x86_64-unknown-linux-musl/bin/codex"
CODEX_DIR = BENCH_DIR / ".codex" / CODEX_VERSION
APPLY_PATCH = CODEX_DIR / "apply_patch"  # a symlink to the codex binary
DISPATCH_OK = CODEX_DIR / ".dispatch-ok"  # written once the tiny patch applied as expected

TINY_BEFORE = "alpha\nbeta\ngamma\n"
TINY_PATCH = ("*** Begin Patch\n*** Update File: tiny.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n"
              "*** End Patch\n")
TINY_AFTER = "alpha\nBETA\ngamma\n"


def codex_ready() -> bool:
    """The binary is installed and its dispatch was checked (no process started)."""
    return APPLY_PATCH.exists() and DISPATCH_OK.exists()


def check_dispatch(apply_patch: Path) -> str | None:
    """None when ``apply_patch`` applies the tiny patch from stdin; else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="llm-edits-codex-") as tmp:
        target = Path(tmp) / "tiny.txt"
        target.write_text(TINY_BEFORE)
        try:
            run = subprocess.run([str(apply_patch)], input=TINY_PATCH, cwd=tmp,
                                 capture_output=True, text=True, timeout=60)
        except OSError as exc:
            return f"cannot run {apply_patch}: {exc}"
        if run.returncode != 0:
            return f"apply_patch exited {run.returncode}: {(run.stderr or run.stdout)[-300:]}"
        if target.read_text() != TINY_AFTER:
            return f"apply_patch wrote {target.read_text()!r}, expected {TINY_AFTER!r}"
    return None


def _download(into: Path) -> Path | str:
    """The packed tarball of CODEX_PACKAGE in ``into``, or why it could not be had."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm not found"
    try:
        # npm's own retries would wait minutes for an unreachable registry: one retry, 60 s
        pack = subprocess.run([npm, "pack", CODEX_PACKAGE, "--pack-destination", str(into),
                               "--fetch-retries=1", "--fetch-timeout=60000"],
                              capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return f"npm pack {CODEX_PACKAGE} timed out (registry unreachable?)"
    tarballs = list(into.glob("*.tgz"))
    if pack.returncode != 0 or not tarballs:
        return f"npm pack {CODEX_PACKAGE} failed: {pack.stderr.strip()[-300:]}"
    return tarballs[0]


def ensure_codex() -> tuple[Path | None, str]:
    """(the apply_patch link or None, how it was had or why not)."""
    if codex_ready():
        return APPLY_PATCH, f"@openai/codex {CODEX_VERSION} (reused)"
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None, f"the pinned Codex binary is for Linux x86_64, not {platform.machine()}"
    with tempfile.TemporaryDirectory(prefix="llm-edits-codex-") as tmp:
        tarball = _download(Path(tmp))
        if isinstance(tarball, str):
            return None, tarball
        CODEX_DIR.mkdir(parents=True, exist_ok=True)
        binary = CODEX_DIR / "codex"
        with tarfile.open(tarball) as archive, open(binary, "wb") as out:
            member = archive.extractfile(BINARY_IN_PACKAGE)
            if member is None:
                return None, f"{BINARY_IN_PACKAGE} not in {tarball.name}"
            shutil.copyfileobj(member, out)
    binary.chmod(0o755)
    if APPLY_PATCH.is_symlink() or APPLY_PATCH.exists():
        APPLY_PATCH.unlink()
    os.symlink("codex", APPLY_PATCH)
    problem = check_dispatch(APPLY_PATCH)
    if problem:
        return None, problem
    DISPATCH_OK.write_text(f"{CODEX_PACKAGE}: tiny patch applied through apply_patch\n")
    return APPLY_PATCH, f"@openai/codex {CODEX_VERSION} (installed now)"
