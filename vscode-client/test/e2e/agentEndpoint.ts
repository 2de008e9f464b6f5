/**
 * End-to-end step: an agent edits through the editor (docs/agents.md).
 *
 * The setting `llmEdits.mcp.enabled` is turned on; **Copy MCP Server Config** gives the URL and
 * token (Claude Code's JSON, read from the clipboard); this test then speaks MCP to the running
 * server over HTTP, as an agent would, while the user has unsaved changes in a file. An
 * `edit_file` call changes the buffer, not the disk; a failing call shows its squiggle.
 *
 * run.ts calls `agentsThroughTheEditor` with its workbench helpers.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { Harness, StateView } from './ambiguityQuickFix';

const FILE = 'src/agent.py';
const BEFORE = 'def answer():\n    return 41\n';
const UNSAVED = '  # checked by hand';

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { blocks?: Array<{ status: string; reason: string | null }> };
  isError?: boolean;
}

/** What this step reads of the test state beyond StateView. */
interface AgentStateView extends StateView {
  documents: Array<{ uri: string; text: string; isDirty: boolean }>;
}

/** A minimal MCP client over streamable HTTP (the initialize handshake, then tool calls). */
class McpHttpClient {
  private sessionId: string | undefined;
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private async post(message: object): Promise<unknown> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = '2025-06-18';
    }
    const response = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message) });
    if (response.status >= 400) {
      throw new Error(`MCP endpoint answered ${response.status}: ${await response.text()}`);
    }
    this.sessionId = response.headers.get('mcp-session-id') ?? this.sessionId;
    const text = await response.text();
    const id = (message as { id?: number }).id;
    if (id === undefined) {
      return undefined;
    }
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)))
      : [JSON.parse(text)];
    const answer = messages.find((m: { id?: number }) => m.id === id) as { result?: unknown; error?: unknown } | undefined;
    if (!answer || answer.error) {
      throw new Error(`MCP request ${id} failed: ${JSON.stringify(answer?.error ?? text)}`);
    }
    return answer.result;
  }

  async initialize(): Promise<void> {
    await this.post({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'llm-edits-e2e', version: '1' } },
    });
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async callTool(name: string, args: object): Promise<ToolResult> {
    return (await this.post({ jsonrpc: '2.0', id: this.nextId++, method: 'tools/call', params: { name, arguments: args } })) as ToolResult;
  }
}

async function clipboardAfter(page: Page, sentinel: string): Promise<string> {
  for (let i = 0; i < 80; i++) {
    const text = await page.evaluate(() => navigator.clipboard.readText());
    if (text !== sentinel && text !== '') {
      return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('nothing was copied to the clipboard');
}

/** Copy MCP Server Config → Claude Code: the endpoint's URL and token, as an agent gets them. */
async function copiedEndpoint(page: Page, h: Harness): Promise<{ url: string; token: string }> {
  for (let attempt = 1; ; attempt++) {
    const sentinel = `(waiting for the MCP config ${attempt})`;
    await page.evaluate((text) => navigator.clipboard.writeText(text), sentinel);
    await h.runCommand(page, 'LLM Edits: Copy MCP Server Config');
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Claude Code' }).first();
    try {
      await row.waitFor({ state: 'visible', timeout: 10_000 });
    } catch (error) {
      // The setting may not have reached the server yet (an error notification): again.
      if (attempt === 5) {
        throw error;
      }
      await h.dismissNotifications(page);
      continue;
    }
    await row.click();
    const config = JSON.parse(await clipboardAfter(page, sentinel)) as {
      mcpServers: { 'llm-edits': { url: string; headers: { Authorization: string } } };
    };
    const server = config.mcpServers['llm-edits'];
    return { url: server.url, token: server.headers.Authorization.replace(/^Bearer /, '') };
  }
}

function setMcpSetting(workspace: string, enabled: boolean | undefined): void {
  const file = path.join(workspace, '.vscode', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const settings = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  if (enabled === undefined) {
    delete settings['llmEdits.mcp.enabled'];
  } else {
    settings['llmEdits.mcp.enabled'] = enabled;
  }
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

export async function agentsThroughTheEditor(page: Page, h: Harness): Promise<void> {
  const disk = path.join(h.workspace, FILE);
  fs.writeFileSync(disk, BEFORE);
  await h.closeAllEditors(page);
  await h.dismissNotifications(page);
  setMcpSetting(h.workspace, true);
  const endpoint = await copiedEndpoint(page, h);
  h.check(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(endpoint.url), 'agents: Copy MCP Server Config gives a 127.0.0.1 URL', endpoint.url);

  // The user's unsaved change, then an agent's edit of the same file.
  await h.openFile(page, FILE, 1);
  await page.keyboard.press('End');
  await page.keyboard.type(UNSAVED);
  const unsaved = BEFORE.replace('def answer():', `def answer():${UNSAVED}`);
  await h.waitForState(page, (s) => h.documentText(s, FILE) === unsaved);
  const agent = new McpHttpClient(endpoint.url, endpoint.token);
  await agent.initialize();
  const edit = await agent.callTool('edit_file', { path: FILE, old_string: 'return 41', new_string: 'return 42' });
  h.check(!edit.isError, 'agents: edit_file on a file with unsaved changes succeeds', edit.content[0]?.text);
  const edited = unsaved.replace('return 41', 'return 42');
  const state = (await h.waitForState(page, (s) => h.documentText(s, FILE) === edited)) as AgentStateView;
  h.check(h.documentText(state, FILE) === edited, "agents: the agent's edit changed the buffer, keeping the unsaved change", h.documentText(state, FILE));
  h.check(
    state.documents.some((doc) => doc.uri.endsWith(`/${FILE}`) && doc.isDirty),
    'agents: the buffer is still unsaved (the user saves it)',
  );
  h.check(fs.readFileSync(disk, 'utf8') === BEFORE, 'agents: the file on disk is untouched');

  // A call that fails: its block's diagnostic is where the user looks.
  const failing = await agent.callTool('edit_file', { path: FILE, old_string: 'return 40', new_string: 'return 0' });
  h.check(failing.isError === true, 'agents: an edit_file whose old_string is not in the buffer fails', failing.content[0]?.text);
  const squiggled = await h.waitForState(page, (s) => s.diagnostics.some((d) => d.uri.endsWith(`/${FILE}`) && d.source === 'llm-edits'));
  const diagnostic = squiggled.diagnostics.find((d) => d.uri.endsWith(`/${FILE}`) && d.source === 'llm-edits');
  h.check(diagnostic?.line === 1, "agents: the failed call's squiggle is on the closest line", squiggled.diagnostics);
  await page.locator('.editor-group-container.active .squiggly-error').first().waitFor({ state: 'visible', timeout: 10_000 });
  await h.screenshot(page, '11-agent-edit-and-squiggle');

  await h.runCommand(page, 'File: Revert File');
  await h.closeAllEditors(page);
  setMcpSetting(h.workspace, undefined);
  fs.rmSync(disk);
}
