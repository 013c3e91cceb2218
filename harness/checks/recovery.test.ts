import { describe, expect, it } from 'vitest';
import { input, outcome, row, world } from '../../test/helpers/evidence.js';
import { checkRecovery } from './recovery.js';

// openai is down from 1 s to 3 s; the load sends "auto" requests every 500 ms for 20 s.
const scenario = world(
  'faults:\n  - { id: down, kind: status, at: 1s, for: 2s, match: { provider: openai }, status: 503 }\n',
);
const load = Array.from({ length: 40 }, (_, i) => outcome({ id: `r${i}`, at: i * 500 }));
const used = (...at: number[]) => at.map((t) => row({ at: t }));

describe('checkRecovery', () => {
  it('passes when the router came back to the provider within the bound after it reopened', () => {
    const r = checkRecovery({ ...input({ outcomes: load, rows: used(0, 500, 5000, 5500) }), scenario });
    expect(r).toMatchObject({ verdict: 'pass', figure: 'came back after 1 reopening; slowest 2000 ms after it' });
  });

  it('fails when the router never came back while requests it could serve kept coming', () => {
    const r = checkRecovery({ ...input({ outcomes: load, rows: used(0, 500) }), scenario });
    expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
    expect(r.evidence[0]!.detail).toMatch(
      /^openai could serve again 3000 ms into the run .*the router never came back, past 10000 ms, while clients sent 20 requests it could serve$/,
    );
  });

  it('fails when it came back only after the bound', () => {
    const r = checkRecovery({ ...input({ outcomes: load, rows: used(0, 500, 14_000) }), scenario });
    expect(r.evidence[0]!.detail).toMatch(/the router came back 11000 ms later, past 10000 ms/);
  });

  it('skips when the load stopped needing the provider before the bound, or the router never used it', () => {
    const short = load.slice(0, 20);
    expect(checkRecovery({ ...input({ outcomes: short, rows: used(0, 500) }), scenario })).toMatchObject({
      verdict: 'skip',
      reason: 'no provider the router had used reopened with requests for it still coming 10000 ms later',
    });
    expect(checkRecovery({ ...input({ outcomes: load, rows: used(5000) }), scenario }).verdict).toBe('skip');
  });
});
