"""Time aider's SEARCH/REPLACE parser on a text file; runs inside bench/.venv-aider.

usage: python aider_parse.py TEXT_FILE REPEATS
Prints one JSON object: {"blocks": N, "seconds": [wall per run], "cpu": [CPU per run],
"version": ..., "import": ...}.
Kept free of project imports: it runs in aider's interpreter, not the project's.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path


def load_parser() -> tuple[Callable, str]:
    """aider's ``find_original_update_blocks``: imported normally, or (after a --no-deps
    install, where ``aider.coders`` cannot import its LLM dependencies) executed from the
    module's source with the package-relative imports replaced by placeholders; the parser
    itself only uses re, difflib and pathlib."""
    try:
        from aider.coders.editblock_coder import find_original_update_blocks

        return find_original_update_blocks, "import"
    except ImportError:
        import importlib.util

        spec = importlib.util.find_spec("aider")
        assert spec is not None and spec.submodule_search_locations
        package_dir = Path(next(iter(spec.submodule_search_locations)))
        source_path = package_dir / "coders" / "editblock_coder.py"
        kept = [
            line for line in source_path.read_text().splitlines()
            if not line.startswith(("from aider import", "from ..", "from ."))
        ]
        namespace = {"__name__": "aider_editblock_source", "utils": None, "Coder": object,
                     "EditBlockPrompts": object, "dump": print}
        exec(compile("\n".join(kept), str(source_path), "exec"), namespace)
        return namespace["find_original_update_blocks"], "source"


def main() -> None:
    from importlib.metadata import version

    find_original_update_blocks, how = load_parser()
    text = Path(sys.argv[1]).read_text(encoding="utf-8")
    repeats = int(sys.argv[2])
    blocks = len(list(find_original_update_blocks(text)))  # warm-up (and the block count)
    seconds, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        list(find_original_update_blocks(text))  # a generator: consume it to parse everything
        cpu.append(time.process_time() - started_cpu)
        seconds.append(time.perf_counter() - started)
    print(json.dumps({"blocks": blocks, "seconds": seconds, "cpu": cpu,
                      "version": version("aider-chat"), "import": how}))


if __name__ == "__main__":
    main()
