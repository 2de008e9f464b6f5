/** Reading the `llmEdits.*` settings (validation lives in core/options.ts). */
import * as vscode from 'vscode';
import { normalizeSettings, RESTART_SETTINGS, SERVER_SETTINGS, type Settings } from '../core/options';

export const SECTION = 'llmEdits';

export function getSettings(scope?: vscode.ConfigurationScope): Settings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return normalizeSettings({
    interpreter: config.get('interpreter'),
    matching: config.get('matching'),
    atomic: config.get('atomic'),
    formats: config.get('formats'),
    saveAfterApply: config.get('saveAfterApply'),
    stageInGit: config.get('stageInGit'),
    confirmEachBlock: config.get('confirmEachBlock'),
    applyWhileStreaming: config.get('applyWhileStreaming'),
    maxResponseSize: config.get('maxResponseSize'),
    mcpEnabled: config.get('mcp.enabled'),
  });
}

/** True when a configuration change affects how the server is started. */
export function needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  return RESTART_SETTINGS.some((key) => event.affectsConfiguration(key));
}

/** True when a configuration change affects what the server does by itself (applyWhileStreaming). */
export function changesServerSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return SERVER_SETTINGS.some((key) => event.affectsConfiguration(key));
}

export async function setInterpreterSetting(value: string): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  // Machine-overridable: the user's choice goes to the user settings unless the workspace
  // already overrides it there.
  const inspected = config.inspect<string>('interpreter');
  const target =
    inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('interpreter', value, target);
}
