import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunScenarioFile as loadScenarioFile } from '../../harness/scenario/parse-run-scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

describe('shipped scenarios', () => {
  it('include the quickstart and the realistic ones', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'quickstart.yaml',
        'openai-tpm-squeeze.yaml',
        'anthropic-529-storm.yaml',
        'gemini-daily-quota-wall.yaml',
      ]),
    );
  });

  it.each(files)('%s validates with no issues', async (file) => {
    const r = await loadScenarioFile(join(DIR, file));
    expect(r.ok ? [] : r.report.split('\n')).toEqual([]);
  });
});

describe('the conformance pack', () => {
  const PACK = join(DIR, 'conformance');
  const pack = readdirSync(PACK).filter((f) => f.endsWith('.yaml'));

  // An optional fault may match nothing without a word, and then it checks nothing: every fault of
  // the pack is designed to reach the reference router in every run (see each scenario's comments).
  it.each(pack)('%s marks no fault optional', async (file) => {
    const r = await loadScenarioFile(join(PACK, file));
    if (!r.ok) throw new Error(r.report);
    expect(r.scenario.faults.filter((f) => f.optional === true).map((f) => f.id)).toEqual([]);
  });
});
