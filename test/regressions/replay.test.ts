import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectationsOf, replayRegression } from './replay-regression.js';

const DIR = import.meta.dirname;
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('saved regressions (throttlelab explore --save)', () => {
  it('holds at least one saved regression, each with an expectation', () => {
    expect(FILES.length).toBeGreaterThan(0);
    for (const f of FILES) expect(expectationsOf(join(DIR, f)), f).not.toEqual([]);
  });

  for (const f of FILES) {
    for (const e of expectationsOf(join(DIR, f))) {
      it(`${f}: ${e.router} gets ${e.verdict} on ${e.checkId}`, { timeout: 30_000 }, async () => {
        const { check } = await replayRegression(join(DIR, f), e);
        expect(check, `no check ${e.checkId}`).toBeDefined();
        expect(`${check!.verdict}: ${check!.figure}`).toMatch(new RegExp(`^${e.verdict.toLowerCase()}:`));
      });
    }
  }
});
