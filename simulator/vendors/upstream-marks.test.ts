import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamMarks, VENDOR_ERROR_TEXT } from './upstream-marks.js';
import { stableUuid } from './wire-format.js';

describe('upstreamMarks', () => {
  it('names each key, each organisation as the vendors write it, and the fault messages', () => {
    const marks = upstreamMarks(
      [
        { id: 'openai', keys: [{ id: 'main', value: 'sk-test-0001' }] },
        { id: 'anthropic', keys: [{ id: 'k2', org: 'acme', env: 'ANTHROPIC_KEY' }] },
      ] as never,
      [{ kind: 'status', match: { provider: 'openai' }, message: 'Our shard 7 is melting down.' }] as never,
    );
    expect(marks.filter((m) => m.kind !== 'error-text')).toEqual([
      { provider: 'openai', kind: 'key', value: 'sk-test-0001' },
      { provider: 'openai', kind: 'org', value: 'org-main' },
      { provider: 'openai', kind: 'org', value: 'org_main' },
      { provider: 'openai', kind: 'org', value: stableUuid('main') },
      { provider: 'anthropic', kind: 'org', value: 'org-acme' },
      { provider: 'anthropic', kind: 'org', value: 'org_acme' },
      { provider: 'anthropic', kind: 'org', value: stableUuid('acme') },
    ]);
    expect(marks.at(-1)).toEqual({ provider: 'openai', kind: 'error-text', value: 'Our shard 7 is melting down.' });
  });

  it('quotes only error text that a vendor encoder of the simulator writes', () => {
    const dir = import.meta.dirname;
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'upstream-marks.ts')
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    for (const text of VENDOR_ERROR_TEXT) expect(sources, text).toContain(text);
  });
});
