import { describe, expect, it } from 'vitest';
import type { SeedRun } from './seed-run.js';
import { seedVerdicts } from './seed-verdicts.js';

const ok = (file: string, seed: number, verdict: 'pass' | 'fail' | 'inconclusive'): SeedRun => ({
  file,
  seed,
  wallMs: 1,
  ok: true,
  scenario: file.replace('.yaml', ''),
  verdict,
  checks: [{ id: 'goodput', verdict: verdict === 'fail' ? 'fail' : 'pass', figure: '77.5 %' }],
});

describe('seedVerdicts', () => {
  it.each([
    ['every scenario passes', [ok('a.yaml', 1, 'pass'), ok('b.yaml', 1, 'pass')], 'pass', 2, [], []],
    ['one fails a check', [ok('a.yaml', 1, 'fail'), ok('b.yaml', 1, 'pass')], 'fail', 1, ['a: goodput (77.5 %)'], []],
    [
      'one is inconclusive',
      [ok('a.yaml', 1, 'inconclusive'), ok('b.yaml', 1, 'pass')],
      'inconclusive',
      1,
      [],
      ['a: inconclusive'],
    ],
    ['one never ran', [ok('a.yaml', 1, 'pass')], 'inconclusive', 1, [], []],
    [
      'one broke',
      [{ file: 'dir/a.yaml', seed: 1, wallMs: 1, ok: false, error: 'timed out' } as SeedRun, ok('b.yaml', 1, 'pass')],
      'fail',
      1,
      ['a.yaml: error: timed out'],
      [],
    ],
  ] as const)('gives a seed its verdict when %s', (_, runs, verdict, passed, problems, unsure) => {
    expect(seedVerdicts([1], 2, runs)).toEqual([{ seed: 1, verdict, passed, ran: runs.length, problems, unsure }]);
  });

  it('keeps the seeds in the order given, each with its own runs', () => {
    const v = seedVerdicts([3, 1], 1, [ok('a.yaml', 1, 'fail'), ok('a.yaml', 3, 'pass')]);
    expect(v.map((s) => [s.seed, s.verdict])).toEqual([
      [3, 'pass'],
      [1, 'fail'],
    ]);
  });
});
