import { strict as assert } from 'assert';
import type { DocumentChange } from '../../src/core/protocol';
import { applyTextEdits, offsetAt, previewFilesFromEdit } from '../../src/core/textEdits';

const range = (sl: number, sc: number, el: number, ec: number) => ({
  start: { line: sl, character: sc },
  end: { line: el, character: ec },
});

describe('offsetAt', () => {
  it('counts lines across LF, CRLF and CR', () => {
    const text = 'ab\r\ncd\nef\rgh';
    assert.equal(offsetAt(text, { line: 1, character: 1 }), 5);
    assert.equal(offsetAt(text, { line: 2, character: 0 }), 7);
    assert.equal(offsetAt(text, { line: 3, character: 2 }), 12);
  });

  it('clamps past the end of a line or of the text', () => {
    assert.equal(offsetAt('ab\ncd', { line: 0, character: 99 }), 2);
    assert.equal(offsetAt('ab\ncd', { line: 9, character: 0 }), 5);
  });

  it('uses UTF-16 code units, like LSP positions', () => {
    assert.equal(offsetAt('😀x\ny', { line: 0, character: 2 }), 2);
  });
});

describe('applyTextEdits', () => {
  it('applies edits given against the original text, in any order', () => {
    const text = 'one\ntwo\nthree\n';
    const edits = [
      { range: range(2, 0, 2, 5), newText: 'THREE' },
      { range: range(0, 0, 1, 0), newText: '' },
    ];
    assert.equal(applyTextEdits(text, edits), 'two\nTHREE\n');
  });

  it('keeps the given order for insertions at one place', () => {
    const edits = [
      { range: range(1, 0, 1, 0), newText: 'a\n' },
      { range: range(1, 0, 1, 0), newText: 'b\n' },
    ];
    assert.equal(applyTextEdits('x\ny\n', edits), 'x\na\nb\ny\n');
  });

  it('keeps CRLF text outside the edits', () => {
    assert.equal(applyTextEdits('a\r\nb\r\nc\r\n', [{ range: range(1, 0, 1, 1), newText: 'B' }]), 'a\r\nB\r\nc\r\n');
  });

  it('refuses overlapping edits', () => {
    assert.throws(() =>
      applyTextEdits('abcdef', [
        { range: range(0, 0, 0, 3), newText: 'x' },
        { range: range(0, 2, 0, 4), newText: 'y' },
      ]),
    );
  });
});

describe('previewFilesFromEdit', () => {
  const disk: Record<string, string> = {
    'file:///w/a.py': 'a = 1\nb = 2\n',
    'file:///w/old.py': 'x = 1\n',
    'file:///w/gone.py': 'bye\n',
  };
  const read = async (uri: string) => disk[uri];

  it('computes before/after texts for edits, creates, renames and deletes', async () => {
    const changes: DocumentChange[] = [
      { textDocument: { uri: 'file:///w/a.py', version: 3 }, edits: [{ range: range(1, 4, 1, 5), newText: '20' }] },
      { kind: 'create', uri: 'file:///w/new.py' },
      { textDocument: { uri: 'file:///w/new.py', version: null }, edits: [{ range: range(0, 0, 0, 0), newText: 'NEW = 1\n' }] },
      { kind: 'rename', oldUri: 'file:///w/old.py', newUri: 'file:///w/moved.py' },
      { textDocument: { uri: 'file:///w/moved.py', version: null }, edits: [{ range: range(0, 4, 0, 5), newText: '2' }] },
      { kind: 'delete', uri: 'file:///w/gone.py' },
    ];
    const files = await previewFilesFromEdit(changes, read);
    assert.deepEqual(files, [
      { uri: 'file:///w/a.py', kind: 'edit', oldText: 'a = 1\nb = 2\n', newText: 'a = 1\nb = 20\n' },
      { uri: 'file:///w/new.py', kind: 'create', oldText: '', newText: 'NEW = 1\n' },
      { uri: 'file:///w/old.py', kind: 'rename', oldText: 'x = 1\n', newText: 'x = 2\n', newUri: 'file:///w/moved.py' },
      { uri: 'file:///w/gone.py', kind: 'delete', oldText: 'bye\n', newText: '' },
    ]);
  });

  it('applies two TextDocumentEdits for one file one after the other', async () => {
    const changes: DocumentChange[] = [
      { textDocument: { uri: 'file:///w/a.py', version: 1 }, edits: [{ range: range(0, 0, 0, 0), newText: '# head\n' }] },
      { textDocument: { uri: 'file:///w/a.py', version: 1 }, edits: [{ range: range(0, 0, 0, 6), newText: '# HEAD' }] },
    ];
    const [file] = await previewFilesFromEdit(changes, read);
    assert.equal(file.newText, '# HEAD\na = 1\nb = 2\n');
  });
});
