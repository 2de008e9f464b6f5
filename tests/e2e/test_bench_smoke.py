"""The benchmark code itself works: the generator and every benchmark at a tiny size.

Behaviour only (what the benchmarks report and that their workloads are what they claim);
no assertion here is about speed. The real run is ``bench/run`` (docs/benchmarks.md).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]

from bench import benchmarks, codex_bench, generate, instructions, streaming  # noqa: E402
from bench.aider_env import aider_ready  # noqa: E402
from bench.codex_env import codex_ready  # noqa: E402
from lsp_server import FileSnapshot, parse_response, plan_response  # noqa: E402


def _reader(ws: generate.Workspace, root: Path):
    texts = {(root / rel).resolve(): ws.text(rel) for rel in ws.files}

    def read_file(path: Path) -> FileSnapshot:
        return FileSnapshot(text=texts.get(Path(path).resolve()))

    return read_file


def test_generator_is_deterministic_and_mixes_every_format() -> None:
    ws = generate.make_workspace(3, 140)
    first = generate.make_response(ws, n_blocks=14, seed=5)
    second = generate.make_response(generate.make_workspace(3, 140), n_blocks=14, seed=5)
    assert first.text == second.text
    assert first.per_format == {f: 2 for f in generate.ALL_FORMATS}
    other_seed = generate.make_response(ws, n_blocks=14, seed=6)
    assert other_seed.text != first.text


def test_generated_blocks_parse_as_their_formats_and_all_validate(tmp_path: Path) -> None:
    ws = generate.make_workspace(3, 140)
    response = generate.make_response(ws, n_blocks=21)
    parsed = parse_response(response.text)
    assert Counter(b.format for b in parsed.blocks) == Counter(response.per_format)
    plan = plan_response(response.text, _reader(ws, tmp_path), [tmp_path.resolve()])
    assert [b.status for b in plan.blocks] == ["validated"] * 21, [
        (b.format, b.reason) for b in plan.blocks if b.status != "validated"]


def test_stale_blocks_fail_and_the_rest_of_their_file_is_skipped(tmp_path: Path) -> None:
    ws = generate.make_workspace(1, 140)
    response = generate.make_response(ws, n_blocks=6, stale_every=3)
    plan = plan_response(response.text, _reader(ws, tmp_path), [tmp_path.resolve()])
    assert [b.status for b in plan.blocks] == ["validated"] * 2 + ["failed"] + ["skipped"] * 3


def test_size_targeted_response_reaches_its_size() -> None:
    ws = generate.make_workspace(2, 700)
    response = generate.make_response(ws, target_bytes=20_000)
    assert len(response.text.encode()) >= 20_000
    only_sr = response.only("search-replace")
    assert len(parse_response(only_sr).blocks) == response.per_format["search-replace"]


def test_stale_anchor_case_points_at_the_function() -> None:
    lines = generate.make_big_file(700)
    case = generate.stale_anchor_block(lines, 352)
    assert case.expected_line == 350
    assert case.must_match[0] == lines[350]
    assert case.must_match[1] != lines[351]  # the stale anchor line
    assert case.must_match[2:] == lines[352:355]


def test_parse_benchmark_counts_every_block() -> None:
    ws = generate.make_workspace(2, 700)
    response = generate.make_response(ws, n_blocks=28)
    rows = benchmarks.bench_parse(response, repeats=1, aider=False)
    assert rows[0].data["found"] == response.per_format
    assert rows[2].data["blocks"] == response.per_format["search-replace"]
    assert "skipped" in rows[-1].value


@pytest.mark.skipif(not aider_ready(), reason="bench/.venv-aider not created (bench/run)")
def test_aider_baseline_sees_the_same_blocks_as_ours() -> None:
    ws = generate.make_workspace(2, 700)
    response = generate.make_response(ws, n_blocks=28)
    rows = benchmarks.bench_parse(response, repeats=1, aider=True)
    by_measure = {r.measure.split(" ")[0]: r for r in rows}
    assert by_measure["aider"].data["blocks"] == 4
    assert rows[-1].met is not None


def test_preview_benchmark_drives_the_real_server() -> None:
    rows = benchmarks.bench_preview_scale(n_files=3, lines=70, n_blocks=6, repeats=1,
                                          stale_every=2)
    assert rows[0].data["statuses"] == {"validated": 6}
    stale = rows[1].data["statuses"]
    assert stale["failed"] >= 1 and stale["validated"] >= 1
    assert sum(stale.values()) == 6
    assert rows[2].data["statuses"] == [{"validated": n} for n in (6, 12, 24)]
    assert rows[3].data["statuses"] == [{"validated": 6}] * 3


def test_latency_benchmark_times_every_run() -> None:
    rows = benchmarks.bench_latency(runs=5, warmup=1, lines=140)
    assert len(rows[0].data["seconds"]) == 5
    assert rows[0].data["statuses"] == {"validated": 5}


def test_diagnosis_benchmark_finds_the_stale_block() -> None:
    rows = benchmarks.bench_diagnosis(n_lines=700, at=352, repeats=1, difflib_lines=70,
                                      rapidfuzz_lines=140)
    assert rows[0].data["status"] == "failed"
    assert abs(rows[0].data["line"] - rows[0].data["expected_line"]) <= 2
    assert rows[0].data["hint"]
    assert all(r.data["line"] == rows[0].data["expected_line"] for r in rows[1:])


def test_memory_benchmark_reads_the_server_peak() -> None:
    ws = generate.make_workspace(2, 140)
    response = generate.make_response(ws, n_blocks=7)
    rows = benchmarks.bench_memory(response, ws)
    assert rows[0].data["peak_kib"] >= rows[0].data["idle_kib"] > 0
    assert rows[1].data["statuses"] == {"validated": 7}


def test_locating_benchmark_agrees_with_its_baseline() -> None:
    rows = benchmarks.bench_locating(n_files=3, lines=140, n_blocks=12, repeats=1)
    assert rows[0].data["found"] == rows[0].data["blocks"] == 12
    assert rows[0].data["agree"] == 12


def test_streaming_benchmark_streams_a_response_into_a_response_document() -> None:
    rows = streaming.bench_streaming(size=12_000, small_size=3_000, chunk=1_000, n_files=3,
                                     lines=700, small_repeats=2, preview_repeats=1, stride=2,
                                     replan_stride=3, view_repeats=2)
    stream, preview, small = rows[0].data, rows[1].data, rows[6].data
    assert stream["chunks"] == len(stream["seconds"]) >= 12
    # The last lens answer: every block validated, as the preview of the whole text says,
    # but for the last ones while the text does not yet settle their end ("⋯ writing": the
    # document could still grow), which have no Preview lens.
    blocks = preview["statuses"]["validated"]
    assert preview["statuses"] == {"validated": blocks} and blocks >= 10
    lenses = stream["lenses"]
    assert lenses["Apply"] == 1 and lenses["✓"] + lenses.get("⋯", 0) == blocks
    assert lenses["Preview"] == lenses["✓"] >= blocks - 3
    assert len(small["chunks"]) == 2 and len(small["seconds"]) == sum(small["chunks"]) >= 6
    assert rows[3].data["timed"] >= 6 and rows[4].data["timed"] >= 4
    symbols, links, hover = (r.data for r in rows[8:11])
    # Every block listed, every checked one linked (one still being written has no link).
    assert symbols["size"] == blocks and links["size"] == lenses["✓"]
    assert hover["size"] > 0 and len(hover["seconds"]) == 2
    answer = rows[-1].data  # the last lens answer's JSON, and its decoding by the client
    assert answer["chars"] > 200 * blocks and answer["decode"] > 0


def test_stream_positions_follow_the_appended_text() -> None:
    end = streaming.EndPosition()
    for piece in ("ab", "c\nd😀", "\n", "xy"):
        end.advance(piece)
    assert end.json() == {"line": 2, "character": 2}
    end.advance("é😀")
    assert end.json() == {"line": 2, "character": 5}


def test_apply_patch_generator_updates_every_file_in_one_envelope() -> None:
    ws = generate.make_workspace(3, 140)
    patch = generate.make_apply_patch(ws, 4)
    parsed = parse_response(patch.text)
    assert [b.format for b in parsed.blocks] == ["apply-patch"] * 3
    assert [len(b.hunks) for b in parsed.blocks] == [4, 4, 4]
    assert patch.hunks == 12
    for rel, text in patch.after.items():
        changed = [a for a, b in zip(text.splitlines(), ws.files[rel], strict=True) if a != b]
        assert len(changed) == 4 and all(line.endswith("# tuned") for line in changed)
    near_end = generate.make_apply_patch(generate.make_workspace(1, 140), 1, near_end=True)
    assert "@@ def" in near_end.text.splitlines()[2] and "_18(" in near_end.text


def test_cli_benchmark_without_codex_applies_every_case_as_expected() -> None:
    rows = codex_bench.bench_codex(scale=0.01, repeats=1, budget=0, codex=False)
    assert rows[0].value == "skipped"
    applied = [r for r in rows if r.measure.endswith("llm-edits apply")]
    assert len(applied) == 3
    assert all(not r.data["problems"] for r in applied)
    assert rows[-1].data["returncodes"] == [0]  # check of the tiny patch: it matches


@pytest.mark.skipif(not codex_ready(), reason="bench/.codex not installed (bench/run)")
def test_codex_and_the_cli_write_the_same_bytes() -> None:
    rows = codex_bench.bench_codex(scale=0.01, repeats=1, budget=0)
    ratios = [r for r in rows if "/ Codex" in r.measure]
    assert len(ratios) == 3
    assert all(r.data["identical"] for r in ratios)
    assert all(r.data["cpu"] > 0 for r in rows if r.measure.endswith("Codex apply_patch"))


def _instruction_inputs(tmp_path: Path) -> Path:
    ws = generate.make_workspace(2, 140, seed=5)
    response = generate.make_response(ws, n_blocks=6, formats=("apply-patch", "edit-v3"))
    return instructions.write_inputs(tmp_path / "inputs", ws, response.text)


def test_instruction_workloads_run_the_public_api_of_a_checkout(tmp_path: Path) -> None:
    inputs = _instruction_inputs(tmp_path)
    checkout = instructions.Checkout(PROJECT_ROOT)
    parsed = instructions.in_process("parse", 2)(checkout, None, inputs)
    assert parsed.result == '{"blocks": {"apply-patch": 3, "edit-v3": 3}}'
    planned = instructions.in_process("plan", 2)(checkout, None, inputs)
    assert planned.result == '{"validated": 6}'
    applied = instructions.cli("apply", "--root", "{tree}", "{response}")(checkout, None, inputs)
    untouched = instructions.tree_digest(inputs / "tree")
    assert applied.result != untouched  # the copy was written, the inputs were not


def test_instruction_counter_counts_a_workload(tmp_path: Path) -> None:
    try:
        counter = instructions.find_counter(None)
    except SystemExit as missing:
        pytest.skip(str(missing))
    inputs = _instruction_inputs(tmp_path)
    measured = instructions.in_process("parse", 1)(instructions.Checkout(PROJECT_ROOT),
                                                   counter, inputs)
    assert measured.instructions > 0
    assert measured.result == '{"blocks": {"apply-patch": 3, "edit-v3": 3}}'
