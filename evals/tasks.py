"""The task suite: each ``tasks/<id>/`` holds ``ws/`` (the files before), ``request.txt``
(the change asked for) and ``check.py`` or ``check.js`` (run in the edited workspace; exit 0
means the change is right, judged by behaviour). ``solution/`` holds a reference result (the
files it changes), so the suite can prove that every check fails before and passes after.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent / "tasks"

_LANGUAGES = {".py": "python", ".js": "javascript", ".md": "markdown", ".json": "json",
              ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".ini": "ini", ".sh": "sh"}


@dataclass(frozen=True)
class Task:
    id: str
    path: Path

    @property
    def workspace(self) -> Path:
        return self.path / "ws"

    @property
    def request(self) -> str:
        return (self.path / "request.txt").read_text(encoding="utf-8").strip()

    @property
    def check(self) -> Path:
        for name in ("check.py", "check.js"):
            if (self.path / name).exists():
                return self.path / name
        raise FileNotFoundError(f"{self.path}: no check.py or check.js")

    def files(self) -> dict[str, str]:
        """Relative path → text of every file of the workspace, in path order."""
        return {p.relative_to(self.workspace).as_posix(): p.read_bytes().decode("utf-8")
                for p in sorted(self.workspace.rglob("*")) if p.is_file()}

    def copy_workspace(self, into: Path) -> Path:
        shutil.copytree(self.workspace, into, dirs_exist_ok=True)
        return into


def load_tasks(directory: Path = TASKS_DIR, only: list[str] | None = None) -> list[Task]:
    tasks = [Task(p.name, p) for p in sorted(directory.iterdir()) if (p / "ws").is_dir()]
    if only:
        unknown = set(only) - {t.id for t in tasks}
        if unknown:
            raise ValueError(f"unknown task(s): {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.id in only]
    return tasks


def _fence(text: str) -> str:
    """A backtick fence longer than any backtick run in ``text`` (at least three)."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def user_message(task: Task) -> str:
    """The files (as an editor integration would paste them) and the request."""
    parts = ["Here are the files of the project.\n"]
    for rel, text in task.files().items():
        body = text.replace("\r\n", "\n")  # a chat shows lines, not their terminators
        if body and not body.endswith("\n"):
            body += "\n"
        fence = _fence(body)
        language = _LANGUAGES.get(Path(rel).suffix, "")
        parts.append(f"{rel}\n{fence}{language}\n{body}{fence}\n")
    parts.append(f"Request: {task.request}")
    return "\n".join(parts)


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    output: str  # the last lines of the check's output, for the record and the retry turn


def run_check(task: Task, workspace: Path, timeout: float = 60) -> CheckResult:
    check = task.check
    command = [sys.executable, str(check)] if check.suffix == ".py" else ["node", str(check)]
    try:
        done = subprocess.run(command, cwd=workspace, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return CheckResult(False, f"the check did not finish within {timeout:.0f} s")
    output = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
    return CheckResult(done.returncode == 0, output)
