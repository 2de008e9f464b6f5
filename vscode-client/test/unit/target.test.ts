import { strict as assert } from 'assert';
import { canBeTarget, chooseTarget, LastTarget, type EditorState } from '../../src/core/target';
import { toCommandOptions, normalizeSettings } from '../../src/core/options';

const code: EditorState = { uri: 'file:///w/conf/store.py', scheme: 'file', isResponse: false, selection: '' };
const answer: EditorState = { uri: 'untitled:Untitled-1', scheme: 'untitled', isResponse: true, selection: '' };

describe('chooseTarget', () => {
  it('targets the active editor and reads the answer from the clipboard', () => {
    assert.deepEqual(chooseTarget(code, undefined), { target: code.uri, from: 'clipboard' });
    // A selection in the file being edited is part of that file, not the answer.
    assert.deepEqual(chooseTarget({ ...code, selection: 'x = 1' }, undefined), { target: code.uri, from: 'clipboard' });
  });

  it('from a response, targets the last editor and reads the selection, else the clipboard', () => {
    assert.deepEqual(chooseTarget({ ...answer, selection: '```py\nx\n```' }, code.uri), {
      target: code.uri,
      from: 'selection',
      selection: '```py\nx\n```',
    });
    assert.deepEqual(chooseTarget(answer, code.uri), { target: code.uri, from: 'clipboard' });
  });

  it('says what to do when there is no file to target', () => {
    assert.match((chooseTarget(answer, undefined) as { problem: string }).problem, /open the file/);
    const untitled = { ...code, uri: 'untitled:Untitled-2', scheme: 'untitled' };
    assert.match((chooseTarget(untitled, undefined) as { problem: string }).problem, /save it first/);
    assert.match((chooseTarget(undefined, undefined) as { problem: string }).problem, /open the file/);
    assert.deepEqual(chooseTarget(undefined, code.uri), { target: code.uri, from: 'clipboard' });
  });
});

describe('LastTarget', () => {
  it('remembers the last file editor, never a response or a non-file document', () => {
    const last = new LastTarget();
    last.visit(code);
    last.visit(answer);
    last.visit({ ...code, uri: 'git:/w/conf/store.py', scheme: 'git' });
    last.visit(undefined);
    assert.equal(last.current, code.uri);
    last.visit({ ...code, uri: 'file:///w/app.py' });
    assert.equal(last.current, 'file:///w/app.py');
    last.closed('file:///w/other.py');
    assert.equal(last.current, 'file:///w/app.py');
    last.closed('file:///w/app.py');
    assert.equal(last.current, undefined);
  });

  it('a watched document is a response', () => {
    assert.equal(canBeTarget({ scheme: 'file', isResponse: true }), false);
    assert.equal(canBeTarget({ scheme: 'file', isResponse: false }), true);
  });
});

describe('target in the command options', () => {
  it('is sent only when given', () => {
    const settings = normalizeSettings({});
    assert.equal(toCommandOptions(settings).target, undefined);
    assert.equal(toCommandOptions(settings, { target: code.uri }).target, code.uri);
    // code-block is a default format: the default set sends no formats.
    assert.equal(toCommandOptions(settings).formats, undefined);
    assert.ok(settings.formats.includes('code-block'));
  });
});

describe('lens runs with a target', () => {
  it('carry the target of an "Apply to <file>" lens and refuse a bad one', async () => {
    const { lensRunOf, asLensRun } = await import('../../src/core/responseDocuments');
    const argument = { responseUri: 'file:///w/a.llm.md', options: { blocks: [1], target: code.uri } };
    const run = lensRunOf('llmEdits.apply', [argument]);
    assert.deepEqual(run, { action: 'apply', responseUri: 'file:///w/a.llm.md', blocks: [1], target: code.uri });
    assert.deepEqual(asLensRun(run), run);
    assert.equal(lensRunOf('llmEdits.apply', [{ ...argument, options: { target: 3 } }]), undefined);
    assert.deepEqual(lensRunOf('llmEdits.apply', [{ responseUri: 'u' }]), { action: 'apply', responseUri: 'u' });
  });
});
