/**
 * The extension's settings and how they become the server's command options and
 * `initializationOptions` (docs/protocol.md). Pure: the `vscode` side only reads raw values.
 */

export const ALL_FORMATS = [
  'edit-v3',
  'edit-v2',
  'search-replace',
  'hunk-patch',
  'semantic-diff',
  'apply-patch',
  'unified-diff',
] as const;

export type Matching = 'exact' | 'whitespace';

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface Settings {
  interpreter: string;
  matching: Matching;
  atomic: boolean;
  /** Enabled formats; all of them when the setting lists every one (or is unusable). */
  formats: string[];
  saveAfterApply: boolean;
  stageInGit: boolean;
  /** Applies go through VS Code's refactor preview, a checkbox per block (`options.confirm`). */
  confirmEachBlock: boolean;
  maxResponseBytes: number;
}

/** Raw values as `WorkspaceConfiguration.get` returns them (anything a user may have typed). */
export type RawSettings = Partial<Record<keyof Omit<Settings, 'maxResponseBytes'> | 'maxResponseSize', unknown>>;

/** Validate raw setting values, falling back to the defaults for anything unusable. */
export function normalizeSettings(raw: RawSettings): Settings {
  const formats = Array.isArray(raw.formats)
    ? [...new Set(raw.formats.filter((f): f is string => typeof f === 'string' && (ALL_FORMATS as readonly string[]).includes(f)))]
    : [...ALL_FORMATS];
  const maxResponseSize = raw.maxResponseSize;
  return {
    interpreter: typeof raw.interpreter === 'string' ? raw.interpreter.trim() : '',
    matching: raw.matching === 'whitespace' ? 'whitespace' : 'exact',
    atomic: raw.atomic === true,
    // An empty list would disable every format, which is never what a user means: use all.
    formats: formats.length > 0 ? formats : [...ALL_FORMATS],
    saveAfterApply: raw.saveAfterApply === true,
    stageInGit: raw.stageInGit === true,
    confirmEachBlock: raw.confirmEachBlock === true,
    maxResponseBytes:
      typeof maxResponseSize === 'number' && Number.isFinite(maxResponseSize) && maxResponseSize >= 1
        ? Math.floor(maxResponseSize)
        : DEFAULT_MAX_RESPONSE_BYTES,
  };
}

export interface CommandOptions {
  matching: Matching;
  atomic: boolean;
  formats?: string[];
  includeText?: boolean;
  /** 0-based indices of the blocks to run (the others come back `excluded`); absent: every block. */
  blocks?: number[];
  /** Annotate the edit per block with `needsConfirmation` (VS Code's refactor preview). */
  confirm?: boolean;
  /** Seconds the server waits for the editor to answer `workspace/applyEdit`. */
  applyEditTimeout?: number;
}

/**
 * With `confirm`, VS Code answers `workspace/applyEdit` only once the user has reviewed the
 * blocks in the refactor preview: the server's default wait (30 s) is for an editor, not for a
 * person reading a diff.
 */
export const CONFIRM_APPLY_EDIT_TIMEOUT_SECONDS = 3600;

export interface ExtraOptions {
  includeText?: boolean;
  blocks?: readonly number[];
  confirm?: boolean;
}

/**
 * `options` for `llmEdits.preview` / `llmEdits.apply` / `llmEdits.feedback`. `formats` is sent only
 * when it restricts something, so the server's default (every format it knows) stays in force;
 * `blocks` and `confirm` only when given, so a run without them is what it always was.
 */
export function toCommandOptions(settings: Settings, extra: ExtraOptions = {}): CommandOptions {
  const options: CommandOptions = { matching: settings.matching, atomic: settings.atomic };
  if (!ALL_FORMATS.every((f) => settings.formats.includes(f))) {
    options.formats = [...settings.formats];
  }
  if (extra.includeText) {
    options.includeText = true;
  }
  if (extra.blocks) {
    options.blocks = [...extra.blocks];
  }
  if (extra.confirm) {
    options.confirm = true;
    options.applyEditTimeout = CONFIRM_APPLY_EDIT_TIMEOUT_SECONDS;
  }
  return options;
}

export interface InitializationOptions {
  matching: Matching;
  atomic: boolean;
  formats: string[];
  maxResponseBytes: number;
}

export function toInitializationOptions(settings: Settings): InitializationOptions {
  return {
    matching: settings.matching,
    atomic: settings.atomic,
    formats: [...settings.formats],
    maxResponseBytes: settings.maxResponseBytes,
  };
}

/** Size of a response as the server counts it (UTF-8 bytes). */
export function responseBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function humanBytes(bytes: number): string {
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  if (bytes < 1024 * 1024) {
    return `${(bytes / 1024).toFixed(1)} KiB`;
  }
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Settings whose change needs a server restart (everything else travels with each command). */
export const RESTART_SETTINGS = ['llmEdits.interpreter', 'llmEdits.maxResponseSize', 'llmEdits.trace.server'] as const;
