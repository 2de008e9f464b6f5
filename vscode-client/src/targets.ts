/**
 * Apply / Preview LLM Edits to Active Editor: a chat answer (the clipboard, or the selection of a
 * response) applied to a file the user names, `options.target` (docs/protocol.md): every code
 * fence of the answer that names no file is merged into that file's buffer, unsaved changes
 * included. The choice of target and source is `core/target.ts`; this side reads editors.
 */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';
import type { ServerManager } from './common/server';
import { getSettings } from './common/settings';
import { humanBytes, responseBytes } from './core/options';
import { ServerCommand } from './core/protocol';
import { RESPONSE_LANGUAGE_ID } from './core/responseDocuments';
import { chooseTarget, LastTarget, type EditorState } from './core/target';
import type { PreviewManager } from './preview';
import { registerReportingCommand, type EditRunner } from './runs';
import type { ResponseSource } from './sources';

export interface TargetDeps {
  server: ServerManager;
  runner: EditRunner;
  preview: PreviewManager;
  /** Whether a document is watched as a response (never a target). */
  isWatched: (uri: string) => boolean;
}

export class ActiveEditorTargets implements vscode.Disposable {
  private readonly last = new LastTarget();
  private readonly disposables: vscode.Disposable[] = [];
  /** What the server was last told (`llmEdits.lastEditor`). */
  private told: string | undefined;

  constructor(private readonly deps: TargetDeps) {
    this.last.visit(this.state(vscode.window.activeTextEditor));
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.last.visit(this.state(editor));
        void this.tellServer();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        this.last.closed(document.uri.toString());
        void this.tellServer();
      }),
      registerReportingCommand('llmEdits.applyToActiveEditor', 'Apply to active editor', () => this.run('apply')),
      registerReportingCommand('llmEdits.previewToActiveEditor', 'Preview to active editor', () => this.run('preview')),
    );
  }

  /** The file of the editor the user was last in that can be a target (a `file:` URI). */
  get lastTarget(): string | undefined {
    return this.last.current;
  }

  /** After every (re)start of the server: it knows no last editor yet. */
  async onServerRunning(): Promise<void> {
    this.told = undefined;
    await this.tellServer();
  }

  /** The server names the last editor's file in the lens on each unnamed code fence. */
  private async tellServer(): Promise<void> {
    const uri = this.last.current;
    if (uri === this.told || !this.deps.server.isRunning) {
      return;
    }
    this.told = uri;
    try {
      await this.deps.server.execute(ServerCommand.lastEditor, { uri: uri ?? null });
    } catch (error) {
      this.told = undefined;
      outputChannel().warn(`Telling the server the last editor: ${errorMessage(error)}`);
    }
  }

  private state(editor: vscode.TextEditor | undefined): EditorState | undefined {
    if (!editor) {
      return undefined;
    }
    const uri = editor.document.uri.toString();
    return {
      uri,
      scheme: editor.document.uri.scheme,
      isResponse: editor.document.languageId === RESPONSE_LANGUAGE_ID || this.deps.isWatched(uri),
      selection: editor.selection.isEmpty ? '' : editor.document.getText(editor.selection),
    };
  }

  private async run(action: 'apply' | 'preview'): Promise<unknown> {
    const source = await this.source();
    if (!source) {
      return undefined;
    }
    if (action === 'preview') {
      return this.deps.preview.start(source);
    }
    await this.deps.preview.discard({ quiet: true });
    return this.deps.runner.apply(source);
  }

  private async source(): Promise<ResponseSource | undefined> {
    const editor = vscode.window.activeTextEditor;
    const choice = chooseTarget(this.state(editor), this.last.current);
    if ('problem' in choice) {
      void vscode.window.showWarningMessage(`LLM Edits: ${choice.problem}`);
      return undefined;
    }
    let source: ResponseSource;
    if (choice.from === 'selection' && editor) {
      source = {
        kind: 'selection',
        text: choice.selection ?? '',
        uri: editor.document.uri.toString(),
        lineOffset: editor.selection.start.line,
        target: choice.target,
      };
    } else {
      const text = await vscode.env.clipboard.readText();
      if (!text.trim()) {
        void vscode.window.showWarningMessage("LLM Edits: the clipboard is empty. Copy the model's answer first.");
        return undefined;
      }
      source = { kind: 'clipboard', text, target: choice.target };
    }
    const maxBytes = getSettings().maxResponseBytes;
    const bytes = responseBytes(source.text);
    if (bytes > maxBytes) {
      void vscode.window.showErrorMessage(
        `LLM Edits: the answer is ${humanBytes(bytes)}, more than the ${humanBytes(maxBytes)} allowed ` +
          '("llmEdits.maxResponseSize").',
      );
      return undefined;
    }
    return source;
  }

  dispose(): void {
    this.disposables.forEach((disposable) => disposable.dispose());
  }
}
