/**
 * "Show Changes" after an apply: each file the run changed, from its text before the run (the
 * run's `files`, `options.includeText`) to the file as it is now. Pure (no `vscode`), unit tested.
 */
import type { EditResult, FileText } from './protocol';

export interface FileChange {
  /** The file as it is named after the run (its new URI when the run renamed it). */
  uri: string;
  /** The file's text before the run, shown read-only; absent for a file the run created. */
  before?: { uri: string; text: string };
  /** The file now (the editable file); absent for a file the run deleted. */
  after?: string;
}

/** True when the result is an apply that changed at least one file whose texts it carries. */
export function hasChanges(result: Pick<EditResult, 'applied' | 'files'>): boolean {
  return result.applied === true && (result.files?.length ?? 0) > 0;
}

/** One entry per changed file, in the run's order; none for a run that applied nothing. */
export function runChanges(result: Pick<EditResult, 'applied' | 'files'>): FileChange[] {
  if (!hasChanges(result)) {
    return [];
  }
  return (result.files as FileText[]).map((file) => {
    const uri = file.newUri ?? file.uri;
    return {
      uri,
      before: file.kind === 'create' ? undefined : { uri: file.uri, text: file.oldText },
      after: file.kind === 'delete' ? undefined : uri,
    };
  });
}
