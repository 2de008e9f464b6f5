/**
 * The shapes the LLM Edits server returns (docs/protocol.md), as it sends them: the result JSON
 * is built by lsp_server/results.py (blocks, warnings, changed files) and
 * lsp_server/lsp/workspace_edit.py (the edit). A field the server always sends is required; one
 * it sends only in some cases is optional.
 *
 * No `vscode` import here: these types are shared with the unit tests.
 */

/**
 * `already-applied`: the block's new text is already in the file where its old text would be
 * (the response was applied before); nothing is changed and it is not a failure.
 * `excluded`: the run's `options.blocks` left the block out; it has no edit and is not a failure.
 * `pending`: in a response document, a block started but not closed at the end of the text (the
 * response is still being written): never applied, not a failure. Such a block carries only
 * `index`, `status`, `file`, `format` and `responseLine`.
 */
export type BlockStatus = 'validated' | 'applied' | 'failed' | 'skipped' | 'already-applied' | 'excluded' | 'pending';

/** How a block matched: apply-patch adds Codex's `trailing-whitespace` and `unicode` levels. */
export type MatchKind = 'exact' | 'trailing-whitespace' | 'whitespace' | 'unicode';

/** Which quick fix would make a failed block apply (an empty object: none). */
export interface BlockFixes {
  /** Present when the block matches exactly once ignoring leading/trailing whitespace. */
  matching?: 'whitespace';
  /** 0-based line of a unique near match ("Apply at closest match"). */
  closestLine?: number;
}

export interface BlockResult {
  index: number;
  /** The path as the response wrote it ('' when the block named none). */
  file: string;
  /** null when the path was refused (outside the workspace, inside .git/, ...). */
  uri: string | null;
  format: string;
  status: BlockStatus;
  reason: string | null;
  /**
   * 0-based line in the target file (match start, where an already-applied block's new text is,
   * or a failure's estimated line); null for a skipped block.
   */
  line: number | null;
  /** null when the block did not match (or was placed by the closest-match fix). */
  match: MatchKind | null;
  /** 0-based line of the response where the block starts. */
  responseLine: number;
  hint: string | null;
  fixes: BlockFixes;
  /** unified-diff only: how many lines away from its header's line the block applied. */
  offset?: number;
  /** The agent's tool call the block came from (an apply_patch_call's call_id). */
  callId?: string;
  /**
   * The block's first anchor, old and new line, cut to 50 characters (seed 001's previews, for
   * UIs); empty or absent when the block has none (an older server sends none).
   */
  anchorPreview?: string;
  oldPreview?: string;
  newPreview?: string;
}

export interface ResponseWarning {
  responseLine: number;
  message: string;
}

/** One changed file, returned when `options.includeText` is set. */
export interface FileText {
  uri: string;
  newUri?: string;
  kind: 'edit' | 'create' | 'rename' | 'delete';
  oldText: string;
  newText: string;
}

/** LSP `Position` / `Range` / `TextEdit`, as plain JSON. */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}
export interface TextEdit {
  range: Range;
  newText: string;
}

export interface TextDocumentEdit {
  textDocument: { uri: string; version: number | null };
  edits: TextEdit[];
}
/** Resource operations carry no options: a create never overwrites, a delete is never recursive. */
export interface CreateFile {
  kind: 'create';
  uri: string;
}
export interface RenameFile {
  kind: 'rename';
  oldUri: string;
  newUri: string;
}
export interface DeleteFile {
  kind: 'delete';
  uri: string;
}
export type DocumentChange = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

/**
 * `documentChanges` for clients that advertise it (VS Code does); the `changes` map otherwise.
 */
export interface WorkspaceEdit {
  documentChanges?: DocumentChange[];
  changes?: Record<string, TextEdit[]>;
}

/** One command a shell would run: as written, and as the user must be shown it. */
export interface ShellCommandPart {
  command: string;
  /** Invisible and control characters as `<U+XXXX>`, long runs of spaces as `<N spaces>`. */
  display: string;
}

/** A suggested shell command (`shellCommands`): split where a shell runs another command. */
export interface ShellCommand extends ShellCommandPart {
  parts: ShellCommandPart[];
}

