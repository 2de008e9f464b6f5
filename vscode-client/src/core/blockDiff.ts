/**
 * Which diff the summary opens for a block (click-to-diff): the block's file before the run
 * against after it, at the block's line. Built from the run's `files` (`options.includeText`),
 * so it shows what this run changed, not what Git or the disk has. Pure, unit tested.
 */
import type { BlockResult, FileText } from './protocol';
import { displayPath, sameUri } from './uris';

/** One side of the diff: a text the run gave (shown read-only), or the file itself. */
export type DiffSide = { kind: 'text'; uri: string; text: string } | { kind: 'file'; uri: string };

export interface BlockDiff {
  /** The file as it is named after the run (its new URI when the run renamed it). */
  uri: string;
  /** The file's text before the run. */
  before: DiffSide;
  /** Once applied, the file itself (its buffer); otherwise the proposed text. */
  after: DiffSide;
  /** 0-based line of the block on the `after` side. */
  line: number;
}

/**
 * The diff for a block that changed (or would change) its file; undefined for a block that
 * changed nothing (failed, skipped, already applied) or whose file the run's texts do not hold.
 */
export function blockDiff(block: BlockResult, files: readonly FileText[] | undefined): BlockDiff | undefined {
  const uri = block.uri;
  if ((block.status !== 'applied' && block.status !== 'validated') || !uri) {
    return undefined;
  }
  const file = files?.find((f) => sameUri(f.uri, uri) || (f.newUri !== undefined && sameUri(f.newUri, uri)));
  if (!file) {
    return undefined;
  }
  const afterUri = file.newUri ?? file.uri;
  const inFile = block.status === 'applied' && file.kind !== 'delete';
  return {
    uri: afterUri,
    before: { kind: 'text', uri: file.uri, text: file.oldText },
    after: inFile ? { kind: 'file', uri: afterUri } : { kind: 'text', uri: afterUri, text: file.newText },
    line: file.kind === 'delete' ? 0 : (block.line ?? 0),
  };
}

/** The diff editor's title: `src/app.py (LLM Edits: before ↔ now)` or `… ↔ proposed)`. */
export function blockDiffTitle(diff: BlockDiff, workspaceFolders: readonly string[]): string {
  const after = diff.after.kind === 'file' ? 'now' : 'proposed';
  return `${displayPath(diff.uri, workspaceFolders)} (LLM Edits: before ↔ ${after})`;
}
