/**
 * Deciding whether a file changed between a preview and the click on "Apply": applying re-runs
 * the server (which re-validates), but the user approved a diff, so a file that changed since
 * must not be edited silently.
 */

export interface FileNow {
  /** Version of the open buffer, when the file is open now. */
  openVersion?: number;
  /** Current text (open buffer or disk), when known; undefined for a missing file. */
  text?: string;
}

function comparable(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/**
 * `recordedVersion`: the buffer version the preview's edit was computed against (a number), null
 * for a file read from disk, undefined when the edit did not say. `oldText`: the file's text at
 * preview time, when the server returned it.
 */
export function changedSincePreview(
  recordedVersion: number | null | undefined,
  oldText: string | undefined,
  now: FileNow,
): boolean {
  if (typeof recordedVersion === 'number' && typeof now.openVersion === 'number') {
    return now.openVersion !== recordedVersion;
  }
  if (oldText !== undefined) {
    // A file that was created by the preview's edit did not exist: any text now is a change,
    // except the empty file the create rule allows.
    const current = now.text ?? '';
    return comparable(current) !== comparable(oldText);
  }
  // Nothing to compare with: the server's re-validation is the only guard.
  return false;
}
