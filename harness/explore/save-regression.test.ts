import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRunScenario } from '../scenario/parse-run-scenario.js';
import { readExpectations } from './regression-expectations.js';
import { saveRegression } from './save-regression.js';
import type { ScenarioDoc } from './scenario-doc.js';

const DOC: ScenarioDoc = {
  version: 1,
  name: 'Weather Calm',
  seed: 1,
  providers: [{ id: 'a', vendor: 'openai', models: ['m'], keys: [{ id: 'main', value: 'sk-sim-a' }] }],
  faults: [{ id: 'w1-hang', kind: 'hang', at: 100, for: 500, match: { provider: 'a' }, optional: true }],
  load: { duration: '2s', rate: 5 },
};

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'throttlelab-regression-'));
  dirs.push(d);
  return join(d, 'regressions');
};

describe('saveRegression', () => {
  it('writes <scenario>-<check>-seed<N>.yaml with the seed set, a header and what replay requires', () => {
    const dir = tempDir();
    const file = saveRegression(dir, { doc: DOC, seed: 42, checkId: 'retry-after', router: 'flawed', note: 'a test' });
    expect(file).toBe(join(dir, 'weather-calm-retry-after-seed42.yaml'));
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      '# A regression kept by throttlelab explore: check "retry-after" failed for router "flawed" at seed 42,',
      '# and the scenario was shrunk (fewer faults and providers, shorter and slower load) while it kept failing.',
      '# Found: a test',
      `# Replay (the reference router): throttlelab run ${file} --time simulated --seed 42`,
      '# npm test replays it (test/regressions/replay.test.ts) and requires:',
      '# expect: flawed FAIL retry-after',
      '# expect: reference PASS retry-after',
    ]);
    const parsed = parseRunScenario(text);
    expect(parsed.ok && parsed.scenario.seed).toBe(42);
    expect(parsed.ok && parsed.scenario.faults.map((f) => f.id)).toEqual(['w1-hang']);
    expect(readExpectations(text)).toEqual([
      { router: 'flawed', verdict: 'FAIL', checkId: 'retry-after' },
      { router: 'reference', verdict: 'PASS', checkId: 'retry-after' },
    ]);
  });

  it('requires only a PASS of the reference router when it was the one found failing', () => {
    const file = saveRegression(tempDir(), { doc: DOC, seed: 3, checkId: 'goodput', router: 'reference' });
    expect(readExpectations(readFileSync(file, 'utf8'))).toEqual([
      { router: 'reference', verdict: 'PASS', checkId: 'goodput' },
    ]);
  });
});
