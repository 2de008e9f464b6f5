"""``llm-edits apply --stage``: stage in git what an apply wrote (seeds 000/001's workflow).

Staging stages what is on disk after the write: the files the apply edited, created or renamed
to are added, the ones it deleted or renamed away are removed from the index. Each path is
staged in the git work tree that holds it (a workspace may span several), with ``--`` so a path
never reads as an option. A path git does not know (deleted but never tracked) is ignored.
"""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

from ..model import FileEdit, PlanResult, ResourceOp


def paths_to_stage(result: PlanResult, unwritten: set[Path]) -> tuple[list[Path], list[Path]]:
    """(paths to add, paths to remove from the index) for the changes that were carried out.

    Changes are read in order and a path's last one decides: an edit renamed afterwards is
    staged as the new name added and the old one removed."""
    on_disk: dict[Path, bool] = {}
    for change in result.changes:
        if change.path in unwritten:
            continue
        if isinstance(change, FileEdit) or (isinstance(change, ResourceOp)
                                            and change.kind == "create"):
            on_disk[change.path] = True
        elif change.kind == "delete":
            on_disk[change.path] = False
        elif change.kind == "rename" and change.new_path is not None:
            on_disk[change.path] = False
            on_disk[change.new_path] = True
    return ([path for path, there in on_disk.items() if there],
            [path for path, there in on_disk.items() if not there])


def _work_tree(path: Path) -> Path | None:
    """The top of the git work tree holding ``path`` (its folder may be gone after a delete)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder,
                          capture_output=True, text=True, check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 else None


def stage_in_git(added: list[Path], removed: list[Path]) -> list[str]:
    """Stage the paths; one line per problem (no work tree, git's own error), none if all
    went well."""
    by_tree: dict[Path, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    problems: list[str] = []
    for paths, slot in ((added, 0), (removed, 1)):
        for path in paths:
            tree = _work_tree(path)
            if tree is None:
                problems.append(f"not staged: {path} is not in a git work tree")
            else:
                by_tree[tree][slot].append(str(path))
    for tree, (to_add, to_remove) in by_tree.items():
        commands = []
        if to_add:
            commands.append(["git", "add", "--", *to_add])
        if to_remove:
            commands.append(["git", "rm", "--cached", "--quiet", "--ignore-unmatch", "--",
                             *to_remove])
        for command in commands:
            done = subprocess.run(command, cwd=tree, capture_output=True, text=True,
                                  check=False)
            if done.returncode != 0:
                problems.append(f"git {command[1]} failed in {tree}: "
                                f"{done.stderr.strip().splitlines()[-1:] or ['(no message)']}")
    return problems
