import { strict as assert } from 'assert';
import { editedVersions, urisToSave, type WorkspaceEdit } from '../../src/core/protocol';

const edit: WorkspaceEdit = {
  documentChanges: [
    { textDocument: { uri: 'file:///w/a.py', version: 7 }, edits: [] },
    { textDocument: { uri: 'file:///w/b.py', version: null }, edits: [] },
    { kind: 'create', uri: 'file:///w/c.py' },
    { textDocument: { uri: 'file:///w/c.py', version: null }, edits: [] },
    { textDocument: { uri: 'file:///w/d.py', version: null }, edits: [] },
    { kind: 'rename', oldUri: 'file:///w/d.py', newUri: 'file:///w/e.py' },
    { kind: 'delete', uri: 'file:///w/f.py' },
  ],
};

describe('WorkspaceEdit helpers', () => {
  it('saves final files: edited, created, renamed to their new name; never deleted ones', () => {
    assert.deepEqual(urisToSave(edit), ['file:///w/a.py', 'file:///w/b.py', 'file:///w/c.py', 'file:///w/e.py']);
  });

  it('records the buffer versions the edit was computed against', () => {
    const versions = editedVersions(edit);
    assert.equal(versions.get('file:///w/a.py'), 7);
    assert.equal(versions.get('file:///w/b.py'), null);
    assert.equal(versions.has('file:///w/f.py'), false);
  });
});
