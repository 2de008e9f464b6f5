/**
 * Response documents in VS Code: the `llm-response` language (`*.llm.md`, and "New LLM Response"
 * for an untitled one), Watch / Stop Watching for a document of any other language, and the
 * server's code lenses on them. A lens click runs the extension's own apply or preview of its
 * block (`llmEdits.runLens`), so its result is shown as any other run's: status bar,
 * notification with Show Changes, the preview's diff.
 */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';
import type { ServerManager } from './common/server';
import { getSettings } from './common/settings';
import { ServerCommand } from './core/protocol';
import {
  asLensRun,
  ClientCommand,
  isSyncedScheme,
  RESPONSE_LANGUAGE_ID,
  toClientLensCommand,
  WatchedUris,
} from './core/responseDocuments';
import { sameUri } from './core/uris';
import type { PreviewManager } from './preview';
import { registerReportingCommand, type EditRunner } from './runs';

export interface ResponseDocumentDeps {
  server: ServerManager;
  runner: EditRunner;
  preview: PreviewManager;
}

/** The server's lens, its command made the client's run of the same block (`llmEdits.runLens`). */
export function toClientLens(lens: vscode.CodeLens): vscode.CodeLens {
  if (lens.command) {
    lens.command = toClientLensCommand(lens.command);
  }
  return lens;
}

export class ResponseDocuments implements vscode.Disposable {
  private readonly watched = new WatchedUris();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: ResponseDocumentDeps) {
    this.disposables.push(
      registerReportingCommand(ClientCommand.newResponse, 'New LLM Response', () => this.newResponse()),
      registerReportingCommand(ClientCommand.watchDocument, 'Watch', () => this.watchActive()),
      registerReportingCommand(ClientCommand.unwatchDocument, 'Stop watching', () => this.unwatchActive()),
      registerReportingCommand(ClientCommand.runLens, 'Run block', (run) => this.runLens(run)),
      vscode.workspace.onDidOpenTextDocument((document) => this.startFor(document)),
      // The server forgets a watched document when it is closed (didClose): so does the client.
      vscode.workspace.onDidCloseTextDocument((document) => this.watched.delete(document.uri.toString())),
    );
    // Lenses need a running server: a response document open at activation (the reason for
    // it, `onLanguage:llm-response`) starts it, as a command would.
    vscode.workspace.textDocuments.forEach((document) => this.startFor(document));
  }

  /** Whether the document at `uri` is watched as a response (it is never a target then). */
  isWatched(uri: string): boolean {
    return this.watched.has(uri);
  }

  /** After every (re)start of the server: its watch list is empty, send the open ones again. */
  async onServerRunning(): Promise<void> {
    const open = (uri: string) => vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === uri);
    for (const uri of this.watched.stillOpen(open)) {
      try {
        await this.deps.server.execute(ServerCommand.watch, { uri });
      } catch (error) {
        outputChannel().warn(`Watching ${uri} again after a restart: ${errorMessage(error)}`);
      }
    }
  }

  private startFor(document: vscode.TextDocument): void {
    if (document.languageId === RESPONSE_LANGUAGE_ID && isSyncedScheme(document.uri.scheme)) {
      // ensureStarted reports its own failures to the user; only the log needs this one.
      void this.deps.server.ensureStarted().catch((error) => outputChannel().warn(`Server for ${document.uri}: ${errorMessage(error)}`));
    }
  }

  private async newResponse(): Promise<void> {
    const document = await vscode.workspace.openTextDocument({ language: RESPONSE_LANGUAGE_ID, content: '' });
    await vscode.window.showTextDocument(document);
  }

  private activeDocument(): vscode.TextDocument | undefined {
    const document = vscode.window.activeTextEditor?.document;
    if (!document) {
      void vscode.window.showWarningMessage('LLM Edits: open the document to watch in an editor first.');
    }
    return document;
  }

  private async watchActive(): Promise<void> {
    const document = this.activeDocument();
    if (!document) {
      return;
    }
    const name = vscode.workspace.asRelativePath(document.uri);
    if (document.languageId === RESPONSE_LANGUAGE_ID) {
      void vscode.window.showInformationMessage(`LLM Edits: ${name} is an LLM Response document: it is watched already.`);
      return;
    }
    if (!isSyncedScheme(document.uri.scheme)) {
      void vscode.window.showWarningMessage(
        `LLM Edits: ${name} cannot be watched: only files and untitled documents reach the server (this one is "${document.uri.scheme}:").`,
      );
      return;
    }
    const uri = document.uri.toString();
    await this.deps.server.execute(ServerCommand.watch, { uri });
    this.watched.add(uri);
    vscode.window.setStatusBarMessage(`$(eye) LLM Edits: watching ${name} as a response`, 5000);
  }

  private async unwatchActive(): Promise<void> {
    const document = this.activeDocument();
    if (!document) {
      return;
    }
    const uri = document.uri.toString();
    const name = vscode.workspace.asRelativePath(document.uri);
    if (!this.watched.has(uri)) {
      void vscode.window.showInformationMessage(`LLM Edits: ${name} is not watched.`);
      return;
    }
    await this.deps.server.execute(ServerCommand.unwatch, { uri });
    this.watched.delete(uri);
    vscode.window.setStatusBarMessage(`$(eye-closed) LLM Edits: stopped watching ${name}`, 5000);
  }

  /** A lens click: the extension's apply or preview of the lens's blocks of its response. */
  private async runLens(argument: unknown): Promise<void> {
    const run = asLensRun(argument);
    if (!run) {
      throw new Error(`not a lens run: ${JSON.stringify(argument)}`);
    }
    const document = vscode.workspace.textDocuments.find((doc) => sameUri(doc.uri.toString(), run.responseUri));
    if (!document) {
      void vscode.window.showWarningMessage('LLM Edits: the response document of this lens is closed.');
      return;
    }
    const source = {
      kind: 'editor' as const,
      uri: document.uri.toString(),
      text: document.getText(),
      target: run.target,
      block: run.block,
    };
    if (run.action === 'preview') {
      await this.deps.preview.start(source, run.blocks);
      return;
    }
    // As a direct apply: it supersedes an open preview (whose diff would no longer be current).
    await this.deps.preview.discard({ quiet: true });
    await this.deps.runner.apply(source, getSettings(), run.blocks);
  }

  dispose(): void {
    this.disposables.forEach((disposable) => disposable.dispose());
  }
}
