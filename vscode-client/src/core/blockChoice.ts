/**
 * Choosing which blocks of a response run (the preview's "Choose Blocks…"): the quick pick's
 * entries, what the picks become as `options.blocks`, and what is known of each block across
 * runs that left some out. Pure (no `vscode`), unit tested.
 */
import type { BlockResult, BlockStatus } from './protocol';
import { blockPreviews, blockWhere, escapeIcons, statusIcon, statusWords } from './summary';

export interface BlockChoice {
  /** The block's 0-based index, as `options.blocks` names it. */
  index: number;
  label: string;
  description: string;
  detail?: string;
  picked: boolean;
}

/** Blocks ticked when nothing was chosen yet: those that would change a file. */
const TICKED_BY_DEFAULT: ReadonlySet<BlockStatus> = new Set<BlockStatus>(['validated', 'applied']);

/**
 * What is known of each block, by index: its result in the latest run that ran it. A run with
 * `options.blocks` reports the blocks it left out as `excluded`, which says nothing about them,
 * so their earlier result stands. Sorted by index.
 */
export function knownBlocks(known: readonly BlockResult[], latest: readonly BlockResult[]): BlockResult[] {
  const byIndex = new Map<number, BlockResult>(known.map((block) => [block.index, block]));
  for (const block of latest) {
    if (block.status !== 'excluded' || !byIndex.has(block.index)) {
      byIndex.set(block.index, block);
    }
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/**
 * One entry per known block: `$(pass) Block 2 · src/app.py:12`, its status, format and response
 * line, and its reason and previews. Ticked: the current choice when there is one, else the
 * blocks that would change a file (failed, skipped and already-applied blocks start unticked).
 */
export function blockChoices(
  known: readonly BlockResult[],
  chosen: readonly number[] | undefined,
  workspaceFolders: readonly string[],
): BlockChoice[] {
  const chosenSet = chosen ? new Set(chosen) : undefined;
  return known.map((block) => {
    // The choice is made in a preview, whose status bar calls validated blocks "ready".
    const status = block.status === 'validated' ? 'ready' : statusWords(block.status);
    const description = [status, block.format, `response line ${block.responseLine + 1}`]
      .filter((part) => part)
      .join(' · ');
    const detail = [block.reason, blockPreviews(block)].filter((part): part is string => !!part).join(' — ');
    return {
      index: block.index,
      label: `${statusIcon(block.status)} Block ${block.index + 1} · ${escapeIcons(blockWhere(block, workspaceFolders))}`.trim(),
      description: escapeIcons(description),
      detail: detail ? escapeIcons(detail) : undefined,
      picked: chosenSet ? chosenSet.has(block.index) : TICKED_BY_DEFAULT.has(block.status),
    };
  });
}

/** What a pick means: every block (send no `options.blocks`), some of them, or none. */
export type Choice = { kind: 'all' } | { kind: 'some'; blocks: number[] } | { kind: 'none' };

/** The picked indices as a choice; `all` lists the indices of the response's blocks. */
export function choiceOf(picked: readonly number[], all: readonly number[]): Choice {
  const blocks = [...new Set(picked)].filter((index) => all.includes(index)).sort((a, b) => a - b);
  if (blocks.length === 0) {
    return { kind: 'none' };
  }
  if (all.every((index) => blocks.includes(index))) {
    return { kind: 'all' };
  }
  return { kind: 'some', blocks };
}
