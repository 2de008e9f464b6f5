import { strict as assert } from 'assert';
import { shellActionLabel, shellConfirmation, terminalIsReusable } from '../../src/core/shell';

describe('shellActionLabel', () => {
  it('names the count of suggested commands', () => {
    assert.equal(shellActionLabel(2), 'Shell Commands (2)…');
  });
});

describe('shellConfirmation', () => {
  it('shows the command exactly as written and the folder it runs in', () => {
    const { message, detail } = shellConfirmation('git mv "a b.py" c.py', '/home/u/project');
    assert.ok(message.endsWith('\n\ngit mv "a b.py" c.py'));
    assert.equal(detail, 'It runs in /home/u/project, exactly as written.');
  });

  it('says where it runs when no folder is open', () => {
    assert.match(shellConfirmation('mkdir -p build', undefined).detail, /terminal's default folder/);
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
