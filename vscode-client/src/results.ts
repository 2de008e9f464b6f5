/**
 * What the user sees after a run: the status bar item (`✓ 5 applied · ✗ 1 failed · ⊘ 1 skipped`),
 * the summary quick pick it opens (picking a block opens its file at its line), and the shell
 * commands a response suggests (run in a terminal only after a modal confirmation).
 */
import * as vscode from 'vscode';
import type { EditResult } from './core/protocol';
import { statusText, statusTooltip, summaryEntries, type RunMode, type SummaryEntry } from './core/summary';

export interface ShownRun {
  result: EditResult;
  mode: RunMode;
  /** Where the response text lives, to reveal warnings (absent for a clipboard response). */
  response?: { uri: string; lineOffset: number };
}

function workspaceFolderUris(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString());
}

export class ResultsView implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private last: ShownRun | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('llmEdits.results', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'LLM Edits Results';
    this.item.command = 'llmEdits.showResults';
  }

  get lastRun(): ShownRun | undefined {
    return this.last;
  }

  get text(): string {
    return this.last ? this.item.text : '';
  }

  show(run: ShownRun): void {
    this.last = run;
    const counts = run.result.blocks;
    this.item.text = statusText(run.result, run.mode);
    this.item.tooltip = statusTooltip(run.result, run.mode, workspaceFolderUris());
    const failed = counts.some((block) => block.status === 'failed') || (run.result.warnings?.length ?? 0) > 0;
    this.item.backgroundColor = failed ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
    void vscode.commands.executeCommand(
      'setContext',
      'llmEdits.hasShellSuggestions',
      (run.result.shellSuggestions?.length ?? 0) > 0,
    );
  }

  /** Replace some blocks' results (a quick fix re-applied one block) and redraw. */
  updateBlocks(result: EditResult): void {
    if (!this.last) {
      this.show({ result, mode: 'apply' });
      return;
    }
    const blocks = this.last.result.blocks.map(
      (block) => result.blocks.find((updated) => updated.index === block.index) ?? block,
    );
    this.show({ ...this.last, result: { ...this.last.result, blocks } });
  }

  clear(): void {
    this.last = undefined;
    this.item.hide();
    void vscode.commands.executeCommand('setContext', 'llmEdits.hasShellSuggestions', false);
  }

  async showSummary(): Promise<void> {
    const run = this.last;
    if (!run) {
      void vscode.window.showInformationMessage('LLM Edits: no run yet. Apply or preview a response first.');
      return;
    }
    type Item = vscode.QuickPickItem & { entry?: SummaryEntry };
    const entries = summaryEntries(run.result, workspaceFolderUris(), run.response);
    const items: Item[] = [];
    let section: SummaryEntry['kind'] | undefined;
    const sectionNames: Record<SummaryEntry['kind'], string> = {
      block: 'Blocks',
      warning: 'Not applied: malformed or incomplete',
      shell: 'Suggested shell commands',
    };
    for (const entry of entries) {
      if (entry.kind !== section) {
        section = entry.kind;
        items.push({ label: sectionNames[entry.kind], kind: vscode.QuickPickItemKind.Separator });
      }
      items.push({ label: entry.label, description: entry.description, detail: entry.detail, entry });
    }
    const picked = await vscode.window.showQuickPick(items, {
      title: `LLM Edits — ${statusText(run.result, run.mode)}`,
      placeHolder: 'Pick a block to open it at its line',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    const entry = picked?.entry;
    if (!entry) {
      return;
    }
    if (entry.kind === 'shell' && entry.command) {
      await runShellSuggestion(entry.command);
    } else if (entry.target) {
      await revealLine(vscode.Uri.parse(entry.target.uri), entry.target.line);
    } else if (entry.kind === 'warning') {
      void vscode.window.showInformationMessage(
        'This warning is in the response that was on the clipboard; open the response in an editor and use ' +
          '"Apply LLM Edits from Active Editor" to see it in place.',
      );
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}

export async function revealLine(uri: vscode.Uri, line: number): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const target = Math.min(Math.max(line, 0), Math.max(document.lineCount - 1, 0));
  const position = new vscode.Position(target, 0);
  await vscode.window.showTextDocument(document, {
    selection: new vscode.Range(position, position),
    preview: false,
  });
}

/** Run a suggested command (`git rm old.py`) in a terminal, after a modal confirmation. */
export async function runShellSuggestion(command: string): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(
    `Run this command from the LLM's response in a terminal?\n\n${command}`,
    { modal: true, detail: 'It runs in the workspace folder, exactly as written.' },
    'Run in Terminal',
  );
  if (choice !== 'Run in Terminal') {
    return false;
  }
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri;
  let terminal = vscode.window.terminals.find((t) => t.name === 'LLM Edits');
  if (!terminal || terminal.exitStatus !== undefined) {
    terminal = vscode.window.createTerminal({ name: 'LLM Edits', cwd });
  }
  terminal.show();
  terminal.sendText(command, true);
  return true;
}

/** Offer the suggested commands one by one, each behind its own confirmation. */
export async function offerShellSuggestions(commands: readonly string[]): Promise<void> {
  if (commands.length === 0) {
    void vscode.window.showInformationMessage('LLM Edits: the last response suggested no shell commands.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    commands.map((command) => ({ label: command, picked: false })),
    {
      title: 'Shell commands suggested by the response',
      placeHolder: 'Pick the commands to run (each is confirmed before it runs)',
      canPickMany: true,
    },
  );
  for (const item of picked ?? []) {
    if (!(await runShellSuggestion(item.label))) {
      break;
    }
  }
}
