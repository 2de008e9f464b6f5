/**
 * Response documents (docs/protocol.md): documents the server validates as they are written and
 * annotates with one code lens per block. What here needs no `vscode`: the language id, which
 * documents the client syncs, and how a lens's server command becomes a run of the extension's
 * own apply / preview (so its result is shown: notifications, the preview diff, Show Changes).
 */
import { ServerCommand } from './protocol';

/** Language id of response documents (`*.llm.md`, and the untitled ones "New LLM Response" opens). */
export const RESPONSE_LANGUAGE_ID = 'llm-response';

/**
 * The extension's own command ids. None may equal a server command: vscode-languageclient
 * registers every command of the server's `executeCommandProvider` under its own id, and VS Code
 * refuses a second registration of an id.
 */
export const ClientCommand = {
  newResponse: 'llmEdits.newResponse',
  watchDocument: 'llmEdits.watchDocument',
  unwatchDocument: 'llmEdits.unwatchDocument',
  runLens: 'llmEdits.runLens',
} as const;

/**
 * URI schemes of the documents the client syncs to the server. Every language, response
 * documents included: the server edits whatever a response names and reads responses from
 * files and untitled buffers. Not every scheme: a `git:` or preview document showing an older
 * version of a `*.llm.md` file is `llm-response` too, and must never be taken for a live
 * response (with `applyWhileStreaming` its blocks would be applied).
 */
export const SYNCED_SCHEMES = ['file', 'untitled'] as const;

export function documentSelector(): Array<{ scheme: string }> {
  return SYNCED_SCHEMES.map((scheme) => ({ scheme }));
}

export function isSyncedScheme(scheme: string): boolean {
  return (SYNCED_SCHEMES as readonly string[]).includes(scheme);
}

export type LensAction = 'apply' | 'preview';

/** What a lens click runs: the extension's apply or preview of one response document. */
export interface LensRun {
  action: LensAction;
  responseUri: string;
  /** 0-based indices of the blocks to run; undefined: every block ("Apply all N ready blocks"). */
  blocks?: number[];
  /** The file (a `file:` URI) the run's unnamed code fences are for ("Apply to <file>"). */
  target?: string;
  /**
   * What a block's lens names its block by (where it stands and what it does): sent back as
   * the command's `block`, so a lens clicked after the document changed under it runs nothing
   * (the server says why) instead of whatever block has its index now.
   */
  block?: string;
}

const LENS_ACTIONS: Record<string, LensAction> = {
  [ServerCommand.apply]: 'apply',
  [ServerCommand.preview]: 'preview',
};

function isBlockList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((index) => Number.isInteger(index) && index >= 0);
}

/**
 * The run a lens's server command stands for: `llmEdits.apply` / `llmEdits.preview` with
 * `[{"responseUri": U, "options": {"blocks": [i]}}]` (blocks absent: every block). Undefined
 * for any other command or a shape this client does not know (that lens is left as the server
 * sent it).
 */
export function lensRunOf(command: string, args: readonly unknown[] | undefined): LensRun | undefined {
  const action = Object.prototype.hasOwnProperty.call(LENS_ACTIONS, command) ? LENS_ACTIONS[command] : undefined;
  const argument = args?.length === 1 ? args[0] : undefined;
  if (!action || typeof argument !== 'object' || argument === null) {
    return undefined;
  }
  const { responseUri, options, block } = argument as { responseUri?: unknown; options?: unknown; block?: unknown };
  if (typeof responseUri !== 'string' || (options !== undefined && (typeof options !== 'object' || options === null))) {
    return undefined;
  }
  const { blocks, target } = (options ?? {}) as { blocks?: unknown; target?: unknown };
  return runOf(action, responseUri, blocks, target, block);
}

function runOf(action: LensAction, responseUri: string, blocks: unknown, target: unknown, block: unknown): LensRun | undefined {
  if (
    (blocks !== undefined && !isBlockList(blocks)) ||
    (target !== undefined && typeof target !== 'string') ||
    (block !== undefined && typeof block !== 'string')
  ) {
    return undefined;
  }
  const run: LensRun = { action, responseUri };
  if (blocks !== undefined) {
    run.blocks = [...(blocks as number[])];
  }
  if (target !== undefined) {
    run.target = target as string;
  }
  if (block !== undefined) {
    run.block = block as string;
  }
  return run;
}

/** The argument of `llmEdits.runLens`, checked (it is a command anyone may run): undefined if not a run. */
export function asLensRun(value: unknown): LensRun | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const { action, responseUri, blocks, target, block } = value as Partial<Record<keyof LensRun, unknown>>;
  if ((action !== 'apply' && action !== 'preview') || typeof responseUri !== 'string') {
    return undefined;
  }
  return runOf(action, responseUri, blocks, target, block);
}

/** A lens command with the run as the client command's single argument. */
export function toClientLensCommand(
  command: { title: string; command: string; arguments?: unknown[]; tooltip?: string },
): { title: string; command: string; arguments?: unknown[]; tooltip?: string } {
  const run = lensRunOf(command.command, command.arguments);
  if (!run) {
    return command;
  }
  return { ...command, command: ClientCommand.runLens, arguments: [run] };
}

/** The URIs watched as responses, kept to watch them again after a server restart. */
export class WatchedUris {
  private readonly uris = new Set<string>();

  add(uri: string): void {
    this.uris.add(uri);
  }

  /** True when `uri` was watched. */
  delete(uri: string): boolean {
    return this.uris.delete(uri);
  }

  has(uri: string): boolean {
    return this.uris.has(uri);
  }

  /** The watched URIs still open (`isOpen`), forgetting the others. */
  stillOpen(isOpen: (uri: string) => boolean): string[] {
    for (const uri of [...this.uris]) {
      if (!isOpen(uri)) {
        this.uris.delete(uri);
      }
    }
    return [...this.uris];
  }
}
