/**
 * Turning a server result into what the user reads: the status bar text, its tooltip, and the
 * entries of the summary quick pick. Pure functions (no `vscode`), unit tested.
 */
import type { BlockResult, BlockStatus, EditResult } from './protocol';
import { displayPath } from './uris';

export type RunMode = 'preview' | 'apply';

export interface Counts {
  applied: number;
  validated: number;
  alreadyApplied: number;
  failed: number;
  skipped: number;
  warnings: number;
}

/** Which count each status adds to (a status a newer server may add counts nowhere). */
const COUNTED: Record<BlockStatus, keyof Omit<Counts, 'warnings'>> = {
  applied: 'applied',
  validated: 'validated',
  'already-applied': 'alreadyApplied',
  failed: 'failed',
  skipped: 'skipped',
};

export function countBlocks(result: Pick<EditResult, 'blocks' | 'warnings'>): Counts {
  const counts: Counts = { applied: 0, validated: 0, alreadyApplied: 0, failed: 0, skipped: 0, warnings: 0 };
  for (const block of result.blocks) {
    const key = Object.prototype.hasOwnProperty.call(COUNTED, block.status) ? COUNTED[block.status] : undefined;
    if (key) {
      counts[key]++;
    }
  }
  counts.warnings = result.warnings?.length ?? 0;
  return counts;
}

/**
 * `✓ 5 applied · ↺ 1 already applied · ✗ 1 failed · ⊘ 1 skipped` (zero counts left out, except
 * that an empty run still says what happened). A preview counts `validated` blocks as "ready".
 * Already-applied blocks are counted on their own, never as failed.
 */
export function statusText(result: Pick<EditResult, 'blocks' | 'warnings'>, mode: RunMode): string {
  const counts = countBlocks(result);
  const parts: string[] = [];
  if (counts.applied > 0) {
    parts.push(`✓ ${counts.applied} applied`);
  }
  if (counts.validated > 0) {
    parts.push(mode === 'preview' ? `✓ ${counts.validated} ready` : `✓ ${counts.validated} validated`);
  }
  if (counts.alreadyApplied > 0) {
    parts.push(`↺ ${counts.alreadyApplied} already applied`);
  }
  if (counts.failed > 0) {
    parts.push(`✗ ${counts.failed} failed`);
  }
  if (counts.skipped > 0) {
    parts.push(`⊘ ${counts.skipped} skipped`);
  }
  if (counts.warnings > 0) {
    parts.push(`⚠ ${counts.warnings} ${counts.warnings === 1 ? 'warning' : 'warnings'}`);
  }
  if (parts.length === 0) {
    return 'LLM Edits: no edit blocks found';
  }
  return parts.join(' · ');
}

/** One-line headline for a notification after a run. */
export function headline(result: EditResult, mode: RunMode): string {
  const counts = countBlocks(result);
  const total = result.blocks.length;
  if (total === 0) {
    return counts.warnings > 0
      ? `No usable edit blocks in the response (${counts.warnings} malformed or incomplete).`
      : 'No edit blocks found in the response.';
  }
  const blocks = `${total} ${total === 1 ? 'block' : 'blocks'}`;
  if (counts.alreadyApplied === total) {
    // Running a response twice is safe: say so rather than "0 applied".
    return `Nothing to do (${blocks}): ${statusText(result, mode)}`;
  }
  if (mode === 'preview') {
    return `Preview of ${blocks}: ${statusText(result, mode)}`;
  }
  if (result.applied === false && counts.applied === 0 && counts.validated > 0) {
    return `Nothing applied (${blocks}): ${statusText(result, mode)}`;
  }
  return `LLM Edits (${blocks}): ${statusText(result, mode)}`;
}

const STATUS_ICONS: Record<BlockStatus, string> = {
  applied: '$(check)',
  validated: '$(pass)',
  failed: '$(error)',
  skipped: '$(circle-slash)',
  'already-applied': '$(history)',
};

/** How a status reads in the summary (`already-applied` → "already applied"). */
function statusWords(status: BlockStatus): string {
  return status === 'already-applied' ? 'already applied' : status;
}

/** Why an already-applied block changed nothing, when the server gave no reason. */
const ALREADY_APPLIED_DETAIL = 'its new text is already in the file: nothing to change';

export interface SummaryEntry {
  kind: 'block' | 'warning' | 'shell';
  label: string;
  description: string;
  detail?: string;
  /** Where picking the entry goes: a target file (block) or the response (warning). */
  target?: { uri: string; line: number };
  block?: BlockResult;
  command?: string;
}

/**
 * Quick pick entries: one per block (file:line, status, reason), then the warnings (located in the
 * response when it came from a document), then the suggested shell commands.
 *
 * `response` locates warnings: the response document and the line its text starts at (a
 * selection's start line, 0 for a whole document); absent for a clipboard response.
 */
export function summaryEntries(
  result: EditResult,
  workspaceFolders: readonly string[],
  response?: { uri: string; lineOffset: number },
): SummaryEntry[] {
  const entries: SummaryEntry[] = [];
  for (const block of result.blocks) {
    const file = block.uri ? displayPath(block.uri, workspaceFolders) : (block.file ?? '(no path)');
    const line = typeof block.line === 'number' ? block.line : null;
    const where = line === null ? file : `${file}:${line + 1}`;
    const detailParts: string[] = [];
    if (block.reason) {
      detailParts.push(block.reason);
    } else if (block.status === 'already-applied') {
      detailParts.push(ALREADY_APPLIED_DETAIL);
    }
    if (block.hint) {
      detailParts.push(block.hint);
    }
    const descriptionParts: string[] = [statusWords(block.status)];
    if (block.match && block.match !== 'exact' && block.status !== 'failed') {
      descriptionParts.push(`${block.match} match`);
    }
    if (block.format) {
      descriptionParts.push(block.format);
    }
    if (typeof block.responseLine === 'number') {
      descriptionParts.push(`response line ${block.responseLine + 1}`);
    }
    entries.push({
      kind: 'block',
      label: `${STATUS_ICONS[block.status] ?? ''} ${where}`.trim(),
      description: descriptionParts.join(' · '),
      detail: detailParts.length > 0 ? detailParts.join(' — ') : undefined,
      target: block.uri ? { uri: block.uri, line: line ?? 0 } : undefined,
      block,
    });
  }
  for (const warning of result.warnings ?? []) {
    entries.push({
      kind: 'warning',
      label: `$(warning) response line ${warning.responseLine + 1}`,
      description: 'not applied',
      detail: warning.message,
      target: response ? { uri: response.uri, line: response.lineOffset + warning.responseLine } : undefined,
    });
  }
  for (const command of result.shellSuggestions ?? []) {
    entries.push({
      kind: 'shell',
      label: `$(terminal) ${command}`,
      description: 'suggested shell command — run in a terminal after confirmation',
      command,
    });
  }
  return entries;
}

/** Multi-line tooltip for the status bar item. */
export function statusTooltip(result: EditResult, mode: RunMode, workspaceFolders: readonly string[]): string {
  const lines = [`LLM Edits — last ${mode}: ${statusText(result, mode)}`];
  for (const entry of summaryEntries(result, workspaceFolders)) {
    if (entry.kind === 'block') {
      const status = entry.block ? statusWords(entry.block.status) : '';
      const file = entry.label.replace(/^\$\([^)]*\)\s*/, '');
      const reason = entry.block?.reason ? ` — ${entry.block.reason}` : '';
      lines.push(`${status}: ${file}${reason}`);
    }
  }
  lines.push('', 'Click for the summary.');
  return lines.join('\n');
}
