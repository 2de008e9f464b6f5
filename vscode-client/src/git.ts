/** Staging applied files through the built-in Git extension's API (`vscode.git`, API version 1). */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';

interface GitRepository {
  readonly rootUri: vscode.Uri;
  add(paths: string[]): Promise<void>;
}

interface GitApi {
  getRepository(uri: vscode.Uri): GitRepository | null;
  openRepository?(root: vscode.Uri): Promise<GitRepository | null>;
}

interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

async function gitApi(): Promise<GitApi | undefined> {
  const extension = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!extension) {
    return undefined;
  }
  const exports = extension.isActive ? extension.exports : await extension.activate();
  return exports.enabled ? exports.getAPI(1) : undefined;
}

/**
 * `git add` each file (deleted files too: staging the deletion), grouped by repository.
 * Returns how many files were staged; files outside any repository are reported in the log.
 */
export async function stageFiles(uris: readonly vscode.Uri[]): Promise<number> {
  const files = uris.filter((uri) => uri.scheme === 'file');
  if (files.length === 0) {
    return 0;
  }
  let api: GitApi | undefined;
  try {
    api = await gitApi();
  } catch (error) {
    outputChannel().warn(`Git extension unavailable: ${errorMessage(error)}`);
  }
  if (!api) {
    void vscode.window.showWarningMessage('LLM Edits: "stageInGit" is on, but the Git extension is not available.');
    return 0;
  }
  const byRepository = new Map<GitRepository, string[]>();
  for (const uri of files) {
    let repository = api.getRepository(uri);
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!repository && folder && api.openRepository) {
      // The Git extension may not have scanned this folder yet.
      await api.openRepository(folder.uri);
      repository = api.getRepository(uri);
    }
    if (!repository) {
      outputChannel().warn(`Not staged (not in a Git repository): ${uri.fsPath}`);
      continue;
    }
    byRepository.set(repository, [...(byRepository.get(repository) ?? []), uri.fsPath]);
  }
  let staged = 0;
  for (const [repository, paths] of byRepository) {
    try {
      await repository.add(paths);
      staged += paths.length;
    } catch (error) {
      outputChannel().error(`git add failed in ${repository.rootUri.fsPath}: ${errorMessage(error)}`);
      void vscode.window.showWarningMessage(`LLM Edits: staging failed: ${errorMessage(error)}`);
    }
  }
  return staged;
}
