import { strict as assert } from 'assert';
import { changedSincePreview } from '../../src/core/staleness';

describe('changedSincePreview', () => {
  it('compares buffer versions when the preview was computed against an open buffer', () => {
    assert.equal(changedSincePreview(4, 'a\n', { openVersion: 4, text: 'a\n' }), false);
    assert.equal(changedSincePreview(4, 'a\n', { openVersion: 5, text: 'a\n' }), true);
  });

  it('compares texts for a file read from disk (or a buffer closed since)', () => {
    assert.equal(changedSincePreview(null, 'a\n', { text: 'a\n' }), false);
    assert.equal(changedSincePreview(null, 'a\n', { openVersion: 1, text: 'a\nb\n' }), true);
    assert.equal(changedSincePreview(7, 'a\n', { text: 'a\n' }), false);
  });

  it('ignores line-ending style and a BOM, which the editor may present differently', () => {
    assert.equal(changedSincePreview(null, 'a\r\nb\r\n', { text: 'a\nb\n' }), false);
    assert.equal(changedSincePreview(null, '\uFEFFa\n', { text: 'a\n' }), false);
  });

  it('treats a file that appeared or vanished as changed', () => {
    assert.equal(changedSincePreview(null, 'a\n', { text: undefined }), true);
    assert.equal(changedSincePreview(undefined, '', { text: 'new content\n' }), true);
  });

  it('cannot tell without a version or the old text (the server re-validates)', () => {
    assert.equal(changedSincePreview(undefined, undefined, { text: 'x' }), false);
  });
});
