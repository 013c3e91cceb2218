import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamMarks, VENDOR_ERROR_TEXT } from './upstream-marks.js';
import { stableUuid } from './wire-format.js';

describe('upstreamMarks', () => {
  it('names each key, each organisation as its vendor writes it, then the other forms, and the fault messages', () => {
    const marks = upstreamMarks(
      [
        { id: 'openai', vendor: 'openai', keys: [{ id: 'main', value: 'sk-test-0001' }] },
        { id: 'anthropic', vendor: 'anthropic', keys: [{ id: 'k2', org: 'acme', env: 'ANTHROPIC_KEY' }] },
        { id: 'groq', vendor: 'groq', keys: [{ id: 'main', value: 'gsk-test-0001' }] },
      ] as never,
      [{ kind: 'status', match: { provider: 'openai' }, message: 'Our shard 7 is melting down.' }] as never,
    );
    expect(marks.filter((m) => m.kind !== 'error-text')).toEqual([
      { provider: 'openai', kind: 'key', value: 'sk-test-0001' },
      { provider: 'openai', kind: 'org', value: 'org-main' },
      { provider: 'anthropic', kind: 'org', value: stableUuid('acme') },
      { provider: 'groq', kind: 'key', value: 'gsk-test-0001' },
      { provider: 'groq', kind: 'org', value: 'org_main' },
      // The forms no vendor of the scenario writes, still leaks but of "a provider".
      { provider: '*', kind: 'org', value: stableUuid('main') },
      { provider: '*', kind: 'org', value: 'org-acme' },
      { provider: '*', kind: 'org', value: 'org_acme' },
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
