/**
 * LLM Edits for VS Code: apply the edit blocks of an LLM's response (clipboard, selection or a
 * response document) through the bundled Python language server, preview them as diffs, and
 * report each block in the status bar, the Problems panel and quick fixes; in an `llm-response`
 * document (or a watched one), each block's status as a code lens while the response is written.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { McpOffer } from './mcp';
import { errorMessage, outputChannel } from './common/log';
import { onPythonExtensionInterpreterChange } from './common/python';
import { ServerManager } from './common/server';
import { changesServerSettings, getSettings, needsRestart } from './common/settings';
import { serverSettingsChange } from './core/options';
import { PreviewManager } from './preview';
import { ResponseDocuments, toClientLens } from './responseDocuments';
import { ResultsView } from './results';
import { EditRunner, registerReportingCommand } from './runs';
import { ActiveEditorTargets } from './targets';
import { registerTestState } from './testState';

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = outputChannel();
  context.subscriptions.push(log);
  log.info(`LLM Edits ${context.extension.packageJSON.version as string} activated`);

  const results = new ResultsView();
  // The runner and the server refer to each other (quick fixes' results go to the runner).
  let runner: EditRunner | undefined;
  let responses: ResponseDocuments | undefined;
  let mcp: McpOffer | undefined;
  let targets: ActiveEditorTargets | undefined;
  server = new ServerManager(context, {
    onCodeActionCommand: async (command, result) => runner?.onCodeActionCommand(command, result),
    onRunning: async () => {
      mcp?.refresh(); // a new server: a new endpoint (port and token)
      await responses?.onServerRunning();
      await targets?.onServerRunning();
    },
    adaptCodeLens: toClientLens,
  });
  runner = new EditRunner(server, results);
  const preview = new PreviewManager(runner);
  context.subscriptions.push(results, server, preview);

  registerCommands(context, { server, runner, preview, results });
  responses = new ResponseDocuments({ server, runner, preview });
  context.subscriptions.push(responses);
  const watched = responses;
  targets = new ActiveEditorTargets({ server, runner, preview, isWatched: (uri) => watched.isWatched(uri) });
  context.subscriptions.push(targets);
  registerTestState(context, { results, preview, runner });
  const offer = new McpOffer(server);
  mcp = offer;
  context.subscriptions.push(
    offer,
    registerReportingCommand('llmEdits.copyMcpServerConfig', 'Copy MCP server config', () => offer.copyConfig()),
  );
  void vscode.commands.executeCommand('setContext', 'llmEdits.previewActive', false);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (needsRestart(event) && server?.isRunning) {
        log.info('Settings changed: restarting the server');
        try {
          await server.restart();
        } catch (error) {
          log.error(`Restart failed: ${errorMessage(error)}`);
        }
      } else if (changesServerSettings(event)) {
        await server?.changeConfiguration(serverSettingsChange(getSettings()));
        mcp?.refresh();
      }
    }),
  );
  // Following the Python extension's interpreter only matters when no interpreter is set.
  void onPythonExtensionInterpreterChange(async () => {
    if (!getSettings().interpreter && server?.isRunning) {
      log.info("The Python extension's interpreter changed: restarting the server");
      await server.restart().catch((error) => log.error(`Restart failed: ${errorMessage(error)}`));
    }
  }).then((disposable) => disposable && context.subscriptions.push(disposable));
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}
