/**
 * End-to-end test in a real VS Code: code-server (the VS Code 1.100 workbench and its Node
 * extension host) with the packaged .vsix installed, driven through Debian's Chromium by
 * playwright-core. A user's path throughout: palette commands by title, a keybinding, the editor
 * title's Apply button, the status bar, the Problems panel and a squiggle's hover.
 *
 * Asserts on the DOM, and on API-level state that the extension's test-only command
 * (`llmEdits.test.writeState`, registered only when LLM_EDITS_TEST_STATE_FILE is set) writes.
 * That command is not in package.json (users never see it): this test binds WRITE_STATE_KEY to
 * it in the profile's keybindings.json.
 *
 * Environment (set by scripts/test):
 *   CODE_SERVER   path of the code-server launcher
 *   VSIX          the packaged extension
 *   E2E_DIR       scratch directory (recreated)
 *   ARTIFACTS     where screenshots and logs go
 *   DOCS_IMAGES   where the README screenshots are copied (optional)
 *   CHROMIUM      browser executable (default /usr/bin/chromium)
 *   E2E_ONLY      `response-documents`: run only that part (the live response document), for
 *                 working on it; `ambiguity`: only the ambiguous block's quick fix
 *                 (ambiguityQuickFix.ts); `agents`: only an agent's edits through the editor
 *                 (agentEndpoint.ts); unset: the whole scenario
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { agentsThroughTheEditor } from './agentEndpoint';
import { ambiguousBlockQuickFix, type Harness } from './ambiguityQuickFix';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) {
    throw new Error(`${name} is not set`);
  }
  return value;
};

const CODE_SERVER = env('CODE_SERVER');
const VSIX = path.resolve(env('VSIX'));
const E2E_DIR = path.resolve(env('E2E_DIR'));
const ARTIFACTS = path.resolve(env('ARTIFACTS'));
const DOCS_IMAGES = process.env.DOCS_IMAGES ? path.resolve(process.env.DOCS_IMAGES) : undefined;
const CHROMIUM = env('CHROMIUM', '/usr/bin/chromium');
const ONLY = process.env.E2E_ONLY ?? '';
const FIXTURES = path.resolve(__dirname, '../../../test/e2e/fixtures');

const WORKSPACE = path.join(E2E_DIR, 'workspace');
const HOME = path.join(E2E_DIR, 'home');
const USER_DATA = path.join(E2E_DIR, 'user-data');
const EXTENSIONS = path.join(E2E_DIR, 'extensions');
const STATE_FILE = path.join(E2E_DIR, 'state.json');
const SERVER_LOG = path.join(ARTIFACTS, 'code-server.log');

const TITLES = {
  previewClipboard: 'LLM Edits: Preview LLM Edits from Clipboard',
  previewEditor: 'LLM Edits: Preview LLM Edits from Active Editor',
  previewToActiveEditor: 'LLM Edits: Preview LLM Edits to Active Editor',
  applyPreview: 'LLM Edits: Apply Previewed LLM Edits',
  discardPreview: 'LLM Edits: Discard Previewed LLM Edits',
  copyFeedback: 'LLM Edits: Copy Retry Feedback for the Model',
  showChanges: 'LLM Edits: Show Changes of the Last Apply',
};

// Bound to the test-only command in keybindings.json (VS Code binds nothing to it by default).
const WRITE_STATE_KEY = { vscode: 'ctrl+alt+shift+k', playwright: 'Control+Alt+Shift+K' };
const WRITE_STATE_COMMAND = 'llmEdits.test.writeState';

interface State {
  writtenAt: string;
  statusText: string;
  previewActive: boolean;
  settings: { saveAfterApply: boolean; stageInGit: boolean; formats: string[]; applyWhileStreaming: boolean };
  documents: Array<{ uri: string; languageId: string; text: string; version: number; isDirty: boolean }>;
  diagnostics: Array<{ uri: string; line: number; message: string; severity: string; source: string | null; code: string | number | null }>;
  tabs: Array<{ label: string; input: string | null }>;
  codeLenses: Array<{ line: number; title: string; command: string }>;
  lastResult: { blocks: Array<{ status: string; file: string; line: number | null }> } | null;
  lastOptions: { blocks?: number[]; confirm?: boolean; formats?: string[]; target?: string } | null;
}

let passed = 0;
let failed = 0;

function log(message: string): void {
  console.log(`e2e: ${message}`);
}

function check(condition: boolean, what: string, details?: unknown): void {
  if (condition) {
    passed++;
    log(`ok - ${what}`);
  } else {
    failed++;
    log(`FAIL - ${what}${details === undefined ? '' : `\n${typeof details === 'string' ? details : JSON.stringify(details, null, 2)}`}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Editor settings under which typed text lands as typed. */
const TYPED_AS_IS = {
  'editor.autoIndent': 'none',
  'editor.autoClosingBrackets': 'never',
  'editor.autoClosingQuotes': 'never',
  'editor.autoSurround': 'never',
  'editor.formatOnType': false,
  'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' },
  'editor.suggestOnTriggerCharacters': false,
  'editor.acceptSuggestionOnEnter': 'off',
  'editor.wordBasedSuggestions': 'off',
};

function prepareDirectories(): void {
  fs.rmSync(E2E_DIR, { recursive: true, force: true });
  for (const dir of [WORKSPACE, HOME, path.join(USER_DATA, 'User'), EXTENSIONS, ARTIFACTS]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  // Stale screenshots or logs from an earlier run must not pass for this run's.
  for (const stale of fs.readdirSync(ARTIFACTS)) {
    if (/\.png$|^code-server\.log$|^page-errors\.log$|^LLM-Edits\.log$|exthost\.log$/.test(stale)) {
      fs.rmSync(path.join(ARTIFACTS, stale), { force: true });
    }
  }
  fs.cpSync(path.join(FIXTURES, 'workspace'), WORKSPACE, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'response-fix.md'), path.join(WORKSPACE, 'response-fix.md'));
  // A Git repository, for "llmEdits.stageInGit".
  for (const args of [['init', '-q'], ['add', '.'], ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', 'commit', '-q', '-m', 'fixture']]) {
    const git = spawnSync('git', args, { cwd: WORKSPACE, encoding: 'utf8' });
    if (git.status !== 0) {
      throw new Error(`git ${args.join(' ')}: ${git.stderr}`);
    }
  }
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'files.autoSave': 'off',
    'editor.hover.delay': 200,
    'editor.minimap.enabled': false,
    'chat.commandCenter.enabled': false,
    'git.openRepositoryInParentFolders': 'never',
    'window.commandCenter': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    // The test-state key works with a terminal focused too (step 6's shell suggestions).
    'terminal.integrated.commandsToSkipShell': [WRITE_STATE_COMMAND],
    // The response typed into documents in 9f-9h lands as typed: no indentation, closing
    // brackets or suggestions added by the editor.
    ...Object.fromEntries(['[llm-response]', '[markdown]'].map((language) => [language, TYPED_AS_IS])),
  };
  fs.writeFileSync(path.join(USER_DATA, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const keybindings = [{ key: WRITE_STATE_KEY.vscode, command: WRITE_STATE_COMMAND }];
  fs.writeFileSync(path.join(USER_DATA, 'User', 'keybindings.json'), JSON.stringify(keybindings, null, 2));
}

function isolatedEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME,
    XDG_CONFIG_HOME: path.join(HOME, '.config'),
    XDG_DATA_HOME: path.join(HOME, '.local', 'share'),
    XDG_CACHE_HOME: path.join(HOME, '.cache'),
    LLM_EDITS_TEST_STATE_FILE: STATE_FILE,
  };
}

function installExtension(): void {
  const result = spawnSync(
    CODE_SERVER,
    ['--user-data-dir', USER_DATA, '--extensions-dir', EXTENSIONS, '--install-extension', VSIX, '--force'],
    { env: isolatedEnv(), encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0) {
    throw new Error(`--install-extension failed (${result.status}): ${result.stdout}\n${result.stderr}`);
  }
  log(`installed ${path.basename(VSIX)}: ${result.stdout.trim().split('\n').pop()}`);
}

async function startCodeServer(port: number): Promise<ChildProcess> {
  const out = fs.openSync(SERVER_LOG, 'a');
  // detached: its own process group, so the whole tree (extension hosts included) is killed at the end.
  const child = spawn(
    CODE_SERVER,
    [
      '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override',
      '--user-data-dir', USER_DATA, '--extensions-dir', EXTENSIONS, WORKSPACE,
    ],
    { env: isolatedEnv(), detached: true, stdio: ['ignore', out, out] },
  );
  fs.writeFileSync(path.join(E2E_DIR, 'code-server.pgid'), String(child.pid));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}; see ${SERVER_LOG}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) {
        return child;
      }
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error('code-server did not answer /healthz within 60 s');
}

