/**
 * The extension's settings and how they become the server's command options and
 * `initializationOptions` (docs/protocol.md). Pure: the `vscode` side only reads raw values.
 */

/** The formats the server detects when a command names none (docs/formats.md). */
export const DEFAULT_FORMATS = [
  'edit-v3',
  'edit-v2',
  'search-replace',
  'hunk-patch',
  'semantic-diff',
  'apply-patch',
  'unified-diff',
  'str-replace',
  'apply-patch-call',
  'code-block',
] as const;

/**
 * Formats the server detects only when `formats` names them: a fenced snippet under a path line
 * is usually part of a file, and taking it for the whole file would erase the rest.
 */
export const OPT_IN_FORMATS = ['whole-file'] as const;

/** Every format the server knows: what `llmEdits.formats` may list. */
export const ALL_FORMATS = [...DEFAULT_FORMATS, ...OPT_IN_FORMATS] as const;

export type Matching = 'exact' | 'whitespace';

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface Settings {
  interpreter: string;
  matching: Matching;
  atomic: boolean;
  /** Enabled formats; the server's default set when the setting is missing, empty or unusable. */
  formats: string[];
  saveAfterApply: boolean;
  stageInGit: boolean;
  /** Applies go through VS Code's refactor preview, a checkbox per block (`options.confirm`). */
  confirmEachBlock: boolean;
  /** Response documents: each block is applied by the server as soon as it completes and matches. */
  applyWhileStreaming: boolean;
  maxResponseBytes: number;
  /** The server serves its tools to agents over MCP (HTTP on 127.0.0.1, docs/agents.md). */
  mcpEnabled: boolean;
}

/** Raw values as `WorkspaceConfiguration.get` returns them (anything a user may have typed). */
export type RawSettings = Partial<Record<keyof Omit<Settings, 'maxResponseBytes'> | 'maxResponseSize', unknown>>;

/** Validate raw setting values, falling back to the defaults for anything unusable. */
export function normalizeSettings(raw: RawSettings): Settings {
  const formats = Array.isArray(raw.formats)
    ? [...new Set(raw.formats.filter((f): f is string => typeof f === 'string' && (ALL_FORMATS as readonly string[]).includes(f)))]
    : [...DEFAULT_FORMATS];
  const maxResponseSize = raw.maxResponseSize;
  return {
    interpreter: typeof raw.interpreter === 'string' ? raw.interpreter.trim() : '',
    matching: raw.matching === 'whitespace' ? 'whitespace' : 'exact',
    atomic: raw.atomic === true,
    // An empty list would disable every format, which is never what a user means: the server
    // reads an empty `formats` as its default set too.
    formats: formats.length > 0 ? formats : [...DEFAULT_FORMATS],
    saveAfterApply: raw.saveAfterApply === true,
    stageInGit: raw.stageInGit === true,
    confirmEachBlock: raw.confirmEachBlock === true,
    applyWhileStreaming: raw.applyWhileStreaming === true,
    maxResponseBytes:
      typeof maxResponseSize === 'number' && Number.isFinite(maxResponseSize) && maxResponseSize >= 1
        ? Math.floor(maxResponseSize)
        : DEFAULT_MAX_RESPONSE_BYTES,
    mcpEnabled: raw.mcpEnabled === true,
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
  /** The file (a `file:` URI) every code fence naming no file is for (docs/formats.md "code-block"). */
  target?: string;
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
  target?: string;
}

/** True when `formats` is exactly the server's default set (in any order). */
export function isDefaultFormatSet(formats: readonly string[]): boolean {
  const chosen = new Set(formats);
  return chosen.size === DEFAULT_FORMATS.length && DEFAULT_FORMATS.every((f) => chosen.has(f));
}

/**
 * `options` for `llmEdits.preview` / `llmEdits.apply` / `llmEdits.feedback`. `formats` is sent
 * whenever the choice differs from the server's default set, so ticking an opt-in format
 * (whole-file) turns it on and the default set leaves the server's default in force;
 * `blocks` and `confirm` only when given, so a run without them is what it always was.
 */
export function toCommandOptions(settings: Settings, extra: ExtraOptions = {}): CommandOptions {
  const options: CommandOptions = { matching: settings.matching, atomic: settings.atomic };
  if (!isDefaultFormatSet(settings.formats)) {
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
  if (extra.target) {
    options.target = extra.target;
  }
  return options;
}

export interface InitializationOptions {
  matching: Matching;
  atomic: boolean;
  maxResponseBytes: number;
  /** A server option only: no command runs it, the server does as response documents change. */
  applyWhileStreaming: boolean;
  /** A server option only: its MCP endpoint for agents, off unless enabled. */
  mcp: { enabled: boolean };
}

/**
 * No `formats`: the server would take them as the default of every command, and a command
 * leaves `formats` out for the default set, so a choice made at start-up and changed back to
 * the default set later (no restart) would stay in force. Commands carry the choice instead.
 */
export function toInitializationOptions(settings: Settings): InitializationOptions {
  return {
    matching: settings.matching,
    atomic: settings.atomic,
    maxResponseBytes: settings.maxResponseBytes,
    applyWhileStreaming: settings.applyWhileStreaming,
    mcp: { enabled: settings.mcpEnabled },
  };
}

export interface InstructionsChoice {
  format: string;
  /** Detected only when ticked in `llmEdits.formats`. */
  optIn: boolean;
}

/**
 * The formats Copy Format Instructions offers: those the server's "all formats" text covers,
 * then the opt-in ones it leaves out (each has its own instructions).
 */
export function instructionsChoices(serverFormats: readonly string[]): InstructionsChoice[] {
  const choices = serverFormats.map((format) => ({ format, optIn: false }));
  for (const format of OPT_IN_FORMATS) {
    if (!serverFormats.includes(format)) {
      choices.push({ format, optIn: true });
    }
  }
  return choices;
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

/**
 * Settings of the server's own work (no command carries them): sent at start-up in
 * `initializationOptions`, and on a change in `workspace/didChangeConfiguration`.
 */
export const SERVER_SETTINGS = ['llmEdits.applyWhileStreaming', 'llmEdits.mcp.enabled'] as const;

/**
 * `workspace/didChangeConfiguration`'s `settings` for a change of SERVER_SETTINGS: only those
 * options, under `llmEdits` (the server merges them over its defaults). Not the whole section:
 * `formats` there would become a server default (see toInitializationOptions).
 */
export function serverSettingsChange(settings: Settings): {
  llmEdits: { applyWhileStreaming: boolean; mcp: { enabled: boolean } };
} {
  return { llmEdits: { applyWhileStreaming: settings.applyWhileStreaming, mcp: { enabled: settings.mcpEnabled } } };
}
