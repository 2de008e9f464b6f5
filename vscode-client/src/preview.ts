/**
 * Preview as editor diffs. `llmEdits.preview` (with `options.includeText`) gives every changed
 * file's text before and after; both sides are served read-only under the `llm-edits-preview`
 * scheme and shown in VS Code's multi-file diff editor (`vscode.changes`), or one `vscode.diff`
 * per file where that is unavailable. Apply / Choose Blocks… / Discard sit in the editor title
 * and in a notification. Choose Blocks… re-runs the preview with the ticked blocks
 * (`options.blocks`); Apply re-runs `llmEdits.apply` with the same blocks (the server validates
 * again) after checking that no buffer changed since the preview.
 */
import * as vscode from 'vscode';
import { getSettings } from './common/settings';
import { blockChoices, choiceOf, knownBlocks } from './core/blockChoice';
import type { Settings } from './core/options';
import { editedVersions, type BlockResult, type EditResult, type FileText } from './core/protocol';
import { shellActionLabel, shellCommandsOf } from './core/shell';
import { changedSincePreview } from './core/staleness';
import { countBlocks, statusText } from './core/summary';
import { previewFilesFromEdit } from './core/textEdits';
import { parsePreviewQuery, PREVIEW_SCHEME, previewQuery, sameUri, type PreviewSide } from './core/uris';
import { openFileDiffs, type FileDiff } from './diffs';
import { offerShellSuggestions } from './results';
import type { EditRunner } from './runs';
import type { ResponseSource } from './sources';

/** A response and the blocks chosen of it: what Choose Blocks… starts from. */
interface BlockReview {
  source: ResponseSource;
  /** The chosen blocks' indices (`options.blocks`); undefined: every block. */
  blocks: number[] | undefined;
  /** Each block's result in the latest preview that ran it. */
  known: BlockResult[];
}

interface PreviewSession {
  id: string;
  title: string;
  source: ResponseSource;
  settings: Settings;
  /** The chosen blocks (`options.blocks`), sent again by Apply; undefined: every block. */
  blocks: number[] | undefined;
  result: EditResult;
  files: FileText[];
  versions: Map<string, number | null>;
  /** Preview documents' texts by `uri.toString()`. */
  documents: Map<string, string>;
}

let sessionCounter = 0;

const CHOOSE_BLOCKS = 'Choose Blocks…';

