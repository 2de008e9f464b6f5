/**
 * Where a response comes from: the clipboard, the active editor's selection, or the whole active
 * editor (sent as `responseUri`, so the server reports malformed blocks as diagnostics there).
 */
import * as vscode from 'vscode';
import { humanBytes, responseBytes } from './core/options';
import { isSyncedScheme } from './core/responseDocuments';

export type SourceKind = 'clipboard' | 'selection' | 'editor';

export type ResponseSource = (
  | { kind: 'clipboard'; text: string }
  | { kind: 'selection'; text: string; uri: string; lineOffset: number }
  | { kind: 'editor'; uri: string; text: string }
) & {
  /** The file (a `file:` URI) the answer's unnamed code fences are for (`options.target`). */
  target?: string;
  /** A block's lens run: what the lens names its block by (the server runs nothing if it moved). */
  block?: string;
};

/** The command argument for a source: `{response}` or `{responseUri}` (with a lens's `block`). */
export function sourceArgument(
  source: ResponseSource,
): { response: string } | { responseUri: string; block?: string } {
  if (source.kind === 'editor' && isSyncedScheme(vscode.Uri.parse(source.uri).scheme)) {
    return source.block === undefined ? { responseUri: source.uri } : { responseUri: source.uri, block: source.block };
  }
  return { response: source.text };
}

/** Where warnings can be shown: the response document and the line the response starts at. */
export function sourceLocation(source: ResponseSource): { uri: string; lineOffset: number } | undefined {
  if (source.kind === 'selection') {
    return { uri: source.uri, lineOffset: source.lineOffset };
  }
  if (source.kind === 'editor') {
    return { uri: source.uri, lineOffset: 0 };
  }
  return undefined;
}

export function describeSource(source: ResponseSource): string {
  const into = source.target ? ` to ${vscode.workspace.asRelativePath(vscode.Uri.parse(source.target))}` : '';
  switch (source.kind) {
    case 'clipboard':
      return `the clipboard${into}`;
    case 'selection':
      return `the selection${into}`;
    case 'editor':
      return vscode.workspace.asRelativePath(vscode.Uri.parse(source.uri)) + into;
  }
}

/**
 * Read a response, telling the user (and returning undefined) when there is nothing to read or it
 * is larger than `maxBytes`.
 */
export async function readSource(kind: SourceKind, maxBytes: number): Promise<ResponseSource | undefined> {
  let source: ResponseSource;
  if (kind === 'clipboard') {
    const text = await vscode.env.clipboard.readText();
    if (!text.trim()) {
      void vscode.window.showWarningMessage('LLM Edits: the clipboard is empty. Copy the model\'s response first.');
      return undefined;
    }
    source = { kind, text };
  } else {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage('LLM Edits: open the response in an editor first.');
      return undefined;
    }
    if (kind === 'selection') {
      const selection = editor.selection;
      const text = editor.document.getText(selection);
      if (selection.isEmpty || !text.trim()) {
        void vscode.window.showWarningMessage('LLM Edits: select the part of the response to apply first.');
        return undefined;
      }
      source = { kind, text, uri: editor.document.uri.toString(), lineOffset: selection.start.line };
    } else {
      const text = editor.document.getText();
      if (!text.trim()) {
        void vscode.window.showWarningMessage('LLM Edits: the active editor is empty.');
        return undefined;
      }
      source = { kind, uri: editor.document.uri.toString(), text };
    }
  }
  const bytes = responseBytes(source.text);
  if (bytes > maxBytes) {
    void vscode.window.showErrorMessage(
      `LLM Edits: the response is ${humanBytes(bytes)}, more than the ${humanBytes(maxBytes)} allowed ` +
        '("llmEdits.maxResponseSize").',
    );
    return undefined;
  }
  return source;
}
