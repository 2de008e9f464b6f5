"""Benchmark 8: a response streamed into a response document (issue 14).

The real server over stdio (``lsp_server.testing.wire_client``), a workspace on disk, and an
``llm-response`` document that grows chunk by chunk as a chat plugin writes a model's answer:
each chunk is one incremental ``didChange`` appending it, followed by a
``textDocument/codeLens`` request (the editor asking what to show) and ``codeLens/resolve``
of the lenses on the last 50 lines (those an editor following the stream shows). Measured:

- the server's CPU time over the whole stream (``/proc/<pid>/stat``), against one
  ``llmEdits.preview`` of the finished response on the same server (target: at most 5x);
- the baselines of doing everything again on every chunk, in this process (CPU time; a
  sample of the prefixes, scaled up): ``parse_response`` of every prefix the stream went
  through, and ``plan_response`` (parse and plan, the files in memory) of every prefix,
  each against the same preview;
- the latency of each chunk, from sending its ``didChange`` to having the codeLens answer,
  p50 / p99, on the large response and on a small one (target: p99 ≤ 10 ms, and the large
  one's within 2x the small one's: a chunk must not cost more because of what came before).

Nothing here asserts a duration: rows say whether a target was met.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lsp_server import FileSnapshot
from lsp_server.testing.wire_client import LspClient, uri_of

from .benchmarks import MB, Row, ms, percentile, ratio, write_workspace
from .generate import Response, Workspace, make_response, make_workspace

LANGUAGE_ID = "llm-response"


@dataclass
class StreamRun:
    latencies: list[float]  # seconds per chunk, didChange sent → codeLens answer read
    cpu: float  # server CPU seconds over the stream
    titles: list[str]  # the last codeLens answer's titles
    chunks: int
    views: dict[str, list[float]]  # the finished document's views: method -> seconds per call
    view_sizes: dict[str, int]  # how many items the last answer of each had
    answer_chars: int = 0  # the last codeLens answer's JSON (as the server writes it)
    decode_seconds: float = 0.0  # this client's json.loads of it (best of 5)


# The finished document's other views, as an editor asks for them (the hover on a block's
# line in the middle of the response).
VIEW_METHODS = ("textDocument/documentSymbol", "textDocument/documentLink",
                "textDocument/hover")


async def time_views(client: LspClient, uri: str, line: int,
                     repeats: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds per request of each of :data:`VIEW_METHODS` on the document, and the size of
    each answer (items, or characters of a hover)."""
    seconds: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}
    if repeats < 1:
        return seconds, sizes
    for method in VIEW_METHODS:
        params: dict = {"textDocument": {"uri": uri}}
        if method.endswith("hover"):
            params["position"] = {"line": line, "character": 0}
        seconds[method] = []
        for _ in range(repeats):
            started = time.perf_counter()
            found = await client.request(method, params)
            seconds[method].append(time.perf_counter() - started)
        sizes[method] = len(found) if isinstance(found, list) else len(
            (found or {}).get("contents", {}).get("value", ""))
    return seconds, sizes


# The lines an editor following the stream shows: the last ones written. A block's lenses
# come unresolved; an editor resolves those it shows (codeLens/resolve), as VS Code does.
SHOWN_LINES = 50


async def resolve_shown(client: LspClient, lenses: list[dict], last_line: int,
                        shown: int = SHOWN_LINES) -> None:
    """Resolve the unresolved lenses on the last ``shown`` lines (in place)."""
    for lens in lenses:
        if "command" not in lens and lens["range"]["start"]["line"] > last_line - shown:
            resolved = await client.request("codeLens/resolve", lens)
            lens["command"] = (resolved or {}).get("command")