function stopCodeServer(child: ChildProcess | undefined): void {
  if (!child?.pid) {
    return;
  }
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

// ------------------------------------------------------------------ workbench helpers

async function runCommand(page: Page, title: string): Promise<void> {
  // The palette lists the commands known when it opens; right after start-up the extension's
  // contributions may still be loading, so reopen it until the command shows up.
  const deadline = Date.now() + 30_000;
  let labels: string[] = [];
  while (Date.now() < deadline) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${title}`);
    const attemptEnd = Date.now() + 3_000;
    while (Date.now() < attemptEnd) {
      // Run the row whose label is exactly the title (fuzzy matching may rank others first).
      labels = await page
        .locator('.quick-input-widget .monaco-list-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('aria-label') ?? ''));
      const index = labels.findIndex((label) => label === title || label.startsWith(`${title},`));
      if (index >= 0) {
        await page.locator('.quick-input-widget .monaco-list-row').nth(index).click();
        return;
      }
      await sleep(200);
    }
  }
  throw new Error(`command "${title}" not found in the palette (rows: ${JSON.stringify(labels)})`);
}

async function writeState(page: Page): Promise<State> {
  const before = fs.existsSync(STATE_FILE) ? fs.statSync(STATE_FILE).mtimeMs : 0;
  // A key press can land while the workbench is busy (an editor opening): press again until the
  // command has written, as runCommand reopens the palette until its command shows up.
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press(WRITE_STATE_KEY.playwright);
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if (fs.existsSync(STATE_FILE) && fs.statSync(STATE_FILE).mtimeMs !== before) {
        return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8')) as State;
      }
      await sleep(100);
    }
  }
  throw new Error(`the test-state command wrote nothing (key ${WRITE_STATE_KEY.vscode})`);
}

/** Poll the extension's state until `predicate` holds (or return the last state after `ms`). */
async function waitForState(page: Page, predicate: (state: State) => boolean, ms = 20_000): Promise<State> {
  const deadline = Date.now() + ms;
  let state = await writeState(page);
  while (!predicate(state) && Date.now() < deadline) {
    await sleep(500);
    state = await writeState(page);
  }
  return state;
}

function documentText(state: State, relative: string): string | undefined {
  const suffix = `/${relative}`;
  return state.documents.find((doc) => doc.uri.startsWith('file://') && doc.uri.endsWith(suffix))?.text;
}

async function screenshot(page: Page, name: string, docsName?: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(process.cwd(), file)}`);
  if (docsName && DOCS_IMAGES) {
    fs.mkdirSync(DOCS_IMAGES, { recursive: true });
    fs.copyFileSync(file, path.join(DOCS_IMAGES, docsName));
  }
}

async function openFile(page: Page, relative: string, line?: number): Promise<void> {
  // Through the Explorer, as a user would (Quick Open depends on file search warming up).
  await runCommand(page, 'View: Show Explorer');
  const tree = page.locator('.explorer-folders-view');
  await tree.waitFor({ state: 'visible', timeout: 10_000 });
  const segments = relative.split('/');
  for (const [i, segment] of segments.entries()) {
    const row = tree.locator(`.monaco-list-row[aria-level="${i + 1}"][aria-label="${segment}"]`).first();
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    if (i < segments.length - 1) {
      if ((await row.getAttribute('aria-expanded')) !== 'true') {
        await row.click();
      }
    } else {
      await row.dblclick();
    }
  }
  await page.locator(`.tab.active[aria-label^="${segments[segments.length - 1]}"]`).waitFor({ timeout: 10_000 });
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  if (line !== undefined) {
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input.input').waitFor({ state: 'visible' });
    await page.keyboard.type(String(line));
    await page.keyboard.press('Enter');
  }
}

async function dismissNotifications(page: Page): Promise<void> {
  const clear = page.locator('.notifications-toasts .codicon-notifications-clear, .notification-toast .codicon-close');
  for (let i = 0; i < 5 && (await clear.count()) > 0; i++) {
    await clear.first().click({ timeout: 2000 }).catch(() => undefined);
    await sleep(100);
  }
}

async function closeAllEditors(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await runCommand(page, 'View: Close All Editors');
  await sleep(500);
}

// ------------------------------------------------------------------ the scenario

/** 0. Any LLM Edits command activates the extension (the test-state command exists only then). */
async function activate(page: Page): Promise<void> {
  await runCommand(page, 'LLM Edits: Show Results of the Last Run');
  await page.locator('.notification-toast', { hasText: 'no run yet' }).first().waitFor({ timeout: 20_000 });
  await dismissNotifications(page);
}

/** The helpers the steps in other files use. */
function harness(): Harness {
  return { workspace: WORKSPACE, runCommand, openFile, waitForState, documentText, check, screenshot, closeAllEditors, dismissNotifications };
}

