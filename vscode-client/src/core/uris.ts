/**
 * URI helpers that need no `vscode`: how files are shown to the user, and how the read-only
 * preview documents are addressed.
 */

/** The scheme of the read-only documents holding a preview's proposed (or original) text. */
export const PREVIEW_SCHEME = 'llm-edits-preview';

/**
 * The scheme of the read-only documents the summary's block diffs show: a run's text of a file
 * before it (or the proposed text, for a run that did not apply). Not the preview's scheme:
 * discarding a preview closes its own documents only, and its Apply button stays on its diffs.
 */
export const RUN_SCHEME = 'llm-edits-run';

export type PreviewSide = 'old' | 'new';

function stripTrailingSlash(uri: string): string {
  return uri.endsWith('/') ? uri.slice(0, -1) : uri;
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * A URI as the user wants to read it: relative to the workspace folder holding it (prefixed with
 * the folder's name when there are several folders), else the decoded path of a `file:` URI, else
 * the URI itself.
 */
export function displayPath(uri: string, workspaceFolders: readonly string[]): string {
  for (const folder of workspaceFolders) {
    const base = stripTrailingSlash(folder);
    if (uri.startsWith(`${base}/`)) {
      const relative = decodePath(uri.slice(base.length + 1));
      if (workspaceFolders.length > 1) {
        const name = decodePath(base.slice(base.lastIndexOf('/') + 1));
        return `${name}/${relative}`;
      }
      return relative;
    }
  }
  if (uri.startsWith('file://')) {
    const path = decodePath(uri.slice('file://'.length));
    // file:///c%3A/x → c:/x on Windows-style URIs
    return /^\/[a-zA-Z]:/.test(path) ? path.slice(1) : path;
  }
  return uri;
}

/** Query string of a preview (or run) document: which preview session (or run) and which side of the diff. */
export function previewQuery(sessionId: string, side: PreviewSide): string {
  return `session=${encodeURIComponent(sessionId)}&side=${side}`;
}

export function parsePreviewQuery(query: string): { sessionId: string; side: PreviewSide } | undefined {
  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0) {
      params.set(part.slice(0, eq), decodePath(part.slice(eq + 1)));
    }
  }
  const sessionId = params.get('session');
  const side = params.get('side');
  if (!sessionId || (side !== 'old' && side !== 'new')) {
    return undefined;
  }
  return { sessionId, side };
}

/** Compare URIs as VS Code and the server may spell them differently (`c%3A` vs `c:`, case of drive). */
export function sameUri(a: string, b: string): boolean {
  return normalizeUri(a) === normalizeUri(b);
}

export function normalizeUri(uri: string): string {
  const decoded = decodePath(uri);
  // Drive letters: file:///C:/x and file:///c:/x are the same file.
  return decoded.replace(/^file:\/\/\/([a-zA-Z]):/, (_m, drive: string) => `file:///${drive.toLowerCase()}:`);
}