def chunks_of(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class EndPosition:
    """The end of a growing text as an LSP position (UTF-16), advanced by what is appended."""

    def __init__(self) -> None:
        self.line = 0
        self.character = 0

    def json(self) -> dict[str, int]:
        return {"line": self.line, "character": self.character}

    def advance(self, piece: str) -> None:
        breaks = piece.count("\n")
        if breaks:
            self.line += breaks
            self.character = utf16_length(piece[piece.rfind("\n") + 1:])
        else:
            self.character += utf16_length(piece)


async def stream_document(client: LspClient, path: Path, text: str, chunk: int,
                          view_repeats: int = 0) -> StreamRun:
    """Open an empty response document at ``path``, append ``text`` in chunks of ``chunk``
    characters (a codeLens request after each), time its other views ``view_repeats`` times
    each, close it."""
    uri = uri_of(path)
    await client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": LANGUAGE_ID, "version": 1, "text": ""}})
    await client.sync()
    end = EndPosition()
    latencies: list[float] = []
    lenses: list[dict] = []
    pieces = chunks_of(text, chunk)
    cpu_before = client.cpu_seconds()
    for version, piece in enumerate(pieces, start=2):
        started = time.perf_counter()
        await client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": end.json(), "end": end.json()},
                                "text": piece}]})
        lenses = await client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        await resolve_shown(client, lenses or [], end.line)
        latencies.append(time.perf_counter() - started)
        end.advance(piece)
    cpu = client.cpu_seconds() - cpu_before
    answer = json.dumps(lenses)  # the server's JSON, as near as can be (ASCII, ", " ": ")
    await resolve_shown(client, lenses or [], end.line, shown=end.line + 1)  # all, untimed
    titles = [(lens.get("command") or {}).get("title", "") for lens in lenses or []]
    middle = lenses[len(lenses) // 2]["range"]["start"]["line"] if lenses else 0
    views, sizes = await time_views(client, uri, middle, view_repeats)
    await client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    decode = min(_seconds(json.loads, answer) for _ in range(5))
    return StreamRun(latencies, cpu, titles, len(pieces), views, sizes, len(answer), decode)


def _seconds(function: Callable[[str], object], argument: str) -> float:
    started = time.perf_counter()
    function(argument)
    return time.perf_counter() - started


@dataclass
class PreviewRun:
    cpu: float  # server CPU seconds of one preview (median of the timed runs)
    cold_cpu: float  # the first one's
    seconds: float  # wall time of one (median)
    statuses: Counter


async def preview_cpu(client: LspClient, text: str, repeats: int) -> PreviewRun:
    """Server CPU of ``llmEdits.preview`` of ``text``: the first run, then the median."""
    argument = {"response": text}
    before = client.cpu_seconds()
    _, result = await client.timed_command("llmEdits.preview", argument)
    cold = client.cpu_seconds() - before
    cpus, walls = [], []
    for _ in range(repeats):
        before = client.cpu_seconds()
        seconds, result = await client.timed_command("llmEdits.preview", argument)
        cpus.append(client.cpu_seconds() - before)
        walls.append(seconds)
    statuses = Counter(b["status"] for b in result["blocks"])
    return PreviewRun(statuses=statuses, cold_cpu=cold, cpu=statistics.median(cpus),
                      seconds=statistics.median(walls))


def prefix_ends(text: str, chunk: int) -> list[int]:
    """Where the text ends after each chunk of the stream."""
    return [*range(chunk, len(text), chunk), len(text)]


def per_prefix_cpu(text: str, chunk: int, stride: int,
                   work: Callable[[str], object]) -> tuple[float, int]:
    """CPU seconds of ``work`` on every prefix the stream went through (each ``stride``-th
    prefix timed, the sum scaled up to all of them), and how many were timed."""
    ends = prefix_ends(text, chunk)
    timed = ends[stride - 1::stride] or ends[-1:]
    total = 0.0
    for end in timed:
        prefix = text[:end]
        started = time.process_time()
        work(prefix)
        total += time.process_time() - started
    return total * len(ends) / len(timed), len(timed)


def workspace_reader(ws: Workspace, root: Path) -> Callable[[Path], FileSnapshot]:
    texts = {root / rel: ws.text(rel) for rel in ws.files}
    return lambda path: FileSnapshot(texts.get(path))


@dataclass
class StreamingFigures:
    large: StreamRun
    small: list[StreamRun]
    preview: PreviewRun
    baseline_cpu: float  # parse_response of every prefix
    baseline_timed: int
    replan_cpu: float  # plan_response of every prefix
    replan_timed: int
    large_bytes: int
    small_bytes: int


async def _run(tmp: Path, large: Response, small: Response, ws_root: Path, chunk: int,
               small_repeats: int, preview_repeats: int,
               view_repeats: int) -> tuple[list[StreamRun], StreamRun, PreviewRun]:
    client = await LspClient.start(tmp)
    try:
        await client.initialize(ws_root)
        await client.sync()
        smalls = [await stream_document(client, ws_root / f"small-{i}.llm.md", small.text,
                                        chunk) for i in range(small_repeats)]
        big = await stream_document(client, ws_root / "large.llm.md", large.text, chunk,
                                    view_repeats)
        preview = await preview_cpu(client, large.text, preview_repeats)
        return smalls, big, preview
    finally:
        await client.stop()


def measure_streaming(*, size: int = 1_000_000, small_size: int = 100_000, chunk: int = 2_000,
                      n_files: int = 100, lines: int = 2_000, small_repeats: int = 3,
                      preview_repeats: int = 3, stride: int = 5,
                      replan_stride: int = 25, view_repeats: int = 20) -> StreamingFigures:
    ws = make_workspace(n_files, lines)
    large = make_response(ws, target_bytes=size)
    small = make_response(ws, target_bytes=small_size)
    with tempfile.TemporaryDirectory(prefix="llm-edits-bench-") as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "ws-streaming"
        write_workspace(ws, root)
        smalls, big, preview = asyncio.run(
            _run(tmp, large, small, root, chunk, small_repeats, preview_repeats,
                 view_repeats))
    from lsp_server import parse_response, plan_response

    baseline, timed = per_prefix_cpu(large.text, chunk, stride, parse_response)
    root = Path("/workspace")  # in memory: the files as the server read them from disk
    read = workspace_reader(ws, root)
    replan, replanned = per_prefix_cpu(large.text, chunk, replan_stride,
                                       lambda text: plan_response(text, read, [root]))
    return StreamingFigures(big, smalls, preview, baseline, timed, replan, replanned,
                            len(large.text.encode()), len(small.text.encode()))


def title_counts(titles: list[str]) -> Counter:
    """Lens titles by their first word (✓, ✗, ⊘, =, ⋯, Apply, Preview)."""
    return Counter(title.split(" ", 1)[0] for title in titles if title)


def bench_streaming(**sizes: int) -> list[Row]:
    """Benchmark 8's rows (sizes as :func:`measure_streaming`'s keywords)."""
    name = "8 streaming"
    got = measure_streaming(**sizes)
    large, preview = got.large, got.preview
    small_latencies = [s for run in got.small for s in run.latencies]
    cpu_ratio = ratio(large.cpu, preview.cpu)
    base_ratio = ratio(got.baseline_cpu, preview.cpu)
    replan_ratio = ratio(got.replan_cpu, preview.cpu)
    p50, p99 = percentile(large.latencies, 50), percentile(large.latencies, 99)
    s50, s99 = percentile(small_latencies, 50), percentile(small_latencies, 99)
    chunk = sizes.get("chunk", 2_000)
    lenses = title_counts(large.titles)
    large_mb, small_mb = got.large_bytes / MB, got.small_bytes / MB
    return [
        Row(name, f"{large_mb:.2f} MB mixed response streamed in {chunk:,}-character chunks "
            f"({large.chunks} didChange + codeLens): server CPU", ms(large.cpu),
            note=f"last codeLens answer: {len(large.titles)} lenses {dict(lenses)}; "
            f"wall {ms(sum(large.latencies))}",
            data={"cpu": large.cpu, "chunks": large.chunks, "lenses": dict(lenses),
                  "seconds": large.latencies}),
        Row(name, "llmEdits.preview of the finished response: server CPU", ms(preview.cpu),
            note=f"median of the runs after the first ({ms(preview.cold_cpu)}); wall "
            f"{ms(preview.seconds)}; {dict(preview.statuses)}",
            data={"cpu": preview.cpu, "cold_cpu": preview.cold_cpu,
                  "statuses": dict(preview.statuses)}),
        Row(name, "streaming / one preview, server CPU", f"{cpu_ratio:.1f}x", "≤ 5x",
            cpu_ratio <= 5, data={"ratio": cpu_ratio}),
        Row(name, "baseline: parse_response of every prefix / one preview, CPU",
            f"{base_ratio:.0f}x", note=f"{ms(got.baseline_cpu)} of parsing ({got.baseline_timed} "
            f"prefixes timed, scaled to {large.chunks}); streaming costs "
            f"{ratio(large.cpu, got.baseline_cpu):.3f} of it",
            data={"cpu": got.baseline_cpu, "ratio": base_ratio, "timed": got.baseline_timed}),
        Row(name, "baseline: plan_response (parse and plan) of every prefix / one preview, CPU",
            f"{replan_ratio:.0f}x", note=f"{ms(got.replan_cpu)} ({got.replan_timed} prefixes "
            f"timed, scaled to {large.chunks}; files in memory); streaming costs "
            f"{ratio(large.cpu, got.replan_cpu):.3f} of it",
            data={"cpu": got.replan_cpu, "ratio": replan_ratio, "timed": got.replan_timed}),
        Row(name, f"latency per chunk (didChange → codeLens answer), {large_mb:.2f} MB: "
            "p50 / p99",
            f"{ms(p50)} / {ms(p99)}", "p99 ≤ 10 ms", p99 <= 0.010,
            f"max {ms(max(large.latencies))}", {"p50": p50, "p99": p99}),
        Row(name, f"same, {small_mb:.2f} MB: p50 / p99",
            f"{ms(s50)} / {ms(s99)}", note=f"{len(small_latencies)} chunks over "
            f"{len(got.small)} streams; max {ms(max(small_latencies))}",
            data={"p50": s50, "p99": s99, "seconds": small_latencies,
                  "chunks": [run.chunks for run in got.small]}),
        Row(name, "p99 large / p99 small", f"{ratio(p99, s99):.2f}", "≤ 2",
            ratio(p99, s99) <= 2, data={"ratio": ratio(p99, s99)}),
        *view_rows(name, large, large_mb),
        Row(name, f"last codeLens answer, {large_mb:.2f} MB: JSON size / the bench client's "
            "json.loads of it", f"{large.answer_chars / 1000:,.0f} KB / {ms(large.decode_seconds)}",
            note="inside each late chunk's latency (every lens, every time: LSP has no partial "
            "codeLens answer)",
            data={"chars": large.answer_chars, "decode": large.decode_seconds}),
    ]


def view_rows(name: str, run: StreamRun, size_mb: float) -> list[Row]:
    """The finished document's outline, links and a hover: round trips, p50 / max."""
    rows = []
    for method, seconds in run.views.items():
        if not seconds:
            continue
        what = method.split("/", 1)[1]
        size = run.view_sizes[method]
        rows.append(Row(name, f"{what} of the finished {size_mb:.2f} MB document: p50 / max",
                        f"{ms(percentile(seconds, 50))} / {ms(max(seconds))}",
                        note=f"{len(seconds)} requests; " + (
                            f"{size:,} characters" if what == "hover" else f"{size:,} items"),
                        data={"seconds": seconds, "size": size}))
    return rows
