import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../simulator/index.js';
import { parseRunScenario } from '../scenario/parse-run-scenario.js';

const base = (router: string, faults: string) => `version: 1
name: fleet
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-1 }] }
router: ${router}
faults:
${faults}
load: { rate: 10, duration: 5s }
`;

describe('fleet scenarios', () => {
  it('reads replicas, store, spread and redis faults, leaving the simulator only its own faults', () => {
    const r = parseRunScenario(
      base(
        '{ kind: reference, replicas: 3, store: redis, spread: skewed }',
        `  - { id: burst, kind: status, status: 429, at: 2s, match: { firstN: 1 } }
  - { id: redis-down, kind: redis, at: 3s, for: 5s }
  - { id: wiped, kind: redis, at: 9s, mode: restart }`,
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.scenario.router).toMatchObject({
      kind: 'reference',
      replicas: 3,
      store: 'redis',
      spread: 'skewed',
      skew: 0.8,
    });
    expect(r.scenario.faults.map((f) => f.id)).toEqual(['burst']);
    expect(r.scenario.redisFaults).toEqual([
      { id: 'redis-down', kind: 'redis', at: 3000, for: 5000, mode: 'down', index: 1 },
      { id: 'wiped', kind: 'redis', at: 9000, mode: 'restart', index: 2 },
    ]);
  });

  it('locates every problem where it is, redis faults between the simulator’s included', () => {
    const text = base(
      '{ kind: reference, replicas: 2 }',
      `  - { id: down, kind: redis, at: 1s }
  - { id: burst, kind: status, status: 429, match: { provider: nope } }
  - { id: down, kind: redis, mode: pause }`,
    );
    const r = parseRunScenario(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatIssues('fleet.yaml', r.issues)).toMatchInlineSnapshot(`
      "fleet.yaml:7:5 SCENARIO_MISSING_FIELD faults[0]: a redis "down" fault needs "for" (how long Redis is down)
      fleet.yaml:7:23 SCENARIO_INVALID_VALUE faults[0].kind: a redis fault needs the router to share its state through Redis: set router.store: redis (the harness starts that Redis and plays the fault on it)
      fleet.yaml:8:64 SCENARIO_UNKNOWN_REFERENCE faults[1].match.provider: no provider "nope" (have: openai)
      fleet.yaml:9:5 SCENARIO_MISSING_FIELD faults[2]: a redis "pause" fault needs "for" (how long Redis is paused)
      fleet.yaml:9:11 SCENARIO_DUPLICATE_ID faults[2].id: fault id "down" is used twice
      fleet.yaml:9:23 SCENARIO_INVALID_VALUE faults[2].kind: a redis fault needs the router to share its state through Redis: set router.store: redis (the harness starts that Redis and plays the fault on it)"
    `);
  });
});
