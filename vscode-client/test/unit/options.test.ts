import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import {
  ALL_FORMATS,
  DEFAULT_FORMATS,
  DEFAULT_MAX_RESPONSE_BYTES,
  humanBytes,
  instructionsChoices,
  isDefaultFormatSet,
  normalizeSettings,
  OPT_IN_FORMATS,
  responseBytes,
  RESTART_SETTINGS,
  SERVER_SETTINGS,
  serverSettingsChange,
  toCommandOptions,
  toInitializationOptions,
} from '../../src/core/options';

describe('normalizeSettings', () => {
  it('defaults maxResponseSize to the server default (16 MiB) in code and in package.json', () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const manifest = require('../../../package.json');
    assert.equal(DEFAULT_MAX_RESPONSE_BYTES, 16 * 1024 * 1024);
    assert.equal(manifest.contributes.configuration.properties['llmEdits.maxResponseSize'].default,
      DEFAULT_MAX_RESPONSE_BYTES);
  });

  it('gives the documented defaults for missing values', () => {
    assert.deepEqual(normalizeSettings({}), {
      interpreter: '',
      matching: 'exact',
      atomic: false,
      formats: [...DEFAULT_FORMATS],
      saveAfterApply: false,
      stageInGit: false,
      confirmEachBlock: false,
      applyWhileStreaming: false,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      mcpEnabled: false,
    });
  });

  it('keeps valid values', () => {
    const settings = normalizeSettings({
      interpreter: '  /usr/bin/python3.12 ',
      matching: 'whitespace',
      atomic: true,
      formats: ['edit-v3', 'unified-diff'],
      saveAfterApply: true,
      stageInGit: true,
      confirmEachBlock: true,
      applyWhileStreaming: true,
      maxResponseSize: 1024,
    });
    assert.equal(settings.interpreter, '/usr/bin/python3.12');
    assert.equal(settings.matching, 'whitespace');
    assert.equal(settings.atomic, true);
    assert.deepEqual(settings.formats, ['edit-v3', 'unified-diff']);
    assert.equal(settings.saveAfterApply, true);
    assert.equal(settings.stageInGit, true);
    assert.equal(settings.confirmEachBlock, true);
    assert.equal(settings.applyWhileStreaming, true);
    assert.equal(settings.maxResponseBytes, 1024);
  });

  it('drops unknown or duplicate formats, and falls back to the default set, never to none', () => {
    assert.deepEqual(normalizeSettings({ formats: ['edit-v3', 'nope', 'edit-v3', 3] }).formats, ['edit-v3']);
    assert.deepEqual(normalizeSettings({ formats: ['nope'] }).formats, [...DEFAULT_FORMATS]);
    assert.deepEqual(normalizeSettings({ formats: [] }).formats, [...DEFAULT_FORMATS]);
    assert.deepEqual(normalizeSettings({ formats: 'edit-v3' }).formats, [...DEFAULT_FORMATS]);
  });

  it('keeps the opt-in whole-file format when it is ticked', () => {
    assert.deepEqual(normalizeSettings({ formats: [...ALL_FORMATS] }).formats, [...ALL_FORMATS]);
    assert.deepEqual(normalizeSettings({ formats: ['whole-file'] }).formats, ['whole-file']);
  });

  it('rejects unusable values instead of passing them to the server', () => {
    const settings = normalizeSettings({
      matching: 'fuzzy',
      atomic: 'yes',
      confirmEachBlock: 1,
      applyWhileStreaming: 'true',
      maxResponseSize: -5,
    });
    assert.equal(settings.matching, 'exact');
    assert.equal(settings.atomic, false);
    assert.equal(settings.confirmEachBlock, false);
    assert.equal(settings.applyWhileStreaming, false);
    assert.equal(settings.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
    assert.equal(normalizeSettings({ maxResponseSize: 10.7 }).maxResponseBytes, 10);
    assert.equal(normalizeSettings({ maxResponseSize: Number.NaN }).maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  });
});

describe('format lists', () => {
  it('are the default formats (code-block among them) and, in all, whole-file too', () => {
    assert.ok((DEFAULT_FORMATS as readonly string[]).includes('code-block'));
    assert.deepEqual(OPT_IN_FORMATS, ['whole-file']);
    assert.deepEqual(ALL_FORMATS, [...DEFAULT_FORMATS, 'whole-file']);
  });

  it("match the server's format registry (lsp_server/formats.py)", () => {
    // The server is bundled with the extension: a format added there and not here could never
    // be chosen, and an opt-in one listed as a default would be sent as off.
    const registry = fs.readFileSync(path.join(__dirname, '../../../../lsp_server/formats.py'), 'utf8');
    const entries = registry.split(/^\s*Format\(/m).slice(1);
    const named = entries.map((entry) => ({ name: /^"([^"]+)"/.exec(entry)?.[1], optIn: /opt_in\s*=\s*True/.test(entry) }));
    assert.deepEqual(named.map((f) => f.name), [...ALL_FORMATS]);
    assert.deepEqual(named.filter((f) => !f.optIn).map((f) => f.name), [...DEFAULT_FORMATS]);
  });

  it('declares every format in package.json, the default set by default', () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const manifest = require('../../../package.json');
    const setting = manifest.contributes.configuration.properties['llmEdits.formats'];
    assert.deepEqual(setting.items.enum, [...ALL_FORMATS]);
    assert.equal(setting.items.enumDescriptions.length, ALL_FORMATS.length);
    assert.deepEqual(setting.default, [...DEFAULT_FORMATS]);
  });

  it('tell the default set in any order from anything else', () => {
    assert.equal(isDefaultFormatSet([...DEFAULT_FORMATS]), true);
    assert.equal(isDefaultFormatSet([...DEFAULT_FORMATS].reverse()), true);
    assert.equal(isDefaultFormatSet([...ALL_FORMATS]), false);
    assert.equal(isDefaultFormatSet(DEFAULT_FORMATS.slice(1)), false);
    assert.equal(isDefaultFormatSet([...DEFAULT_FORMATS.slice(1), 'whole-file']), false);
  });
});

describe('toCommandOptions', () => {
  it('sends no formats for the default seven, in any order (the server detects those)', () => {
    assert.deepEqual(toCommandOptions(normalizeSettings({})), { matching: 'exact', atomic: false });
    const reordered = normalizeSettings({ formats: [...DEFAULT_FORMATS].reverse() });
    assert.equal(toCommandOptions(reordered).formats, undefined);
  });

  it('sends all eight when whole-file is ticked with the seven (absent would leave it off)', () => {
    assert.deepEqual(toCommandOptions(normalizeSettings({ formats: [...ALL_FORMATS] })).formats, [...ALL_FORMATS]);
    assert.deepEqual(toCommandOptions(normalizeSettings({ formats: ['whole-file'] })).formats, ['whole-file']);
  });

  it('sends a subset as it is', () => {
    assert.deepEqual(toCommandOptions(normalizeSettings({ formats: ['apply-patch'], atomic: true })), {
      matching: 'exact',
      atomic: true,
      formats: ['apply-patch'],
    });
    assert.deepEqual(toCommandOptions(normalizeSettings({ formats: ['edit-v3', 'unified-diff'] })).formats, [
      'edit-v3',
      'unified-diff',
    ]);
  });

  it('asks for the file texts for a preview', () => {
    assert.deepEqual(toCommandOptions(normalizeSettings({ matching: 'whitespace' }), { includeText: true }), {
      matching: 'whitespace',
      atomic: false,
      includeText: true,
    });
  });

  it('sends the chosen blocks and confirm only when given', () => {
    const settings = normalizeSettings({});
    const chosen = [0, 2];
    const options = toCommandOptions(settings, { includeText: true, blocks: chosen, confirm: true });
    // A person reviews the refactor preview before VS Code answers: the server waits an hour, not 30 s.
    assert.deepEqual(options, {
      matching: 'exact', atomic: false, includeText: true, blocks: [0, 2], confirm: true, applyEditTimeout: 3600,
    });
    assert.notEqual(options.blocks, chosen, 'a copy: a later change to the choice does not change sent options');
    assert.deepEqual(toCommandOptions(settings, { blocks: [] }), { matching: 'exact', atomic: false, blocks: [] });
    assert.deepEqual(toCommandOptions(settings, { confirm: false }), { matching: 'exact', atomic: false });
  });

  it('declares confirmEachBlock in package.json, off by default', () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const manifest = require('../../../package.json');
    assert.equal(manifest.contributes.configuration.properties['llmEdits.confirmEachBlock'].default, false);
    assert.equal(normalizeSettings({}).confirmEachBlock, false);
  });

  it('declares applyWhileStreaming in package.json, off by default; a change is sent, no restart', () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const manifest = require('../../../package.json');
    assert.equal(manifest.contributes.configuration.properties['llmEdits.applyWhileStreaming'].default, false);
    assert.equal(manifest.contributes.configuration.properties['llmEdits.applyWhileStreaming'].type, 'boolean');
    assert.equal(normalizeSettings({}).applyWhileStreaming, false);
    assert.ok(!(RESTART_SETTINGS as readonly string[]).includes('llmEdits.applyWhileStreaming'));
    assert.ok((SERVER_SETTINGS as readonly string[]).includes('llmEdits.applyWhileStreaming'));
    assert.deepEqual(serverSettingsChange(normalizeSettings({ applyWhileStreaming: true, formats: ['edit-v3'] })), {
      llmEdits: { applyWhileStreaming: true, mcp: { enabled: false } },
    });
  });

  it('declares mcp.enabled in package.json, off by default; a change is sent as the server setting mcp', () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const manifest = require('../../../package.json');
    assert.equal(manifest.contributes.configuration.properties['llmEdits.mcp.enabled'].default, false);
    assert.equal(normalizeSettings({}).mcpEnabled, false);
    assert.equal(normalizeSettings({ mcpEnabled: 'yes' }).mcpEnabled, false);
    assert.ok(!(RESTART_SETTINGS as readonly string[]).includes('llmEdits.mcp.enabled'));
    assert.ok((SERVER_SETTINGS as readonly string[]).includes('llmEdits.mcp.enabled'));
    assert.deepEqual(serverSettingsChange(normalizeSettings({ mcpEnabled: true })).llmEdits.mcp, { enabled: true });
    assert.deepEqual(toInitializationOptions(normalizeSettings({ mcpEnabled: true })).mcp, { enabled: true });
  });
});

