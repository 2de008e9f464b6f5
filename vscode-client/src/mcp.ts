/**
 * Agents through the editor (docs/agents.md): with `llmEdits.mcp.enabled` the server serves its
 * tools over MCP on 127.0.0.1. This module offers that endpoint to VS Code's own agent mode (an
 * MCP server definition provider, where the running VS Code has the API: stable since 1.101) and
 * copies the configuration other agents take (**Copy MCP Server Config**).
 */
import * as vscode from 'vscode';
import { errorMessage, outputChannel } from './common/log';
import type { ServerManager } from './common/server';
import { getSettings } from './common/settings';
import { ServerCommand, type McpEndpointResult } from './core/protocol';
import { copyText } from './runs';

export const MCP_PROVIDER_ID = 'llmEdits.mcp';

/** The parts of VS Code's MCP API used here (absent from older `vscode` typings and versions). */
interface McpApi {
  registerMcpServerDefinitionProvider(
    id: string,
    provider: {
      onDidChangeMcpServerDefinitions?: vscode.Event<void>;
      provideMcpServerDefinitions(token: vscode.CancellationToken): Promise<unknown[]>;
    },
  ): vscode.Disposable;
}
type HttpDefinitionClass = new (label: string, uri: vscode.Uri, headers?: Record<string, string>) => unknown;

export class McpOffer implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** Whether VS Code's agent mode was offered the endpoint (the API exists in this VS Code). */
  readonly registered: boolean;

  constructor(private readonly server: ServerManager) {
    this.registered = this.register();
    outputChannel().info(
      this.registered
        ? 'MCP: offered to VS Code agent mode when llmEdits.mcp.enabled is on'
        : 'MCP: this VS Code has no usable MCP server definition API (1.101+); Copy MCP Server Config still works',
    );
  }

  /** Register the provider where this VS Code can take it; false where it cannot. */
  private register(): boolean {
    const lm = (vscode as unknown as { lm?: Partial<McpApi> }).lm;
    const definition = (vscode as unknown as { McpHttpServerDefinition?: HttpDefinitionClass }).McpHttpServerDefinition;
    if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || definition === undefined) {
      return false;
    }
    try {
      this.disposables.push(
        lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
          onDidChangeMcpServerDefinitions: this.changed.event,
          provideMcpServerDefinitions: async () => this.definitions(definition),
        }),
      );
      return true;
    } catch (error) {
      // VS Code 1.100 (code-server 4.100) has the function under an older contribution point
      // and throws: the rest of the extension must still activate.
      outputChannel().warn(`MCP: VS Code refused the server definition provider: ${errorMessage(error)}`);
      return false;
    }
  }

  /** The endpoint may have changed (setting toggled, server restarted): agent mode asks again. */
  refresh(): void {
    this.changed.fire();
  }

  async endpoint(): Promise<McpEndpointResult> {
    if (!getSettings().mcpEnabled) {
      throw new Error('the MCP endpoint is off: turn on the setting llmEdits.mcp.enabled');
    }
    return this.server.execute<McpEndpointResult>(ServerCommand.mcpEndpoint, {});
  }

  private async definitions(definition: HttpDefinitionClass): Promise<unknown[]> {
    if (!getSettings().mcpEnabled || !this.server.isRunning) {
      return [];
    }
    const { url, token } = await this.endpoint();
    return [new definition('LLM Edits', vscode.Uri.parse(url), { Authorization: `Bearer ${token}` })];
  }

  /** **Copy MCP Server Config**: the chosen agent's configuration text, with URL and token. */
  async copyConfig(): Promise<void> {
    const endpoint = await this.endpoint();
    const items = Object.entries(endpoint.configs).map(([agent, text]) => ({ label: agent, text }));
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Copy MCP Server Config',
      placeHolder: `The agent to give the editor's MCP endpoint (${endpoint.url})`,
    });
    if (picked) {
      await copyText(picked.text, `MCP server config for ${picked.label} copied to the clipboard.`);
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
