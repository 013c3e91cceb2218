import { describe, expect, it } from 'vitest';
import { aggregateRuns } from './aggregate-runs.js';
import type { SeedCheck, SeedRun } from './seed-run.js';

const replay = (file: string, seed: number) => `replay ${file} ${seed}`;
const check = (id: string, verdict: SeedCheck['verdict'], figure = `${id} figure`): SeedCheck => ({
  id,
  verdict,
  figure,
});
function run(file: string, seed: number, checks: SeedCheck[], verdict?: 'inconclusive'): SeedRun {
  const failed = checks.some((c) => c.verdict === 'fail');
  return {
    file,
    seed,
    wallMs: 1,
    ok: true,
    scenario: `name of ${file}`,
    verdict: failed ? 'fail' : (verdict ?? 'pass'),
    checks,
    ...(verdict ? { inconclusive: ['fault x met no attempt'] } : {}),
  };
}

describe('aggregateRuns', () => {
  it('counts each check per verdict with a Wilson interval on the judged runs, skips left out', () => {
    const runs = [1, 2, 3, 4].map((seed) =>
      run('a.yaml', seed, [check('no-429', seed === 3 ? 'fail' : 'pass'), check('pace', 'skip')]),
    );
    const s = aggregateRuns(['a.yaml'], [1, 2, 3, 4], runs, replay);
    expect(s.scenarios[0]!.checks).toEqual([
      {
        id: 'no-429',
        counts: { pass: 3, fail: 1, inconclusive: 0, skip: 0 },
        passShare: {
          passes: 3,
          judged: 4,
          interval: { low: expect.closeTo(0.3006, 3), high: expect.closeTo(0.9544, 3) },
        },
      },
      { id: 'pace', counts: { pass: 0, fail: 0, inconclusive: 0, skip: 4 } },
    ]);
    expect(s.scenarios[0]!.failing).toEqual([{ seed: 3, why: 'no-429 (no-429 figure)', replay: 'replay a.yaml 3' }]);
    expect(s.verdict).toBe('fail');
  });

  it('orders scenarios and seeds as given, whatever order the runs finished in', () => {
    const runs = [run('b.yaml', 2, []), run('a.yaml', 2, []), run('b.yaml', 1, []), run('a.yaml', 1, [])].map((r) => ({
      ...r,
      checks: [check('c', 'fail', `seed ${r.seed}`)],
      verdict: 'fail' as const,
    }));
    const s = aggregateRuns(['b.yaml', 'a.yaml'], [2, 1], runs, replay);
    expect(s.scenarios.map((t) => [t.file, t.failing.map((f) => f.seed)])).toEqual([
      ['b.yaml', [2, 1]],
      ['a.yaml', [2, 1]],
    ]);
  });

  it('lists a run that broke as an error of its seed, and fails the sweep', () => {
    const broke: SeedRun = { file: 'a.yaml', seed: 7, wallMs: 5, ok: false, error: 'timed out after 5 ms' };
    const s = aggregateRuns(['a.yaml'], [7], [broke], replay);
    expect(s.scenarios[0]).toMatchObject({
      scenario: 'a',
      runs: { error: 1, pass: 0 },
      errors: [{ seed: 7, why: 'timed out after 5 ms', replay: 'replay a.yaml 7' }],
    });
    expect(s.verdict).toBe('fail');
  });

  it.each([
    ['every run passes', [run('a.yaml', 1, [check('c', 'pass')])], 'pass'],
    ['a run is inconclusive', [run('a.yaml', 1, [check('c', 'pass')], 'inconclusive')], 'inconclusive'],
    ['a seed never ran', [], 'inconclusive'],
  ] as const)('gives the sweep its verdict when %s', (_, runs, verdict) => {
    const s = aggregateRuns(['a.yaml'], [1], runs, replay);
    expect(s.verdict).toBe(verdict);
  });

  it('notes an inconclusive seed with its reasons', () => {
    const s = aggregateRuns(['a.yaml'], [4], [run('a.yaml', 4, [check('c', 'pass')], 'inconclusive')], replay);
    expect(s.scenarios[0]!.inconclusive).toEqual([
      { seed: 4, why: 'fault x met no attempt', replay: 'replay a.yaml 4' },
    ]);
    expect(s.totals).toEqual({ runs: 1, pass: 0, fail: 0, inconclusive: 1, interrupted: 0, error: 0, notRun: 0 });
  });
});
