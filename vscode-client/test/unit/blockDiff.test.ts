import { strict as assert } from 'assert';
import { blockDiff, blockDiffTitle } from '../../src/core/blockDiff';
import type { BlockResult, FileText } from '../../src/core/protocol';

const ROOT = 'file:///home/u/project';

function block(partial: Pick<BlockResult, 'status'> & Partial<BlockResult>): BlockResult {
  return {
    index: 0, file: 'src/a.py', uri: `${ROOT}/src/a.py`, format: 'edit-v3', reason: null, line: 4, match: 'exact',
    responseLine: 0, hint: null, fixes: {}, ...partial,
  };
}

const files: FileText[] = [
  { uri: `${ROOT}/src/a.py`, kind: 'edit', oldText: 'a\nb\n', newText: 'a\nB\n' },
  { uri: `${ROOT}/src/old.py`, newUri: `${ROOT}/src/new.py`, kind: 'rename', oldText: 'x\n', newText: 'y\n' },
  { uri: `${ROOT}/src/gone.py`, kind: 'delete', oldText: 'z\n', newText: '' },
  { uri: `${ROOT}/src/made.py`, kind: 'create', oldText: '', newText: 'm\n' },
];

describe('blockDiff', () => {
  it('shows an applied block as the text before the run against the file itself, at its line', () => {
    assert.deepEqual(blockDiff(block({ status: 'applied' }), files), {
      uri: `${ROOT}/src/a.py`,
      before: { kind: 'text', uri: `${ROOT}/src/a.py`, text: 'a\nb\n' },
      after: { kind: 'file', uri: `${ROOT}/src/a.py` },
      line: 4,
    });
  });

  it('shows a validated block (a preview, or an edit the editor refused) against the proposed text', () => {
    const diff = blockDiff(block({ status: 'validated' }), files);
    assert.deepEqual(diff?.after, { kind: 'text', uri: `${ROOT}/src/a.py`, text: 'a\nB\n' });
  });

  it('follows a rename to the new name and shows a deleted file against nothing', () => {
    const renamed = blockDiff(block({ status: 'applied', uri: `${ROOT}/src/old.py` }), files);
    assert.equal(renamed?.uri, `${ROOT}/src/new.py`);
    assert.deepEqual(renamed?.after, { kind: 'file', uri: `${ROOT}/src/new.py` });
    const deleted = blockDiff(block({ status: 'applied', uri: `${ROOT}/src/gone.py`, line: 0 }), files);
    assert.deepEqual(deleted?.after, { kind: 'text', uri: `${ROOT}/src/gone.py`, text: '' });
  });

  it('shows a created file against an empty before', () => {
    const created = blockDiff(block({ status: 'applied', uri: `${ROOT}/src/made.py`, line: 0 }), files);
    assert.deepEqual(created?.before, { kind: 'text', uri: `${ROOT}/src/made.py`, text: '' });
  });

  it('matches URIs as VS Code and the server spell them differently', () => {
    const windows: FileText[] = [{ uri: 'file:///c%3A/w/a.py', kind: 'edit', oldText: '', newText: 'x\n' }];
    assert.ok(blockDiff(block({ status: 'applied', uri: 'file:///C:/w/a.py' }), windows));
  });

  it('has no diff for a block that changed nothing, or without the run\'s texts', () => {
    for (const status of ['failed', 'skipped', 'already-applied'] as const) {
      assert.equal(blockDiff(block({ status }), files), undefined, status);
    }
    assert.equal(blockDiff(block({ status: 'applied' }), undefined), undefined);
    assert.equal(blockDiff(block({ status: 'applied', uri: null }), files), undefined);
    assert.equal(blockDiff(block({ status: 'applied', uri: `${ROOT}/src/other.py` }), files), undefined);
  });
});

describe('blockDiffTitle', () => {
  it('names the file and whether the right side is the file now or the proposed text', () => {
    assert.equal(blockDiffTitle(blockDiff(block({ status: 'applied' }), files)!, [ROOT]), 'src/a.py (LLM Edits: before ↔ now)');
    assert.equal(blockDiffTitle(blockDiff(block({ status: 'validated' }), files)!, [ROOT]), 'src/a.py (LLM Edits: before ↔ proposed)');
  });
});
