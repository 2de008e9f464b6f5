/**
 * Running the server's edit commands for a response and acting on the result: status bar and
 * notifications, saving and staging after an apply, retry feedback, quick fixes' results.
 */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';
import { ReportedError, type ServerManager } from './common/server';
import { getSettings } from './common/settings';
import { toCommandOptions, type CommandOptions, type Settings } from './core/options';
import { ServerCommand, urisToSave, type EditResult, type TextResult } from './core/protocol';
import { shellActionLabel, shellCommandsOf } from './core/shell';
import { countBlocks, headline } from './core/summary';
import { stageFiles } from './git';
import { hasChanges } from './core/runChanges';
import { offerShellSuggestions, type ResultsView } from './results';
import { describeSource, sourceArgument, sourceLocation, type ResponseSource } from './sources';

export interface LastRun {
  source: ResponseSource;
  options: CommandOptions;
  result: EditResult;
}

export class EditRunner {
  private last: LastRun | undefined;

  constructor(
    private readonly server: ServerManager,
    private readonly results: ResultsView,
  ) {}

  get lastRun(): LastRun | undefined {
    return this.last;
  }

  /**
   * `llmEdits.preview` of the chosen blocks (`options.blocks`; undefined: every block); shows the
   * counts, changes nothing.
   */
  async preview(source: ResponseSource, settings: Settings, blocks?: readonly number[]): Promise<EditResult> {
    const options = toCommandOptions(settings, { includeText: true, blocks, target: source.target });
    const result = await this.server.execute<EditResult>(ServerCommand.preview, { ...sourceArgument(source), options });
    this.last = { source, options, result };
    this.results.show({ result, mode: 'preview', response: sourceLocation(source) });
    return result;
  }

