/**
 * The shell commands a response suggests (`shellSuggestions`): what the user is shown before one
 * runs. The extension never runs one without a modal confirmation. Pure, unit tested.
 */

/** The action offered in a run's notification: `Shell Commands (2)…`. */
export function shellActionLabel(count: number): string {
  return `Shell Commands (${count})…`;
}

/** The modal confirmation for one command: the command itself, and where and how it runs. */
export function shellConfirmation(command: string, folder: string | undefined): { message: string; detail: string } {
  const where = folder ? `in ${folder}` : "in the terminal's default folder (no folder is open)";
  return {
    message: `Run this command from the LLM's response in a terminal?\n\n${command}`,
    detail: `It runs ${where}, exactly as written.`,
  };
}

/**
 * Whether the extension's terminal can run the next command: only when it is still alive and
 * known to be in the workspace folder. A command run earlier may have changed its directory
 * (`cd build`), and without shell integration its directory is unknown: then a new terminal
 * starts in the folder.
 */
export function terminalIsReusable(terminal: { exited: boolean; cwd?: string }, folder: string | undefined): boolean {
  if (terminal.exited) {
    return false;
  }
  if (folder === undefined) {
    return true;
  }
  return terminal.cwd !== undefined && stripSeparator(terminal.cwd) === stripSeparator(folder);
}

function stripSeparator(path: string): string {
  return path.length > 1 ? path.replace(/[\\/]+$/, '') : path;
}
