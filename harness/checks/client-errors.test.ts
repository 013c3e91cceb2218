import { describe, expect, it } from 'vitest';
import { input, outcome, row, T0 } from '../../test/helpers/evidence.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createRequestPlanner } from '../load/request-plan.js';
import { checkClientErrors } from './client-errors.js';

// A load that makes about one request in four invalid: a prompt past the provider's context window.
const scenario = scenarioFrom(`version: 1
name: invalid
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-a }, { id: second, value: sk-b }], options: { contextWindow: 1000 } }
load:
  duration: 1s
  rate: 20
  requests: { invalid: { share: 0.25, promptTokens: 2000 } }
`);
const plan = createRequestPlanner(scenario.load!, 3, 'r3');
const planned = Array.from({ length: 20 }, (_, n) => plan(n));
const invalid = planned.filter((p) => p.invalid);
const valid = planned.filter((p) => !p.invalid);
const refused = (id: string, p: Parameters<typeof row>[0] = {}) =>
  row({ correlationId: id, status: 400, errorType: 'invalid_request_error', tokensOut: 0, ...p });

/** Each invalid request refused once and answered 400 at once, unless `p` overrides. */
function judge(p: (id: string) => { rows?: ReturnType<typeof row>[]; status?: number; endAt?: number } = () => ({})) {
  const rows = [];
  const outcomes = [];
  for (const q of invalid) {
    const o = p(q.id);
    rows.push(...(o.rows ?? [refused(q.id)]));
    outcomes.push(outcome({ id: q.id, status: o.status ?? 400, endAt: o.endAt ?? T0 + 30 }));
  }
  for (const q of valid) outcomes.push(outcome({ id: q.id }));
  return checkClientErrors({ ...input({ rows, outcomes, scenario }), seed: 3 });
}

describe('checkClientErrors', () => {
  it('passes when every invalid request got the provider’s 400 at once after one attempt', () => {
    expect(invalid.length).toBeGreaterThan(1);
    expect(judge()).toMatchObject({ verdict: 'pass', violations: 0 });
  });

  it('passes a router that refuses the request itself, sending nothing', () => {
    expect(judge(() => ({ rows: [] })).verdict).toBe('pass');
  });

  it('fails a request retried on another key, answered 503, or held past the tolerance', () => {
    const retried = judge((id) => ({ rows: [refused(id), refused(id, { at: 5, key: 'second' })], status: 502 }));
    expect(retried).toMatchObject({ verdict: 'fail', details: expect.objectContaining({ retried: invalid.length }) });
    expect(retried.evidence[0]!.detail).toBe(
      'invalid request: 2 attempts on 1 provider (openai); client got status 502, the provider said 400',
    );
    expect(judge(() => ({ status: 503 })).details).toMatchObject({ wrongStatus: invalid.length, retried: 0 });
    const late = judge(() => ({ endAt: T0 + 2000 }));
    expect(late).toMatchObject({ verdict: 'fail', timing: { toleranceMs: 500 } });
    expect(late.evidence[0]!.detail).toBe('invalid request: answered 1980 ms after the refusal');
  });

  it('skips, saying why, when the load sent no invalid request or the seed is unknown', () => {
    expect(checkClientErrors(input({ outcomes: [outcome()] }))).toMatchObject({
      verdict: 'skip',
      reason: 'the load sent no request invalid on its face',
    });
    expect(checkClientErrors(input({ outcomes: [outcome()], scenario }))).toMatchObject({
      verdict: 'skip',
      reason: 'the run’s seed is unknown, so which requests were invalid is too',
    });
  });
});
