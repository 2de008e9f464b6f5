/**
 * Preview as editor diffs. `llmEdits.preview` (with `options.includeText`) gives every changed
 * file's text before and after; both sides are served read-only under the `llm-edits-preview`
 * scheme and shown in VS Code's multi-file diff editor (`vscode.changes`), or one `vscode.diff`
 * per file where that is unavailable. Apply / Discard sit in the editor title and in a
 * notification. Apply re-runs `llmEdits.apply` (the server validates again) after checking that
 * no buffer changed since the preview.
 */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';
import { getSettings } from './common/settings';
import type { Settings } from './core/options';
import { editedVersions, type EditResult, type FileText } from './core/protocol';
import { shellActionLabel } from './core/shell';
import { changedSincePreview } from './core/staleness';
import { countBlocks, statusText } from './core/summary';
import { previewFilesFromEdit } from './core/textEdits';
import { parsePreviewQuery, PREVIEW_SCHEME, previewQuery, sameUri, type PreviewSide } from './core/uris';
import { offerShellSuggestions } from './results';
import type { EditRunner } from './runs';
import type { ResponseSource } from './sources';

interface PreviewSession {
  id: string;
  title: string;
  source: ResponseSource;
  settings: Settings;
  result: EditResult;
  files: FileText[];
  versions: Map<string, number | null>;
  /** Preview documents' texts by `uri.toString()`. */
  documents: Map<string, string>;
}

let sessionCounter = 0;

export class PreviewManager implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private current: PreviewSession | undefined;
  private readonly sessions = new Map<string, PreviewSession>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly runner: EditRunner) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, this);
  }

  get active(): boolean {
    return this.current !== undefined;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const parsed = parsePreviewQuery(uri.query);
    const session = parsed ? this.sessions.get(parsed.sessionId) : undefined;
    return session?.documents.get(uri.toString()) ?? '';
  }

  /** Run the preview and open the diffs; nothing is changed. */
  async start(source: ResponseSource): Promise<void> {
    const settings = getSettings();
    const result = await this.runner.preview(source, settings);
    await this.discard({ quiet: true });
    let files = result.files;
    if (!files && result.edit?.documentChanges) {
      // An older server without includeText: compute the texts from the edit ourselves.
      files = await previewFilesFromEdit(result.edit.documentChanges, readCurrentText);
    }
    if (!result.edit || !files || files.length === 0) {
      const counts = countBlocks(result);
      const summary = statusText(result, 'preview');
      // Every block already applied is the answer to "did this response go in?", not a problem.
      const allDone = counts.alreadyApplied > 0 && counts.alreadyApplied === result.blocks.length && counts.warnings === 0;
      const choice = allDone
        ? await vscode.window.showInformationMessage(
            `LLM Edits: nothing to preview — every block is already applied (${summary}).`,
            'Show Details',
          )
        : await vscode.window.showWarningMessage(
            `LLM Edits: nothing to preview — no block would change a file (${summary}).`,
            'Show Details',
          );
      if (choice === 'Show Details') {
        await vscode.commands.executeCommand('llmEdits.showResults');
      }
      return;
    }
    const id = `${Date.now().toString(36)}-${++sessionCounter}`;
    const session: PreviewSession = {
      id,
      // The multi-file diff editor appends "(N files)" itself.
      title: 'LLM Edits Preview',
      source,
      settings,
      result,
      files,
      versions: editedVersions(result.edit),
      documents: new Map(),
    };
    this.sessions.set(id, session);
    this.current = session;
    await vscode.commands.executeCommand('setContext', 'llmEdits.previewActive', true);
    await this.openDiffs(session);
    void this.offerActions(session);
  }

  private previewUri(session: PreviewSession, fileUri: string, side: PreviewSide, text: string): vscode.Uri {
    const file = vscode.Uri.parse(fileUri);
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: file.path, query: previewQuery(session.id, side) });
    session.documents.set(uri.toString(), text);
    return uri;
  }

  private async openDiffs(session: PreviewSession): Promise<void> {
    const diffs = session.files.map((file) => {
      const label = vscode.Uri.parse(file.newUri ?? file.uri);
      const left = this.previewUri(session, file.uri, 'old', file.oldText);
      const right = this.previewUri(session, file.newUri ?? file.uri, 'new', file.newText);
      return { label, left, right, created: file.kind === 'create', deleted: file.kind === 'delete' };
    });
    try {
      // A missing side shows a created file as added and a deleted one as removed.
      const resources = diffs.map(({ label, left, right, created, deleted }) => [
        label,
        created ? undefined : left,
        deleted ? undefined : right,
      ]);
      await vscode.commands.executeCommand('vscode.changes', session.title, resources);
      return;
    } catch (error) {
      outputChannel().info(`vscode.changes unavailable (${errorMessage(error)}); opening one diff per file`);
    }
    for (const { label, left, right } of diffs) {
      await vscode.commands.executeCommand(
        'vscode.diff',
        left,
        right,
        `${vscode.workspace.asRelativePath(label)} (LLM Edits Preview)`,
        { preview: false },
      );
    }
  }

  private async offerActions(session: PreviewSession): Promise<void> {
    const failed = session.result.blocks.filter((block) => block.status === 'failed').length;
    const message =
      `LLM Edits: preview of ${session.files.length} changed ${session.files.length === 1 ? 'file' : 'files'}` +
      ` (${statusText(session.result, 'preview')}).` +
      (failed > 0 ? ' Failed blocks are not part of the preview.' : '');
    const commands = session.result.shellSuggestions ?? [];
    const shellAction = shellActionLabel(commands.length);
    const actions = commands.length > 0 ? ['Apply', 'Discard', shellAction] : ['Apply', 'Discard'];
    const choice = await vscode.window.showInformationMessage(message, ...actions);
    if (choice === shellAction) {
      // Independent of the preview: it stays open to be applied or discarded.
      await offerShellSuggestions(commands);
      return;
    }
    if (this.current !== session) {
      return; // answered after another preview replaced this one, or after the title buttons
    }
    if (choice === 'Apply') {
      await this.apply();
    } else if (choice === 'Discard') {
      await this.discard();
    }
  }

  /** Files whose buffer (or disk text) changed since the preview. */
  private async changedFiles(session: PreviewSession): Promise<string[]> {
    const changed: string[] = [];
    for (const file of session.files) {
      if (file.kind === 'create' && file.oldText === '') {
        // A create must still find no (or an empty) file: the server re-checks that.
        continue;
      }
      const document = vscode.workspace.textDocuments.find((doc) => sameUri(doc.uri.toString(), file.uri));
      const recorded = [...session.versions].find(([uri]) => sameUri(uri, file.uri))?.[1];
      const now = document
        ? { openVersion: document.version, text: document.getText() }
        : { text: await readCurrentText(file.uri) };
      if (changedSincePreview(recorded, file.oldText, now)) {
        changed.push(vscode.workspace.asRelativePath(vscode.Uri.parse(file.uri)));
      }
    }
    return changed;
  }

  /** Apply the previewed response (re-validated by the server), unless a file changed since. */
  async apply(): Promise<EditResult | undefined> {
    const session = this.current;
    if (!session) {
      void vscode.window.showInformationMessage('LLM Edits: no preview to apply.');
      return undefined;
    }
    const changed = await this.changedFiles(session);
    if (changed.length > 0) {
      const choice = await vscode.window.showWarningMessage(
        `LLM Edits: not applied — ${changed.join(', ')} changed since the preview. Preview again to see the ` +
          'edits against the current text.',
        'Preview Again',
        'Discard Preview',
      );
      if (choice === 'Preview Again') {
        await this.start(session.source);
      } else if (choice === 'Discard Preview') {
        await this.discard();
      }
      return undefined;
    }
    await this.discard({ quiet: true });
    return this.runner.apply(session.source, session.settings);
  }

  /** Close the preview editors and forget the preview. */
  async discard(options: { quiet?: boolean } = {}): Promise<void> {
    const session = this.current;
    this.current = undefined;
    await vscode.commands.executeCommand('setContext', 'llmEdits.previewActive', false);
    if (!session) {
      return;
    }
    await closePreviewTabs(session.title);
    this.sessions.delete(session.id);
    if (!options.quiet) {
      vscode.window.setStatusBarMessage('LLM Edits: preview discarded', 3000);
    }
  }

  dispose(): void {
    this.registration.dispose();
  }
}

