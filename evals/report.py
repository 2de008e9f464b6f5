"""Summaries of episodes: one row per format, printed as a table and kept in the JSON."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .judge import applied_all

COLUMNS = ("format", "tasks", "compliance", "apply success", "task success", "after retry",
           "tokens/task", "s/task")


def _share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.0f}%)" if total else "-"


def summarise(episodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    by_format: dict[str, list[dict[str, Any]]] = {}
    for episode in episodes:
        by_format.setdefault(episode["format"], []).append(episode)
    summary = {}
    for name, runs in by_format.items():
        # judgements of first attempts: every format answered the same prompt there
        judgements = Counter(block["judgement"].split(" (")[0] for run in runs
                             for block in run["attempts"][0]["blocks"] if "judgement" in block)
        warnings = Counter(w["judgement"] for run in runs for w in run["attempts"][0]["warnings"])
        summary[name] = {
            "tasks": len(runs),
            "compliant": sum(r["compliant"] for r in runs),
            # from the block records, so results written by older runners count alike
            "applied": sum(applied_all(r["attempts"][0]["blocks"]) for r in runs),
            "success": sum(r["success"] for r in runs),
            "success_after_retry": sum(r["success_after_retry"] for r in runs),
            "whole_file_answers": sum(bool(r["attempts"][0]["whole_file_answers"])
                                      for r in runs),
            "completion_tokens": sum(r["completion_tokens"] for r in runs),
            "seconds": round(sum(r["seconds"] for r in runs), 1),
            "failed_block_judgements": dict(judgements),
            "warning_judgements": dict(warnings),
        }
    return summary


def table(summary: dict[str, dict[str, Any]]) -> str:
    rows = [COLUMNS, tuple("---" for _ in COLUMNS)]
    for name, s in summary.items():
        n = s["tasks"]
        rows.append((f"`{name}`", str(n), _share(s["compliant"], n), _share(s["applied"], n),
                     _share(s["success"], n), _share(s["success_after_retry"], n),
                     f"{s['completion_tokens'] / n:.0f}" if n else "-",
                     f"{s['seconds'] / n:.1f}" if n else "-"))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def judgement_lines(summary: dict[str, dict[str, Any]]) -> str:
    lines = []
    for name, s in summary.items():
        blocks = ", ".join(f"{k}: {v}" for k, v in sorted(s["failed_block_judgements"].items()))
        warnings = ", ".join(f"{k}: {v}" for k, v in sorted(s["warning_judgements"].items()))
        lines.append(f"- `{name}`: failed blocks — {blocks or 'none'}; parse warnings — "
                     f"{warnings or 'none'}; whole-file answers: {s['whole_file_answers']}")
    return "\n".join(lines)
