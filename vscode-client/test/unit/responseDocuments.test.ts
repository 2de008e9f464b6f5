import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { ServerCommand } from '../../src/core/protocol';
import {
  asLensRun,
  ClientCommand,
  documentSelector,
  isSyncedScheme,
  lensRunOf,
  RESPONSE_LANGUAGE_ID,
  toClientLensCommand,
  WatchedUris,
} from '../../src/core/responseDocuments';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const manifest = require('../../../package.json');
const URI = 'untitled:Untitled-1';

describe('lensRunOf', () => {
  it("maps a block's lenses to the extension's apply and preview of that block", () => {
    const args = [{ responseUri: URI, options: { blocks: [2] } }];
    assert.deepEqual(lensRunOf(ServerCommand.apply, args), { action: 'apply', responseUri: URI, blocks: [2] });
    assert.deepEqual(lensRunOf(ServerCommand.preview, args), { action: 'preview', responseUri: URI, blocks: [2] });
  });

  it('keeps what a lens names its block by, so a stale lens runs nothing', () => {
    const args = [{ responseUri: URI, options: { blocks: [2] }, block: '14-19-00ab' }];
    assert.deepEqual(lensRunOf(ServerCommand.apply, args), { action: 'apply', responseUri: URI, blocks: [2], block: '14-19-00ab' });
    assert.equal(lensRunOf(ServerCommand.apply, [{ responseUri: URI, options: { blocks: [2] }, block: 7 }]), undefined);
    const run = asLensRun({ action: 'preview', responseUri: URI, blocks: [2], block: '14-19-00ab' });
    assert.equal(run?.block, '14-19-00ab');
  });

  it('maps "Apply all N ready blocks" (no blocks) to a run of every block', () => {
    assert.deepEqual(lensRunOf(ServerCommand.apply, [{ responseUri: URI }]), { action: 'apply', responseUri: URI });
    assert.deepEqual(lensRunOf(ServerCommand.apply, [{ responseUri: URI, options: {} }]), { action: 'apply', responseUri: URI });
  });

  it('leaves other commands and unknown shapes alone', () => {
    assert.equal(lensRunOf(ServerCommand.applyFix, [{ responseUri: URI }]), undefined);
    assert.equal(lensRunOf(ServerCommand.apply, [{ response: 'text' }]), undefined);
    assert.equal(lensRunOf(ServerCommand.apply, [{ responseUri: URI, options: { blocks: [-1] } }]), undefined);
    assert.equal(lensRunOf(ServerCommand.apply, [{ responseUri: URI, options: { blocks: ['1'] } }]), undefined);
    assert.equal(lensRunOf(ServerCommand.apply, [{ responseUri: URI, options: 'x' }]), undefined);
    assert.equal(lensRunOf(ServerCommand.apply, [{ responseUri: URI }, {}]), undefined);
    assert.equal(lensRunOf(ServerCommand.apply, undefined), undefined);
    assert.equal(lensRunOf('toString', [{ responseUri: URI }]), undefined);
  });
});

describe('toClientLensCommand', () => {
  it('keeps the title and runs llmEdits.runLens with the run', () => {
    const lens = { title: '✓ src/app.py:42', command: ServerCommand.apply, arguments: [{ responseUri: URI, options: { blocks: [0] } }] };
    assert.deepEqual(toClientLensCommand(lens), {
      title: '✓ src/app.py:42',
      command: ClientCommand.runLens,
      arguments: [{ action: 'apply', responseUri: URI, blocks: [0] }],
    });
  });

  it('leaves a lens whose command it does not know as the server sent it', () => {
    const lens = { title: '⋯ writing', command: 'llmEdits.somethingNew', arguments: [1] };
    assert.equal(toClientLensCommand(lens), lens);
  });

  it('gives runLens an argument it accepts back', () => {
    const lens = { title: 'Preview', command: ServerCommand.preview, arguments: [{ responseUri: URI, options: { blocks: [3] } }] };
    assert.deepEqual(asLensRun(toClientLensCommand(lens).arguments?.[0]), { action: 'preview', responseUri: URI, blocks: [3] });
  });
});

describe('asLensRun', () => {
  it('refuses what a lens never sends', () => {
    assert.equal(asLensRun(undefined), undefined);
    assert.equal(asLensRun({ action: 'delete', responseUri: URI }), undefined);
    assert.equal(asLensRun({ action: 'apply' }), undefined);
    assert.equal(asLensRun({ action: 'apply', responseUri: URI, blocks: [1.5] }), undefined);
    assert.deepEqual(asLensRun({ action: 'apply', responseUri: URI }), { action: 'apply', responseUri: URI });
  });
});

