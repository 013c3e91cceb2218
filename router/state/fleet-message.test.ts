import { describe, expect, it } from 'vitest';
import type { FleetFacts } from '../core/fleet.js';
import { DEFAULT_FLEET_BOUNDS } from './fleet-bounds.js';
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
  const NOW = 1_000_000;
  const DAY = 86_400_000;
  const decode = fleetMessageDecoder('r1', { ...DEFAULT_FLEET_BOUNDS, maxOpenMs: 60_000 }, () => NOW);

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
  ])('ignores %s', (_name, message) => {
    expect(decode(message)).toBeUndefined();
  });

  it.each([
    ['text that is not JSON', 'not json'],
    ['a message of someone else', '{"hello":1}'],
    ['a circuit with a scope that is not a string', '{"c":1,"v":"1|{}"}'],
    ['in-flight counts of the wrong type', '{"r":"r2","h":"many"}'],
    ['a negative in-flight count', '{"r":"r2","h":[["p/k/m",-5,0]]}'],
    ['an infinite token count (1e999)', '{"r":"r2","h":[["p/k/m",1,1e999]]}'],
    [
      'a limit with remaining as text',
      '{"r":"r2","l":[["p/k/m",{"refill":"window","requests":{"limit":1,"remaining":"NaN","resetAt":1,"observedAt":1}}]]}',
    ],
    ['a report from no one', '{"r":"","b":[]}'],
    ['a report from a name 10,000 characters long', JSON.stringify({ r: 'x'.repeat(10_000), b: [] })],
  ])('rejects %s, saying why without repeating it', (_name, message) => {
    const m = decode(message);
    expect(m?.kind).toBe('invalid');
    expect(JSON.stringify(m)).not.toContain(message.slice(0, 40));
  });

  it('holds a limit reset 3650 days away to maxOpenFor, and an observation from the future to now', () => {
    const far = NOW + 3650 * DAY;
    const message = JSON.stringify({
      r: 'r2',
      l: [['p/k/m', { refill: 'window', requests: { limit: 60, remaining: 0, resetAt: far, observedAt: far } }]],
    });
    expect(decode(message)).toEqual({
      kind: 'report',
      from: 'r2',
      facts: facts({
        limits: [
          [
            'p/k/m',
            { refill: 'window', requests: { limit: 60, remaining: 0, resetAt: NOW + 60_000, observedAt: NOW } },
          ],
        ],
      }),
    });
  });

  it('drops retry-budget counts for a bucket from the future and bounds absurd counts', () => {
    const message = JSON.stringify({
      r: 'r2',
      b: [
        [NOW + 3650 * DAY, 1, 1],
        [NOW - 1000, 5, 1e300],
      ],
      h: [['t', 1e300, 1e300]],
    });
    const m = decode(message);
    expect(m).toMatchObject({
      kind: 'report',
      facts: { budget: [[NOW - 1000, 5, 1_000_000]], held: [['t', 1_000_000, 1e12]] },
    });
  });
});