async function scenario(page: Page): Promise<void> {
  const responseText = fs.readFileSync(path.join(FIXTURES, 'response.md'), 'utf8');

  await activate(page);
  if (ONLY === 'response-documents') {
    await liveResponseDocument(page);
    return;
  }
  if (ONLY === 'ambiguity') {
    await ambiguousBlockQuickFix(page, harness());
    return;
  }
  if (ONLY === 'agents') {
    await agentsThroughTheEditor(page, harness());
    return;
  }
  if (ONLY === 'target') {
    await chatAnswerToActiveEditor(page);
    return;
  }

  // 1. A file modified but not saved: the response's first block quotes the unsaved line.
  await openFile(page, 'src/app.py', 2);
  await page.keyboard.press('End');
  await page.keyboard.type('  # unsaved');
  let state = await waitForState(page, (s) => (documentText(s, 'src/app.py') ?? '').includes('# unsaved'));
  check(
    state.documents.some((doc) => doc.uri.endsWith('/src/app.py') && doc.isDirty),
    'src/app.py is modified and unsaved before the run',
  );

  // 2. Preview the response from the clipboard (command palette).
  await page.evaluate((text) => navigator.clipboard.writeText(text), responseText);
  await runCommand(page, TITLES.previewClipboard);
  await page.locator('.multiDiffEditor, .monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30_000 });
  state = await waitForState(page, (s) => s.previewActive);
  check(state.previewActive, 'preview is active after "Preview LLM Edits from Clipboard"');
  check(
    state.tabs.some((tab) => tab.label === 'LLM Edits Preview (3 files)'),
    'the multi-file diff editor shows the 3 changed files',
    state.tabs,
  );
  check(
    (documentText(state, 'src/app.py') ?? '').includes('return "Hello, " + name  # unsaved'),
    'preview changed nothing in the buffer',
  );
  check(
    state.statusText === '✓ 3 ready · ✗ 1 failed · ⊘ 1 skipped · ⚠ 1 warning',
    'status bar after the preview',
    state.statusText,
  );
  // Monaco renders spaces as U+00A0.
  const diffText = (await page.locator('.multiDiffEditor, .monaco-diff-editor').first().innerText()).replace(/\u00a0/g, ' ');
  check(diffText.includes('VALUE = 42') && diffText.includes('return f"Hello, {name}!"'), 'the diff editor shows proposed text', diffText.slice(0, 400));
  await sleep(1000);
  await screenshot(page, '01-preview', 'vscode-preview.png');

  // 3. Apply from the editor title's Apply button (re-validates on the server).
  const applyButton = page.locator('.editor-actions .action-label[aria-label^="Apply Previewed LLM Edits"]').first();
  await applyButton.waitFor({ state: 'visible', timeout: 10_000 });
  await applyButton.click();
  state = await waitForState(page, (s) => s.statusText.startsWith('✓ 3 applied'));
  check(
    state.statusText === '✓ 3 applied · ✗ 1 failed · ⊘ 1 skipped · ⚠ 1 warning',
    'status bar after applying',
    state.statusText,
  );
  check(!state.previewActive, 'the preview is closed after Apply');
  check(
    documentText(state, 'src/app.py') === 'def greet(name):\n    return f"Hello, {name}!"\n\n\ndef farewell(name):\n    return "Goodbye, " + name\n',
    'the unsaved buffer of src/app.py got the edit',
    documentText(state, 'src/app.py'),
  );
  check(
    (documentText(state, 'src/util.py') ?? '').includes('    return a * b  # product'),
    'src/util.py (not open before) got its edit',
    documentText(state, 'src/util.py'),
  );
  check(
    documentText(state, 'src/new_module.py') === 'VALUE = 42\n',
    'src/new_module.py was created',
    documentText(state, 'src/new_module.py'),
  );
  const failure = state.diagnostics.find((d) => d.uri.endsWith('/src/util.py') && d.source === 'llm-edits');
  check(failure?.line === 4, 'the failed block is reported on src/util.py line 5 (0-based 4)', state.diagnostics);
  const statusItem = page.locator('.statusbar-item', { hasText: /✓ \d+ applied/ }).first();
  check(
    (await statusItem.innerText().catch(() => '')).includes('✓ 3 applied · ✗ 1 failed · ⊘ 1 skipped'),
    'the status bar item shows the counts',
  );

  // 4. The Problems panel lists the failed block at its line.
  await dismissNotifications(page);
  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
  const problemRow = page.locator('.markers-panel .monaco-list-row', { hasText: 'not found' }).first();
  await problemRow.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  const problemText = await problemRow.innerText().catch(() => '');
  const problemLabel = (await problemRow.getAttribute('aria-label').catch(() => '')) ?? '';
  check(/\[Ln 5, Col 1\]/.test(problemText) || /line 5/i.test(problemLabel), 'Problems panel: failed block at Ln 5', { problemText, problemLabel });

  // 5. The squiggle and its hover in src/util.py.
  await openFile(page, 'src/util.py', 5);
  await page.keyboard.press('Home');
  const squiggle = page.locator('.editor-group-container.active .squiggly-error, .editor-group-container.active .squiggly-warning').first();
  await squiggle.waitFor({ state: 'visible', timeout: 10_000 });
  check(true, 'a squiggle marks the failed block in src/util.py');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  await page.locator('.monaco-hover').first().waitFor({ state: 'visible', timeout: 5_000 }).catch(() => undefined);
  await sleep(800);
  await screenshot(page, '02-failure-squiggle', 'vscode-failure.png');

  // 6. The status bar item opens the summary.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await statusItem.click();
  const summaryRows = page.locator('.quick-input-widget .monaco-list-row');
  await summaryRows.first().waitFor({ state: 'visible', timeout: 10_000 });
  const summaryText = await page.locator('.quick-input-widget').innerText();
  check(
    summaryText.includes('src/util.py:5') && summaryText.includes('Old lines not found') && summaryText.includes('skipped') && summaryText.includes('git rm src/old_helpers.py'),
    'the summary lists each block (file:line, status) and the suggested shell command',
    summaryText,
  );
  check(
    summaryText.includes('anchor: def greet(name):') && summaryText.includes('new: return f"Hello, {name}!"') && summaryText.includes('new: VALUE = 42'),
    "the summary shows each block's anchor/old/new previews",
    summaryText,
  );
  await screenshot(page, '03-summary', 'vscode-summary.png');
  // Picking the suggested shell command asks first (modal); cancelling runs nothing.
  await page.keyboard.type('git rm');
  await sleep(300);
  await page.keyboard.press('Enter');
  const dialog = page.locator('.monaco-dialog-box', { hasText: 'git rm src/old_helpers.py' }).first();
  await dialog.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  check(await dialog.isVisible(), 'a suggested shell command needs a modal confirmation');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  check((await page.locator('.terminal-wrapper').count()) === 0, 'cancelling the confirmation opens no terminal');
  // Picking an applied block opens the diff it made (the file before the run ↔ now), at its line.
  await statusItem.click();
  await summaryRows.first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type('util.py:10');
  await sleep(300);
  await page.keyboard.press('Enter');
  const blockDiffTab = page.locator('.tab.active[aria-label^="src/util.py (LLM Edits: before ↔ now)"]').first();
  await blockDiffTab.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  const cursorAtBlock = page.locator('.statusbar-item', { hasText: 'Ln 10, Col 1' }).first();
  await cursorAtBlock.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  check(
    (await blockDiffTab.isVisible()) && (await cursorAtBlock.isVisible()),
    'picking an applied block in the summary opens its diff (before ↔ now) at line 10',
  );
  const diffEditor = page.locator('.editor-group-container.active .monaco-diff-editor').first();
  const [originalText, modifiedText] = (
    await Promise.all([
      diffEditor.locator('.editor.original').innerText().catch(() => ''),
      diffEditor.locator('.editor.modified').innerText().catch(() => ''),
    ])
  ).map((text) => text.replace(/\u00a0/g, ' '));
  check(
    originalText.includes('return a * b') && !originalText.includes('# product') && modifiedText.includes('return a * b  # product'),
    "the block's diff shows the file before the run and the applied edit",
    { originalText: originalText.slice(0, 300), modifiedText: modifiedText.slice(0, 300) },
  );
  await screenshot(page, '03b-block-diff');
  await runCommand(page, 'View: Close Editor');
  // Picking a block opens its file at its line.
  await openFile(page, 'src/app.py');
  await statusItem.click();
  await summaryRows.first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type('util.py:5');
  await sleep(300);
  await page.keyboard.press('Enter');
  const cursorAtFailure = page.locator('.statusbar-item', { hasText: 'Ln 5, Col 1' }).first();
  await cursorAtFailure.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  check(
    (await page.locator('.tab.active[aria-label^="util.py"]').isVisible()) && (await cursorAtFailure.isVisible()),
    'picking the failed block in the summary opens src/util.py at line 5',
  );


  // 6b. Quick fixes on the failed block: "Copy retry feedback" (the client's middleware puts the server's text on
  //     the clipboard), then "Apply at closest match", which re-applies that one block.
  await page.keyboard.press('Escape');
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await quickFix(page, 'Copy retry feedback for the model', true);
  check((await readClipboard(page)).includes('src/util.py'), 'quick fix "Copy retry feedback" fills the clipboard');
  await quickFix(page, 'Apply at closest match (line 5)');
  state = await waitForState(page, (s) => s.statusText.startsWith('✓ 4 applied'));
  check(state.statusText === '✓ 4 applied · ⊘ 1 skipped · ⚠ 1 warning', 'status bar after the closest-match fix', state.statusText);
  check(
    (documentText(state, 'src/util.py') ?? '').includes('def sub(a, b):\n    return a - b  # checked\n'),
    'the closest-match fix rewrote sub() in src/util.py',
    documentText(state, 'src/util.py'),
  );
  check(
    !state.diagnostics.some((d) => d.uri.endsWith('/src/util.py') && d.source === 'llm-edits'),
    'the fixed block no longer has a diagnostic',
    state.diagnostics,
  );

  // 7. Copy Retry Feedback puts the server's feedback on the clipboard.
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await runCommand(page, TITLES.copyFeedback);
  const feedback = await readClipboard(page);
  check(feedback.includes('src/util.py'), 'retry feedback copied to the clipboard', feedback.slice(0, 500));

  // 7b. Copy Format Instructions: a quick pick of the formats, the text on the clipboard.
  await page.evaluate(() => navigator.clipboard.writeText('(empty)'));
  await runCommand(page, 'LLM Edits: Copy Format Instructions');
  const formatRow = page.locator('.quick-input-widget .monaco-list-row[aria-label^="edit-v3"]').first();
  await formatRow.waitFor({ state: 'visible', timeout: 10_000 });
  await formatRow.click();
  const instructions = await readClipboard(page);
  check(instructions.includes('««« EDIT'), 'format instructions for edit-v3 copied to the clipboard', instructions.slice(0, 300));

  // 8. A preview goes stale when its file changes: Apply is refused, nothing is written.
  await closeAllEditors(page);
  await dismissNotifications(page);
  await openFile(page, 'response-fix.md');
  await runCommand(page, TITLES.previewEditor);
  state = await waitForState(page, (s) => s.previewActive);
  check(state.previewActive, 'preview from the active editor (a response document)');
  await openFile(page, 'src/util.py', 10);
  await page.keyboard.press('End');
  await page.keyboard.type('  # edited after the preview');
  await sleep(500);
  await runCommand(page, TITLES.applyPreview);
  const refusal = page.locator('.notification-toast', { hasText: 'changed since the preview' }).first();
  await refusal.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  check(await refusal.isVisible().catch(() => false), 'Apply after a buffer change is refused with a message');
  state = await writeState(page);
  check(
    !(documentText(state, 'src/util.py') ?? '').includes('def add(a: int'),
    'the stale preview was not applied',
    documentText(state, 'src/util.py'),
  );
  await runCommand(page, TITLES.discardPreview);
  state = await waitForState(page, (s) => !s.previewActive);
  check(!state.previewActive, 'Discard closes the preview');

  // 9. Apply from the active editor with the keybinding; the cut-off block is reported on the
  //    response document itself.
  await dismissNotifications(page);
  await openFile(page, 'response-fix.md');
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('e');
  state = await waitForState(page, (s) => (documentText(s, 'src/util.py') ?? '').includes('def add(a: int'));
  check((documentText(state, 'src/util.py') ?? '').includes('def add(a: int, b: int) -> int:\n'), 'Ctrl+Alt+E E applied the response document');
  check(state.statusText === '✓ 1 applied · ⚠ 1 warning', 'status bar after the second apply', state.statusText);
  const malformed = state.diagnostics.find((d) => d.uri.endsWith('/response-fix.md'));
  // At the line where the block starts: its path line (12), above its ««« EDIT (13).
  check(malformed?.line === 11, 'the cut-off block is a diagnostic on the response document at line 12', state.diagnostics);
  check(
    !state.diagnostics.some((d) => d.uri.endsWith('/src/util.py') && d.source === 'llm-edits'),
    "the first run's failure diagnostic is gone after the new run",
    state.diagnostics,
  );
  await screenshot(page, '04-response-diagnostic');

  // 9a. The same response applied again: its block is already applied. Nothing changes, the
  //     run is information (not a failure), and the block's diagnostic is an Information one.
  await dismissNotifications(page);
  await openFile(page, 'response-fix.md');
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('e');
  // Before reading the state: the test-state key's Escape would hide the toast.
  const replayToast = page.locator('.notification-toast', { hasText: 'already applied' }).first();
  await replayToast.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => undefined);
  check(
    (await replayToast.locator('.codicon-info').count()) > 0 && (await replayToast.locator('.codicon-warning, .codicon-error').count()) === 0,
    'the notification for a replayed response is information, not a warning',
    await replayToast.innerText().catch(() => '(no notification)'),
  );
  state = await waitForState(page, (s) => s.statusText.startsWith('↺'));
  check(state.statusText === '↺ 1 already applied · ⚠ 1 warning', 'status bar after applying the response again', state.statusText);
  check(
    (documentText(state, 'src/util.py') ?? '').split('def add(a: int, b: int) -> int:').length === 2,
    'applying again changed nothing in src/util.py',
    documentText(state, 'src/util.py'),
  );
  const replayDiagnostics = state.diagnostics.filter((d) => d.uri.endsWith('/src/util.py') && d.source === 'llm-edits');
  check(
    replayDiagnostics.length === 1 && replayDiagnostics[0].severity === 'Information' && replayDiagnostics[0].code === 'already-applied' && replayDiagnostics[0].line === 0,
    'the already-applied block is an Information diagnostic at the line where its text is',
    replayDiagnostics,
  );

  // 9b. saveAfterApply + stageInGit (set in the Settings editor): the applied file is saved and staged.
  await searchSettings(page, 'llmEdits.saveAfterApply', 'Workspace');
  await page.locator('.settings-editor .setting-item-bool', { hasText: 'Save every file an apply changed' }).locator('.setting-value-checkbox').click();
  await searchSettings(page, 'llmEdits.stageInGit', 'Workspace');
  await page.locator('.settings-editor .setting-item-bool', { hasText: 'stage them in Git' }).locator('.setting-value-checkbox').click();
  // The Settings editor writes .vscode/settings.json; wait until the extension sees both.
  state = await waitForState(page, (s) => s.settings.saveAfterApply && s.settings.stageInGit);
  check(state.settings.saveAfterApply && state.settings.stageInGit, 'the workspace settings reached the extension', state.settings);
  await openFile(page, 'src/app.py');
  await dismissNotifications(page);
  await page.evaluate(
    (text) => navigator.clipboard.writeText(text),
    'src/new_module.py\n<<<<<<< SEARCH\nVALUE = 42\n=======\nVALUE = 43\n>>>>>>> REPLACE\n',
  );
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('c');
  const moduleFile = path.join(WORKSPACE, 'src', 'new_module.py');
  const staged = () => spawnSync('git', ['diff', '--cached', '--name-only'], { cwd: WORKSPACE, encoding: 'utf8' }).stdout;
  for (let i = 0; i < 60 && !(fs.existsSync(moduleFile) && fs.readFileSync(moduleFile, 'utf8') === 'VALUE = 43\n' && staged().includes('src/new_module.py')); i++) {
    await sleep(250);
  }
  check(fs.existsSync(moduleFile) && fs.readFileSync(moduleFile, 'utf8') === 'VALUE = 43\n', 'saveAfterApply wrote the applied file to disk');
  check(staged().includes('src/new_module.py'), 'stageInGit staged it', staged());
  // The same response again with stageInGit on: already applied, nothing to save or stage.
  await dismissNotifications(page);
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('c');
  state = await waitForState(page, (s) => s.statusText.startsWith('↺'));
  check(state.statusText === '↺ 1 already applied', 'stageInGit: the replayed response is already applied', state.statusText);
  check(
    fs.readFileSync(moduleFile, 'utf8') === 'VALUE = 43\n' && staged().trim() === 'src/new_module.py',
    'stageInGit: the replay left the file and the index as they were',
    staged(),
  );
  check(
    (await page.locator('.notification-toast', { hasText: /staging failed|Git extension is not available/ }).count()) === 0,
    'stageInGit: no staging error after the replay',
  );

  // 9c. A suggested shell command from the apply's notification: "Shell Commands (1)…" opens the
  //     pick; the picked command runs in a terminal in the workspace folder, only once confirmed.
  await dismissNotifications(page);
  await page.evaluate(
    (text) => navigator.clipboard.writeText(text),
    'src/util.py\n<<<<<<< SEARCH\ndef mul(a, b):\n=======\ndef mul(a: int, b: int) -> int:\n>>>>>>> REPLACE\n\n' +
      'Then run `mkdir -p build/from-response` for the output.\n',
  );
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('c');
  const shellButton = page.locator('.notification-toast .monaco-button', { hasText: 'Shell Commands (1)…' }).first();
  await shellButton.waitFor({ state: 'visible', timeout: 20_000 });
  await shellButton.click();
  const commandRow = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'mkdir -p build/from-response' }).first();
  await commandRow.waitFor({ state: 'visible', timeout: 10_000 });
  await commandRow.click();
  await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
  const confirmation = page.locator('.monaco-dialog-box', { hasText: 'mkdir -p build/from-response' }).first();
  await confirmation.waitFor({ state: 'visible', timeout: 10_000 });
  const createdDir = path.join(WORKSPACE, 'build', 'from-response');
  check(!fs.existsSync(createdDir), 'the picked shell command waits for the confirmation');
  check(
    (await confirmation.innerText()).includes(`It runs in ${WORKSPACE}`),
    'the confirmation names the workspace folder the command runs in',
    await confirmation.innerText(),
  );
  await confirmation.locator('.monaco-button', { hasText: 'Run in Terminal' }).first().click();
  const ranDeadline = Date.now() + 30_000;
  while (!fs.existsSync(createdDir) && Date.now() < ranDeadline) {
    await sleep(250);
  }
  check(fs.existsSync(createdDir), 'the confirmed command ran in a terminal in the workspace folder');
  // The terminal's prompt shows the test machine's directories: close it (the panel hides with
  // its last terminal) before the screenshots of the steps that follow, which go into the docs.
  await runCommand(page, 'Terminal: Kill All Terminals').catch((error) => log(`terminal not killed: ${error}`));

  // 9d. A compound suggestion hiding a right-to-left override: the dialog shows the server's
  //     display text (<U+202E>, never the raw character), one command at a time; declining the
  //     first runs nothing.
  await dismissNotifications(page);
  await page.evaluate(
    (text) => navigator.clipboard.writeText(text),
    'Then:\n\n```bash\nmkdir -p build/part_one\u202e; mkdir -p build/part_two\n```\n',
  );
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+Alt+E');
  await page.keyboard.press('c');
  const compoundButton = page.locator('.notification-toast .monaco-button', { hasText: 'Shell Commands (1)…' }).first();
  await compoundButton.waitFor({ state: 'visible', timeout: 20_000 });
  await compoundButton.click();
  const compoundRow = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'part_one<U+202E>' }).first();
  await compoundRow.waitFor({ state: 'visible', timeout: 10_000 });
  await compoundRow.click();
  await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
  const firstPart = page.locator('.monaco-dialog-box', { hasText: 'Run command 1 of 2' }).first();
  await firstPart.waitFor({ state: 'visible', timeout: 10_000 });
  const firstText = await firstPart.innerText();
  check(
    firstText.includes('mkdir -p build/part_one<U+202E>') && !firstText.includes('\u202e'),
    'a compound command is confirmed one command at a time, by its display text',
    firstText,
  );
  await page.keyboard.press('Escape');
  await firstPart.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  check(
    !(await firstPart.isVisible()) && (await page.locator('.terminal-wrapper').count()) === 0,
    'declining the first command of a compound one runs nothing',
  );

  await reviewBlocks(page);
  await ambiguousBlockQuickFix(page, harness());
  await wholeFileOptIn(page);
  await chatAnswerToActiveEditor(page);
  await liveResponseDocument(page);
  await agentsThroughTheEditor(page, harness());

  // 10. An interpreter that does not work (set in the Settings editor): the server restarts and
  //     reports it clearly, with a "Select Interpreter" action.
  await dismissNotifications(page);
  // A machine-overridable setting: in a remote window (code-server) it lives in the Remote tab.
  await searchSettings(page, 'llmEdits.interpreter', 'Remote');
  const item = page.locator('.settings-editor .setting-item-text', { hasText: 'runs the bundled language server' }).first();
  const field = item.locator('input, textarea').first();
  await field.waitFor({ state: 'visible', timeout: 15_000 });
  await field.fill('/nonexistent/python3');
  await field.press('Tab');
  const noPython = page.locator('.notification-toast', { hasText: 'needs Python 3.10 or newer' }).first();
  await noPython.waitFor({ state: 'visible', timeout: 30_000 }).catch(() => undefined);
  const noPythonText = await noPython.innerText().catch(() => '');
  check(
    noPythonText.includes('/nonexistent/python3') && noPythonText.includes('Select Interpreter'),
    'a broken llmEdits.interpreter is reported with a "Select Interpreter" action',
    noPythonText,
  );
  await screenshot(page, '05-no-interpreter');
}