/** Result of `llmEdits.preview`, `llmEdits.apply` and `llmEdits.applyFix`. */
export interface EditResult {
  edit: WorkspaceEdit | null;
  blocks: BlockResult[];
  shellSuggestions: string[];
  /** The same commands, computed by the server for display and confirmation (older servers: absent). */
  shellCommands?: ShellCommand[];
  warnings: ResponseWarning[];
  runId: string;
  /** apply and applyFix only: whether the editor applied the edit. */
  applied?: boolean;
  /** apply and applyFix only, when the edit was not applied: why. */
  failureReason?: string;
  /** With `options.includeText`. */
  files?: FileText[];
}

/** One block of `llmEdits.parse`: its text, nothing located. */
export interface ParsedBlock {
  index: number;
  file: string;
  format: string;
  op: 'update' | 'create' | 'delete' | 'rename' | 'append' | 'write';
  responseLine: number;
  /** The target of a move, as written. */
  moveTo?: string;
  /** Line formats (edit-v3, edit-v2, search-replace, semantic-diff). */
  anchor?: string;
  old?: string;
  new?: string;
  trailing?: string;
  /** Hunk formats (hunk-patch, apply-patch, unified-diff): old and new include the context lines. */
  hunks?: Array<{ header: string; old: string; new: string }>;
  /** str-replace: `old` and `new` are exact strings; every occurrence; an insert's line. */
  replaceAll?: boolean;
  insertLine?: number;
  /** The agent's tool call the block came from (an apply_patch_call's call_id). */
  callId?: string;
}

/** Result of `llmEdits.parse`. */
export interface ParseResult {
  blocks: ParsedBlock[];
  warnings: ResponseWarning[];
  shellSuggestions: string[];
}

/** Result of `llmEdits.feedback` and `llmEdits.copyFeedback`. */
export interface TextResult {
  text: string;
}

export interface InstructionsResult {
  text: string;
  formats: string[];
}

/** `llmEdits.mcpEndpoint`: the agents' MCP endpoint and each agent's configuration text. */
export interface McpEndpointResult {
  url: string;
  token: string;
  /** Agent name -> configuration to paste (JSON, or TOML for Codex CLI). */
  configs: Record<string, string>;
}

export function isTextDocumentEdit(change: DocumentChange): change is TextDocumentEdit {
  return (change as TextDocumentEdit).textDocument !== undefined;
}

/** The server's command names (the `workspace/executeCommand` surface). */
export const ServerCommand = {
  preview: 'llmEdits.preview',
  apply: 'llmEdits.apply',
  parse: 'llmEdits.parse',
  feedback: 'llmEdits.feedback',
  instructions: 'llmEdits.instructions',
  clear: 'llmEdits.clear',
  applyFix: 'llmEdits.applyFix',
  copyFeedback: 'llmEdits.copyFeedback',
  /** `{uri}`: the open document is a response document until unwatched or closed. */
  watch: 'llmEdits.watch',
  unwatch: 'llmEdits.unwatch',
  /** The agents' MCP endpoint: `{url, token}` (an error while the server's `mcp` setting is off). */
  mcpEndpoint: 'llmEdits.mcpEndpoint',
  /** `{uri}` (or `{uri: null}`): the file of the editor the user was last in, named by the
   * "Apply to <file>" lens on a response document's code fences that name no file. */
  lastEditor: 'llmEdits.lastEditor',
} as const;

/**
 * URIs whose final state is a file with content worth saving (and staging): edited documents and
 * created files, following renames to their new names. Deleted files are excluded.
 */
export function urisToSave(edit: WorkspaceEdit | null | undefined): string[] {
  const result: string[] = [];
  const renamedTo = new Map<string, string>();
  const deleted = new Set<string>();
  for (const change of edit?.documentChanges ?? []) {
    if (isTextDocumentEdit(change)) {
      result.push(change.textDocument.uri);
    } else if (change.kind === 'create') {
      result.push(change.uri);
    } else if (change.kind === 'rename') {
      renamedTo.set(change.oldUri, change.newUri);
      result.push(change.newUri);
    } else {
      deleted.add(change.uri);
    }
  }
  const finalUris = result.map((uri) => renamedTo.get(uri) ?? uri).filter((uri) => !deleted.has(uri));
  return [...new Set(finalUris)];
}

/** Versions of the open buffers an edit was computed against (null: read from disk). */
export function editedVersions(edit: WorkspaceEdit | null | undefined): Map<string, number | null> {
  const versions = new Map<string, number | null>();
  for (const change of edit?.documentChanges ?? []) {
    if (isTextDocumentEdit(change) && !versions.has(change.textDocument.uri)) {
      versions.set(change.textDocument.uri, change.textDocument.version ?? null);
    }
  }
  return versions;
}
