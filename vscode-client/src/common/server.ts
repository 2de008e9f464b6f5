/**
 * The language client: starts the bundled Python server (`python -S -m lsp_server` over stdio,
 * PYTHONPATH = the extension's bundled/libs) on first use, restarts it on demand, and runs the
 * server's commands.
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { bundledLibsPath, formatVersion, serverLaunch } from '../core/launch';
import { toInitializationOptions } from '../core/options';
import { documentSelector } from '../core/responseDocuments';
import { errorMessage, outputChannel } from './log';
import { describeProblems, resolveInterpreter } from './python';
import { getSettings } from './settings';

/** An error the user has already been shown (so callers do not show it twice). */
export class ReportedError extends Error {}

export interface ServerHooks {
  /** A server command run by VS Code itself (a quick fix's code action) returned this. */
  onCodeActionCommand(command: string, result: unknown): Promise<void>;
  /** The server is running: after the first start, a restart, or the client's own restart after a crash. */
  onRunning(): Promise<void>;
  /** A code lens of the server, to show (a response document's block). */
  adaptCodeLens(lens: vscode.CodeLens): vscode.CodeLens;
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient> | undefined;
  interpreterDescription = '';

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly hooks: ServerHooks,
  ) {}

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  /** The running client, starting the server first if needed. */
  async ensureStarted(): Promise<LanguageClient> {
    if (this.client && this.client.state === State.Running) {
      return this.client;
    }
    if (this.client && this.client.state === State.Starting && !this.starting) {
      // The language client is restarting a crashed server by itself: wait for it.
      const client = this.client;
      const running = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          listener.dispose();
          resolve(false);
        }, 30000);
        const listener = client.onDidChangeState((event) => {
          if (event.newState !== State.Starting) {
            clearTimeout(timer);
            listener.dispose();
            resolve(event.newState === State.Running);
          }
        });
      });
      if (running) {
        return client;
      }
    }
    if (this.client && !this.starting) {
      // Stopped for good (crashed more often than the client restarts): start afresh.
      await this.stop();
    }
    if (!this.starting) {
      this.starting = this.start().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.ensureStarted();
    vscode.window.setStatusBarMessage('$(check) LLM Edits server restarted', 3000);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(3000);
      } catch (error) {
        outputChannel().warn(`Stopping the server: ${errorMessage(error)}`);
      }
      await client.dispose();
    }
  }

  /** `workspace/didChangeConfiguration` with these settings, when the server runs (else it gets them at start-up). */
  async changeConfiguration(settings: object): Promise<void> {
    if (this.client?.state === State.Running) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings });
    }
  }

  /** Run one of the server's commands with its single object argument. */
  async execute<T>(command: string, argument: object): Promise<T> {
    const client = await this.ensureStarted();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] })) as T;
  }

  private async start(): Promise<LanguageClient> {
    const log = outputChannel();
    const libs = bundledLibsPath(this.context.extensionPath);
    if (!fs.existsSync(libs)) {
      const message =
        `LLM Edits: the bundled server is missing (${libs}). Reinstall the extension, or build it with ` +
        '`npm run package` in vscode-client.';
      log.error(message);
      void vscode.window.showErrorMessage(message);
      throw new ReportedError(message);
    }
    const resolution = await resolveInterpreter();
    if (!resolution.ok) {
      const details = describeProblems(resolution.problems);
      log.error(`No usable Python: ${details}`);
      void this.reportNoInterpreter(details);
      throw new ReportedError(`No usable Python interpreter: ${details}`);
    }
    for (const problem of resolution.problems) {
      log.warn(`Skipped interpreter ${problem.candidate.command}: ${problem.reason}`);
    }
    const { interpreter } = resolution;
    this.interpreterDescription = `${interpreter.command} (Python ${formatVersion(interpreter.version)})`;
    const launch = serverLaunch(interpreter.command, this.context.extensionPath, process.env);
    log.info(`Starting the server: ${launch.command} ${launch.args.join(' ')} with PYTHONPATH=${launch.env.PYTHONPATH}`);

    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.context.extensionPath;
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      options: { env: launch.env, cwd },
    };
    const clientOptions: LanguageClientOptions = {
      // Every file and unsaved buffer, of any language (`llm-response` ones are the response
      // documents): the server edits whatever the response names, reading open buffers (unsaved
      // changes included) before disk, and reads responses from untitled buffers.
      documentSelector: documentSelector(),
      outputChannel: log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      diagnosticCollectionName: 'llm-edits',
      initializationOptions: toInitializationOptions(getSettings()),
      middleware: {
        executeCommand: async (command, args, next) => {
          const result = await next(command, args);
          await this.hooks.onCodeActionCommand(command, result);
          return result;
        },
        // A lens's server command (llmEdits.apply / preview of a block) becomes the client's run
        // of it, so its result is shown: run through executeCommand, nobody would see it.
        provideCodeLenses: async (document, token, next) =>
          (await next(document, token))?.map((lens) => this.hooks.adaptCodeLens(lens)),
        resolveCodeLens: async (lens, token, next) => {
          const resolved = await next(lens, token);
          return resolved ? this.hooks.adaptCodeLens(resolved) : resolved;
        },
      },
    };
    const client = new LanguageClient('llmEdits', 'LLM Edits', serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((event) => {
      if (event.newState === State.Running && this.client === client) {
        void this.hooks.onRunning().catch((error) => log.warn(`After the server started: ${errorMessage(error)}`));
      }
    });
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      const message = `LLM Edits: the server did not start with ${this.interpreterDescription}: ${errorMessage(error)}`;
      log.error(message);
      void vscode.window.showErrorMessage(message, 'Show Logs', 'Select Interpreter').then((choice) => {
        if (choice === 'Show Logs') {
          log.show();
        } else if (choice === 'Select Interpreter') {
          void vscode.commands.executeCommand('llmEdits.selectInterpreter');
        }
      });
      try {
        await client.dispose();
      } catch {
        // already failed; nothing more to release
      }
      throw new ReportedError(message);
    }
    log.info(`Server running on ${this.interpreterDescription}`);
    return client;
  }

  private async reportNoInterpreter(details: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(
      `LLM Edits needs Python 3.10 or newer to run its server, and none works here (${details}). ` +
        'Select an interpreter, or set "llmEdits.interpreter".',
      'Select Interpreter',
      'Show Logs',
    );
    if (choice === 'Select Interpreter') {
      await vscode.commands.executeCommand('llmEdits.selectInterpreter');
    } else if (choice === 'Show Logs') {
      outputChannel().show();
    }
  }

  dispose(): void {
    void this.stop();
  }
}