// Three independent blocks over src/review.py (ONE = 1 / TWO = 2 / THREE = 3 in the fixture).
const REVIEW_RESPONSE = ['ONE', 'TWO', 'THREE']
  .map((name, i) => `src/review.py\n<<<<<<< SEARCH\n${name} = ${i + 1}\n=======\n${name} = ${(i + 1) * 10}\n>>>>>>> REPLACE\n`)
  .join('\n');

/**
 * The text of the diffs shown in the active multi-file diff editor. Only those on screen: the
 * editor keeps the diff widgets of inputs it showed before in its DOM, out of view.
 */
async function shownMultiDiffText(page: Page): Promise<string> {
  const text = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.editor-group-container.active .multiDiffEditor .monaco-diff-editor'))
      .filter((element) => {
        const box = element.getBoundingClientRect();
        return box.height > 0 && box.width > 0 && box.bottom > 0 && box.top < window.innerHeight;
      })
      .map((element) => element.innerText)
      .join('\n'),
  );
  return text.replace(/\u00a0/g, ' ');
}

/** Poll the shown multi-file diff's text until `predicate` holds or `ms` pass. */
async function waitForMultiDiffText(page: Page, predicate: (text: string) => boolean, ms = 10_000): Promise<string> {
  const deadline = Date.now() + ms;
  let text = '';
  do {
    text = await shownMultiDiffText(page).catch(() => '');
    if (predicate(text)) {
      return text;
    }
    await sleep(200);
  } while (Date.now() < deadline);
  return text;
}