  /**
   * `llmEdits.apply` of the chosen blocks (the server validates again and sends the edit), then
   * save/stage/report. With `confirmEachBlock` the edit goes through VS Code's refactor preview.
   */
  async apply(source: ResponseSource, settings: Settings = getSettings(), blocks?: readonly number[]): Promise<EditResult> {
    // includeText: the files' texts before the run, for the block diffs and Show Changes.
    const options = toCommandOptions(settings, {
      includeText: true,
      blocks,
      confirm: settings.confirmEachBlock,
      target: source.target,
    });
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'LLM Edits: applying…' },
      () => this.server.execute<EditResult>(ServerCommand.apply, { ...sourceArgument(source), options }),
    );
    this.last = { source, options, result };
    this.results.show({ result, mode: 'apply', response: sourceLocation(source) });
    outputChannel().info(`Applied response from ${describeSource(source)}: ${headline(result, 'apply')}`);
    if (result.applied) {
      await this.afterApply(result, settings);
    }
    void this.report(result, settings);
    return result;
  }

  /** Save and stage what an apply changed, as the settings ask. */
  private async afterApply(result: EditResult, settings: Settings): Promise<void> {
    if (!settings.saveAfterApply && !settings.stageInGit) {
      return;
    }
    const uris = urisToSave(result.edit).map((uri) => vscode.Uri.parse(uri));
    for (const uri of uris) {
      const document = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
      if (document?.isDirty) {
        try {
          await document.save();
        } catch (error) {
          outputChannel().error(`Saving ${uri.fsPath}: ${errorMessage(error)}`);
        }
      }
    }
    if (settings.stageInGit) {
      // Deleted and renamed-away paths are staged too, so the index matches the working tree.
      const deleted = (result.edit?.documentChanges ?? []).flatMap((change) =>
        'kind' in change && change.kind === 'delete'
          ? [change.uri]
          : 'kind' in change && change.kind === 'rename'
            ? [change.oldUri]
            : [],
      );
      const staged = await stageFiles([...uris, ...deleted.map((uri) => vscode.Uri.parse(uri))]);
      outputChannel().info(`Staged ${staged} file(s) in Git`);
    }
  }

  /** A notification after an apply: quiet on success, actionable on failure. */
  private async report(result: EditResult, settings: Settings): Promise<void> {
    const counts = countBlocks(result);
    const actions: string[] = [];
    if (hasChanges(result)) {
      actions.push(SHOW_CHANGES);
    }
    if (counts.failed > 0 || counts.skipped > 0 || counts.alreadyApplied > 0 || counts.excluded > 0 || counts.warnings > 0) {
      actions.push('Show Details');
    }
    if (counts.failed > 0) {
      actions.push('Copy Retry Feedback');
    }
    const shellCommands = shellCommandsOf(result);
    const shellAction = shellActionLabel(shellCommands.length);
    if (shellCommands.length > 0) {
      actions.push(shellAction);
    }
    let message = headline(result, 'apply');
    if (result.applied === false && settings.confirmEachBlock && result.edit) {
      // VS Code answers a discarded refactor preview as a refused edit: say both.
      message += ` Nothing applied: the refactor preview was discarded, or the editor refused the edit (${result.failureReason ?? 'no reason given'}).`;
    } else if (result.applied === false && result.failureReason) {
      message += ` The editor refused the edit: ${result.failureReason}`;
    }
    // Already-applied blocks are not failures: a response applied twice reports as information.
    const failed = counts.failed > 0 || result.blocks.length === 0 || (result.applied === false && !!result.edit);
    const choice = failed
      ? await vscode.window.showWarningMessage(message, ...actions)
      : await vscode.window.showInformationMessage(message, ...actions);
    if (choice === SHOW_CHANGES) {
      await this.results.showChanges();
    } else if (choice === 'Show Details') {
      await this.results.showSummary();
    } else if (choice === 'Copy Retry Feedback') {
      await this.copyRetryFeedback();
    } else if (choice === shellAction) {
      await offerShellSuggestions(shellCommands);
    }
  }

  /** Retry feedback for the last run (failed blocks, file lines around them, what not to resend). */
  async copyRetryFeedback(): Promise<void> {
    const last = this.last;
    if (!last) {
      void vscode.window.showInformationMessage('LLM Edits: apply or preview a response first; the feedback describes that run.');
      return;
    }
    let feedback: TextResult | undefined;
    if (last.result.runId) {
      try {
        feedback = await this.server.execute<TextResult>(ServerCommand.copyFeedback, { runId: last.result.runId });
      } catch (error) {
        // The server may have been restarted since (run ids live in its memory): recompute below.
        outputChannel().info(`copyFeedback for run ${last.result.runId} failed (${errorMessage(error)}); recomputing`);
      }
    }
    if (!feedback) {
      feedback = await this.server.execute<TextResult>(ServerCommand.feedback, {
        ...sourceArgument(last.source),
        options: last.options,
      });
    }
    await copyText(feedback.text, 'Retry feedback for the model copied to the clipboard.');
  }

  /** Results of server commands VS Code ran from a quick fix (code action). */
  async onCodeActionCommand(command: string, result: unknown): Promise<void> {
    if (command === ServerCommand.copyFeedback && isTextResult(result)) {
      await copyText(result.text, 'Retry feedback for the model copied to the clipboard.');
    } else if (command === ServerCommand.applyFix && isEditResult(result)) {
      this.results.updateBlocks(result);
      if (result.applied) {
        await this.afterApply(result, getSettings());
      }
      const counts = countBlocks(result);
      if (counts.failed > 0 || result.applied === false) {
        void vscode.window.showWarningMessage(
          `LLM Edits: the fix did not apply${result.failureReason ? `: ${result.failureReason}` : ''}` +
            `${result.blocks[0]?.reason ? ` (${result.blocks[0].reason})` : ''}.`,
        );
      }
    }
  }
}

const SHOW_CHANGES = 'Show Changes';

function isTextResult(value: unknown): value is TextResult {
  return typeof value === 'object' && value !== null && typeof (value as TextResult).text === 'string';
}

function isEditResult(value: unknown): value is EditResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as EditResult).blocks);
}

export async function copyText(text: string, message: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
  const lines = text.split('\n').length;
  void vscode.window.showInformationMessage(`LLM Edits: ${message} (${lines} ${lines === 1 ? 'line' : 'lines'})`);
}

/** A command of the extension: an error it throws is reported (reportError), not handed back to VS Code. */
export function registerReportingCommand(
  id: string,
  action: string,
  handler: (...args: unknown[]) => Promise<unknown>,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (error) {
      reportError(action, error);
      return undefined;
    }
  });
}

/** Show an error from a command unless it was already shown. */
export function reportError(action: string, error: unknown): void {
  if (error instanceof ReportedError) {
    return;
  }
  outputChannel().error(`${action}: ${errorMessage(error)}`);
  void vscode.window.showErrorMessage(`LLM Edits: ${action} failed: ${errorMessage(error)}`, 'Show Logs').then((choice) => {
    if (choice === 'Show Logs') {
      outputChannel().show();
    }
  });
}
