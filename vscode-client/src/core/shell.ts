/**
 * The shell commands a response suggests (`shellSuggestions`): what the user is shown before one
 * runs. The extension never runs one without a modal confirmation, and shows the server's display
 * text (`shellCommands`), one confirmation per command a shell would run. Pure, unit tested.
 */
import type { ShellCommand } from './protocol';

/** The action offered in a run's notification: `Shell Commands (2)…`. */
export function shellActionLabel(count: number): string {
  return `Shell Commands (${count})…`;
}

/**
 * The commands of a result, as the server computed them for display (`shellCommands`: escaped,
 * split into the commands a shell would run). A server that sends only `shellSuggestions`
 * (older than this client) gets no command offered to run: the display form is the server's.
 */
export function shellCommandsOf(result: { shellCommands?: ShellCommand[] }): ShellCommand[] {
  return (result.shellCommands ?? []).filter((command) => command.parts.length > 0);
}

/**
 * The modal confirmation for part `index` of `command`: its display text (never the raw text:
 * a bidi override or a line separator could make it read as another command), which part of
 * how many, and where it runs.
 */
export function shellConfirmation(
  command: ShellCommand,
  index: number,
  folder: string | undefined,
): { message: string; detail: string } {
  const part = command.parts[index];
  const where = folder ? `in ${folder}` : "in the terminal's default folder (no folder is open)";
  const count = command.parts.length;
  const head =
    count > 1
      ? `Run command ${index + 1} of ${count} from the LLM's response in a terminal?`
      : "Run this command from the LLM's response in a terminal?";
  const whole = count > 1 ? `\n\n(one of: ${command.display})` : '';
  const escaped = command.display !== command.command || command.parts.some((p) => p.display !== p.command);
  const legend = escaped
    ? ' <U+XXXX> stands for a character that is not plainly visible, <N spaces> for N spaces: they run as they are.'
    : '';
  return {
    message: `${head}\n\n${part.display}${whole}`,
    detail: `It runs ${where}, on its own.${legend}`,
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