/**
 * 9d. Per-block review: preview three blocks, untick the second in "Choose Blocks…" (the preview
 * runs again with options.blocks), apply: only the others land. Then "Show Changes", from the
 * apply's notification and from the palette, opens the diff of what the apply changed.
 */
async function reviewBlocks(page: Page): Promise<void> {
  await closeAllEditors(page);
  await dismissNotifications(page);
  await page.evaluate((text) => navigator.clipboard.writeText(text), REVIEW_RESPONSE);
  await runCommand(page, TITLES.previewClipboard);
  let state = await waitForState(page, (s) => s.previewActive && s.statusText === '✓ 3 ready');
  check(state.previewActive && state.statusText === '✓ 3 ready', 'review: the three blocks are previewed', state.statusText);

  const chooseButton = page.locator('.editor-actions .action-label[aria-label^="Choose Blocks to Apply"]').first();
  await chooseButton.waitFor({ state: 'visible', timeout: 10_000 });
  await chooseButton.click();
  const rows = page.locator('.quick-input-widget .monaco-list-row');
  await rows.filter({ hasText: 'Block 3' }).first().waitFor({ state: 'visible', timeout: 10_000 });
  const ticked = await rows.evaluateAll((elements) => elements.map((row) => row.getAttribute('aria-checked')));
  check(
    ticked.length === 3 && ticked.every((value) => value === 'true'),
    'review: "Choose Blocks…" lists the three blocks, all ticked',
    ticked,
  );
  const pickerText = await page.locator('.quick-input-widget').innerText();
  check(
    pickerText.includes('Block 2 · src/review.py:2') && pickerText.includes('old: TWO = 2 · new: TWO = 20'),
    "review: each block shows its file:line and previews",
    pickerText,
  );
  await rows.filter({ hasText: 'TWO = 20' }).first().click();
  const afterClick = await rows.evaluateAll((elements) => elements.map((row) => row.getAttribute('aria-checked')));
  check(JSON.stringify(afterClick) === JSON.stringify(['true', 'false', 'true']), 'review: block 2 is unticked', afterClick);
  await screenshot(page, '06-choose-blocks', 'vscode-choose-blocks.png');
  await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
  state = await waitForState(page, (s) => s.previewActive && s.statusText.includes('excluded'));
  check(state.lastOptions?.blocks?.join(',') === '0,2', 'review: the preview ran again with options.blocks [0, 2]', state.lastOptions);
  check(state.statusText === '✓ 2 ready · ○ 1 excluded', 'review: the new preview has block 2 excluded', state.statusText);

  const applyButton = page.locator('.editor-actions .action-label[aria-label^="Apply Previewed LLM Edits"]').first();
  await applyButton.waitFor({ state: 'visible', timeout: 10_000 });
  await applyButton.click();
  // Read the notification before the state: the test-state key's Escape would hide it.
  const showChanges = page.locator('.notification-toast .monaco-button', { hasText: 'Show Changes' }).first();
  await showChanges.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => undefined);
  const offered = await showChanges.isVisible().catch(() => false);
  check(offered, "review: the apply's notification offers Show Changes");
  if (offered) {
    await showChanges.click();
  }
  const reviewFile = path.join(WORKSPACE, 'src', 'review.py');
  state = await waitForState(page, (s) => s.statusText.includes('applied'));
  check(state.lastOptions?.blocks?.join(',') === '0,2', 'review: Apply sent the same options.blocks', state.lastOptions);
  check(state.statusText === '✓ 2 applied · ○ 1 excluded', 'review: status bar after applying the chosen blocks', state.statusText);
  const reviewText = documentText(state, 'src/review.py') ?? fs.readFileSync(reviewFile, 'utf8');
  check(reviewText === 'ONE = 10\nTWO = 2\nTHREE = 30\n', 'review: only the ticked blocks landed in src/review.py', reviewText);

  const changesTab = page.locator('.tab.active[aria-label^="LLM Edits: Changes of the Last Apply (1 file)"]').first();
  const sawChanges = async (how: string): Promise<void> => {
    await changesTab.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => undefined);
    const text = await waitForMultiDiffText(page, (t) => t.includes('ONE = 10') && t.includes('THREE = 30'));
    check(
      (await changesTab.isVisible()) &&
        ['ONE = 1\n', 'ONE = 10', 'TWO = 2\n', 'THREE = 3\n', 'THREE = 30'].every((line) => text.includes(line)) &&
        !text.includes('TWO = 20'),
      `review: ${how} opens the multi-file diff of the apply (before the run ↔ now)`,
      text.slice(0, 400),
    );
  };
  await sawChanges('"Show Changes" in the notification');
  await screenshot(page, '07-show-changes', 'vscode-show-changes.png');
  await closeAllEditors(page);
  await runCommand(page, TITLES.showChanges);
  await sawChanges('the command "Show Changes of the Last Apply"');
  await closeAllEditors(page);
}

/**
 * 9e. whole-file is opt-in: with the default formats a file written whole under its path is no
 * block (and the client sends no formats); ticked in llmEdits.formats with the seven, the
 * client sends all eight and the preview finds the block. The setting is removed afterwards.
 */
