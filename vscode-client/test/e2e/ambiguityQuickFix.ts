/**
 * End-to-end step: choosing where an ambiguous block goes (issue 15's "Apply block N at line M").
 *
 * A SEARCH/REPLACE block whose text is in three functions is applied from the clipboard: it
 * fails as ambiguous, and its diagnostic names the three places. The quick fix menu on the
 * diagnostic offers one "Apply block 1 at line N" per place; picking the second place applies
 * the block there, and only there.
 *
 * run.ts calls `ambiguousBlockQuickFix` with its workbench helpers (it owns code-server, the
 * browser and the test-state command; this file owns the step).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';

/** What this step reads of the extension's test state (a subset of run.ts's State). */
export interface StateView {
  statusText: string;
  diagnostics: Array<{ uri: string; line: number; message: string; source: string | null }>;
}

/** run.ts's helpers this step uses. */
export interface Harness {
  workspace: string;
  runCommand(page: Page, title: string): Promise<void>;
  openFile(page: Page, relative: string, line?: number): Promise<void>;
  waitForState(page: Page, predicate: (state: StateView) => boolean, ms?: number): Promise<StateView>;
  documentText(state: StateView, relative: string): string | undefined;
  check(condition: boolean, what: string, details?: unknown): void;
  screenshot(page: Page, name: string, docsName?: string): Promise<void>;
  closeAllEditors(page: Page): Promise<void>;
  dismissNotifications(page: Page): Promise<void>;
}

const FILE = 'src/ambiguous.py';
const BEFORE = 'def f(x):\n    return x\n\n\ndef g(x):\n    return x\n\n\ndef h(x):\n    return x\n';
const RESPONSE = `${FILE}\n<<<<<<< SEARCH\n    return x\n=======\n    return x + 1\n>>>>>>> REPLACE\n`;
const PLACES = [2, 6, 10]; // 1-based lines of "    return x"
const AT_SECOND = BEFORE.replace('def g(x):\n    return x\n', 'def g(x):\n    return x + 1\n');

function ourDiagnostics(state: StateView): StateView['diagnostics'] {
  return state.diagnostics.filter((d) => d.uri.endsWith(`/${FILE}`) && d.source === 'llm-edits');
}

/**
 * Open the quick fix menu at the cursor (Ctrl+.) and read every action's title; the menu is
 * left open. VS Code may answer "No code actions available" when the request raced another
 * (a cancelled lightbulb request): ask again, as a user would.
 */
async function openQuickFixes(page: Page, expected: string): Promise<string[]> {
  const rows = page.locator('.action-widget .monaco-list-row.action');
  for (let attempt = 1; ; attempt++) {
    await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
    await page.keyboard.press('Control+.');
    try {
      await rows.filter({ hasText: expected }).first().waitFor({ state: 'visible', timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
      await page.keyboard.press('Escape');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  return rows.evaluateAll((elements) => elements.map((row) => (row.textContent ?? '').trim()));
}

export async function ambiguousBlockQuickFix(page: Page, h: Harness): Promise<void> {
  const file = path.join(h.workspace, FILE);
  fs.writeFileSync(file, BEFORE);
  await h.closeAllEditors(page);
  await h.dismissNotifications(page);
  await h.openFile(page, FILE, PLACES[0]);

  // Apply from the clipboard: the block's text is at three places, so nothing is applied.
  await page.evaluate((text) => navigator.clipboard.writeText(text), RESPONSE);
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('c');
  let state = await h.waitForState(page, (s) => ourDiagnostics(s).length > 0);
  const [diagnostic] = ourDiagnostics(state);
  h.check(
    diagnostic?.line === PLACES[0] - 1 && diagnostic.message.includes('matches at lines 2, 6 and 10'),
    'ambiguity: the failed block is a diagnostic at its first place naming all three',
    state.diagnostics,
  );
  h.check(state.statusText.startsWith('✗ 1 failed'), 'ambiguity: status bar after the apply', state.statusText);
  h.check(fs.readFileSync(file, 'utf8') === BEFORE, 'ambiguity: the ambiguous block changed nothing');

  // The quick fix menu on the diagnostic: one fix per place; the second is picked.
  await h.dismissNotifications(page);
  await h.openFile(page, FILE, PLACES[0]);
  const second = `Apply block 1 at line ${PLACES[1]}`;
  const titles = await openQuickFixes(page, second);
  const offered = titles.filter((title) => title.startsWith('Apply block 1 at line'));
  h.check(
    JSON.stringify(offered) === JSON.stringify(PLACES.map((line) => `Apply block 1 at line ${line}`)),
    'ambiguity: the quick fix menu offers one "Apply block 1 at line N" per place',
    titles,
  );
  await h.screenshot(page, '07b-ambiguous-quick-fixes');
  // Keyboard, as the menu's rows resist synthetic clicks: the first action starts focused.
  const index = titles.findIndex((title) => title.includes(second));
  for (let i = 0; i < index; i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');

  // The status bar and the diagnostics follow the edit: wait for all three.
  state = await h.waitForState(
    page,
    (s) => (h.documentText(s, FILE) ?? '').includes('return x + 1') && s.statusText.startsWith('✓ 1 applied') && ourDiagnostics(s).length === 0,
  );
  const text = h.documentText(state, FILE);
  h.check(text === AT_SECOND, `ambiguity: "${second}" changed line ${PLACES[1]} and no other`, text);
  h.check(ourDiagnostics(state).length === 0, "ambiguity: the block's diagnostic is gone", state.diagnostics);
  h.check(state.statusText.startsWith('✓ 1 applied'), 'ambiguity: status bar after the quick fix', state.statusText);
  await h.closeAllEditors(page);
}
