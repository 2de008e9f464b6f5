/**
 * Choosing the Python that runs the bundled server: the `llmEdits.interpreter` setting, else the
 * Python extension's active interpreter (when `ms-python.python` is installed; optional), else
 * `python3` on PATH. Each candidate's version is checked (>= 3.10) before it is used.
 */
import { execFile } from 'child_process';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  expandInterpreterPath,
  formatVersion,
  interpreterCandidates,
  isSupportedPython,
  MIN_PYTHON,
  parsePythonVersion,
  VERSION_PROBE_ARGS,
  type InterpreterCandidate,
  type PythonVersion,
} from '../core/launch';
import { errorMessage, outputChannel } from './log';
import { getSettings } from './settings';

/** The part of the Python extension's API we use (its `environments` API). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(
      environment: { id: string; path: string } | string,
    ): Promise<{ executable: { uri: vscode.Uri | undefined } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION_ID = 'ms-python.python';

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch (error) {
    outputChannel().warn(`Python extension could not be activated: ${errorMessage(error)}`);
    return undefined;
  }
}

/** The Python extension's active interpreter for the first workspace folder, if any. */
export async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const api = await pythonExtensionApi();
  const environments = api?.environments;
  if (!environments) {
    return undefined;
  }
  try {
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = environments.getActiveEnvironmentPath(resource);
    const resolved = await environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch (error) {
    outputChannel().warn(`Could not read the Python extension's interpreter: ${errorMessage(error)}`);
    return undefined;
  }
}

/** Restart the server when the Python extension's interpreter changes (if we use it). */
export async function onPythonExtensionInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments?.onDidChangeActiveEnvironmentPath?.(() => listener());
}

export function probeVersion(command: string): Promise<PythonVersion> {
  return new Promise((resolve, reject) => {
    execFile(command, VERSION_PROBE_ARGS, { timeout: 15000, windowsHide: true }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        reject(new Error(code === 'ENOENT' ? 'not found' : (stderr.trim() || error.message)));
        return;
      }
      const version = parsePythonVersion(stdout);
      if (!version) {
        reject(new Error(`unexpected version output: ${stdout.trim() || stderr.trim()}`));
        return;
      }
      resolve(version);
    });
  });
}

export interface ResolvedInterpreter {
  command: string;
  version: PythonVersion;
  source: InterpreterCandidate['source'];
}

export interface InterpreterProblem {
  candidate: InterpreterCandidate;
  reason: string;
}

export type InterpreterResolution =
  | { ok: true; interpreter: ResolvedInterpreter; problems: InterpreterProblem[] }
  | { ok: false; problems: InterpreterProblem[] };

export async function resolveInterpreter(): Promise<InterpreterResolution> {
  const settings = getSettings();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const setting = settings.interpreter ? expandInterpreterPath(settings.interpreter, os.homedir(), folder) : '';
  const fromExtension = setting ? undefined : await pythonExtensionInterpreter();
  const problems: InterpreterProblem[] = [];
  for (const candidate of interpreterCandidates(setting, fromExtension)) {
    try {
      const version = await probeVersion(candidate.command);
      if (!isSupportedPython(version)) {
        problems.push({
          candidate,
          reason: `is Python ${formatVersion(version)}; the server needs ${MIN_PYTHON.join('.')} or newer`,
        });
        continue;
      }
      return { ok: true, interpreter: { command: candidate.command, version, source: candidate.source }, problems };
    } catch (error) {
      problems.push({ candidate, reason: errorMessage(error) });
    }
  }
  return { ok: false, problems };
}

const SOURCE_NAMES: Record<InterpreterCandidate['source'], string> = {
  setting: 'llmEdits.interpreter',
  'python-extension': "the Python extension's interpreter",
  path: 'PATH',
};

export function describeProblems(problems: readonly InterpreterProblem[]): string {
  return problems
    .map((p) => `${p.candidate.command} (from ${SOURCE_NAMES[p.candidate.source]}): ${p.reason}`)
    .join('; ');
}