async function wholeFileOptIn(page: Page): Promise<void> {
  const wholeFile = 'src/review.py\n```python\nONE = 10\nTWO = 22\nTHREE = 30\n```\n';
  await closeAllEditors(page);
  await dismissNotifications(page);
  await page.evaluate((text) => navigator.clipboard.writeText(text), wholeFile);
  await runCommand(page, TITLES.previewClipboard);
  let state = await waitForState(page, (s) => s.previewActive && s.statusText === '✓ 1 ready');
  check(
    state.statusText === '✓ 1 ready' && state.lastOptions !== null && state.lastOptions.formats === undefined,
    'whole-file off by default: the fence under a path line is a code block (on by default), no formats sent',
    { options: state.lastOptions, status: state.statusText },
  );
  await runCommand(page, TITLES.discardPreview);
  state = await waitForState(page, (s) => !s.previewActive);

  // .vscode/settings.json exists since step 9b (the Settings editor wrote it).
  const settingsFile = path.join(WORKSPACE, '.vscode', 'settings.json');
  const workspaceSettings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
  const allFormats = manifest.contributes.configuration.properties['llmEdits.formats'].items.enum as string[];
  fs.writeFileSync(settingsFile, JSON.stringify({ ...workspaceSettings, 'llmEdits.formats': allFormats }, null, 2));
  state = await waitForState(page, (s) => s.settings.formats.includes('whole-file'));
  check(state.settings.formats.length === allFormats.length, 'whole-file: ticking it in llmEdits.formats reached the extension', state.settings.formats);

  await dismissNotifications(page);
  await runCommand(page, TITLES.previewClipboard);
  state = await waitForState(page, (s) => s.previewActive && s.statusText === '✓ 1 ready');
  check(state.statusText === '✓ 1 ready', 'whole-file: ticked, the file written whole is a block, ready', state.statusText);
  check(
    JSON.stringify(state.lastOptions?.formats) === JSON.stringify(allFormats),
    'whole-file: ticked with the default ones, every format is sent',
    state.lastOptions,
  );
  await runCommand(page, TITLES.discardPreview);
  state = await waitForState(page, (s) => !s.previewActive);
  check(
    (documentText(state, 'src/review.py') ?? fs.readFileSync(path.join(WORKSPACE, 'src', 'review.py'), 'utf8')) === 'ONE = 10\nTWO = 2\nTHREE = 30\n',
    'whole-file: the discarded preview changed nothing',
  );
  fs.writeFileSync(settingsFile, JSON.stringify(workspaceSettings, null, 2));
  state = await waitForState(page, (s) => !s.settings.formats.includes('whole-file'));
  check(!state.settings.formats.includes('whole-file'), 'whole-file: the setting is back to the default', state.settings.formats);
}

const PRICING = 'TAX = 0.2\n\n\ndef net(price):\n    return price\n\n\ndef gross(price):\n    return price * (1 + TAX)\n';
const CHAT_ANSWER = 'The `net` function should take the discount off:\n\n```python\ndef net(price, discount=0):\n    return price - discount\n```\n\nThat keeps `gross` as it is.\n';

/**
 * 9e. A chat answer (prose and a code fence naming no file) applied to the active editor's
 * unsaved buffer: "Preview LLM Edits to Active Editor" reads the clipboard, sends
 * options.target = the active file, shows the merge (the function replaced by name) in the
 * preview; applying it changes the buffer only, its unsaved line kept.
 */
async function chatAnswerToActiveEditor(page: Page): Promise<void> {
  await closeAllEditors(page);
  await dismissNotifications(page);
  await openFile(page, 'src/pricing.py', 1);
  await page.keyboard.press('End');
  await page.keyboard.type('  # unsaved');
  const unsaved = PRICING.replace('TAX = 0.2', 'TAX = 0.2  # unsaved');
  let state = await waitForState(page, (s) => documentText(s, 'src/pricing.py') === unsaved);
  check(documentText(state, 'src/pricing.py') === unsaved, 'target: pricing.py holds an unsaved change');
  await page.evaluate((text) => navigator.clipboard.writeText(text), CHAT_ANSWER);
  await runCommand(page, TITLES.previewToActiveEditor);
  state = await waitForState(page, (s) => s.previewActive && s.statusText === '✓ 1 ready');
  check(state.statusText === '✓ 1 ready', 'target: the chat answer\'s fence is one ready block', state.statusText);
  check(
    typeof state.lastOptions?.target === 'string' && state.lastOptions.target.endsWith('/src/pricing.py'),
    'target: options.target is the active editor\'s file',
    state.lastOptions,
  );
  const shown = await waitForMultiDiffText(page, (text) => text.includes('return price - discount'));
  check(
    shown.includes('def net(price, discount=0):') && shown.includes('return price - discount'),
    'target: the preview shows the merged function',
    shown.slice(0, 600),
  );
  await screenshot(page, '9e-chat-answer-to-active-editor', 'chat-answer-preview.png');
  await runCommand(page, TITLES.applyPreview);
  const merged = unsaved.replace('def net(price):\n    return price\n', 'def net(price, discount=0):\n    return price - discount\n');
  state = await waitForState(page, (s) => !s.previewActive && documentText(s, 'src/pricing.py') === merged);
  check(documentText(state, 'src/pricing.py') === merged, 'target: applied to the buffer, its unsaved line kept', documentText(state, 'src/pricing.py'));
  // Step 9b turned llmEdits.saveAfterApply on: then the apply saved the buffer as it is.
  const disk = fs.readFileSync(path.join(WORKSPACE, 'src', 'pricing.py'), 'utf8');
  check(
    disk === (state.settings.saveAfterApply ? merged : PRICING),
    state.settings.saveAfterApply ? 'target: saved after the apply (saveAfterApply)' : 'target: the file on disk is untouched until saved',
    disk,
  );
  await closeAllEditors(page);
  const revert = page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" }).first();
  if (await revert.isVisible().catch(() => false)) {
    await revert.click();
  }
}

/**
 * The response a model streams into an LLM Response document in 9f, in chunks: two edit-v3
 * blocks over src/shapes.py; the first chunk ends inside the first block's start marker. After
 * each chunk, the block lenses expected (top to bottom, the first lens of each block).
 * (edit-v3 rather than SEARCH/REPLACE: VS Code's merge-conflict extension adds its own lenses
 * on `<<<<<<<` lines, of any language.)
 */
const LIVE_CHUNKS: Array<{ text: string; lenses: string[]; what: string }> = [
  {
    text: '**Two fixes** for `src/shapes.py`. The area:\n\nsrc/shapes.py\n```python\n««« ED',
    lenses: ['⋯ writing'],
    what: 'a chunk ending inside the start marker: a fence for src/shapes.py being written (a code block, until its markers say otherwise)',
  },
  {
    text: 'IT\n    return width * height\n═══════ REPL\n',
    lenses: ['⋯ writing'],
    what: 'the first block open',
  },
  {
    text: '    return abs(width * height)\n»»» EDIT END\n```\n\nAnd the perimeter:\n\n',
    lenses: ['✓ src/shapes.py:2'],
    what: 'the first block complete',
  },
  {
    text: 'src/shapes.py\n```python\n««« EDIT\n    return 2 * (width + height)\n',
    lenses: ['✓ src/shapes.py:2', '⋯ writing'],
    what: 'the second block open',
  },
  {
    text: '═══════ REPL\n    return 2 * abs(width + height)\n»»» EDIT END\n```\n',
    lenses: ['✓ src/shapes.py:2', '✓ src/shapes.py:6'],
    what: 'both blocks complete',
  },
];

const SHAPES_BEFORE = 'def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n    return 2 * (width + height)\n';

/** The code lenses shown in the active editor, one entry per line (its lenses' titles), top to bottom. */
async function shownLenses(page: Page): Promise<string[][]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.editor-group-container.active .monaco-editor .codelens-decoration'))
      .filter((element) => element.getBoundingClientRect().height > 0)
      .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
      .map((element) =>
        Array.from(element.querySelectorAll<HTMLElement>(':scope > a, :scope > span:not(:empty)'))
          .map((lens) => (lens.textContent ?? '').replace(/\u00a0/g, ' ').trim())
          .filter((title) => title !== '' && title !== '|'),
      ),
  );
}

/**
 * Each block's status lens, top to bottom: every lens but "Preview" (each ready block has one)
 * and "Apply all N ready blocks" / "Apply 1 ready block" (at the top).
 */
function blockLensTitles(lines: string[][]): string[] {
  return lines.flat().filter((title) => title !== 'Preview' && !/^Apply (all )?\d+ ready blocks?$/.test(title));
}

/** Poll the shown lenses until `predicate` holds or `ms` pass; the last ones seen. */
async function waitForLenses(page: Page, predicate: (lines: string[][]) => boolean, ms = 15_000): Promise<string[][]> {
  const deadline = Date.now() + ms;
  let lines: string[][] = [];
  do {
    lines = await shownLenses(page).catch(() => []);
    if (predicate(lines)) {
      return lines;
    }
    await sleep(200);
  } while (Date.now() < deadline);
  return lines;
}

