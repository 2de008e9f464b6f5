// Bundle the Python side into the extension: `pip install --target bundled/libs` of the server
// package (lsp_server, from the repository root) and all its dependencies, so the extension runs
// it with `python -S` and PYTHONPATH=bundled/libs, isolated from the user's environments.
//
// The package is copied to a temporary directory first, so building it never writes into the
// checkout (build/, *.egg-info) where others may be working.
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionRoot = path.resolve(here, '..');
const repoRoot = path.resolve(extensionRoot, '..');
const libs = path.join(extensionRoot, 'bundled', 'libs');
const python = process.env.PYTHON || 'python3';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) {
    throw result.error;
  }
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
  }
  return result;
}

// --if-changed: skip the install when the package, the interpreter and this script are the same
// as for the bundle already there (the test script's warm runs).
const stampFile = path.join(extensionRoot, 'bundled', '.libs-stamp');
const stamp = bundleStamp();
if (process.argv.includes('--if-changed') && fs.existsSync(libs) && readStamp() === stamp) {
  console.log('bundle-python: bundled/libs is up to date');
  process.exit(0);
}

function readStamp() {
  try {
    return fs.readFileSync(stampFile, 'utf8');
  } catch {
    return '';
  }
}

function bundleStamp() {
  const hash = crypto.createHash('sha256');
  const version = spawnSync(python, ['-c', 'import sys; print(sys.version)'], { encoding: 'utf8' });
  hash.update(`${python}\n${version.stdout}\n`);
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  const files = [path.join(repoRoot, 'pyproject.toml')];
  for (const entry of fs.readdirSync(path.join(repoRoot, 'lsp_server'), { recursive: true, withFileTypes: true })) {
    const dir = entry.parentPath ?? entry.path;
    if (entry.isFile() && !dir.includes('__pycache__') && !entry.name.endsWith('.pyc')) {
      files.push(path.join(dir, entry.name));
    }
  }
  for (const file of files.sort()) {
    hash.update(`${path.relative(repoRoot, file)}\n`);
    hash.update(fs.readFileSync(file));
  }
  return hash.digest('hex');
}

const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'llm-edits-bundle-'));
try {
  for (const name of ['pyproject.toml', 'README.md', 'LICENSE', 'LICENSE.txt']) {
    if (fs.existsSync(path.join(repoRoot, name))) {
      fs.copyFileSync(path.join(repoRoot, name), path.join(staging, name));
    }
  }
  fs.cpSync(path.join(repoRoot, 'lsp_server'), path.join(staging, 'lsp_server'), {
    recursive: true,
    filter: (source) => !source.includes('__pycache__'),
  });
  if (!fs.existsSync(path.join(staging, 'README.md'))) {
    fs.writeFileSync(path.join(staging, 'README.md'), 'LLM Edits language server\n');
  }
  fs.rmSync(libs, { recursive: true, force: true });
  fs.mkdirSync(libs, { recursive: true });
  console.log(`bundle-python: ${python} -m pip install --target ${path.relative(process.cwd(), libs)} lsp_server + dependencies`);
  run(python, [
    '-m', 'pip', 'install',
    '--disable-pip-version-check', '--no-input', '--quiet', '--no-compile',
    '--no-user', '--no-warn-script-location', '--root-user-action=ignore',
    '--target', libs,
    staging,
  ], { env: { ...process.env, PIP_USER: '0', PIP_REQUIRE_VIRTUALENV: '0' } });
} finally {
  fs.rmSync(staging, { recursive: true, force: true });
}

// Console scripts carry the build machine's interpreter in their shebang: useless to users.
fs.rmSync(path.join(libs, 'bin'), { recursive: true, force: true });
for (const entry of fs.readdirSync(libs, { recursive: true, withFileTypes: true })) {
  if (entry.isDirectory() && entry.name === '__pycache__') {
    fs.rmSync(path.join(entry.parentPath ?? entry.path, entry.name), { recursive: true, force: true });
  }
}

// The extension starts the server exactly like this; fail the build if that cannot work.
run(python, ['-S', '-c', 'import lsp_server.server, pygls, lsprotocol, rapidfuzz; print("bundle-python: lsp_server imports with -S")'], {
  env: { ...process.env, PYTHONPATH: libs, PYTHONDONTWRITEBYTECODE: '1' },
});
fs.writeFileSync(stampFile, stamp);
