import { describe, expect, it } from 'vitest';
import type { FleetFacts } from '../core/fleet.js';
import { encodeReport, fleetMessageDecoder } from './fleet-message.js';

const LIMITS: FleetFacts['limits'] = [
  ['p/k/m', { requests: { limit: 60, remaining: 5, resetAt: 1000, observedAt: 900 }, refill: 'window' }],
];
const facts = (f: Partial<FleetFacts>): FleetFacts => ({ limits: [], budget: [], usage: [], ...f });

describe('encodeReport', () => {
  it('sends limits, in-flight counts and budget counts under short names', () => {
    const text = encodeReport('r1', facts({ limits: LIMITS, held: [['p/k/m', 2, 300]], budget: [[0, 4, 1]] }));
    expect(JSON.parse(text!)).toEqual({ r: 'r1', l: LIMITS, h: [['p/k/m', 2, 300]], b: [[0, 4, 1]] });
  });

  it('sends in-flight counts that fell to none', () => {
    expect(encodeReport('r1', facts({ held: [] }))).toBe('{"r":"r1","h":[]}');
  });

  it('sends nothing given no news (usage is written to Redis, not sent)', () => {
    expect(encodeReport('r1', facts({ usage: [['p/k/m', { 'attempts.ok': 3 }]] }))).toBeUndefined();
  });
});

describe('fleetMessageDecoder', () => {
  const decode = fleetMessageDecoder('r1');

  it('reads a circuit change', () => {
    expect(decode('{"c":"limit:p/k/m","v":"7|{}"}')).toEqual({ kind: 'circuit', scope: 'limit:p/k/m', value: '7|{}' });
  });

  it("reads another replica's report, with missing members as none", () => {
    expect(decode(encodeReport('r2', facts({ limits: LIMITS }))!)).toEqual({
      kind: 'report',
      from: 'r2',
      facts: { limits: LIMITS, held: undefined, budget: [], usage: [] },
    });
  });

  it('round-trips a report through the channel', () => {
    const sent = facts({ limits: LIMITS, held: [['p/k/m', 1, 10]], budget: [[5, 1, 0]] });
    expect(decode(encodeReport('r2', sent)!)).toEqual({ kind: 'report', from: 'r2', facts: sent });
  });

  it.each([
    ['its own report', encodeReport('r1', facts({ limits: LIMITS }))!],
    ['its own report spelled otherwise', '{"b":[],"r":"r1"}'],
    ['text that is not JSON', 'not json'],
    ['a message of someone else', '{"hello":1}'],
  ])('ignores %s', (_name, message) => {
    expect(decode(message)).toBeUndefined();
  });
});
