import { describe, expect, it } from 'vitest';
import { handedOn, parsedChat, refused, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import { applyFaults } from './fault.js';

const HOUR = 3_600_000;

function withFault(fault: string) {
  const { engine, clock } = stageEngine(`
version: 1
name: stage-faults
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
faults:
  - ${fault}
`);
  return (at = 0) => applyFaults(parsedChat(engine, chatCall('openai'), clock.now() + at), engine.faults);
}

describe('applyFaults', () => {
  it('hands on an empty decision outside the fault window', () => {
    const attempt = handedOn(
      withFault('{ id: later, kind: status, at: 1m, match: { provider: openai }, status: 500 }')(),
    );
    expect(attempt.decision).toEqual({ ids: [] });
    expect(attempt.faults).toEqual([]);
  });

  it('hands latency on in the decision for the answer, noting the fault', () => {
    const attempt = handedOn(withFault('{ id: slow, kind: latency, match: { provider: openai }, ttft: 2s }')());
    expect(attempt.decision.ttft).toBeDefined();
    expect(attempt.faults).toEqual(['slow']);
  });

  it('refuses with a forced 503 as overloaded with no hint, beside the limits as they are', () => {
    const attempt = refused(withFault('{ id: down, kind: status, match: { provider: openai }, status: 503 }')());
    expect(attempt.refusal).toMatchObject({ kind: 'overloaded', status: 503, hint: undefined });
    expect(attempt.views.map((v) => v.remaining)).toEqual([3, 100000]);
    expect(attempt.shown).toBe(attempt.views);
    expect(attempt.faults).toEqual(['down']);
  });

  it('shows the shortest limit spent until the wait ends given a forced 429 in the vendor form', () => {
    const attempt = refused(withFault('{ id: f, kind: status, match: { provider: openai }, status: 429 }')());
    expect(attempt.refusal).toMatchObject({
      kind: 'rate_limited',
      hint: { ms: 1000, form: 'vendor' },
      violation: { metric: 'requests', limit: 3, used: 3, requested: 1 },
    });
    expect(attempt.views.map((v) => [v.remaining, v.resetInMs])).toEqual([
      [3, 0],
      [100000, 0],
    ]);
    expect(attempt.shown.map((v) => [v.remaining, v.resetInMs])).toEqual([
      [0, 1000],
      [100000, 0],
    ]);
  });

  it('leaves the limits as they are beside a forced 429 with a Retry-After form', () => {
    const fault =
      '{ id: f, kind: status, match: { provider: openai }, status: 429, hint: { form: seconds, after: 5s } }';
    const attempt = refused(withFault(fault)());
    expect(attempt.refusal.hint).toMatchObject({ ms: 5000, form: 'seconds' });
    expect(attempt.shown).toBe(attempt.views);
  });

  it('waits for a forced quota_exhausted until UTC midnight given no daily limit', () => {
    const fault = '{ id: wall, kind: status, match: { provider: openai }, status: 429, error: quota_exhausted }';
    const attempt = refused(withFault(fault)(HOUR));
    expect(attempt.refusal).toMatchObject({ kind: 'quota_exhausted', hint: { ms: 23 * HOUR, form: 'vendor' } });
  });
});
