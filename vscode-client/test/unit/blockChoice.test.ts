import { strict as assert } from 'assert';
import { blockChoices, choiceOf, knownBlocks } from '../../src/core/blockChoice';
import type { BlockResult } from '../../src/core/protocol';

const ROOT = 'file:///home/u/project';

function block(partial: Pick<BlockResult, 'index' | 'status'> & Partial<BlockResult>): BlockResult {
  return {
    file: 'src/a.py', uri: `${ROOT}/src/a.py`, format: 'search-replace', reason: null, line: null, match: null,
    responseLine: 0, hint: null, fixes: {}, ...partial,
  };
}

// A preview of four blocks: two ready, one failed, one already applied.
const firstRun = [
  block({ index: 0, status: 'validated', line: 0, responseLine: 2, oldPreview: 'ONE = 1', newPreview: 'ONE = 10' }),
  block({ index: 1, status: 'validated', line: 1, responseLine: 9, oldPreview: 'TWO = 2', newPreview: 'TWO = 20' }),
  block({ index: 2, status: 'failed', line: 5, responseLine: 16, reason: 'Old lines not found in file' }),
  block({ index: 3, status: 'already-applied', file: 'src/b.py', uri: `${ROOT}/src/b.py`, line: 3, responseLine: 23 }),
];

describe('knownBlocks', () => {
  it('keeps what an earlier run said of the blocks the latest run left out', () => {
    const rerun = [
      block({ index: 0, status: 'excluded' }),
      block({ index: 1, status: 'validated', line: 1, responseLine: 9 }),
      block({ index: 2, status: 'excluded' }),
      block({ index: 3, status: 'excluded' }),
    ];
    assert.deepEqual(knownBlocks(firstRun, rerun).map((b) => b.status), ['validated', 'validated', 'failed', 'already-applied']);
    assert.equal(knownBlocks(firstRun, rerun)[1], rerun[1], 'a block that ran takes its latest result');
  });

  it('takes a new result over an old one, even a worse one (a block that needed an excluded one)', () => {
    const rerun = [block({ index: 0, status: 'excluded' }), block({ index: 1, status: 'failed', reason: 'Old lines not found in file' })];
    const known = knownBlocks(firstRun, rerun);
    assert.equal(known[1].status, 'failed');
    assert.equal(known[0].status, 'validated');
  });

  it('lists a block known only as excluded (nothing else is known), sorted by index', () => {
    const known = knownBlocks([], [block({ index: 1, status: 'excluded' }), block({ index: 0, status: 'validated' })]);
    assert.deepEqual(known.map((b) => [b.index, b.status]), [[0, 'validated'], [1, 'excluded']]);
  });
});

describe('blockChoices', () => {
  it('ticks the blocks that would change a file when nothing was chosen yet', () => {
    const choices = blockChoices(firstRun, undefined, [ROOT]);
    assert.deepEqual(choices.map((c) => [c.index, c.picked]), [[0, true], [1, true], [2, false], [3, false]]);
  });

  it('ticks the current choice when there is one', () => {
    assert.deepEqual(blockChoices(firstRun, [1, 2], [ROOT]).map((c) => c.picked), [false, true, true, false]);
  });

  it('names each block (1-based, as the annotations do), its file:line, status, format, response line, reason and previews', () => {
    const [ready, , failed, done] = blockChoices(firstRun, undefined, [ROOT]);
    assert.equal(ready.label, '$(pass) Block 1 · src/a.py:1');
    assert.equal(ready.description, 'ready · search-replace · response line 3', 'as the preview calls validated blocks');
    assert.equal(ready.detail, 'old: ONE = 1 · new: ONE = 10');
    assert.equal(failed.label, '$(error) Block 3 · src/a.py:6');
    assert.equal(failed.detail, 'Old lines not found in file');
    assert.equal(done.label, '$(history) Block 4 · src/b.py:4');
    assert.equal(done.description, 'already applied · search-replace · response line 24');
    assert.equal(done.detail, undefined);
  });

  it('escapes $( in paths and previews from the response', () => {
    const [choice] = blockChoices([block({ index: 0, status: 'validated', file: '$(x).py', uri: null, newPreview: 'echo $(pwd)' })], undefined, [ROOT]);
    assert.equal(choice.label, '$(pass) Block 1 · \\$(x).py');
    assert.equal(choice.detail, 'new: echo \\$(pwd)');
  });
});

describe('choiceOf', () => {
  const all = [0, 1, 2, 3];
  it('is "all" when every block is picked (no options.blocks is sent)', () => {
    assert.deepEqual(choiceOf([3, 1, 0, 2], all), { kind: 'all' });
  });

  it('lists some blocks sorted, without duplicates or unknown indices', () => {
    assert.deepEqual(choiceOf([2, 0, 2, 7], all), { kind: 'some', blocks: [0, 2] });
  });

  it('is "none" when nothing (known) is picked', () => {
    assert.deepEqual(choiceOf([], all), { kind: 'none' });
    assert.deepEqual(choiceOf([9], all), { kind: 'none' });
  });
});