/** The text of the open document `uri` (undefined when it is not open). */
function textOf(state: State, uri: string): string | undefined {
  return state.documents.find((doc) => doc.uri === uri)?.text;
}

/**
 * Type `text` at the end of the active editor's document `uri`, whose text is `before` (the
 * profile's TYPED_AS_IS settings keep the editor from adding to it), and wait until the
 * document holds exactly `before + text`.
 */
async function appendChunk(page: Page, uri: string, before: string, text: string): Promise<void> {
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText(text);
  const state = await waitForState(page, (s) => textOf(s, uri) !== before, 10_000);
  if (textOf(state, uri) !== before + text) {
    throw new Error(`typing into ${uri} gave ${JSON.stringify(textOf(state, uri))}, not the chunk appended`);
  }
}

/** The URI of the new LLM Response document: untitled, empty, in a tab of its own name. */
async function newResponseUri(page: Page): Promise<string> {
  const fresh = (state: State) =>
    state.documents.find(
      (doc) =>
        doc.languageId === 'llm-response' &&
        doc.uri.startsWith('untitled:') &&
        doc.text === '' &&
        state.tabs.some((tab) => tab.label === doc.uri.slice('untitled:'.length)),
    );
  const state = await waitForState(page, (s) => fresh(s) !== undefined);
  const document = fresh(state);
  if (!document) {
    throw new Error(`no new LLM Response document: ${JSON.stringify(state.documents.map((doc) => doc.uri))}`);
  }
  return document.uri;
}

/**
 * 9f. A live response document: "New LLM Response" opens an untitled LLM Response document
 * (Markdown highlighting); a response typed into it chunk by chunk gets a lens per block,
 * `⋯ writing` while it is open and `✓ file:line` once complete; clicking one block's lens applies
 * that block alone, through the extension's apply (status bar, notification, Show Changes).
 */
async function liveResponseDocument(page: Page): Promise<void> {
  await closeAllEditors(page);
  await dismissNotifications(page);
  await runCommand(page, 'LLM Edits: New LLM Response');
  await page.locator('.tab.active[aria-label^="Untitled-"]').waitFor({ timeout: 15_000 });
  const languageStatus = page.locator('.statusbar-item', { hasText: 'LLM Response' }).first();
  await languageStatus.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  check(await languageStatus.isVisible(), 'live: "New LLM Response" opens an untitled document in the LLM Response language');
  const responseUri = await newResponseUri(page);

  let expectedText = '';
  for (const chunk of LIVE_CHUNKS) {
    await appendChunk(page, responseUri, expectedText, chunk.text);
    expectedText += chunk.text;
    const lines = await waitForLenses(page, (l) => JSON.stringify(blockLensTitles(l)) === JSON.stringify(chunk.lenses));
    check(
      JSON.stringify(blockLensTitles(lines)) === JSON.stringify(chunk.lenses),
      `live: lenses after ${chunk.what}: ${JSON.stringify(chunk.lenses)}`,
      lines,
    );
  }
  let state = await writeState(page);
  check(textOf(state, responseUri) === expectedText, 'live: the response document holds the chunks as typed', textOf(state, responseUri));
  check(
    (documentText(state, 'src/shapes.py') ?? fs.readFileSync(path.join(WORKSPACE, 'src', 'shapes.py'), 'utf8')) === SHAPES_BEFORE,
    'live: nothing is applied while the response is written (applyWhileStreaming off)',
  );
  const lines = await waitForLenses(page, (l) => l.some((titles) => titles[0] === 'Apply all 2 ready blocks'));
  check(
    lines.some((titles) => titles.length === 1 && titles[0] === 'Apply all 2 ready blocks'),
    'live: "Apply all 2 ready blocks" above the response',
    { shown: lines, provided: state.codeLenses },
  );
  // Markdown highlighting: the bold words of the first line are drawn bold (Monaco's mtkb class).
  const boldTokens = await page
    .locator('.editor-group-container.active .view-lines .view-line span.mtkb', { hasText: 'Two fixes' })
    .count();
  check(boldTokens > 0, 'live: the response is highlighted as Markdown (**bold** drawn bold)');
  // The outline lists the blocks (the server's document symbols: file, status).
  await runCommand(page, 'Explorer: Focus on Outline View').catch((error) => log(`outline not shown: ${error}`));
  const outlineRows = page.locator('.outline-pane .monaco-list-row', { hasText: 'src/shapes.py' });
  await outlineRows.nth(1).waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  const outlineText = await page.locator('.outline-pane').innerText().catch(() => '');
  check((await outlineRows.count()) === 2, 'live: the outline lists the two blocks', outlineText);
  // Each block's path is a link (to the line it changes): drawn underlined.
  const links = page.locator('.editor-group-container.active .view-lines span.detected-link', { hasText: 'src/shapes.py' });
  await links.nth(1).waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  check((await links.count()) === 2, "live: each block's path is a link", await links.count());
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await screenshot(page, '08-live-response', 'vscode-live-response.png');
  // A hover on a block: its planned change as a diff.
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input.input').waitFor({ state: 'visible' });
  await page.keyboard.type('6');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  const hover = page.locator('.monaco-hover', { hasText: 'abs(width * height)' }).first();
  await hover.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  const hoverText = (await hover.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
  check(
    hoverText.includes('-    return width * height') && hoverText.includes('+    return abs(width * height)'),
    "live: a hover on the first block shows its change as a diff",
    hoverText,
  );
  await screenshot(page, '08b-live-hover');
  await page.keyboard.press('Escape');

  // The second block's lens applies that block alone.
  await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: '✓ src/shapes.py:6' }).first().click();
  const showChanges = page.locator('.notification-toast .monaco-button', { hasText: 'Show Changes' }).first();
  await showChanges.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => undefined);
  check(await showChanges.isVisible().catch(() => false), "live: the lens's apply is reported as any apply (notification with Show Changes)");
  state = await waitForState(page, (s) => s.statusText.includes('applied'));
  check(state.lastOptions?.blocks?.join(',') === '1', 'live: the lens ran the apply with options.blocks [1]', state.lastOptions);
  check(state.statusText === '✓ 1 applied · ○ 1 excluded', 'live: status bar after the lens click', state.statusText);
  const shapes = documentText(state, 'src/shapes.py') ?? fs.readFileSync(path.join(WORKSPACE, 'src', 'shapes.py'), 'utf8');
  check(
    shapes === SHAPES_BEFORE.replace('return 2 * (width + height)', 'return 2 * abs(width + height)'),
    'live: only the clicked block landed in src/shapes.py',
    shapes,
  );
  const after = blockLensTitles(await waitForLenses(page, (l) => blockLensTitles(l)[1] !== '✓ src/shapes.py:6'));
  check(
    after[0] === '✓ src/shapes.py:2' && /^(✓ applied src\/shapes\.py:6|= already applied)$/.test(after[1] ?? ''),
    'live: the applied block\'s lens says so; the other is still ready',
    after,
  );

  // The first block's Preview lens: the extension's preview of that block (diff, nothing changed).
  await dismissNotifications(page);
  const previewLens = page.locator('.editor-group-container.active .codelens-decoration').filter({ hasText: '✓ src/shapes.py:2' }).locator('a', { hasText: 'Preview' });
  await previewLens.first().click();
  state = await waitForState(page, (s) => s.previewActive);
  check(state.previewActive && state.lastOptions?.blocks?.join(',') === '0', "live: a block's Preview lens previews that block", state.lastOptions);
  await runCommand(page, TITLES.discardPreview);
  state = await waitForState(page, (s) => !s.previewActive);
  const afterPreview = documentText(state, 'src/shapes.py') ?? fs.readFileSync(path.join(WORKSPACE, 'src', 'shapes.py'), 'utf8');
  check(afterPreview === shapes, 'live: the preview changed nothing', { before: shapes, after: afterPreview });
  // Closing the untitled response asks whether to save it: no.
  await closeUntitledResponse(page);
  await watchedDocument(page);
  await applyWhileStreaming(page);
}

/**
 * Close the untitled response document without saving: emptied first (an
 * empty untitled document closes without asking). "Close All Editors" would ask,
 * and its "Don't Save" would revert every unsaved buffer, the files the lenses applied to included.
 */
