/**
 * Opening several files' diffs at once: VS Code's multi-file diff editor (`vscode.changes`), or
 * one `vscode.diff` per file where that command is unavailable. Used by the preview and by
 * "Show Changes".
 */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';

export interface FileDiff {
  /** The file the entry is named after. */
  label: vscode.Uri;
  /** Absent: the file is new (shown as all added). */
  left?: vscode.Uri;
  /** Absent: the file is gone (shown as all removed). */
  right?: vscode.Uri;
}

/**
 * `title` names the multi-file diff editor (which appends "(N files)" itself);
 * `fallbackTitle(label)` names each single diff when it is unavailable.
 */
export async function openFileDiffs(
  title: string,
  diffs: readonly FileDiff[],
  fallbackTitle: (label: vscode.Uri) => string,
): Promise<void> {
  try {
    await vscode.commands.executeCommand(
      'vscode.changes',
      title,
      diffs.map(({ label, left, right }) => [label, left, right]),
    );
    return;
  } catch (error) {
    outputChannel().info(`vscode.changes unavailable (${errorMessage(error)}); opening one diff per file`);
  }
  for (const { label, left, right } of diffs) {
    if (left && right) {
      await vscode.commands.executeCommand('vscode.diff', left, right, fallbackTitle(label), { preview: false });
    } else if (left ?? right) {
      await vscode.commands.executeCommand('vscode.open', left ?? right, { preview: false });
    }
  }
}
