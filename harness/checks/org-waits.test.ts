import { describe, expect, it } from 'vitest';
import { limited, outcome, row, T0 } from '../../test/helpers/evidence.js';
import { parseRunScenario } from '../scenario/parse-run-scenario.js';
import { checkRetryAfter } from './retry-after.js';

// OpenAI with two keys in org-a, one in org-b and one in no organisation (its own).
function orgs(expect = '') {
  const parsed = parseRunScenario(`version: 1
name: orgs
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini, gpt-4o]
    keys:
      - { id: a1, value: sk-a1, org: org-a }
      - { id: a2, value: sk-a2, org: org-a }
      - { id: b1, value: sk-b1, org: org-b }
      - { id: solo, value: sk-solo }
${expect}`);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.scenario;
}

const open = [outcome({ id: 'open', at: 0, endAt: T0 + 5000 })];
const judge = (rows: ReturnType<typeof row>[], scenario = orgs()) =>
  checkRetryAfter({ rows, outcomes: open, scenario });
const orgWait = (p: Parameters<typeof limited>[2] = {}) =>
  limited(0, 2000, { key: 'a1', correlationId: 'x', scope: 'org', org: 'org-a', ...p });

describe('retry-after on a wait announced for an organisation', () => {
  it('fails an attempt on another key of the organisation inside the wait, naming both keys and the organisation', () => {
    const r = judge([orgWait(), row({ at: 1000, key: 'a2', correlationId: 'y' })]);
    expect(r).toMatchObject({ verdict: 'fail', violations: 1, value: 1000 });
    expect(r.evidence[0]).toMatchObject({ correlationId: 'y', key: 'a2' });
    expect(r.evidence[0]!.detail).toMatch(
      /^arrived 1000 ms before the end of a 2000 ms wait announced by attempt #\d+ \(seconds\) on key a1 for organisation org-a, which key a2 shares; 1000 ms into it$/,
    );
  });

  it('fails the request that drew the wait when it fails over to a sibling key at once', () => {
    expect(judge([orgWait(), row({ at: 3, key: 'a2', correlationId: 'x' })]).verdict).toBe('fail');
  });

  it("counts another request's attempt on a sibling key as a race within the tolerance, as on the key itself", () => {
    const r = judge([orgWait(), row({ at: 5, key: 'a2', correlationId: 'y' })]);
    expect(r).toMatchObject({ verdict: 'pass', details: { races: 1 } });
  });

  it('leaves keys of another organisation, keys of none, other models and other providers unjudged', () => {
    const rows = [
      orgWait(),
      row({ at: 1000, key: 'b1' }),
      row({ at: 1000, key: 'solo' }),
      row({ at: 1000, key: 'a2', model: 'gpt-4o' }),
      row({ at: 1000, key: 'a2', provider: 'groq' }),
      row({ at: 2500, key: 'a2' }),
    ];
    expect(judge(rows)).toMatchObject({ verdict: 'pass', violations: 0 });
  });

  it('covers every model of the organisation when waits are judged per key', () => {
    const rows = [orgWait(), row({ at: 1000, key: 'a2', model: 'gpt-4o' })];
    expect(judge(rows, orgs('expect: { retryAfter: { scope: key } }')).verdict).toBe('fail');
  });

  it("reads a wait without a scope (an older ledger) or scoped to the key as the key's alone", () => {
    const sibling = row({ at: 1000, key: 'a2' });
    expect(judge([orgWait({ scope: undefined, org: undefined }), sibling]).verdict).toBe('pass');
    expect(judge([orgWait({ scope: 'key', org: undefined }), sibling]).verdict).toBe('pass');
    expect(judge([orgWait({ scope: undefined, org: undefined }), row({ at: 1000, key: 'a1' })]).verdict).toBe('fail');
  });

  it('never counts an attempt that arrived before the one that drew the wait, even at the same instant', () => {
    // Simulated time: a1's attempt and its failover to a2 share an instant; a2's came first.
    const sibling = row({ at: 0, key: 'a2', correlationId: 'x', status: 429 });
    expect(judge([sibling, orgWait()])).toMatchObject({ verdict: 'pass', violations: 0 });
  });

  it('counts an attempt inside both a key wait and its organisation wait once', () => {
    const rows = [orgWait(), limited(100, 2000, { key: 'a2', correlationId: 'z' }), row({ at: 1000, key: 'a2' })];
    // The 429 on a2 at 100 ms broke a1's organisation wait, and the attempt at 1 s broke both waits: once.
    expect(judge(rows).violations).toBe(2);
  });
});
