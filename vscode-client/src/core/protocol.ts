/**
 * The shapes the LLM Edits server returns (CONTRACT.md plus docs/commands.md), as the client
 * reads them. Everything is optional where the server may omit it, so that an older or newer
 * server degrades instead of crashing the client.
 *
 * No `vscode` import here: these types are shared with the unit tests.
 */

export type BlockStatus = 'validated' | 'applied' | 'failed' | 'skipped';

export interface BlockResult {
  index: number;
  file: string | null;
  uri?: string | null;
  format?: string;
  status: BlockStatus;
  reason?: string | null;
  /** 0-based line in the target file; null for a skipped block. */
  line?: number | null;
  match?: string | null;
  responseLine?: number | null;
  offset?: number | null;
  hint?: string | null;
  fixes?: Array<{ matching?: string; closestLine?: number }> | null;
}

export interface ResponseWarning {
  responseLine: number;
  message: string;
}

/** One changed file, returned when `options.includeText` is set. */
export interface FileText {
  uri: string;
  newUri?: string | null;
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
export interface CreateFile {
  kind: 'create';
  uri: string;
  options?: { overwrite?: boolean; ignoreIfExists?: boolean };
}
export interface RenameFile {
  kind: 'rename';
  oldUri: string;
  newUri: string;
  options?: { overwrite?: boolean; ignoreIfExists?: boolean };
}
export interface DeleteFile {
  kind: 'delete';
  uri: string;
  options?: { recursive?: boolean; ignoreIfNotExists?: boolean };
}
export type DocumentChange = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

export interface WorkspaceEdit {
  documentChanges?: DocumentChange[];
}

/** Result of `llmEdits.preview`, `llmEdits.apply` and `llmEdits.applyFix`. */
export interface EditResult {
  edit: WorkspaceEdit | null;
  blocks: BlockResult[];
  shellSuggestions?: string[];
  warnings?: ResponseWarning[];
  runId?: string;
  applied?: boolean;
  failureReason?: string | null;
  files?: FileText[];
}

export interface TextResult {
  text: string;
}

export interface InstructionsResult {
  text: string;
  formats: string[];
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
