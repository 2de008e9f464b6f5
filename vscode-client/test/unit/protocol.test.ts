import { strict as assert } from 'assert';
import { editedVersions, urisToSave, type EditResult, type WorkspaceEdit } from '../../src/core/protocol';

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

describe('EditResult', () => {
  // A preview's result as lsp_server sends it (captured from the server, URIs shortened; block 4
  // as the already-applied status and seed 001's previews are sent), as a
  // typed literal: if a field's type in protocol.ts drifts from the server's JSON (e.g. `fixes`
  // declared an array), this file no longer compiles.
  const sent: EditResult = {
    edit: {
      documentChanges: [
        {
          textDocument: { uri: 'file:///w/src/app.py', version: 3 },
          edits: [{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: '    return "hello " + name\n' }],
        },
        { kind: 'create', uri: 'file:///w/new.py' },
        { textDocument: { uri: 'file:///w/new.py', version: null }, edits: [] },
      ],
    },
    blocks: [
      {
        index: 0, file: 'src/app.py', uri: 'file:///w/src/app.py', format: 'search-replace', status: 'validated',
        reason: null, line: 0, match: 'exact', responseLine: 0, hint: null, fixes: {},
      },
      {
        index: 1, file: 'src/app.py', uri: 'file:///w/src/app.py', format: 'search-replace', status: 'failed',
        reason: 'Old lines not found in file', line: 4, match: null, responseLine: 9,
        hint: "copy the lines' whitespace exactly, or apply with whitespace tolerance",
        fixes: { matching: 'whitespace', closestLine: 4 },
      },
      {
        index: 2, file: 'b.py', uri: 'file:///w/b.py', format: 'unified-diff', status: 'validated',
        reason: null, line: 12, match: 'exact', responseLine: 18, hint: null, fixes: {}, offset: -2,
      },
      {
        index: 3, file: '../out.py', uri: null, format: 'edit-v3', status: 'failed',
        reason: 'path is outside the workspace', line: 0, match: null, responseLine: 30, hint: null, fixes: {},
      },
      {
        index: 4, file: 'src/app.py', uri: 'file:///w/src/app.py', format: 'edit-v3', status: 'already-applied',
        reason: null, line: 0, match: 'exact', responseLine: 36, hint: null, fixes: {},
        anchorPreview: 'def greet(name):', oldPreview: '    return "hi " + name', newPreview: '    return "hello " + name',
      },
    ],
    shellSuggestions: ['git rm old.py'],
    warnings: [{ responseLine: 40, message: 'block is not closed' }],
    runId: '3f2a9c81d0e4',
  };

  it('reads fixes as an object keyed by fix, as the server sends them', () => {
    assert.deepEqual(sent.blocks[1].fixes, { matching: 'whitespace', closestLine: 4 });
    assert.equal(sent.blocks[0].fixes.closestLine, undefined);
    assert.deepEqual(urisToSave(sent.edit), ['file:///w/src/app.py', 'file:///w/new.py']);
  });
});
