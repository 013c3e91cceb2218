import { describe, expect, it } from 'vitest';
import { aggregateRuns } from './aggregate-runs.js';
import { renderExploreHtml } from './render-explore-html.js';
import { renderExploreText } from './render-explore-text.js';
import type { SeedRun } from './seed-run.js';

const runs: SeedRun[] = [1, 2, 3].map((seed) => ({
  file: 'pack/10-hold.yaml',
  seed,
  wallMs: 10,
  ok: true,
  scenario: 'hold',
  verdict: seed === 2 ? 'fail' : 'pass',
  checks: [
    { id: 'goodput', verdict: seed === 2 ? 'fail' : 'pass', figure: seed === 2 ? '77.5 %' : '99 %' },
    { id: 'no-429', verdict: 'skip', figure: 'no 429' },
  ],
}));
const broke: SeedRun = { file: 'pack/11-new.yaml', seed: 1, wallMs: 5, ok: false, error: 'timed out after 5 ms' };
const summary = aggregateRuns(
  ['pack/10-hold.yaml', 'pack/11-new.yaml'],
  [1, 2, 3],
  [...runs, broke],
  (f, s) => `throttlelab run ${f} --seed ${s}`,
);

describe('renderExploreText', () => {
  it('prints counts and intervals per check, then each failing and broken seed with its replay line', () => {
    expect(renderExploreText(summary)).toMatchInlineSnapshot(`
      "  hold: 3 runs, 2 pass, 1 fail, 0 inconclusive
          goodput  PASS 2  FAIL 1  INCONCL 0  SKIP 0           pass 66.7 % [20.8 %, 93.9 %]
          no-429   PASS 0  FAIL 0  INCONCL 0  SKIP 3           nothing judged
        11-new: 1 run, 0 pass, 0 fail, 0 inconclusive, 1 error, 2 not run

      failing seeds (1):
        hold seed 2: goodput (77.5 %)
          throttlelab run pack/10-hold.yaml --seed 2

      errors (1):
        11-new seed 1: timed out after 5 ms
          throttlelab run pack/11-new.yaml --seed 1

      explore: FAIL: 2 of 6 runs pass (1 fail, 0 inconclusive, 1 error, 2 not run)"
    `);
  });
});

describe('renderExploreHtml', () => {
  it('escapes what a scenario wrote', () => {
    const html = renderExploreHtml(
      { ...summary, scenarios: [{ ...summary.scenarios[0]!, scenario: '<script>x</script>' }] },
      { router: 'r', generatedAt: 't' },
    );
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).not.toContain('<script>x');
  });
});
