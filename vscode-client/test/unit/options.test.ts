import { strict as assert } from 'assert';
import {
  ALL_FORMATS,
  DEFAULT_MAX_RESPONSE_BYTES,
  humanBytes,
  normalizeSettings,
  responseBytes,
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
      formats: [...ALL_FORMATS],
      saveAfterApply: false,
      stageInGit: false,
      confirmEachBlock: false,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
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
      maxResponseSize: 1024,
    });
    assert.equal(settings.interpreter, '/usr/bin/python3.12');
    assert.equal(settings.matching, 'whitespace');
    assert.equal(settings.atomic, true);
    assert.deepEqual(settings.formats, ['edit-v3', 'unified-diff']);
    assert.equal(settings.saveAfterApply, true);
    assert.equal(settings.stageInGit, true);
    assert.equal(settings.confirmEachBlock, true);
    assert.equal(settings.maxResponseBytes, 1024);
  });

  it('drops unknown or duplicate formats, and never ends with none', () => {
    assert.deepEqual(normalizeSettings({ formats: ['edit-v3', 'nope', 'edit-v3', 3] }).formats, ['edit-v3']);
    assert.deepEqual(normalizeSettings({ formats: ['nope'] }).formats, [...ALL_FORMATS]);
    assert.deepEqual(normalizeSettings({ formats: 'edit-v3' }).formats, [...ALL_FORMATS]);
  });

  it('rejects unusable values instead of passing them to the server', () => {
    const settings = normalizeSettings({ matching: 'fuzzy', atomic: 'yes', confirmEachBlock: 1, maxResponseSize: -5 });
    assert.equal(settings.matching, 'exact');
    assert.equal(settings.atomic, false);
    assert.equal(settings.confirmEachBlock, false);
    assert.equal(settings.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
    assert.equal(normalizeSettings({ maxResponseSize: 10.7 }).maxResponseBytes, 10);
    assert.equal(normalizeSettings({ maxResponseSize: Number.NaN }).maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  });
});

describe('toCommandOptions', () => {
  it('sends matching and atomic, and formats only when they restrict', () => {
    assert.deepEqual(toCommandOptions(normalizeSettings({})), { matching: 'exact', atomic: false });
    assert.deepEqual(toCommandOptions(normalizeSettings({ formats: ['apply-patch'], atomic: true })), {
      matching: 'exact',
      atomic: true,
      formats: ['apply-patch'],
    });
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
});

describe('toInitializationOptions', () => {
  it('carries the defaults and the response size limit under the server\'s key', () => {
    assert.deepEqual(toInitializationOptions(normalizeSettings({ maxResponseSize: 2048, formats: ['edit-v2'] })), {
      matching: 'exact',
      atomic: false,
      formats: ['edit-v2'],
      maxResponseBytes: 2048,
    });
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
