/** The "LLM Edits" output channel: the client's own messages and the server's logs and stderr. */
import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

export function outputChannel(): vscode.LogOutputChannel {
  if (!channel) {
    channel = vscode.window.createOutputChannel('LLM Edits', { log: true });
  }
  return channel;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  if (typeof error === 'object' && error !== null && 'message' in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}
