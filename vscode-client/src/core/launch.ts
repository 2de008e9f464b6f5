/**
 * How the bundled server is started, and which Python may run it. Pure: the `vscode` side
 * (common/python.ts, common/server.ts) supplies the environment and runs the processes.
 */
import * as path from 'path';

export const MIN_PYTHON: readonly [number, number] = [3, 10];

/** Prints `3.11.7` without loading site-packages (the same `-S` the server runs with). */
export const VERSION_PROBE_ARGS = ['-S', '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'];

export interface PythonVersion {
  major: number;
  minor: number;
  micro: number;
}

export function parsePythonVersion(output: string): PythonVersion | undefined {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(output.trim());
  if (!match) {
    return undefined;
  }
  return { major: Number(match[1]), minor: Number(match[2]), micro: Number(match[3]) };
}

export function isSupportedPython(version: PythonVersion): boolean {
  const [major, minor] = MIN_PYTHON;
  return version.major > major || (version.major === major && version.minor >= minor);
}

export function formatVersion(version: PythonVersion): string {
  return `${version.major}.${version.minor}.${version.micro}`;
}

/** Where an interpreter candidate came from, in the order they are tried. */
export type InterpreterSource = 'setting' | 'python-extension' | 'path';

export interface InterpreterCandidate {
  source: InterpreterSource;
  command: string;
}

/**
 * The candidates, in order: the `llmEdits.interpreter` setting (when set, it is the only one: an
 * explicit choice that does not work must be reported, not silently replaced), else the Python
 * extension's active interpreter, else `python3` (`python` on Windows) on PATH.
 */
export function interpreterCandidates(
  setting: string,
  pythonExtensionInterpreter: string | undefined,
  platform: NodeJS.Platform = process.platform,
): InterpreterCandidate[] {
  if (setting) {
    return [{ source: 'setting', command: setting }];
  }
  const candidates: InterpreterCandidate[] = [];
  if (pythonExtensionInterpreter) {
    candidates.push({ source: 'python-extension', command: pythonExtensionInterpreter });
  }
  if (platform === 'win32') {
    candidates.push({ source: 'path', command: 'python' });
  } else {
    candidates.push({ source: 'path', command: 'python3' });
  }
  return candidates;
}

/** Expand `~` and `${workspaceFolder}` (and `${userHome}`) in a configured interpreter path. */
export function expandInterpreterPath(value: string, home: string, workspaceFolder: string | undefined): string {
  let result = value.trim();
  result = result.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    result = result.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (result === '~' || result.startsWith('~/') || result.startsWith('~\\')) {
    result = path.join(home, result.slice(1));
  }
  return result;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The server process: `python -S -m lsp_server` with only the extension's bundled libraries on
 * `sys.path`, so neither the user's site-packages nor their PYTHONPATH can shadow or break it.
 */
export function serverLaunch(
  python: string,
  extensionPath: string,
  baseEnv: NodeJS.ProcessEnv,
): ServerLaunch {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) {
    if (value !== undefined && key !== 'PYTHONPATH') {
      env[key] = value;
    }
  }
  env.PYTHONPATH = bundledLibsPath(extensionPath);
  env.PYTHONNOUSERSITE = '1';
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  return { command: python, args: ['-S', '-m', 'lsp_server'], env };
}

export function bundledLibsPath(extensionPath: string): string {
  return path.join(extensionPath, 'bundled', 'libs');
}