function isPreviewUri(value: unknown): boolean {
  return value instanceof vscode.Uri && value.scheme === PREVIEW_SCHEME;
}

/** Tabs showing a preview: its diffs (single or multi-file) and any opened preview document. */
async function closePreviewTabs(title: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
  const previewTabs = tabs.filter((tab) => {
    const input = tab.input as unknown;
    if (input instanceof vscode.TabInputTextDiff) {
      return isPreviewUri(input.modified) || isPreviewUri(input.original);
    }
    if (input instanceof vscode.TabInputText) {
      return isPreviewUri(input.uri);
    }
    // The multi-file diff editor's input has no public class in this API version.
    const textDiffs = (input as { textDiffs?: Array<{ modified?: unknown }> } | undefined)?.textDiffs;
    if (Array.isArray(textDiffs)) {
      return textDiffs.some((diff) => isPreviewUri(diff.modified));
    }
    return tab.label.startsWith(title);
  });
  if (previewTabs.length > 0) {
    await vscode.window.tabGroups.close(previewTabs, true);
  }
}

/** The current text of a file: its open buffer, else the disk; undefined when it does not exist. */
async function readCurrentText(uriString: string): Promise<string | undefined> {
  const document = vscode.workspace.textDocuments.find((doc) => sameUri(doc.uri.toString(), uriString));
  if (document) {
    return document.getText();
  }
  try {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.parse(uriString));
    return new TextDecoder('utf-8').decode(bytes);
  } catch {
    return undefined;
  }
}
