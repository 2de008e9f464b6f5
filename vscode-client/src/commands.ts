/** The extension's commands (palette, editor context menu, keybindings, editor title). */
import * as vscode from 'vscode';
import { outputChannel } from './common/log';
import type { ServerManager } from './common/server';
import { getSettings, setInterpreterSetting } from './common/settings';
import { instructionsChoices } from './core/options';
import { ServerCommand, type InstructionsResult } from './core/protocol';
import { shellCommandsOf } from './core/shell';
import type { PreviewManager } from './preview';
import { offerShellSuggestions, type ResultsView } from './results';
import { copyText, registerReportingCommand, type EditRunner } from './runs';
import { readSource, type SourceKind } from './sources';

export interface CommandDeps {
  server: ServerManager;
  runner: EditRunner;
  preview: PreviewManager;
  results: ResultsView;
}

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { server, runner, preview, results } = deps;
  const register = (id: string, action: string, handler: (...args: unknown[]) => Promise<unknown>): void => {
    context.subscriptions.push(registerReportingCommand(id, action, handler));
  };

  const applyFrom = (kind: SourceKind) => async () => {
    const source = await readSource(kind, getSettings().maxResponseBytes);
    if (!source) {
      return undefined;
    }
    // A direct apply supersedes an open preview (whose diff would no longer be current).
    await preview.discard({ quiet: true });
    return runner.apply(source);
  };
  const previewFrom = (kind: SourceKind) => async () => {
    const source = await readSource(kind, getSettings().maxResponseBytes);
    if (source) {
      await preview.start(source);
    }
  };

  register('llmEdits.applyFromClipboard', 'Apply', applyFrom('clipboard'));
  register('llmEdits.applyFromSelection', 'Apply', applyFrom('selection'));
  register('llmEdits.applyFromEditor', 'Apply', applyFrom('editor'));
  register('llmEdits.previewFromClipboard', 'Preview', previewFrom('clipboard'));
  register('llmEdits.previewFromSelection', 'Preview', previewFrom('selection'));
  register('llmEdits.previewFromEditor', 'Preview', previewFrom('editor'));
  register('llmEdits.applyPreview', 'Apply preview', () => preview.apply());
  register('llmEdits.chooseBlocks', 'Choose blocks', () => preview.chooseBlocks());
  register('llmEdits.discardPreview', 'Discard preview', () => preview.discard());
  register('llmEdits.copyRetryFeedback', 'Copy retry feedback', () => runner.copyRetryFeedback());
  register('llmEdits.copyFormatInstructions', 'Copy format instructions', () => copyFormatInstructions(server));
  register('llmEdits.clearDiagnostics', 'Clear diagnostics', async () => {
    await server.execute(ServerCommand.clear, {});
    results.clear();
  });
  register('llmEdits.restartServer', 'Restart server', () => server.restart());
  register('llmEdits.showResults', 'Show results', () => results.showSummary());
  register('llmEdits.showChanges', 'Show changes', () => results.showChanges());
  register('llmEdits.runShellSuggestions', 'Run shell commands', () =>
    offerShellSuggestions(results.lastRun ? shellCommandsOf(results.lastRun.result) : []),
  );
  register('llmEdits.selectInterpreter', 'Select interpreter', () => selectInterpreter(server));
  register('llmEdits.showLogs', 'Show logs', async () => outputChannel().show());
}

async function copyFormatInstructions(server: ServerManager): Promise<void> {
  const all = await server.execute<InstructionsResult>(ServerCommand.instructions, {});
  type Item = vscode.QuickPickItem & { format?: string };
  const items: Item[] = [
    { label: 'All formats', description: `${all.formats.length} formats`, detail: 'Teach the model every format' },
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    ...instructionsChoices(all.formats).map(({ format, optIn }) => ({
      label: format,
      format,
      description: optIn ? 'opt-in: detected only when ticked in llmEdits.formats' : undefined,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Copy Format Instructions',
    placeHolder: 'System-prompt text teaching a model the edit format',
  });
  if (!picked) {
    return;
  }
  const text = picked.format
    ? (await server.execute<InstructionsResult>(ServerCommand.instructions, { format: picked.format })).text
    : all.text;
  await copyText(text, `Format instructions (${picked.format ?? 'all formats'}) copied to the clipboard.`);
}

async function selectInterpreter(server: ServerManager): Promise<void> {
  const pythonExtension = vscode.extensions.getExtension('ms-python.python');
  type Item = vscode.QuickPickItem & { action: 'browse' | 'python-extension' | 'path' | 'type' };
  const items: Item[] = [
    { label: '$(folder-opened) Browse…', description: 'Pick a Python 3.10+ executable', action: 'browse' },
    { label: '$(edit) Enter a path…', action: 'type' },
    { label: '$(terminal) python3 on PATH', description: 'Clear "llmEdits.interpreter"', action: 'path' },
  ];
  if (pythonExtension) {
    items.push({
      label: "$(symbol-misc) Use the Python extension's interpreter",
      description: 'Clear "llmEdits.interpreter" and pick one in the Python extension',
      action: 'python-extension',
    });
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Python interpreter for the LLM Edits server' });
  if (!picked) {
    return;
  }
  let value: string | undefined;
  if (picked.action === 'browse') {
    const chosen = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Use this interpreter',
      title: 'Python 3.10+ executable for the LLM Edits server',
    });
    value = chosen?.[0]?.fsPath;
  } else if (picked.action === 'type') {
    value = await vscode.window.showInputBox({
      prompt: 'Path of a Python 3.10+ executable',
      value: getSettings().interpreter,
      ignoreFocusOut: true,
    });
  } else {
    value = '';
  }
  if (value === undefined) {
    return;
  }
  await setInterpreterSetting(value);
  if (picked.action === 'python-extension') {
    await vscode.commands.executeCommand('python.setInterpreter');
  }
  // The configuration listener restarts a running server; start it now if it is not running.
  if (!server.isRunning) {
    await server.ensureStarted();
  }
}
