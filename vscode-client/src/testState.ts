/**
 * Test-only: `llmEdits.test.writeState` writes what the end-to-end test asserts on (buffer texts,
 * diagnostics, the status bar text, open tabs) to the file named by LLM_EDITS_TEST_STATE_FILE.
 * Registered only when that variable is set, and not contributed in package.json: users never
 * see it (not in the palette, the Keyboard Shortcuts editor or the extension's feature list).
 * The end-to-end test binds a key to it in its own keybindings.json.
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import { getSettings } from './common/settings';
import type { PreviewManager } from './preview';
import type { ResultsView } from './results';
import type { EditRunner } from './runs';

export const TEST_STATE_ENV = 'LLM_EDITS_TEST_STATE_FILE';

export function registerTestState(
  context: vscode.ExtensionContext,
  deps: { results: ResultsView; preview: PreviewManager; runner: EditRunner },
): void {
  const target = process.env[TEST_STATE_ENV];
  if (!target) {
    return;
  }
  context.subscriptions.push(
    vscode.commands.registerCommand('llmEdits.test.writeState', async () => {
      const state = {
        writtenAt: new Date().toISOString(),
        statusText: deps.results.text,
        previewActive: deps.preview.active,
        settings: getSettings(),
        lastResult: deps.runner.lastRun?.result ?? null,
        lastOptions: deps.runner.lastRun?.options ?? null,
        documents: vscode.workspace.textDocuments
          .filter((doc) => doc.uri.scheme === 'file' || doc.uri.scheme === 'untitled')
          .map((doc) => ({
            uri: doc.uri.toString(),
            languageId: doc.languageId,
            text: doc.getText(),
            version: doc.version,
            isDirty: doc.isDirty,
          })),
        diagnostics: vscode.languages.getDiagnostics().flatMap(([uri, diagnostics]) =>
          diagnostics.map((d) => ({
            uri: uri.toString(),
            line: d.range.start.line,
            message: d.message,
            severity: vscode.DiagnosticSeverity[d.severity],
            source: d.source ?? null,
            code: typeof d.code === 'object' ? String(d.code.value) : (d.code ?? null),
          })),
        ),
        // The active editor's code lenses as the providers give them now (the server's among them).
        codeLenses: await activeCodeLenses(),
        tabs: vscode.window.tabGroups.all.flatMap((group) =>
          group.tabs.map((tab) => ({ label: tab.label, input: tab.input ? tab.input.constructor.name : null })),
        ),
      };
      const tmp = `${target}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(state, null, 2));
      fs.renameSync(tmp, target);
      return target;
    }),
  );
}

async function activeCodeLenses(): Promise<Array<{ line: number; title: string; command: string }>> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document) {
    return [];
  }
  const lenses =
    (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri, 100)) ?? [];
  return lenses.map((lens) => ({ line: lens.range.start.line, title: lens.command?.title ?? '', command: lens.command?.command ?? '' }));
}
