/**
 * Computing a preview's proposed texts from the server's WorkspaceEdit, for a server that does
 * not return `files` (options.includeText). Positions are LSP UTF-16 offsets, which is exactly
 * how JavaScript strings index, so no conversion is needed.
 */
import type { DocumentChange, FileText, Position, TextEdit } from './protocol';
import { isTextDocumentEdit } from './protocol';

/** Offset of an LSP position in `text` (lines split on \n, \r\n or \r; clamped like editors do). */
export function offsetAt(text: string, position: Position): number {
  let line = 0;
  let offset = 0;
  while (line < position.line) {
    const next = text.slice(offset).search(/\r\n|\r|\n/);
    if (next < 0) {
      return text.length;
    }
    offset += next + (text.startsWith('\r\n', offset + next) ? 2 : 1);
    line++;
  }
  const rest = text.slice(offset);
  const lineEnd = rest.search(/\r\n|\r|\n/);
  const lineLength = lineEnd < 0 ? rest.length : lineEnd;
  return offset + Math.min(Math.max(position.character, 0), lineLength);
}

/**
 * Apply LSP text edits (all relative to the original text, as in a TextDocumentEdit) and return the
 * new text. Edits are applied from the end so earlier offsets stay valid; edits at the same start
 * keep their given order.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const located = edits.map((edit, order) => ({
    start: offsetAt(text, edit.range.start),
    end: offsetAt(text, edit.range.end),
    newText: edit.newText,
    order,
  }));
  located.sort((a, b) => a.start - b.start || a.order - b.order);
  let result = '';
  let cursor = 0;
  for (const edit of located) {
    if (edit.start < cursor) {
      throw new Error('Overlapping text edits');
    }
    result += text.slice(cursor, edit.start) + edit.newText;
    cursor = Math.max(cursor, edit.end);
  }
  return result + text.slice(cursor);
}

/**
 * The before/after text of every file a WorkspaceEdit changes, in the `files` shape the server
 * returns with includeText. `readText` gives the current text of a URI (open buffer or disk), or
 * undefined for a missing file.
 */
export async function previewFilesFromEdit(
  documentChanges: readonly DocumentChange[],
  readText: (uri: string) => Promise<string | undefined>,
): Promise<FileText[]> {
  const files = new Map<string, FileText>();
  const order: string[] = [];
  const current = async (uri: string): Promise<FileText> => {
    let file = files.get(uri);
    if (!file) {
      const text = (await readText(uri)) ?? '';
      file = { uri, kind: 'edit', oldText: text, newText: text };
      files.set(uri, file);
      order.push(uri);
    }
    return file;
  };
  for (const change of documentChanges) {
    if (isTextDocumentEdit(change)) {
      const file = await current(change.textDocument.uri);
      file.newText = applyTextEdits(file.newText, change.edits);
    } else if (change.kind === 'create') {
      files.set(change.uri, { uri: change.uri, kind: 'create', oldText: '', newText: '' });
      if (!order.includes(change.uri)) {
        order.push(change.uri);
      }
    } else if (change.kind === 'rename') {
      const file = await current(change.oldUri);
      // Later edits address the file by its new name; keep one entry, keyed by both.
      const renamed: FileText = { ...file, kind: file.kind === 'create' ? 'create' : 'rename', newUri: change.newUri };
      files.set(change.oldUri, renamed);
      files.set(change.newUri, renamed);
    } else {
      const file = await current(change.uri);
      file.kind = 'delete';
      file.newText = '';
    }
  }
  // A renamed file is one object under both names: list it once.
  return order.map((uri) => files.get(uri)!).filter((file, i, all) => all.indexOf(file) === i);
}
