/**
 * Applying an answer to a file the user names (`options.target`, docs/protocol.md): every code
 * fence of the answer that names no file is for that file. What here needs no `vscode`: which
 * editor is the target, where the answer comes from, and which editors count as "the editor the
 * user was last in".
 *
 * Apply / Preview LLM Edits to Active Editor: the target is the active editor's document (its
 * buffer, unsaved changes included), the answer the clipboard. When the active editor is itself a
 * response (an `llm-response` document, or one watched as a response), it cannot be the target:
 * the target is then the last other editor the user was in, and the answer the response editor's
 * selection (or the clipboard when nothing is selected).
 */

/** What the commands need to know of an editor. */
export interface EditorState {
  uri: string;
  scheme: string;
  /** An `llm-response` document or one watched as a response: never a target. */
  isResponse: boolean;
  /** The selected text ('' when the selection is empty). */
  selection: string;
}

export type TargetChoice =
  | { target: string; from: 'clipboard' | 'selection'; selection?: string }
  | { problem: string };

/** Schemes a target may have: a file in the workspace (the server refuses any other path). */
export function canBeTarget(editor: Pick<EditorState, 'scheme' | 'isResponse'>): boolean {
  return editor.scheme === 'file' && !editor.isResponse;
}

/**
 * The target and the answer's source for the commands, or the problem to tell the user.
 * `lastTarget`: the URI of the last editor the user was in that can be a target.
 */
export function chooseTarget(active: EditorState | undefined, lastTarget: string | undefined): TargetChoice {
  if (!active) {
    return lastTarget
      ? { target: lastTarget, from: 'clipboard' }
      : { problem: 'open the file to apply the answer to, then run the command from its editor.' };
  }
  if (!active.isResponse) {
    if (active.scheme !== 'file') {
      return { problem: 'the active editor is not a file of the workspace: save it first.' };
    }
    return { target: active.uri, from: 'clipboard' };
  }
  if (!lastTarget) {
    return { problem: 'the active editor holds the answer: open the file to apply it to first.' };
  }
  return active.selection.trim()
    ? { target: lastTarget, from: 'selection', selection: active.selection }
    : { target: lastTarget, from: 'clipboard' };
}

/** The last editor that can be a target, as the user moves between editors. */
export class LastTarget {
  private uri: string | undefined;

  /** The user is now in `editor` (undefined: no editor). */
  visit(editor: Pick<EditorState, 'uri' | 'scheme' | 'isResponse'> | undefined): void {
    if (editor && canBeTarget(editor)) {
      this.uri = editor.uri;
    }
  }

  /** A document was closed: it is no longer a target. */
  closed(uri: string): void {
    if (this.uri === uri) {
      this.uri = undefined;
    }
  }

  get current(): string | undefined {
    return this.uri;
  }
}
