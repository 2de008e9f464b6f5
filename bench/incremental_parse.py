#!/usr/bin/env python3
"""The parse of a streamed response: IncrementalParse vs parsing everything on every chunk.

usage: python -m bench.incremental_parse [--bytes N] [--chunk N] [--full-every N]

A 1 MB mixed response (the parse benchmark's generator, every default format) arrives in 2 KB
chunks; after each chunk the parse of the text so far is asked for. Measured in CPU time of
this process: the whole stream through one ``IncrementalParse``; one ``parse_response`` of the
finished text (what a preview parses); and re-parsing the whole text on every chunk (timed on
every ``--full-every``-th chunk and scaled, so the baseline does not take minutes). Every
incremental result is checked against a full parse on the timed chunks. The issue's target:
the server's CPU for the whole stream at most 5x one preview (parse and plan of the finished
response); this is the parse's part of it. Re-parsing everything costs about 250x.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from bench.generate import Workspace, make_response, make_workspace
from bench.machine_speed import loop_step_ns
from lsp_server import FileSnapshot, plan_edits
from lsp_server.parsing import parse_response
from lsp_server.parsing.incremental import IncrementalParse


def chunk_ends(size: int, chunk: int) -> list[int]:
    return [*range(chunk, size, chunk), size]


def stream_incrementally(text: str, ends: list[int]) -> tuple[float, IncrementalParse]:
    """CPU seconds to stream ``text`` through one IncrementalParse (the updates only: not
    the copies of the text so far that stand for the client's document)."""
    incremental = IncrementalParse()
    spent = 0.0
    previous = 0
    for end in ends:
        so_far = text[:end]
        started = time.process_time()
        incremental.update(so_far, previous)
        spent += time.process_time() - started
        previous = end
    return spent, incremental


def full_parse_cpu(text: str, repeats: int = 3) -> float:
    """CPU seconds of one parse_response of ``text`` (the best of ``repeats``)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        parse_response(text)
        best = min(best, time.process_time() - started)
    return best


def preview_cpu(text: str, ws: Workspace, repeats: int = 3) -> float:
    """CPU seconds of one preview of ``text`` (parse_response + plan_edits, the files served
    from memory as a server serves open buffers; the best of ``repeats``)."""
    root = Path("/bench-workspace")
    texts = {root / path: ws.text(path) for path in ws.files}

    def read_file(path: Path) -> FileSnapshot:
        return FileSnapshot(text=texts.get(Path(path)))

    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        plan_edits(parse_response(text), read_file, [root])
        best = min(best, time.process_time() - started)
    return best


def reparse_every_chunk_cpu(text: str, ends: list[int], every: int) -> tuple[float, bool]:
    """CPU seconds of a parse_response of the text so far after every chunk, timed on every
    ``every``-th chunk and scaled to all; also whether IncrementalParse agreed on those."""
    incremental = IncrementalParse()
    timed = 0.0
    agreed = True
    previous = 0
    for k, end in enumerate(ends):
        result = incremental.update(text[:end], previous)
        previous = end
        if k % every == 0 or end == ends[-1]:
            started = time.process_time()
            full = parse_response(text[:end])
            timed += time.process_time() - started
            agreed = agreed and result == full
    sampled = len(range(0, len(ends), every)) + (0 if (len(ends) - 1) % every == 0 else 1)
    return timed * len(ends) / sampled, agreed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bytes", type=int, default=1_000_000, help="response size (UTF-8 bytes)")
    ap.add_argument("--chunk", type=int, default=2_000, help="characters per chunk")
    ap.add_argument("--full-every", type=int, default=10,
                    help="time the full re-parse on every N-th chunk (and scale)")
    args = ap.parse_args()
    print(f"machine: {len(os.sched_getaffinity(0))} CPUs, Python {platform.python_version()}, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, "
          f"{loop_step_ns():.1f} ns per Python loop step", flush=True)
    ws = make_workspace(20, 5000)
    text = make_response(ws, target_bytes=args.bytes).text
    ends = chunk_ends(len(text), args.chunk)
    one = full_parse_cpu(text)
    preview = preview_cpu(text, ws)
    stream, incremental = stream_incrementally(text, ends)
    everything, agreed = reparse_every_chunk_cpu(text, ends, args.full_every)
    final_ok = incremental.result == parse_response(text)
    print(f"response: {len(text.encode()) / 1e6:.2f} MB, {text.count(chr(10))} lines, "
          f"{len(incremental.result.blocks)} blocks, {len(ends)} chunks of {args.chunk} characters")
    print(f"one parse_response of the finished text: {one * 1e3:.1f} ms CPU; one preview "
          f"(parse + plan): {preview * 1e3:.1f} ms CPU")
    print(f"streamed through IncrementalParse: {stream * 1e3:.1f} ms CPU = {stream / one:.1f}x one "
          f"parse, {stream / preview:.2f}x one preview "
          f"[{'met' if stream / preview <= 5 else 'NOT MET'}: the whole stream's server CPU "
          f"<= 5x one preview, of which this is the parse]; "
          f"{stream / len(ends) * 1e3:.2f} ms per chunk")
    print(f"parse_response on every chunk (scaled from every {args.full_every}th): "
          f"{everything:.2f} s CPU = {everything / one:.0f}x one parse; "
          f"incremental saves {everything / stream:.0f}x")
    print(f"results equal to a full parse: {'yes' if agreed and final_ok else 'NO'}")
    if not (agreed and final_ok):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