describe('command ids', () => {
  // vscode-languageclient registers each server command under its own id: a client command of
  // the same id would make one of the two registrations fail.
  const serverCommandsInSource = (): string[] => {
    const root = path.resolve(__dirname, '../../../../lsp_server');
    const found = new Set<string>(Object.values(ServerCommand));
    const visit = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          visit(full);
        } else if (entry.name.endsWith('.py')) {
          for (const match of fs.readFileSync(full, 'utf8').matchAll(/["'](llmEdits\.[A-Za-z.]+)["']/g)) {
            found.add(match[1]);
          }
        }
      }
    };
    if (fs.existsSync(root)) {
      visit(root);
    }
    return [...found];
  };

  it("never equal a server command's", () => {
    const clientIds = [
      ...Object.values(ClientCommand),
      ...(manifest.contributes.commands as Array<{ command: string }>).map((c) => c.command),
    ];
    const serverIds = serverCommandsInSource();
    assert.ok(serverIds.includes('llmEdits.watch') && serverIds.includes('llmEdits.apply'));
    assert.deepEqual(clientIds.filter((id) => serverIds.includes(id)), []);
  });

  it('contributes the palette commands of response documents; runLens is internal', () => {
    const contributed = (manifest.contributes.commands as Array<{ command: string; title: string }>).map((c) => c.command);
    for (const id of [ClientCommand.newResponse, ClientCommand.watchDocument, ClientCommand.unwatchDocument]) {
      assert.ok(contributed.includes(id), id);
    }
    assert.ok(!contributed.includes(ClientCommand.runLens));
    const title = (manifest.contributes.commands as Array<{ command: string; title: string }>).find(
      (c) => c.command === ClientCommand.newResponse,
    )?.title;
    assert.equal(title, 'New LLM Response');
  });
});

describe('the llm-response language', () => {
  it('is contributed for *.llm.md with a grammar that includes Markdown', () => {
    const language = (manifest.contributes.languages as Array<{ id: string; extensions: string[]; aliases: string[] }>).find(
      (l) => l.id === RESPONSE_LANGUAGE_ID,
    );
    assert.deepEqual(language?.extensions, ['.llm.md']);
    assert.equal(language?.aliases[0], 'LLM Response');
    const grammar = (manifest.contributes.grammars as Array<{ language: string; scopeName: string; path: string }>).find(
      (g) => g.language === RESPONSE_LANGUAGE_ID,
    );
    assert.ok(grammar);
    const root = path.resolve(__dirname, '../../..');
    const tmLanguage = JSON.parse(fs.readFileSync(path.join(root, grammar.path), 'utf8'));
    assert.equal(tmLanguage.scopeName, grammar.scopeName);
    assert.deepEqual(tmLanguage.patterns, [{ include: 'text.html.markdown' }]);
    assert.ok(manifest.activationEvents.includes(`onLanguage:${RESPONSE_LANGUAGE_ID}`));
  });

  it('is packaged: .vscodeignore keeps syntaxes/', () => {
    const ignore = fs.readFileSync(path.resolve(__dirname, '../../../.vscodeignore'), 'utf8');
    assert.ok(ignore.split('\n').includes('!syntaxes/**'));
  });
});

describe('documentSelector', () => {
  it('syncs files and untitled documents of every language, response documents included', () => {
    assert.deepEqual(documentSelector(), [{ scheme: 'file' }, { scheme: 'untitled' }]);
    assert.ok(documentSelector().every((filter) => !('language' in filter)));
    assert.ok(isSyncedScheme('untitled') && isSyncedScheme('file'));
  });

  it('does not sync other versions of a response (git, previews): they are no live response', () => {
    assert.ok(!isSyncedScheme('git'));
    assert.ok(!isSyncedScheme('llm-edits-preview'));
  });
});

describe('WatchedUris', () => {
  it('gives the watched documents still open, forgetting closed ones', () => {
    const watched = new WatchedUris();
    watched.add('file:///w/chat.md');
    watched.add('untitled:Untitled-2');
    assert.deepEqual(watched.stillOpen((uri) => uri.startsWith('file:')), ['file:///w/chat.md']);
    assert.equal(watched.has('untitled:Untitled-2'), false);
    assert.equal(watched.delete('file:///w/chat.md'), true);
    assert.deepEqual(watched.stillOpen(() => true), []);
  });
});
