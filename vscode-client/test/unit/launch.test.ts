import { strict as assert } from 'assert';
import * as path from 'path';
import {
  expandInterpreterPath,
  interpreterCandidates,
  isSupportedPython,
  parsePythonVersion,
  serverLaunch,
} from '../../src/core/launch';

describe('parsePythonVersion / isSupportedPython', () => {
  it('reads the probe output', () => {
    assert.deepEqual(parsePythonVersion('3.11.7\n'), { major: 3, minor: 11, micro: 7 });
    assert.equal(parsePythonVersion('Python'), undefined);
  });

  it('requires 3.10 or newer', () => {
    assert.equal(isSupportedPython({ major: 3, minor: 9, micro: 18 }), false);
    assert.equal(isSupportedPython({ major: 3, minor: 10, micro: 0 }), true);
    assert.equal(isSupportedPython({ major: 3, minor: 13, micro: 1 }), true);
    assert.equal(isSupportedPython({ major: 2, minor: 7, micro: 18 }), false);
    assert.equal(isSupportedPython({ major: 4, minor: 0, micro: 0 }), true);
  });
});

describe('interpreterCandidates', () => {
  it('uses only the setting when it is set', () => {
    assert.deepEqual(interpreterCandidates('/opt/py/bin/python', '/venv/bin/python', 'linux'), [
      { source: 'setting', command: '/opt/py/bin/python' },
    ]);
  });

  it('else tries the Python extension\'s interpreter, then python3 on PATH', () => {
    assert.deepEqual(interpreterCandidates('', '/venv/bin/python', 'linux'), [
      { source: 'python-extension', command: '/venv/bin/python' },
      { source: 'path', command: 'python3' },
    ]);
    assert.deepEqual(interpreterCandidates('', undefined, 'darwin'), [{ source: 'path', command: 'python3' }]);
    assert.deepEqual(interpreterCandidates('', undefined, 'win32'), [{ source: 'path', command: 'python' }]);
  });
});

describe('expandInterpreterPath', () => {
  it('expands ~, ${userHome} and ${workspaceFolder}', () => {
    assert.equal(expandInterpreterPath('~/.venvs/x/bin/python', '/home/u', undefined), path.join('/home/u', '.venvs/x/bin/python'));
    assert.equal(expandInterpreterPath('${userHome}/py', '/home/u', undefined), '/home/u/py');
    assert.equal(expandInterpreterPath('${workspaceFolder}/.venv/bin/python', '/h', '/w/proj'), '/w/proj/.venv/bin/python');
  });

  it('leaves ${workspaceFolder} alone without a folder, and other paths unchanged', () => {
    assert.equal(expandInterpreterPath('${workspaceFolder}/py', '/h', undefined), '${workspaceFolder}/py');
    assert.equal(expandInterpreterPath(' /usr/bin/python3 ', '/h', '/w'), '/usr/bin/python3');
    assert.equal(expandInterpreterPath('a~b', '/h', '/w'), 'a~b');
  });
});

describe('serverLaunch', () => {
  it('runs `python -S -m lsp_server` with only the bundled libs on PYTHONPATH', () => {
    const launch = serverLaunch('/usr/bin/python3', '/ext', { PATH: '/usr/bin', PYTHONPATH: '/user/site', UNSET: undefined });
    assert.equal(launch.command, '/usr/bin/python3');
    assert.deepEqual(launch.args, ['-S', '-m', 'lsp_server']);
    assert.equal(launch.env.PYTHONPATH, path.join('/ext', 'bundled', 'libs'));
    assert.equal(launch.env.PATH, '/usr/bin');
    assert.equal(launch.env.PYTHONNOUSERSITE, '1');
    assert.equal(launch.env.PYTHONIOENCODING, 'utf-8');
    assert.ok(!('UNSET' in launch.env));
  });
});