async function closeUntitledResponse(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  // Its tab (a run may have opened the files it changed since): the tab reads "<first line> Untitled-N".
  await page.locator('.tab', { hasText: 'Untitled-' }).first().click();
  await page.locator('.tab.active', { hasText: 'Untitled-' }).waitFor({ timeout: 10_000 });
  await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await runCommand(page, 'View: Close Editor');
  // VS Code keeps a closed untitled document among the extension's documents, empty.
  const closed = (st: State) =>
    !st.tabs.some((tab) => /^Untitled-\d+$/.test(tab.label)) &&
    st.documents.every((doc) => !doc.uri.startsWith('untitled:') || doc.text === '');
  const state = await waitForState(page, closed);
  check(closed(state), 'the emptied response document closes without asking', { tabs: state.tabs, documents: state.documents });
}

/**
 * 9h. llmEdits.applyWhileStreaming (a workspace setting, changed while the server runs): a block
 * is applied as soon as it is complete, with no click; its lens says it is applied.
 */
async function applyWhileStreaming(page: Page): Promise<void> {
  const settingsFile = path.join(WORKSPACE, '.vscode', 'settings.json');
  const before = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : undefined;
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  const settings = before ? (JSON.parse(before) as Record<string, unknown>) : {};
  fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, 'llmEdits.applyWhileStreaming': true }, null, 2));
  let state = await waitForState(page, (s) => s.settings.applyWhileStreaming);
  check(state.settings.applyWhileStreaming, 'streaming apply: the setting reached the extension');
  await runCommand(page, 'LLM Edits: New LLM Response');
  await page.locator('.tab.active[aria-label^="Untitled-"]').waitFor({ timeout: 15_000 });
  const responseUri = await newResponseUri(page);
  const writing = 'src/shapes.py\n««« EDIT\n    return width * height\n═══════ REPL\n';
  await appendChunk(page, responseUri, '', writing);
  const lines = await waitForLenses(page, (l) => blockLensTitles(l).includes('⋯ writing'));
  await screenshot(page, '09-streaming-apply-writing');
  state = await writeState(page);
  check(
    blockLensTitles(lines).join() === '⋯ writing' && !(documentText(state, 'src/shapes.py') ?? '').includes('abs(width * height)'),
    'streaming apply: nothing is applied while the block is being written',
    lines,
  );
  await appendChunk(page, responseUri, writing, '    return abs(width * height)  # streamed\n»»» EDIT END\n');
  state = await waitForState(page, (s) => (documentText(s, 'src/shapes.py') ?? '').includes('# streamed'));
  const shapes = documentText(state, 'src/shapes.py') ?? '';
  check(
    shapes.split('abs(width * height)  # streamed').length === 2 && shapes.includes('return 2 * abs(width + height)'),
    'streaming apply: the completed block was applied once, with no click',
    { shapes, response: state.documents.filter((doc) => doc.languageId === 'llm-response').map((doc) => doc.text), lenses: state.codeLenses },
  );
  await screenshot(page, '09b-streaming-apply-complete');
  const applied = await waitForLenses(page, (l) => /^✓ applied src\/shapes\.py:2$|^= already applied$/.test(blockLensTitles(l)[0] ?? ''));
  check(
    /^✓ applied src\/shapes\.py:2$|^= already applied$/.test(blockLensTitles(applied)[0] ?? ''),
    "streaming apply: the block's lens says it is applied",
    applied,
  );
  await closeUntitledResponse(page);
  if (before === undefined) {
    fs.rmSync(settingsFile);
  } else {
    fs.writeFileSync(settingsFile, before);
  }
  state = await waitForState(page, (s) => !s.settings.applyWhileStreaming);
  check(!state.settings.applyWhileStreaming, 'streaming apply: the setting is off again');
}

/**
 * 9g. Watch: a Markdown document (a chat's transcript, say) is a response document from "Watch
 * Active Editor as an LLM Response" until "Stop Watching": lenses come and go with it.
 */
async function watchedDocument(page: Page): Promise<void> {
  await openFile(page, 'chat.md');
  await runCommand(page, 'LLM Edits: Watch Active Editor as an LLM Response');
  const chat = (await writeState(page)).documents.find((doc) => doc.uri.endsWith('/chat.md'));
  await appendChunk(page, chat?.uri ?? '', chat?.text ?? '', 'src/shapes.py\n««« EDIT\n    return width * height\n═══════ REPL\n    return abs(width * height)\n»»» EDIT END\n');
  let lines = await waitForLenses(page, (l) => blockLensTitles(l).length === 1);
  check(
    JSON.stringify(blockLensTitles(lines)) === JSON.stringify(['✓ src/shapes.py:2']),
    'watch: a watched Markdown document gets a lens per block',
    lines,
  );
  await runCommand(page, 'LLM Edits: Stop Watching Active Editor as an LLM Response');
  lines = await waitForLenses(page, (l) => l.length === 0);
  check(lines.length === 0, 'watch: no lens once the document is no longer watched', lines);
  await runCommand(page, 'File: Revert File');
  await closeAllEditors(page);
}

/** The Settings editor, searched for `query`, on the User, Remote or Workspace tab. */
async function searchSettings(page: Page, query: string, tab: 'User' | 'Remote' | 'Workspace'): Promise<void> {
  await runCommand(page, 'Preferences: Open Settings (UI)');
  const search = page.locator('.settings-editor .suggest-input-container textarea, .settings-editor .search-container textarea').first();
  await search.waitFor({ state: 'visible', timeout: 15_000 });
  await search.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(query);
  await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: tab }).first().click();
  await page.locator('.settings-editor .settings-count-widget', { hasText: '1 Setting Found' }).waitFor({ timeout: 15_000 });
}

async function readClipboard(page: Page): Promise<string> {
  let text = '';
  for (let i = 0; i < 40 && (text === '' || text === '(empty)'); i++) {
    await sleep(250);
    text = await page.evaluate(() => navigator.clipboard.readText());
  }
  return text;
}

/** Open the quick fix menu at the cursor (Ctrl+.) and pick an action by its title. */
async function quickFix(page: Page, title: string, takeScreenshot = false): Promise<void> {
  const action = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
  // VS Code sometimes answers "No code actions available" when the request raced with another
  // (a cancelled lightbulb request): ask again, as a user would.
  for (let attempt = 1; ; attempt++) {
    await page.locator('.editor-group-container.active .monaco-editor textarea').first().focus();
    await page.keyboard.press('Control+.');
    try {
      await action.waitFor({ state: 'visible', timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
      log(`quick fix menu without "${title}" (attempt ${attempt}); retrying`);
      await page.keyboard.press('Escape');
      await sleep(1000);
    }
  }
  if (takeScreenshot) {
    await sleep(300);
    await screenshot(page, '02b-quick-fixes', 'vscode-quick-fixes.png');
  }
  // Keyboard, as the menu's rows resist synthetic clicks: the first action starts focused.
  const titles = await page
    .locator('.action-widget .monaco-list-row.action')
    .evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));
  const index = titles.findIndex((text) => text.includes(title));
  if (index < 0) {
    throw new Error(`quick fix "${title}" not offered: ${JSON.stringify(titles)}`);
  }
  for (let i = 0; i < index; i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await action.waitFor({ state: 'hidden', timeout: 5_000 });
}

async function main(): Promise<void> {
  prepareDirectories();
  installExtension();
  const port = await freePort();
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const started = Date.now();
  try {
    child = await startCodeServer(port);
    log(`code-server on port ${port} (${Date.now() - started} ms)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
      headless: true,
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
    page = await context.newPage();
    page.on('pageerror', (error) => fs.appendFileSync(path.join(ARTIFACTS, 'page-errors.log'), `${error.stack}\n`));
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(WORKSPACE)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar').waitFor({ timeout: 60_000 });
    log(`workbench loaded (${Date.now() - started} ms)`);
    await scenario(page);
  } catch (error) {
    failed++;
    log(`FAIL - ${error instanceof Error ? error.stack : String(error)}`);
    if (page) {
      await page.screenshot({ path: path.join(ARTIFACTS, 'failure.png') }).catch(() => undefined);
    }
  } finally {
    await browser?.close().catch(() => undefined);
    stopCodeServer(child);
    copyLogs();
  }
  log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

/** The extension's output channel and the extension host log, for diagnosing a failure. */
function copyLogs(): void {
  const logsRoot = path.join(USER_DATA, 'logs');
  if (!fs.existsSync(logsRoot)) {
    return;
  }
  for (const entry of fs.readdirSync(logsRoot, { recursive: true }) as string[]) {
    const base = path.basename(entry);
    if (base.includes('LLM Edits') || base === 'exthost.log' || base === 'remoteexthost.log') {
      fs.copyFileSync(path.join(logsRoot, entry), path.join(ARTIFACTS, base.replace(/\s+/g, '-')));
    }
  }
}

void main();
