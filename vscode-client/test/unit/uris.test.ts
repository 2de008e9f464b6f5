import { strict as assert } from 'assert';
import { displayPath, normalizeUri, parsePreviewQuery, previewQuery, sameUri } from '../../src/core/uris';

describe('displayPath', () => {
  it('shows paths relative to the only workspace folder, decoded', () => {
    assert.equal(displayPath('file:///home/u/my%20proj/src/a%20b.py', ['file:///home/u/my%20proj']), 'src/a b.py');
    assert.equal(displayPath('file:///home/u/p/x.py', ['file:///home/u/p/']), 'x.py');
  });

  it('prefixes the folder name when there are several folders', () => {
    const folders = ['file:///w/api', 'file:///w/web'];
    assert.equal(displayPath('file:///w/web/index.ts', folders), 'web/index.ts');
  });

  it('does not treat a sibling folder with a common prefix as inside', () => {
    assert.equal(displayPath('file:///w/api2/x.py', ['file:///w/api']), '/w/api2/x.py');
  });

  it('shows Windows drive paths without the leading slash, and other schemes as they are', () => {
    assert.equal(displayPath('file:///c%3A/Users/x.py', []), 'c:/Users/x.py');
    assert.equal(displayPath('untitled:Untitled-1', []), 'untitled:Untitled-1');
  });
});

describe('preview query', () => {
  it('round-trips the session and side', () => {
    assert.deepEqual(parsePreviewQuery(previewQuery('k3x-1', 'new')), { sessionId: 'k3x-1', side: 'new' });
    assert.deepEqual(parsePreviewQuery(previewQuery('a&b=c', 'old')), { sessionId: 'a&b=c', side: 'old' });
  });

  it('rejects queries that are not ours', () => {
    assert.equal(parsePreviewQuery(''), undefined);
    assert.equal(parsePreviewQuery('session=x&side=middle'), undefined);
    assert.equal(parsePreviewQuery('side=new'), undefined);
  });
});

describe('sameUri', () => {
  it('matches the spellings VS Code and a server use for one file', () => {
    assert.ok(sameUri('file:///c%3A/x/a.py', 'file:///C:/x/a.py'));
    assert.ok(sameUri('file:///home/a%20b.py', 'file:///home/a b.py'));
    assert.ok(!sameUri('file:///home/a.py', 'file:///home/b.py'));
    assert.equal(normalizeUri('file:///D:/x'), 'file:///d:/x');
  });
});
