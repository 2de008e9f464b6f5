/**
 * Turning a server result into what the user reads: the status bar text, its tooltip, and the
 * entries of the summary quick pick. Pure functions (no `vscode`), unit tested.
 */
import { blockDiff, type BlockDiff } from './blockDiff';
import type { BlockResult, BlockStatus, EditResult, FileText, ShellCommand } from './protocol';
import { shellCommandsOf } from './shell';
import { displayPath } from './uris';

export type RunMode = 'preview' | 'apply';

export interface Counts {
  applied: number;
  validated: number;
  alreadyApplied: number;
  failed: number;
  skipped: number;
  /** Left out by the run's choice of blocks (`options.blocks`): never a failure. */
  excluded: number;
  /** Still being written (a response document's last, unclosed block): never a failure. */
  pending: number;
  warnings: number;
}

/** Which count each status adds to (a status a newer server may add counts nowhere). */
const COUNTED: Record<BlockStatus, keyof Omit<Counts, 'warnings'>> = {
  applied: 'applied',
  validated: 'validated',
  'already-applied': 'alreadyApplied',
  failed: 'failed',
  skipped: 'skipped',
  excluded: 'excluded',
  pending: 'pending',
};

export function countBlocks(result: Pick<EditResult, 'blocks' | 'warnings'>): Counts {
  const counts: Counts = { applied: 0, validated: 0, alreadyApplied: 0, failed: 0, skipped: 0, excluded: 0, pending: 0, warnings: 0 };
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
 * `✓ 5 applied · ↺ 1 already applied · ✗ 1 failed · ⊘ 1 skipped · ○ 2 excluded · ⋯ 1 writing` (zero counts
 * left out, except that an empty run still says what happened). A preview counts `validated`
 * blocks as "ready". Already-applied and excluded blocks are counted on their own, never as failed.
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
  if (counts.excluded > 0) {
    parts.push(`○ ${counts.excluded} excluded`);
  }
  if (counts.pending > 0) {
    parts.push(`⋯ ${counts.pending} writing`);
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
  if (counts.excluded === total) {
    return `No block chosen (${blocks}): ${statusText(result, mode)}`;
  }
  if (counts.alreadyApplied > 0 && counts.alreadyApplied + counts.excluded === total) {
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
  excluded: '$(circle-large-outline)',
  pending: '$(ellipsis)',
};

/** The icon a block's status is drawn with in quick picks (`$(check)` for applied, ...). */
export function statusIcon(status: BlockStatus): string {
  return Object.prototype.hasOwnProperty.call(STATUS_ICONS, status) ? STATUS_ICONS[status] : '';
}

/** How a status reads in the summary (`already-applied` → "already applied"). */
export function statusWords(status: BlockStatus): string {
  return status === 'already-applied' ? 'already applied' : status === 'pending' ? 'still being written' : status;
}

/** Why a block changed nothing, when the server gave no reason. */
const NO_CHANGE_DETAIL: Partial<Record<BlockStatus, string>> = {
  'already-applied': 'its new text is already in the file: nothing to change',
  excluded: 'left out of this run by the choice of blocks',
  pending: 'the response is still writing this block: it runs once it is complete',
};

export interface SummaryEntry {
  kind: 'block' | 'warning' | 'shell';
  label: string;
  description: string;
  detail?: string;
  /** Where picking the entry goes: a target file (block) or the response (warning). */
  target?: { uri: string; line: number };
  /** A block that changed its file: picking it opens this diff instead of `target`. */
  diff?: BlockDiff;
  block?: BlockResult;
  /** A suggested shell command: shown by its display text, each part confirmed before it runs. */
  shell?: ShellCommand;
}

/**
 * Text shown where VS Code renders `$(name)` as an icon (quick pick labels, descriptions and
 * details): a response's `echo $(pwd)` or a path must read as written, not lose an icon's worth.
 */
export function escapeIcons(text: string): string {
  return text.replace(/\$\(/g, '\\$(');
}

/** `src/b.py:8` (1-based line), the path alone without a line, or the path as written. */
export function blockWhere(block: BlockResult, workspaceFolders: readonly string[]): string {
  const file = block.uri ? displayPath(block.uri, workspaceFolders) : block.file || '(no path)';
  return typeof block.line === 'number' ? `${file}:${block.line + 1}` : file;
}

/** The longest preview shown, as the server cuts them (a longer one is cut here too). */
const PREVIEW_CHARS = 50;

function previewPart(name: string, text: string | undefined): string | undefined {
  const line = (text ?? '').split(/\r\n|\r|\n/, 1)[0].trim();
  if (!line) {
    return undefined;
  }
  return `${name}: ${line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line}`;
}

/**
 * `anchor: def greet(name): · old: return "hi" · new: return "hello"` from the block's previews
 * (seed 001's anchor/old/new previews; empty ones left out, indentation dropped).
 */
export function blockPreviews(block: BlockResult): string | undefined {
  const parts = [
    previewPart('anchor', block.anchorPreview),
    previewPart('old', block.oldPreview),
    previewPart('new', block.newPreview),
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

function blockEntry(block: BlockResult, workspaceFolders: readonly string[], files?: readonly FileText[]): SummaryEntry {
  const detailParts: string[] = [];
  if (block.reason) {
    detailParts.push(block.reason);
  } else if (NO_CHANGE_DETAIL[block.status]) {
    detailParts.push(NO_CHANGE_DETAIL[block.status] as string);
  }
  if (block.hint) {
    // A one-line detail: the full hint (a did-you-mean with its caret line) is in the diagnostic.
    detailParts.push(block.hint.split(/\r\n|\r|\n/, 1)[0]);
  }
  const previews = blockPreviews(block);
  if (previews) {
    detailParts.push(previews);
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
  return {
    kind: 'block',
    label: `${statusIcon(block.status)} ${escapeIcons(blockWhere(block, workspaceFolders))}`.trim(),
    description: escapeIcons(descriptionParts.join(' · ')),
    detail: detailParts.length > 0 ? escapeIcons(detailParts.join(' — ')) : undefined,
    target: block.uri ? { uri: block.uri, line: block.line ?? 0 } : undefined,
    diff: blockDiff(block, files),
    block,
  };
}

/**
 * Quick pick entries: one per block (file:line, status; reason, hint's first line and previews as its detail;
 * the diff it made when the run's texts hold its file), then the warnings (located in the
 * response when it came from a document), then the suggested shell commands. Texts from the
 * response or the files are escaped (`escapeIcons`); a shell command is shown by the server's display text
 * (`shellCommands`) and `shell` keeps it, parts included, for its confirmations.
 *
 * `response` locates warnings: the response document and the line its text starts at (a
 * selection's start line, 0 for a whole document); absent for a clipboard response.
 */
export function summaryEntries(
  result: EditResult,
  workspaceFolders: readonly string[],
  response?: { uri: string; lineOffset: number },
): SummaryEntry[] {
  const entries = result.blocks.map((block) => blockEntry(block, workspaceFolders, result.files));
  for (const warning of result.warnings ?? []) {
    entries.push({
      kind: 'warning',
      label: `$(warning) response line ${warning.responseLine + 1}`,
      description: 'not applied',
      detail: escapeIcons(warning.message),
      target: response ? { uri: response.uri, line: response.lineOffset + warning.responseLine } : undefined,
    });
  }
  for (const shell of shellCommandsOf(result)) {
    entries.push({
      kind: 'shell',
      label: `$(terminal) ${escapeIcons(shell.display)}`,
      description: 'suggested shell command — runs in a terminal after you confirm it',
      shell,
    });
  }
  return entries;
}

/** Multi-line tooltip for the status bar item (plain text: nothing is escaped). */
export function statusTooltip(result: EditResult, mode: RunMode, workspaceFolders: readonly string[]): string {
  const lines = [`LLM Edits — last ${mode}: ${statusText(result, mode)}`];
  for (const block of result.blocks) {
    const reason = block.reason ? ` — ${block.reason}` : '';
    lines.push(`${statusWords(block.status)}: ${blockWhere(block, workspaceFolders)}${reason}`);
  }
  const commands = result.shellSuggestions?.length ?? 0;
  if (commands > 0) {
    lines.push(`${commands} suggested shell ${commands === 1 ? 'command' : 'commands'} (run only after you confirm)`);
  }
  lines.push('', 'Click for the summary.');
  return lines.join('\n');
}
