import { strict as assert } from 'assert';
import type { FileText } from '../../src/core/protocol';
import { hasChanges, runChanges } from '../../src/core/runChanges';

const ROOT = 'file:///home/u/project';

const files: FileText[] = [
  { uri: `${ROOT}/src/a.py`, kind: 'edit', oldText: 'a = 1\n', newText: 'a = 2\n' },
  { uri: `${ROOT}/src/new.py`, kind: 'create', oldText: '', newText: 'VALUE = 42\n' },
  { uri: `${ROOT}/src/old.py`, newUri: `${ROOT}/src/moved.py`, kind: 'rename', oldText: 'x\n', newText: 'y\n' },
  { uri: `${ROOT}/src/gone.py`, kind: 'delete', oldText: 'z\n', newText: '' },
];

describe('runChanges', () => {
  it("diffs each changed file's text before the run against the file now", () => {
    assert.deepEqual(runChanges({ applied: true, files })[0], {
      uri: `${ROOT}/src/a.py`,
      before: { uri: `${ROOT}/src/a.py`, text: 'a = 1\n' },
      after: `${ROOT}/src/a.py`,
    });
  });

  it('shows a created file as added, a deleted one as removed, a renamed one under its new name', () => {
    const [, created, renamed, deleted] = runChanges({ applied: true, files });
    assert.deepEqual(created, { uri: `${ROOT}/src/new.py`, before: undefined, after: `${ROOT}/src/new.py` });
    assert.deepEqual(renamed, {
      uri: `${ROOT}/src/moved.py`,
      before: { uri: `${ROOT}/src/old.py`, text: 'x\n' },
      after: `${ROOT}/src/moved.py`,
    });
    assert.deepEqual(deleted, { uri: `${ROOT}/src/gone.py`, before: { uri: `${ROOT}/src/gone.py`, text: 'z\n' }, after: undefined });
  });

  it('has nothing to show for a run that applied nothing, or without the texts', () => {
    assert.deepEqual(runChanges({ applied: false, files }), []);
    assert.deepEqual(runChanges({ files }), [], 'a preview has no "applied"');
    assert.deepEqual(runChanges({ applied: true }), []);
    assert.equal(hasChanges({ applied: true, files: [] }), false);
    assert.equal(hasChanges({ applied: true, files }), true);
  });
});