export class PreviewManager implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private current: PreviewSession | undefined;
  /**
   * The latest preview's response and choice: the open preview's, or, when that preview had
   * nothing to show, its own (to choose again from its message). Forgotten on discard.
   */
  private review: BlockReview | undefined;
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

  /**
   * Run the preview and open the diffs; nothing is changed. `blocks`: run only these blocks
   * (`options.blocks`); `known`: what earlier previews of this response said of each block.
   */
  async start(source: ResponseSource, blocks?: number[], known: readonly BlockResult[] = []): Promise<void> {
    const settings = getSettings();
    const result = await this.runner.preview(source, settings, blocks);
    await this.discard({ quiet: true });
    this.review = { source, blocks, known: knownBlocks(known, result.blocks) };
    let files = result.files;
    if (!files && result.edit?.documentChanges) {
      // An older server without includeText: compute the texts from the edit ourselves.
      files = await previewFilesFromEdit(result.edit.documentChanges, readCurrentText);
    }
    if (!result.edit || !files || files.length === 0) {
      await this.reportNothingToPreview(result, blocks !== undefined);
      return;
    }
    const id = `${Date.now().toString(36)}-${++sessionCounter}`;
    const session: PreviewSession = {
      id,
      // The multi-file diff editor appends "(N files)" itself.
      title: 'LLM Edits Preview',
      source,
      settings,
      blocks,
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
    // A missing side shows a created file as added and a deleted one as removed.
    const diffs: FileDiff[] = session.files.map((file) => ({
      label: vscode.Uri.parse(file.newUri ?? file.uri),
      left: file.kind === 'create' ? undefined : this.previewUri(session, file.uri, 'old', file.oldText),
      right: file.kind === 'delete' ? undefined : this.previewUri(session, file.newUri ?? file.uri, 'new', file.newText),
    }));
    await openFileDiffs(session.title, diffs, (label) => `${vscode.workspace.asRelativePath(label)} (LLM Edits Preview)`);
  }

  private async reportNothingToPreview(result: EditResult, chosen: boolean): Promise<void> {
    const counts = countBlocks(result);
    const summary = statusText(result, 'preview');
    // Every (chosen) block already applied is the answer to "did this response go in?", not a problem.
    const allDone =
      counts.alreadyApplied > 0 && counts.alreadyApplied + counts.excluded === result.blocks.length && counts.warnings === 0;
    const actions = chosen ? [CHOOSE_BLOCKS, 'Show Details'] : ['Show Details'];
    const choice = allDone
      ? await vscode.window.showInformationMessage(
          `LLM Edits: nothing to preview — every ${chosen ? 'chosen ' : ''}block is already applied (${summary}).`,
          ...actions,
        )
      : await vscode.window.showWarningMessage(
          `LLM Edits: nothing to preview — no ${chosen ? 'chosen ' : ''}block would change a file (${summary}).`,
          ...actions,
        );
    if (choice === 'Show Details') {
      await vscode.commands.executeCommand('llmEdits.showResults');
    } else if (choice === CHOOSE_BLOCKS) {
      await this.chooseBlocks();
    }
  }

  /**
   * A multi-select quick pick of the response's blocks (ticked: the current choice, or every
   * block that would change a file); accepting re-runs the preview with the ticked ones.
   */
  async chooseBlocks(): Promise<void> {
    const review = this.review;
    const known = review?.known;
    if (!review || !known || known.length === 0) {
      void vscode.window.showInformationMessage('LLM Edits: preview a response first; then choose its blocks.');
      return;
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString());
    const items = blockChoices(known, review.blocks, folders);
    const picked = await vscode.window.showQuickPick(items, {
      title: 'LLM Edits — choose the blocks to apply',
      placeHolder: 'Untick the blocks to leave out, then OK to preview again',
      canPickMany: true,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked) {
      return; // cancelled: the preview stays as it is
    }
    const choice = choiceOf(
      picked.map((item) => item.index),
      known.map((block) => block.index),
    );
    if (choice.kind === 'none') {
      void vscode.window.showInformationMessage('LLM Edits: no block chosen; the preview is unchanged.');
      return;
    }
    await this.start(review.source, choice.kind === 'some' ? choice.blocks : undefined, known);
  }

  private async offerActions(session: PreviewSession): Promise<void> {
    const failed = session.result.blocks.filter((block) => block.status === 'failed').length;
    const message =
      `LLM Edits: preview of ${session.files.length} changed ${session.files.length === 1 ? 'file' : 'files'}` +
      ` (${statusText(session.result, 'preview')}).` +
      (failed > 0 ? ' Failed blocks are not part of the preview.' : '');
    const commands = shellCommandsOf(session.result);
    const shellAction = shellActionLabel(commands.length);
    const actions = ['Apply', CHOOSE_BLOCKS, 'Discard', ...(commands.length > 0 ? [shellAction] : [])];
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
    } else if (choice === CHOOSE_BLOCKS) {
      await this.chooseBlocks();
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
        await this.start(session.source, session.blocks, this.review?.known);
      } else if (choice === 'Discard Preview') {
        await this.discard();
      }
      return undefined;
    }
    await this.discard({ quiet: true });
    return this.runner.apply(session.source, session.settings, session.blocks);
  }

  /** Close the preview editors and forget the preview. */
  async discard(options: { quiet?: boolean } = {}): Promise<void> {
    const session = this.current;
    this.current = undefined;
    this.review = undefined;
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
