/**
 * What the user sees after a run: the status bar item (`✓ 5 applied · ✗ 1 failed · ⊘ 1 skipped`),
 * the summary quick pick it opens (picking a block opens the diff it made at its line, or its
 * file when it changed nothing), Show Changes (every file the last apply changed, before the run
 * ↔ now), and the shell commands a response suggests (run in a terminal in the workspace
 * folder, only after a modal confirmation).
 */
import * as vscode from 'vscode';
import { blockDiffTitle, type BlockDiff, type DiffSide } from './core/blockDiff';
import type { EditResult, ShellCommand } from './core/protocol';
import { hasChanges, runChanges } from './core/runChanges';
import { shellCommandsOf, shellConfirmation, terminalIsReusable } from './core/shell';
import { escapeIcons, statusText, statusTooltip, summaryEntries, type RunMode, type SummaryEntry } from './core/summary';
import { displayPath, previewQuery, RUN_SCHEME, type PreviewSide } from './core/uris';
import { openFileDiffs, type FileDiff } from './diffs';

export interface ShownRun {
  result: EditResult;
  mode: RunMode;
  /** Where the response text lives, to reveal warnings (absent for a clipboard response). */
  response?: { uri: string; lineOffset: number };
}

function workspaceFolderUris(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString());
}

export class ResultsView implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly item: vscode.StatusBarItem;
  private readonly registration: vscode.Disposable;
  private last: ShownRun | undefined;
  /**
   * Texts before the run (or proposed) of the diffs opened from the last run (its summary's
   * block diffs, Show Changes), by document URI; kept until the next run.
   */
  private readonly runDocuments = new Map<string, string>();

  constructor() {
    this.item = vscode.window.createStatusBarItem('llmEdits.results', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'LLM Edits Results';
    this.item.command = 'llmEdits.showResults';
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.runDocuments.get(uri.toString()) ?? '';
  }

  get lastRun(): ShownRun | undefined {
    return this.last;
  }

  get text(): string {
    return this.last ? this.item.text : '';
  }

  show(run: ShownRun): void {
    if (run.result.runId !== this.last?.result.runId) {
      this.runDocuments.clear(); // an open diff keeps the text it has; new ones are this run's
    }
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
      shellCommandsOf(run.result).length > 0,
    );
    void vscode.commands.executeCommand('setContext', 'llmEdits.hasChanges', run.mode === 'apply' && hasChanges(run.result));
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
    this.runDocuments.clear();
    this.item.hide();
    void vscode.commands.executeCommand('setContext', 'llmEdits.hasShellSuggestions', false);
    void vscode.commands.executeCommand('setContext', 'llmEdits.hasChanges', false);
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
      placeHolder: 'Pick a block to open its diff (or, when it changed nothing, its file) at its line',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    const entry = picked?.entry;
    if (!entry) {
      return;
    }
    if (entry.kind === 'shell' && entry.shell) {
      await runShellSuggestion(entry.shell);
    } else if (entry.diff) {
      await this.openDiff(entry.diff, run.result.runId);
    } else if (entry.target) {
      await revealLine(vscode.Uri.parse(entry.target.uri), entry.target.line);
    } else if (entry.kind === 'warning') {
      void vscode.window.showInformationMessage(
        'This warning is in the response that was on the clipboard; open the response in an editor and use ' +
          '"Apply LLM Edits from Active Editor" to see it in place.',
      );
    }
  }

  /** A read-only document of the run holding `text`, named after the file `fileUri`. */
  private runDocument(fileUri: string, runId: string, side: PreviewSide, text: string): vscode.Uri {
    const file = vscode.Uri.parse(fileUri);
    const uri = vscode.Uri.from({ scheme: RUN_SCHEME, path: file.path, query: previewQuery(runId, side) });
    this.runDocuments.set(uri.toString(), text);
    return uri;
  }

  /** Every file the last apply changed, as it was before the run against the file now. */
  async showChanges(): Promise<void> {
    const run = this.last;
    const changes = run?.mode === 'apply' ? runChanges(run.result) : [];
    if (!run || changes.length === 0) {
      void vscode.window.showInformationMessage(
        'LLM Edits: no changes to show. Show Changes shows what the last apply changed, until the next run.',
      );
      return;
    }
    const runId = run.result.runId;
    const diffs: FileDiff[] = changes.map((change) => ({
      label: vscode.Uri.parse(change.uri),
      left: change.before ? this.runDocument(change.before.uri, runId, 'old', change.before.text) : undefined,
      right: change.after ? vscode.Uri.parse(change.after) : undefined,
    }));
    const folders = workspaceFolderUris();
    await openFileDiffs(
      'LLM Edits: Changes of the Last Apply',
      diffs,
      (label) => `${displayPath(label.toString(), folders)} (LLM Edits: before ↔ now)`,
    );
  }

  /** The block's file before the run against after it, with the cursor at the block's line. */
  private async openDiff(diff: BlockDiff, runId: string): Promise<void> {
    const side = (which: DiffSide, name: PreviewSide): vscode.Uri =>
      which.kind === 'file' ? vscode.Uri.parse(which.uri) : this.runDocument(which.uri, runId, name, which.text);
    const line = new vscode.Position(Math.max(diff.line, 0), 0);
    await vscode.commands.executeCommand(
      'vscode.diff',
      side(diff.before, 'old'),
      side(diff.after, 'new'),
      blockDiffTitle(diff, workspaceFolderUris()),
      { selection: new vscode.Range(line, line), preview: false },
    );
  }

  dispose(): void {
    this.item.dispose();
    this.registration.dispose();
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

/** The folder suggested commands run in: the first workspace folder. */
function shellFolder(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

const TERMINAL_NAME = 'LLM Edits';

/** The extension's newest terminal when it is still in the workspace folder, else a new one there. */
function shellTerminal(folder: vscode.Uri | undefined): vscode.Terminal {
  const existing = vscode.window.terminals.filter((terminal) => terminal.name === TERMINAL_NAME).pop();
  if (
    existing &&
    terminalIsReusable(
      { exited: existing.exitStatus !== undefined, cwd: existing.shellIntegration?.cwd?.fsPath },
      folder?.fsPath,
    )
  ) {
    return existing;
  }
  return vscode.window.createTerminal({ name: TERMINAL_NAME, cwd: folder });
}

/**
 * Run a suggested command (`git rm old.py`) in a terminal: each command a shell would run
 * (`command.parts`) after its own modal confirmation showing its display text; declining one
 * stops the rest. `terminal`: the one earlier commands of the same pick were sent to, so that
 * they run in order in one shell. Returns the terminal it ran in, or undefined when the user
 * declined.
 */
export async function runShellSuggestion(
  command: ShellCommand,
  terminal?: vscode.Terminal,
): Promise<vscode.Terminal | undefined> {
  const folder = shellFolder();
  let target = terminal;
  for (let index = 0; index < command.parts.length; index++) {
    const { message, detail } = shellConfirmation(command, index, folder?.fsPath);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Run in Terminal');
    if (choice !== 'Run in Terminal') {
      return undefined;
    }
    target = target && target.exitStatus === undefined ? target : shellTerminal(folder);
    target.show();
    target.sendText(command.parts[index].command, true);
  }
  return target;
}

/**
 * Offer the suggested commands in a quick pick (several may be picked), shown as the server
 * displays them; each picked command is confirmed on its own before it runs (each part of a
 * compound one), and declining one stops the rest.
 */
export async function offerShellSuggestions(commands: readonly ShellCommand[]): Promise<void> {
  if (commands.length === 0) {
    void vscode.window.showInformationMessage('LLM Edits: the last response suggested no shell commands.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    commands.map((command) => ({ label: escapeIcons(command.display), picked: false, command })),
    {
      title: 'Shell commands suggested by the response',
      placeHolder: 'Pick the commands to run (each is confirmed before it runs)',
      canPickMany: true,
    },
  );
  let terminal: vscode.Terminal | undefined;
  for (const item of picked ?? []) {
    terminal = await runShellSuggestion(item.command, terminal);
    if (!terminal) {
      break;
    }
  }
}