describe('toInitializationOptions', () => {
  it("carries the defaults and the response size limit under the server's key, never formats", () => {
    // Formats travel with each command: as a server default they would outlive a change of the
    // setting back to the default set, which commands send as no formats.
    assert.deepEqual(toInitializationOptions(normalizeSettings({ maxResponseSize: 2048, formats: ['edit-v2'] })), {
      matching: 'exact',
      atomic: false,
      maxResponseBytes: 2048,
      applyWhileStreaming: false,
      mcp: { enabled: false },
    });
  });

  it('passes applyWhileStreaming as the server option of that name', () => {
    assert.equal(toInitializationOptions(normalizeSettings({ applyWhileStreaming: true })).applyWhileStreaming, true);
  });
});

describe('instructionsChoices', () => {
  it("offers the server's formats, then the opt-in ones its text leaves out", () => {
    assert.deepEqual(instructionsChoices(['edit-v3', 'unified-diff']), [
      { format: 'edit-v3', optIn: false },
      { format: 'unified-diff', optIn: false },
      { format: 'whole-file', optIn: true },
    ]);
  });

  it('lists a format once when the server already covers it', () => {
    assert.deepEqual(instructionsChoices(['edit-v3', 'whole-file']), [
      { format: 'edit-v3', optIn: false },
      { format: 'whole-file', optIn: false },
    ]);
  });
});

describe('responseBytes / humanBytes', () => {
  it('counts UTF-8 bytes, as the server does', () => {
    assert.equal(responseBytes('abc'), 3);
    assert.equal(responseBytes('«»'), 4);
    assert.equal(responseBytes('😀'), 4);
  });

  it('formats sizes for messages', () => {
    assert.equal(humanBytes(512), '512 B');
    assert.equal(humanBytes(2048), '2.0 KiB');
    assert.equal(humanBytes(50 * 1024 * 1024), '50.0 MiB');
  });
});
